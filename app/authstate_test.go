package app_test

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sqlite3 "github.com/ncruces/go-sqlite3"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/app"
	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/mysql"
	"github.com/relchain/relchain/backend/mysql/mysqltest"
	"github.com/relchain/relchain/backend/postgres"
	"github.com/relchain/relchain/backend/postgres/pgtest"
	"github.com/relchain/relchain/backend/sqlite"
	"github.com/relchain/relchain/protocol"
	"github.com/relchain/relchain/txn"
)

// authStores are the storages whose rows have canonical form: PostgreSQL's
// SQL on SQLite and on PostgreSQL, each a database a test can reopen.
func authStores() []store {
	return []store{
		{"sqlite", func() func(t *testing.T) backend.Backend {
			var path string
			return func(t *testing.T) backend.Backend {
				if path == "" {
					path = filepath.Join(t.TempDir(), "relchain.db")
				}
				b, err := sqlite.Open(context.Background(), path, sqlite.WithPostgresDialect())
				if err != nil {
					t.Fatalf("open sqlite: %v", err)
				}
				return b
			}
		}()},
		{"postgres", func() func(t *testing.T) backend.Backend {
			var dsn string
			return func(t *testing.T) backend.Backend {
				if dsn == "" {
					dsn = pgtest.DSN(t)
				}
				b, err := postgres.Open(context.Background(), dsn)
				if err != nil {
					t.Fatalf("open postgres: %v", err)
				}
				return b
			}
		}()},
	}
}

// authParams are a network's parameters in PostgreSQL's SQL at protocol
// version v.
func authParams(s store, v uint64) app.Params {
	p := app.DefaultParams()
	p.ProtocolVersion, p.Backend = v, s.dialect
	if s.dialect == "sqlite" {
		p.SQLDialect, p.SQLDialectVersion = "postgres", 1
	}
	return p
}

// checkTablesRoot checks that the executor's committed tables root is the
// one the committed rows give, rebuilt from scratch.
func checkTablesRoot(t *testing.T, f *fixture, when string) [32]byte {
	t.Helper()
	got, h, ok := f.ex.TablesRoot()
	if !ok {
		t.Fatalf("%s: no tables root at height %d", when, h)
	}
	want, err := app.AuthenticatedRoot(context.Background(), f.be)
	if err != nil {
		t.Fatalf("%s: rebuild: %v", when, err)
	}
	if got != want {
		t.Fatalf("%s (height %d): the executor's tables root %X, the rows give %X", when, h, got, want)
	}
	return got
}

// authWorkload is a seeded random mix of txs over tables with single and
// composite keys of several types, a table without a primary key, key
// changes, deletes and txs that fail.
type authWorkload struct {
	r *rand.Rand
	f *fixture
}

func (w *authWorkload) schema() []byte {
	return w.f.tx(
		stmt("CREATE TABLE acct (id int8 PRIMARY KEY, name text NOT NULL, bal numeric(12,2))"),
		stmt("CREATE TABLE pair (a int4, b text, at timestamp, PRIMARY KEY (a, b))"),
		stmt("CREATE TABLE loose (x int4, y text)"),
	)
}

func (w *authWorkload) stmt() txn.Statement {
	id := w.r.Int63n(40)
	switch w.r.Intn(9) {
	case 0, 1:
		return stmt("INSERT INTO acct VALUES ($1, $2, $3) ON CONFLICT (id) DO UPDATE SET bal = acct.bal + 1", txn.Int(id), txn.Text(fmt.Sprint("n", id)), txn.Text(fmt.Sprintf("%d.%02d", w.r.Intn(1000), w.r.Intn(100))))
	case 2:
		return stmt("UPDATE acct SET bal = bal * 2, name = name || 'x' WHERE id % 5 = $1", txn.Int(id%5))
	case 3:
		return stmt("UPDATE acct SET id = id + 100 WHERE id = $1", txn.Int(id))
	case 4:
		return stmt("DELETE FROM acct WHERE id = $1", txn.Int(id))
	case 5:
		return stmt("INSERT INTO pair VALUES ($1, $2, '2026-12-04 10:00:00') ON CONFLICT DO NOTHING", txn.Int(id%7), txn.Text(fmt.Sprint("k", id%3)))
	case 6:
		return stmt("UPDATE pair SET b = b || 'y', at = at + interval '1 day' WHERE a = $1", txn.Int(id%7))
	case 7:
		return stmt("INSERT INTO loose VALUES ($1, 'z')", txn.Int(id))
	}
	return stmt("INSERT INTO acct VALUES (1, NULL, 0)") // fails: NOT NULL
}

