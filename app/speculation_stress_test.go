package app_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/app"
	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/sqlite"
	"github.com/relchain/relchain/internal/racetest"
	"github.com/relchain/relchain/protocol"
	"github.com/relchain/relchain/txn"
)

// ddlBlocks is a seeded stream of blocks that change the schema often:
// tables created (serial and plain keys), altered, indexed and dropped,
// DDL that fails, and writes to tables created a block or a tx earlier,
// among empty blocks: what a network's first blocks look like. On a
// database that commits DDL implicitly (ddlAlone) a DDL statement is a
// tx and a block of its own, as CheckTx and PrepareProposal make it.
func ddlBlocks(r *rand.Rand, blocks int, d ddlDialect, sign func(...txn.Statement) []byte) [][][]byte {
	var out [][][]byte
	exists := map[int]bool{}
	for range blocks {
		var txs [][]byte
		for range r.IntN(4) {
			stmts := d.stmts(r, exists)
			if !d.ddlAlone || !isDDL(stmts[0].SQL) {
				txs = append(txs, sign(stmts...))
				continue
			}
			for _, st := range stmts {
				if len(txs) > 0 {
					out = append(out, txs)
				}
				txs = [][]byte{sign(st)}
			}
			out, txs = append(out, txs), nil
		}
		out = append(out, txs)
	}
	return out
}

// isDDL reports whether one of ddlDialect's statements is DDL.
func isDDL(sql string) bool {
	return strings.HasPrefix(sql, "CREATE") || strings.HasPrefix(sql, "DROP") || strings.HasPrefix(sql, "ALTER")
}

// ddlDialect spells ddlBlocks' statements for a database.
type ddlDialect struct {
	dialect  string // for placeholders (ph)
	serial   string // a table with a generated key, "" for none
	ddlAlone bool
}

// stmts is one tx of ddlBlocks; exists follows which tables the
// generator believes exist (a failed tx may leave it wrong: that tx's
// followers fail alike on every node, which is fine).
func (d ddlDialect) stmts(r *rand.Rand, exists map[int]bool) []txn.Statement {
	n := r.IntN(4)
	tbl := "t" + strconv.Itoa(n)
	p := func(i int) string { return ph(d.dialect, i) }
	switch k := r.IntN(12); {
	case !exists[n] || k == 0:
		exists[n] = true
		if d.serial != "" && r.IntN(2) == 0 {
			return []txn.Statement{stmt("CREATE TABLE " + tbl + " (id " + d.serial + ", w INTEGER NOT NULL, s INTEGER NOT NULL)")}
		}
		return []txn.Statement{stmt("CREATE TABLE " + tbl + " (id INTEGER PRIMARY KEY, w INTEGER NOT NULL)"),
			stmt("INSERT INTO "+tbl+" (id, w) VALUES ("+p(1)+", 0)", txn.Int(int64(r.IntN(5))))}
	case k == 1:
		delete(exists, n)
		return []txn.Statement{stmt("DROP TABLE " + tbl)}
	case k == 2:
		return []txn.Statement{stmt("ALTER TABLE " + tbl + " ADD COLUMN c" + strconv.Itoa(r.IntN(1000)) + " INTEGER DEFAULT 7")}
	case k == 3:
		return []txn.Statement{stmt("CREATE INDEX " + tbl + "_w" + strconv.Itoa(r.IntN(1000)) + " ON " + tbl + " (w)")}
	case k == 4:
		return []txn.Statement{stmt("INSERT INTO "+tbl+" (id, w) VALUES ("+p(1)+", 1)", txn.Int(int64(r.IntN(5)))), stmt("CREATE TABLE " + tbl + " (id INTEGER PRIMARY KEY)")}
	case k < 8:
		return []txn.Statement{stmt("INSERT INTO "+tbl+" (w, s) VALUES ("+p(1)+", "+p(2)+")", txn.Int(int64(r.IntN(9))), txn.Int(int64(r.IntN(9))))}
	case k < 10:
		return []txn.Statement{stmt("INSERT INTO "+tbl+" (id, w) VALUES ("+p(1)+", "+p(2)+")", txn.Int(int64(r.IntN(9))), txn.Int(int64(r.IntN(9))))}
	default:
		return []txn.Statement{stmt("UPDATE "+tbl+" SET w = w + 1 WHERE id = "+p(1), txn.Int(int64(r.IntN(5))))}
	}
}