func (w *authWorkload) block() [][]byte {
	txs := make([][]byte, 1+w.r.Intn(4))
	for i := range txs {
		stmts := make([]txn.Statement, 1+w.r.Intn(3))
		for j := range stmts {
			stmts[j] = w.stmt()
		}
		txs[i] = w.f.tx(stmts...)
	}
	return txs
}

// Under protocol version 4 the executor's tables root after every block is
// the one a rebuild from the committed rows gives (a random workload of
// inserts, upserts, key changes, deletes and failing txs, on SQLite and
// PostgreSQL); the AppHash commits to it, and a node that restarts rebuilds
// the same root and accepts its database.
func TestAuthenticatedStateFollowsEveryBlock(t *testing.T) {
	for _, s := range authStores() {
		t.Run(s.dialect, func(t *testing.T) {
			f := mustNewFixture(t, s, authParams(s, protocol.V4))
			f.dialect = "postgres"
			w := &authWorkload{r: rand.New(rand.NewSource(36)), f: f}
			res, _ := f.block(w.schema())
			if res[0].Code != api.CodeOK {
				t.Fatalf("schema: %d %s", res[0].Code, res[0].Log)
			}
			checkTablesRoot(t, f, "after the schema")
			failed := 0
			for b := 0; b < 30; b++ {
				res, _ := f.block(w.block()...)
				for _, r := range res {
					if r.Code != api.CodeOK {
						failed++
					}
				}
				checkTablesRoot(t, f, fmt.Sprint("block ", b))
			}
			if failed == 0 {
				t.Fatal("no tx failed: the workload does not exercise failures")
			}
			root := checkTablesRoot(t, f, "end")
			restartWithRoot(t, f, s, authParams(s, protocol.V4), root)
		})
	}
}

// A block the executor speculated and then discarded for another leaves
// nothing in the authenticated state: the block decided instead starts
// from the committed trees.
func TestDiscardedSpeculationLeavesTheTreesAlone(t *testing.T) {
	for _, s := range authStores() {
		t.Run(s.dialect, func(t *testing.T) {
			ctx := context.Background()
			f := mustNewFixture(t, s, authParams(s, protocol.V4))
			f.dialect = "postgres"
			w := &authWorkload{r: rand.New(rand.NewSource(7)), f: f}
			f.block(w.schema())
			f.block(f.tx(stmt("INSERT INTO acct VALUES (1, 'a', 1), (2, 'b', 2)")))
			h := f.ex.State().Height + 1
			spec := blockInfo(h)
			spec.Hash = []byte("another proposal")
			if err := f.ex.Speculate(ctx, spec, [][]byte{f.tx(stmt("DELETE FROM acct WHERE id = 1"), stmt("INSERT INTO acct VALUES (3, 'c', 3)"))}, time.Minute); err != nil {
				t.Fatalf("speculate: %v", err)
			}
			f.block(f.tx(stmt("UPDATE acct SET bal = 5 WHERE id = 2")))
			checkTablesRoot(t, f, "after the decided block")
			// An empty decided block after a discarded speculation too.
			spec = blockInfo(f.ex.State().Height + 1)
			spec.Hash = []byte("yet another proposal")
			if err := f.ex.Speculate(ctx, spec, [][]byte{f.tx(stmt("DELETE FROM acct"))}, time.Minute); err != nil {
				t.Fatalf("speculate: %v", err)
			}
			f.block()
			f.block(f.tx(stmt("INSERT INTO acct VALUES (4, 'd', 4)")))
			checkTablesRoot(t, f, "after an empty block and another")
		})
	}
}

// A table is authenticated exactly when its rows have canonical form: one
// without a primary key is left out, one whose column type has none too,
// and DDL that gives a table a key brings it in. Determined by the rows
// alone, so a restarted node rebuilds the same map.
func TestTablesWithoutCanonicalFormAreLeftOut(t *testing.T) {
	for _, s := range authStores() {
		t.Run(s.dialect, func(t *testing.T) {
			f := mustNewFixture(t, s, authParams(s, protocol.V4))
			f.dialect = "postgres"
			res, _ := f.block(f.tx(stmt("CREATE TABLE k (id int4 PRIMARY KEY)"), stmt("CREATE TABLE nk (id int4)")))
			if res[0].Code != api.CodeOK {
				t.Fatalf("schema: %s", res[0].Log)
			}
			before := checkTablesRoot(t, f, "schema")
			f.block(f.tx(stmt("INSERT INTO nk VALUES (1)")))
			if after := checkTablesRoot(t, f, "a row in the table without key"); after != before {
				t.Fatalf("a row of a table without a primary key changed the tables root")
			}
			f.block(f.tx(stmt("ALTER TABLE nk ADD PRIMARY KEY (id)")))
			if after := checkTablesRoot(t, f, "the key added"); after == before {
				t.Fatalf("a table given a primary key did not enter the tables map")
			}
		})
	}
}

// A database whose rows were changed outside the chain does not rebuild
// the tables root its AppHash commits to: the node's start check says so
// (it still starts, so that the chain's divergence checks name the block
// and automatic recovery can run), and it serves no proof.
// At start the state digest comes from the stored table sums, which the
// change outside the chain left alone: only the tables root catches it,
// so this also shows that the AppHash commits to the root.
func TestRestartChecksTheRowsAgainstTheAppHash(t *testing.T) {
	var path string
	pgSQLite := outOfBandStore{"sqlite", func(t *testing.T) backend.Backend {
		path = filepath.Join(t.TempDir(), "relchain.db")
		b, err := sqlite.Open(context.Background(), path, sqlite.WithPostgresDialect())
		if err != nil {
			t.Fatal(err)
		}
		return b
	}, func(t *testing.T, stmt string) {
		db, err := sqlite3.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if err := db.Exec(stmt); err != nil {
			t.Fatalf("out-of-band %s: %v", stmt, err)
		}
	}}
	for _, s := range []outOfBandStore{pgSQLite, outOfBandStores()[1]} {
		t.Run(s.dialect, func(t *testing.T) {
			var be backend.Backend
			st := store{s.dialect, func(t *testing.T) backend.Backend { be = s.open(t); return be }}
			p := authParams(st, protocol.V4)
			f := mustNewFixture(t, st, p)
			f.dialect = "postgres"
			f.block(f.tx(stmt("CREATE TABLE acct (id int8 PRIMARY KEY, bal int8)")))
			f.block(f.tx(stmt("INSERT INTO acct VALUES (1, 10), (2, 20)")))
			checkTablesRoot(t, f, "before")
			s.write(t, "UPDATE acct SET bal = 11 WHERE id = 1")
			ex, err := app.NewExecutor(context.Background(), be, chainID, p)
			if err != nil {
				t.Fatalf("restart on a database changed outside the chain: %v (it must start, for the divergence checks and recovery)", err)
			}
			if err := ex.StartCheck(); !errors.Is(err, app.ErrStateMismatch) {
				t.Fatalf("restart's check of a database changed outside the chain: %v, want ErrStateMismatch", err)
			}
			if _, err := ex.Prove(context.Background(), api.ProofRequest{Table: "acct", Key: intKey(t, 1)}); !errors.Is(err, app.ErrNoProofs) {
				t.Fatalf("a proof from a database that does not give its AppHash: %v, want ErrNoProofs", err)
			}
		})
	}
}