// A validator that executed proposals that were then not decided
// (ProcessProposal's speculation of another round's block, holding DDL
// and writes of later blocks), that speculated the decided block itself,
// and that restarted between blocks, gives the same results (effect
// digests included) and AppHashes at every height as one that executed
// only the decided blocks: speculation and restarts leave no trace.
func TestSpeculationAndRestartsLeaveNoTrace(t *testing.T) {
	racetest.Heavy(t) // one executor at a time, 60 blocks per engine: 54 s under -race
	seed := testSeed(t)
	for _, c := range speculationCases() {
		t.Run(c.name, func(t *testing.T) {
			s := c.store
			r := rand.New(rand.NewPCG(seed, 7))
			plain := c.fixture(t, s)
			blocks := ddlBlocks(r, 60, c.spell, plain.tx)
			other := c.other()
			stressed := c.fixture(t, other)
			ctx := context.Background()
			succeeded := 0
			for i, txs := range blocks {
				h := int64(i + 1)
				disturb(t, stressed, r, blocks, i)
				if r.IntN(10) == 0 {
					// A crash while a proposal's execution is pending.
					c.restart(t, stressed, other)
				}
				want, wantHash := plain.block(txs...)
				got, gotHash := stressed.block(txs...)
				for j := range want {
					if want[j].Code == api.CodeOK && len(want[j].Data) > 0 {
						succeeded++
					}
					if want[j].Code != got[j].Code || !bytes.Equal(want[j].Data, got[j].Data) {
						t.Fatalf("height %d tx %d: plain %d %s %s, disturbed %d %s %s", h, j, want[j].Code, want[j].Log, want[j].Data, got[j].Code, got[j].Log, got[j].Data)
					}
				}
				if !bytes.Equal(wantHash, gotHash) {
					t.Fatalf("height %d: AppHash %X, disturbed %X", h, wantHash, gotHash)
				}
				if r.IntN(8) == 0 {
					c.restart(t, stressed, other)
				}
			}
			if succeeded < 20 {
				t.Fatalf("only %d txs of %d blocks succeeded: the stream exercises too little (want 20)", succeeded, len(blocks))
			}
			if _, err := app.VerifyState(ctx, stressed.be); err != nil {
				t.Fatalf("verify the disturbed database: %v", err)
			}
		})
	}
}

// speculationCase is one database of TestSpeculationAndRestartsLeaveNoTrace.
type speculationCase struct {
	name   string
	store  store
	other  func() store // a fresh database of the same kind
	params app.Params
	spell  ddlDialect
	// shadow: a PostgreSQL validator of a network over several engines
	// (its shadow gate, a SQLite database per executor).
	shadow bool
}

// options are the executor's options: the shadow gate's on a new SQLite
// database when the case has one.
func (c speculationCase) options(t *testing.T) []app.ExecutorOption {
	if !c.shadow {
		return nil
	}
	dir := t.TempDir()
	return []app.ExecutorOption{app.WithShadow(func(ctx context.Context) (backend.Backend, error) {
		return sqlite.Open(ctx, filepath.Join(dir, "shadow.db"), sqlite.WithPostgresDialect())
	})}
}

// fixture is mustNewFixture with the case's options.
func (c speculationCase) fixture(t *testing.T, s store) *fixture {
	t.Helper()
	be := s.open(t)
	t.Cleanup(func() { be.Close() })
	ex, err := app.NewExecutor(context.Background(), be, chainID, c.params, c.options(t)...)
	if err != nil {
		t.Fatalf("new executor: %v", err)
	}
	_, key, _ := ed25519.GenerateKey(nil)
	return &fixture{t: t, dialect: s.dialect, be: be, ex: ex, key: key}
}

// restart closes f's database without closing its executor (a crash)
// and opens both again.
func (c speculationCase) restart(t *testing.T, f *fixture, s store) {
	t.Helper()
	f.be.Close()
	f.be = s.open(t)
	t.Cleanup(func() { f.be.Close() })
	ex, err := app.NewExecutor(context.Background(), f.be, chainID, c.params, c.options(t)...)
	if err != nil {
		t.Fatal(err)
	}
	f.ex = ex
}

// speculationCases: PostgreSQL's SQL at version 5 on PostgreSQL and on a
// SQLite validator of a network over both; SQLite's and MySQL's own SQL at
// the default version.
func speculationCases() []speculationCase {
	authNamed := func(dialect string) func() store {
		return func() store {
			for _, s := range authStores() {
				if s.dialect == dialect {
					return s
				}
			}
			panic("no auth store " + dialect)
		}
	}
	pgSpell := ddlDialect{dialect: "postgres", serial: "BIGSERIAL PRIMARY KEY"}
	var out []speculationCase
	for _, d := range []string{"sqlite", "postgres"} {
		s := authNamed(d)()
		p := authParams(s, protocol.V5)
		name := d
		if d == "sqlite" {
			p.Backend, p.Backends, name = "", []string{"postgres", "sqlite"}, "sqlite-of-mixed"
		}
		out = append(out, speculationCase{name: name, store: s, other: authNamed(d), params: p, spell: pgSpell})
	}
	mixed := authParams(authNamed("postgres")(), protocol.V5)
	mixed.Backend, mixed.Backends = "", []string{"postgres", "sqlite"}
	out = append(out, speculationCase{name: "postgres-of-mixed", store: authNamed("postgres")(), other: authNamed("postgres"), params: mixed, spell: pgSpell, shadow: true})
	native := func() store { return store{"sqlite", stores(nil)[0].open} }
	out = append(out, speculationCase{name: "sqlite-native", store: native(), other: native, params: app.DefaultParams(),
		spell: ddlDialect{dialect: "sqlite", serial: "INTEGER PRIMARY KEY"}})
	my := app.DefaultParams()
	my.Backend = "mysql"
	out = append(out, speculationCase{name: "mysql", store: mysqlStore(), other: mysqlStore, params: my,
		spell: ddlDialect{dialect: "mysql", ddlAlone: true}})
	return out
}