// A chain upgraded from version 3 to 4 builds its trees in the first block
// of version 4 from every row it holds (written under version 3), and a
// node restarted after it rebuilds the same root.
func TestUpgradeToVersion4BuildsTheTrees(t *testing.T) {
	for _, s := range authStores() {
		t.Run(s.dialect, func(t *testing.T) {
			_, admin, _ := ed25519.GenerateKey(nil)
			p := authParams(s, protocol.V3)
			p.Admins = []string{hex.EncodeToString(admin.Public().(ed25519.PublicKey))}
			f := mustNewFixture(t, s, p)
			f.dialect, f.key = "postgres", admin
			w := &authWorkload{r: rand.New(rand.NewSource(4)), f: f}
			f.block(w.schema())
			for range 5 {
				f.block(w.block()...)
			}
			if _, _, ok := f.ex.TablesRoot(); ok {
				t.Fatal("a tables root under version 3")
			}
			upgradeTo(t, f, protocol.V4)
			f.block(w.block()...)
			root := checkTablesRoot(t, f, "first blocks of version 4")
			restartWithRoot(t, f, s, p, root)
		})
	}
}

// On MySQL/MariaDB storage the executor's trees follow every block of a
// random workload too (MySQL's SQL: upserts, key changes, deletes, failing
// txs), and a restart rebuilds the same root.
func TestAuthenticatedStateFollowsEveryBlockOnMySQL(t *testing.T) {
	s := store{"mysql", func() func(t *testing.T) backend.Backend {
		var dsn string
		return func(t *testing.T) backend.Backend {
			if dsn == "" {
				dsn = mysqltest.DSN(t)
			}
			b, err := mysql.Open(context.Background(), dsn)
			if err != nil {
				t.Fatalf("open mysql: %v", err)
			}
			return b
		}
	}()}
	p := authParams(s, protocol.V4)
	f := mustNewFixture(t, s, p)
	res, _ := f.block(f.tx(stmt("CREATE TABLE acct (id BIGINT PRIMARY KEY, name VARCHAR(40) NOT NULL, bal DECIMAL(12,2))")))
	if res[0].Code != api.CodeOK {
		t.Fatalf("schema: %s", res[0].Log)
	}
	r := rand.New(rand.NewSource(37))
	failed := 0
	for b := 0; b < 20; b++ {
		txs := make([][]byte, 1+r.Intn(4))
		for i := range txs {
			id := r.Int63n(30)
			var st txn.Statement
			switch r.Intn(5) {
			case 0, 1:
				st = stmt("INSERT INTO acct VALUES (?, ?, ?) ON DUPLICATE KEY UPDATE bal = bal + 1", txn.Int(id), txn.Text(fmt.Sprint("n", id)), txn.Text("1.25"))
			case 2:
				st = stmt("UPDATE acct SET id = id + 100 WHERE id = ?", txn.Int(id))
			case 3:
				st = stmt("DELETE FROM acct WHERE id = ?", txn.Int(id))
			default:
				st = stmt("INSERT INTO acct VALUES (1, NULL, 0)")
			}
			txs[i] = f.tx(st)
		}
		res, _ := f.block(txs...)
		for _, r := range res {
			if r.Code != api.CodeOK {
				failed++
			}
		}
		checkTablesRoot(t, f, fmt.Sprint("block ", b))
	}
	if failed == 0 {
		t.Fatal("no tx failed: the workload does not exercise failures")
	}
	root := checkTablesRoot(t, f, "end")
	// The whole table, proved and verified, holds the rows SQL counts.
	whole, err := proveAndVerify(t, f, api.ProofRequest{Table: "acct", Hi: []byte{0xff, 0xff}})
	if err != nil {
		t.Fatalf("proof of the whole table: %v", err)
	}
	rows, _, err := f.be.Query(context.Background(), "SELECT count(*) FROM acct", nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := rows.Rows[0][0]; fmt.Sprint(n) != fmt.Sprint(len(whole)) {
		t.Fatalf("proof of the whole table verified %d rows, SQL counts %v", len(whole), n)
	}
	restartWithRoot(t, f, s, p, root)
}

// On PostgreSQL a table's rows are its own, not those of the tables that
// INHERIT from it (whose keys lie outside the parent's primary key): the
// trees a node keeps from each block are the ones a restarted node builds
// from a full read.
func TestInheritedRowsAreTheChildsOnly(t *testing.T) {
	s := authStores()[1]
	f := mustNewFixture(t, s, authParams(s, protocol.V4))
	f.dialect = "postgres"
	res, _ := f.block(f.tx(stmt("CREATE TABLE p (id int4 PRIMARY KEY)"), stmt("CREATE TABLE c (x int4) INHERITS (p)")))
	if res[0].Code != api.CodeOK {
		t.Fatalf("schema: %s", res[0].Log)
	}
	res, _ = f.block(f.tx(stmt("INSERT INTO p VALUES (1)"), stmt("INSERT INTO c VALUES (1, 10), (2, 20)")))
	if res[0].Code != api.CodeOK {
		t.Fatalf("rows: %s", res[0].Log)
	}
	checkTablesRoot(t, f, "parent and child")
	f.block(f.tx(stmt("UPDATE p SET id = id + 100")))
	checkTablesRoot(t, f, "an update through the parent")
}

// restartWithRoot closes f's database, opens it again as a restarted node
// does, and checks that the node rebuilds tables root root.
func restartWithRoot(t *testing.T, f *fixture, s store, p app.Params, root [32]byte) {
	t.Helper()
	f.be.Close()
	be := s.open(t)
	t.Cleanup(func() { be.Close() })
	ex, err := app.NewExecutor(context.Background(), be, chainID, p)
	if err != nil {
		t.Fatalf("restart: %v", err)
	}
	if got, _, ok := ex.TablesRoot(); !ok || got != root {
		t.Fatalf("restart: tables root %X (%v), want %X", got, ok, root)
	}
}

// A primary key longer than the trees take (statetree.MaxKeyLen bytes
// canonical) cannot halt a block: its table is left out of the tables
// map while such a row exists, and comes back when it is gone, the same
// on a node that restarts. Any client can write such a key.
func TestLongKeysLeaveTheTableOutWithoutHalting(t *testing.T) {
	for _, s := range authStores() {
		t.Run(s.dialect, func(t *testing.T) {
			f := mustNewFixture(t, s, authParams(s, protocol.V4))
			f.dialect = "postgres"
			f.block(f.tx(stmt("CREATE TABLE k (id text PRIMARY KEY)"), stmt("INSERT INTO k VALUES ('short')")))
			in := checkTablesRoot(t, f, "short keys")
			long := strings.Repeat("x", 400)
			res, _ := f.block(f.tx(stmt("INSERT INTO k VALUES ($1)", txn.Text(long))))
			if res[0].Code != api.CodeOK {
				t.Fatalf("insert a long key: %d %s", res[0].Code, res[0].Log)
			}
			out := checkTablesRoot(t, f, "a long key")
			if out == in {
				t.Fatal("the tables root did not change when the table left the map")
			}
			f.block(f.tx(stmt("UPDATE k SET id = 'short too' WHERE id = 'short'")))
			checkTablesRoot(t, f, "a change while left out")
			f.block(f.tx(stmt("DELETE FROM k WHERE id = $1", txn.Text(long)), stmt("UPDATE k SET id = 'short' WHERE id = 'short too'")))
			if back := checkTablesRoot(t, f, "the long key gone"); back != in {
				t.Fatalf("the table did not come back into the map: root %X, want %X", back, in)
			}
			// A long key written and deleted in one block names a key no
			// row holds: nothing to leave out, as a restart finds.
			f.block(f.tx(stmt("INSERT INTO k VALUES ($1)", txn.Text(long)), stmt("DELETE FROM k WHERE id = $1", txn.Text(long))))
			if same := checkTablesRoot(t, f, "a long key come and gone"); same != in {
				t.Fatalf("a long key written and deleted in one block changed the root: %X, want %X", same, in)
			}
			f.block(f.tx(stmt("INSERT INTO k VALUES ($1)", txn.Text(long))))
			restartWithRoot(t, f, s, authParams(s, protocol.V4), out)
		})
	}
}

// A key without canonical form written and deleted in one block names no
// row after the block: the table stays in the map, as a node that
// restarts finds it (a numeric NaN key on PostgreSQL; on SQLite a text
// key that is not UTF-8, which the postgres dialect stores).
func TestAKeyWithoutFormComeAndGoneLeavesTheTableIn(t *testing.T) {
	for _, s := range authStores() {
		t.Run(s.dialect, func(t *testing.T) {
			f := mustNewFixture(t, s, authParams(s, protocol.V4))
			f.dialect = "postgres"
			schema, bad := "CREATE TABLE k (id numeric PRIMARY KEY)", txn.Text("NaN")
			if s.dialect == "sqlite" {
				schema, bad = "CREATE TABLE k (id text PRIMARY KEY)", txn.Text("\xff\xfe")
			}
			f.block(f.tx(stmt(schema), stmt("INSERT INTO k VALUES ('1')")))
			in := checkTablesRoot(t, f, "a canonical row")
			res, _ := f.block(f.tx(stmt("INSERT INTO k VALUES ($1)", bad), stmt("DELETE FROM k WHERE id = $1", bad)))
			if res[0].Code != api.CodeOK {
				t.Fatalf("write and delete the key: %d %s", res[0].Code, res[0].Log)
			}
			if got := checkTablesRoot(t, f, "the key come and gone"); got != in {
				t.Fatalf("the table left the map for a row that does not exist: root %X, want %X", got, in)
			}
			f.block(f.tx(stmt("INSERT INTO k VALUES ($1)", bad)))
			if out := checkTablesRoot(t, f, "the key kept"); out == in {
				t.Fatal("a row without canonical form left its table in the map")
			}
			f.block(f.tx(stmt("DELETE FROM k WHERE id = $1", bad)))
			if back := checkTablesRoot(t, f, "the key deleted"); back != in {
				t.Fatalf("the table did not come back: root %X, want %X", back, in)
			}
		})
	}
}

// On MySQL/MariaDB, DDL in a block after the first (the schema changes
// the trees must follow; MySQL's StateDigest clears its own DDL flag
// before the executor asks for the canonical delta) gives the root a
// fresh read of the committed rows gives, after every block.
func TestSchemaChangesFollowedOnMySQL(t *testing.T) {
	var dsn string
	s := store{"mysql", func(t *testing.T) backend.Backend {
		if dsn == "" {
			dsn = mysqltest.DSN(t)
		}
		b, err := mysql.Open(context.Background(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}}
	f := mustNewFixture(t, s, authParams(s, protocol.V4))
	f.block(f.tx(stmt("CREATE TABLE acct (id INTEGER PRIMARY KEY, bal INTEGER NOT NULL)")))
	checkTablesRoot(t, f, "first table")
	f.block(f.tx(stmt("CREATE TABLE other (id INTEGER PRIMARY KEY)")))
	checkTablesRoot(t, f, "second table")
	for i := int64(1); i <= 3; i++ {
		f.block(f.tx(stmt("INSERT INTO acct (id, bal) VALUES (?, ?)", txn.Int(i), txn.Int(100*i))))
		checkTablesRoot(t, f, fmt.Sprint("insert ", i))
	}
	f.block(f.tx(stmt("ALTER TABLE acct ADD COLUMN note VARCHAR(10) NULL")))
	checkTablesRoot(t, f, "a column added")
}