// disturb runs, before decided block i of blocks, what a validator may
// run at that height before it is decided: interactive transactions'
// rehearsals of txs of any block (rolled back), proposals of other
// rounds (txs of this and later blocks, in another order), each
// discarded by the next, and sometimes the decided block itself, which
// FinalizeBlock then reuses.
func disturb(t *testing.T, f *fixture, r *rand.Rand, blocks [][][]byte, i int) {
	t.Helper()
	ctx := context.Background()
	h := f.ex.State().Height + 1
	if r.IntN(4) == 0 {
		// An interactive transaction's rehearsal of a later tx (DDL and
		// writes), rolled back.
		later := r.IntN(len(blocks))
		for _, tx := range withoutDDL(f, blocks[later]) {
			d, err := txn.Decode(tx)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.ex.Rehearse(ctx, f.key.Public().(ed25519.PublicKey), d.Statements); err != nil {
				t.Fatalf("rehearse a tx of block %d: %v", later+1, err)
			}
		}
	}
	for k := range r.IntN(3) {
		var txs [][]byte
		for j := i; j < min(len(blocks), i+1+r.IntN(3)); j++ {
			txs = append(txs, blocks[j]...)
		}
		txs = withoutDDL(f, txs)
		r.Shuffle(len(txs), func(a, b int) { txs[a], txs[b] = txs[b], txs[a] })
		info := blockInfo(h)
		info.Hash = append([]byte(fmt.Sprintf("round %d ", k+1)), info.Hash...)
		if err := f.ex.Speculate(ctx, info, txs, time.Minute); err != nil {
			t.Fatalf("speculate another proposal at height %d: %v", h, err)
		}
	}
	if r.IntN(3) == 0 && len(withoutDDL(f, blocks[i])) == len(blocks[i]) {
		if err := f.ex.Speculate(ctx, blockInfo(h), blocks[i], time.Minute); err != nil {
			t.Fatalf("speculate the decided block %d: %v", h, err)
		}
	}
}

// withoutDDL is txs less those holding DDL on a database that commits DDL
// implicitly: ProcessProposal does not run a block holding one before it
// is decided, and a rehearsal refuses it.
func withoutDDL(f *fixture, txs [][]byte) [][]byte {
	if f.be.Capabilities().TransactionalDDL {
		return txs
	}
	var out [][]byte
	for _, tx := range txs {
		if !f.ex.HasDDL(context.Background(), tx) {
			out = append(out, tx)
		}
	}
	return out
}

// The DDL-heavy stream of TestSpeculationAndRestartsLeaveNoTrace gives
// byte-identical results and the same AppHash at every height on a
// PostgreSQL and a SQLite validator of one network over both engines.
func TestEnginesAgreeOnSchemaChurn(t *testing.T) {
	racetest.Heavy(t) // two executors one after the other, 80 blocks
	seed := testSeed(t)
	var pg, lite speculationCase
	for _, c := range speculationCases() {
		switch c.name {
		case "postgres-of-mixed":
			pg = c
		case "sqlite-of-mixed":
			lite = c
		}
	}
	r := rand.New(rand.NewPCG(seed, 7))
	a, b := pg.fixture(t, pg.store), lite.fixture(t, lite.store)
	b.key = a.key
	for i, txs := range ddlBlocks(r, 80, pg.spell, a.tx) {
		want, wantHash := a.block(txs...)
		got, gotHash := b.block(txs...)
		for j := range want {
			if want[j].Code != got[j].Code || !bytes.Equal(want[j].Data, got[j].Data) {
				t.Fatalf("height %d tx %d: postgres %d %s %s, sqlite %d %s %s", i+1, j, want[j].Code, want[j].Log, want[j].Data, got[j].Code, got[j].Log, got[j].Data)
			}
		}
		if !bytes.Equal(wantHash, gotHash) {
			t.Fatalf("height %d: AppHash on postgres %X, on sqlite %X", i+1, wantHash, gotHash)
		}
	}
}

// testSeed is the seed of a random test: RELCHAIN_TEST_SEED, or the
// clock's; logged so that a failure can be run again.
func testSeed(t *testing.T) uint64 {
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("RELCHAIN_TEST_SEED"); s != "" {
		var err error
		if seed, err = strconv.ParseUint(s, 10, 64); err != nil {
			t.Fatalf("RELCHAIN_TEST_SEED: %v", err)
		}
	}
	t.Logf("seed %d (RELCHAIN_TEST_SEED)", seed)
	return seed
}
