package sqlite_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/backendtest"
	"github.com/relchain/relchain/backend/sqlite"
	"github.com/relchain/relchain/sqlcheck"
)

// openPerTest gives each test its own database file and reopens the same
// file when called again with the same t.
func openPerTest(opts ...sqlite.Option) backendtest.Open {
	var mu sync.Mutex
	paths := map[*testing.T]string{}
	return func(t *testing.T) backend.Backend {
		mu.Lock()
		p, ok := paths[t]
		if !ok {
			p = filepath.Join(t.TempDir(), "relchain.db")
			paths[t] = p
			dbPaths.Store(t, p)
		}
		mu.Unlock()
		b, err := sqlite.Open(context.Background(), p, opts...)
		if err != nil {
			t.Fatalf("open sqlite: %v", err)
		}
		return b
	}
}

// dbPaths: each test's database file (see openPerTest).
var dbPaths sync.Map // *testing.T -> string

func TestConformance(t *testing.T) {
	backendtest.Run(t, openPerTest(), spelling, backendtest.WithRestore(restoreForTest))
}

// restoreForTest is backendtest's Restore: a checkpoint of t's database
// file, copied to a file of its own and opened.
func restoreForTest(t *testing.T, _ backend.Backend, height int64) (backend.Backend, int64) {
	p, ok := dbPaths.Load(t)
	if !ok {
		t.Fatal("restore: no database opened for this test")
	}
	dir := t.TempDir()
	if err := sqlite.TakeCheckpoint(p.(string), dir, 1); err != nil {
		t.Fatal(err)
	}
	cps, err := sqlite.Checkpoints(dir)
	if err != nil || len(cps) != 1 || cps[0].Height != height {
		t.Fatalf("checkpoints %v, %v; want one at height %d", cps, err, height)
	}
	data, err := os.ReadFile(cps[0].Path)
	if err != nil {
		t.Fatal(err)
	}
	restored := filepath.Join(t.TempDir(), "restored.db")
	if err := os.WriteFile(restored, data, 0o600); err != nil {
		t.Fatal(err)
	}
	b, err := sqlite.Open(context.Background(), restored)
	if err != nil {
		t.Fatalf("open the restored checkpoint: %v", err)
	}
	return b, height
}

func BenchmarkBlock(b *testing.B) {
	backendtest.BenchmarkBlock(b, func(b *testing.B) backend.Backend {
		be, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "relchain.db"))
		if err != nil {
			b.Fatal(err)
		}
		return be
	})
}

// A client's query must not change the shared read connections' settings.
func TestQueryCannotRunPragmaOrTransactionControl(t *testing.T) {
	b, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "relchain.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for _, sql := range []string{"PRAGMA case_sensitive_like = ON", "PRAGMA foreign_keys", "COMMIT", "ATTACH ':memory:' AS x",
		"SELECT * FROM relchain_system", "SELECT count(*) FROM RELCHAIN_META", "SELECT * FROM relchain_changes"} {
		if _, _, err := b.Query(context.Background(), sql, nil); backend.AsError(err) == nil {
			t.Errorf("query %q: err = %v, want a statement failure", sql, err)
		}
	}
	rows, _, err := b.Query(context.Background(), "SELECT 'a' LIKE 'A'", nil)
	if err != nil || len(rows.Rows) != 1 || rows.Rows[0][0] != int64(1) {
		t.Fatalf("LIKE is case-insensitive after the refused pragma: rows %v, err %v", rows, err)
	}
}

// WithoutGate (benchmarks only) allows what the gate refuses for
// determinism, but still keeps clients away from relchain's tables and from
// the block's transaction, and still reports what statements do.
func TestWithoutGate(t *testing.T) {
	ctx := context.Background()
	b, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "relchain.db"), sqlite.WithoutGate())
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	blk, err := b.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer blk.Rollback(ctx)
	if _, err := blk.Exec(ctx, `CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)`, nil); err != nil {
		t.Fatal(err)
	}
	for _, sql := range []string{
		`SELECT sqlite_version(), changes(), last_insert_rowid()`,
		`SELECT count(*) FROM sqlite_schema`,
		`SELECT * FROM pragma_table_info('t')`,
		`CREATE TABLE c (v INT CHECK (random() <> 0), w INT DEFAULT (total_changes()))`,
		`CREATE VIEW sv AS SELECT sqlite_source_id() AS s`,
		`INSERT INTO t (id, v) VALUES (1, sqlite_version())`,
	} {
		if _, err := b.Gate().Analyze(ctx, sql); err != nil {
			t.Errorf("Analyze(%q) without the gate: %v", sql, err)
		}
		if err := blk.Savepoint(ctx, sqlcheck.Env{}); err != nil {
			t.Fatal(err)
		}
		if _, err := blk.Exec(ctx, sql, nil); err != nil {
			t.Errorf("Exec(%q) without the gate: %v", sql, err)
		}
		if err := blk.Release(ctx); err != nil {
			t.Fatal(err)
		}
	}
	for _, sql := range []string{
		`SELECT * FROM relchain_meta`,
		`SELECT * FROM relchain_system`,
		`INSERT INTO relchain_system (key, value) VALUES (x'00', x'00')`,
		`DELETE FROM relchain_changes`,
		`DROP TABLE relchain_changes`,
		`CREATE TRIGGER x AFTER INSERT ON relchain_system BEGIN SELECT 1; END`,
		`CREATE VIEW leak AS SELECT * FROM relchain_system`,
		`COMMIT`,
		`ROLLBACK`,
		`SAVEPOINT x`,
		`RELEASE relchain_tx`,
		`ATTACH ':memory:' AS x`,
		`VACUUM`,
	} {
		if err := blk.Savepoint(ctx, sqlcheck.Env{}); err != nil {
			t.Fatal(err)
		}
		_, err := blk.Exec(ctx, sql, nil)
		if e := backend.AsError(err); e == nil || e.Class != backend.ClassPermission {
			t.Errorf("Exec(%q) without the gate: %v, want refused", sql, err)
		}
		if err := blk.RollbackTo(ctx); err != nil {
			t.Fatalf("after %q: %v", sql, err)
		}
	}
	if a, err := sqlite.AnalyzeInBlock(ctx, blk, `UPDATE t SET v = 'x'`); err != nil || len(a.Writes) != 1 || a.Writes[0] != "t" {
		t.Errorf("Analyze without the gate: %+v, %v", a, err)
	}
	if d, err := blk.ChangeDigest(ctx); err != nil || len(d.Block) == 0 {
		t.Fatalf("ChangeDigest: %x, %v", d.Block, err)
	}
}

// unique makes statement texts that no cache has seen.
var unique atomic.Int64

// BenchmarkAnalyze measures the gate's verdict on a Smallbank and a TPC-C
// NewOrder statement: at CheckTx from the verdict cache and compiled afresh
// (with and without the gate), and in the block (compiled on the writer and
// kept for Exec, from its statement cache and afresh).
func BenchmarkAnalyze(b *testing.B) {
	ctx := context.Background()
	open := func(b *testing.B, opts ...sqlite.Option) *sqlite.Backend {
		be, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "relchain.db"), opts...)
		if err != nil {
			b.Fatal(err)
		}
		blk, err := be.Begin(ctx)
		if err != nil {
			b.Fatal(err)
		}
		for _, s := range []string{
			`CREATE TABLE checking (customer_id INTEGER PRIMARY KEY, balance INTEGER NOT NULL)`,
			`CREATE TABLE district (d_w_id INTEGER NOT NULL, d_id INTEGER NOT NULL, d_name TEXT, d_street_1 TEXT,
				d_street_2 TEXT, d_city TEXT, d_state TEXT, d_zip TEXT, d_tax REAL NOT NULL, d_ytd REAL NOT NULL,
				d_next_o_id INTEGER NOT NULL, PRIMARY KEY (d_w_id, d_id))`,
		} {
			if _, err := blk.Exec(ctx, s, nil); err != nil {
				b.Fatal(err)
			}
		}
		if err := commitDigested(b, blk, backend.State{Height: 1, AppHash: []byte{1}}); err != nil {
			b.Fatal(err)
		}
		return be
	}
	stmts := []struct{ name, sql string }{
		{"smallbank", `UPDATE checking SET balance = balance + ?1 WHERE customer_id = ?2`},
		{"tpcc-neworder", `UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = ?1 AND d_id = ?2 RETURNING d_next_o_id, d_tax`},
	}
	gated, ungated := open(b), open(b, sqlite.WithoutGate())
	defer gated.Close()
	defer ungated.Close()
	for _, s := range stmts {
		b.Run(s.name+"/checktx-cached", func(b *testing.B) {
			for b.Loop() {
				if _, err := gated.Gate().Analyze(ctx, s.sql); err != nil {
					b.Fatal(err)
				}
			}
		})
		for _, g := range []struct {
			name string
			be   *sqlite.Backend
		}{{"checktx", gated}, {"checktx-nogate", ungated}} {
			b.Run(s.name+"/"+g.name, func(b *testing.B) {
				for b.Loop() {
					if _, err := g.be.Gate().Analyze(ctx, s.sql+" -- "+strconv.FormatInt(unique.Add(1), 10)); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
		b.Run(s.name+"/block", func(b *testing.B) {
			blk, err := gated.Begin(ctx)
			if err != nil {
				b.Fatal(err)
			}
			defer blk.Rollback(ctx)
			for b.Loop() {
				if _, err := sqlite.AnalyzeInBlock(ctx, blk, s.sql+" -- "+strconv.FormatInt(unique.Add(1), 10)); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(s.name+"/block-cached", func(b *testing.B) {
			blk, err := gated.Begin(ctx)
			if err != nil {
				b.Fatal(err)
			}
			defer blk.Rollback(ctx)
			for b.Loop() {
				if _, err := sqlite.AnalyzeInBlock(ctx, blk, s.sql); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// Read connections keep clients' queries compiled (readcache.go): a cached
// query must follow schema changes committed since, and a failing or
// refused query must fail the same way every time.
func TestQueryCacheFollowsTheSchema(t *testing.T) {
	ctx := context.Background()
	b, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "relchain.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	height := int64(0)
	block := func(stmts ...string) {
		t.Helper()
		blk, err := b.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := blk.Savepoint(ctx, sqlcheck.Env{}); err != nil {
			t.Fatal(err)
		}
		for _, s := range stmts {
			if _, err := blk.Exec(ctx, s, nil); err != nil {
				t.Fatalf("%s: %v", s, err)
			}
		}
		if err := blk.Release(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := blk.ChangeDigest(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := blk.StateDigest(ctx); err != nil {
			t.Fatal(err)
		}
		height++
		if err := blk.Commit(ctx, backend.State{Height: height, AppHash: []byte{byte(height)}}); err != nil {
			t.Fatal(err)
		}
	}
	block("CREATE TABLE t (a INTEGER PRIMARY KEY)", "INSERT INTO t VALUES (1)")
	// Every read connection compiles (and caches) the query at least once.
	for i := 0; i < 8; i++ {
		rows, h, err := b.Query(ctx, "SELECT * FROM t", nil)
		if err != nil || h != 1 || len(rows.Columns) != 1 || len(rows.Rows) != 1 {
			t.Fatalf("query %d: rows %+v, height %d, err %v", i, rows, h, err)
		}
	}
	block("ALTER TABLE t ADD COLUMN b TEXT DEFAULT 'x'", "INSERT INTO t VALUES (2, 'y')")
	for i := 0; i < 8; i++ {
		rows, h, err := b.Query(ctx, "SELECT * FROM t ORDER BY a", nil)
		if err != nil || h != 2 || len(rows.Columns) != 2 || len(rows.Rows) != 2 || rows.Rows[1][1] != "y" {
			t.Fatalf("query %d after ALTER: rows %+v, height %d, err %v", i, rows, h, err)
		}
		rows, _, err = b.Query(ctx, "SELECT * FROM t", nil)
		if err != nil || len(rows.Columns) != 2 || rows.Columns[1] != "b" {
			t.Fatalf("cached query %d after ALTER: rows %+v, err %v", i, rows, err)
		}
	}
	block("DROP TABLE t")
	for i := 0; i < 8; i++ {
		if _, _, err := b.Query(ctx, "SELECT * FROM t", nil); backend.AsError(err) == nil {
			t.Fatalf("query %d of a dropped table: err = %v, want a statement failure", i, err)
		}
		if _, _, err := b.Query(ctx, "SELECT * FROM relchain_meta", nil); backend.AsError(err) == nil {
			t.Fatalf("query %d of relchain_meta: err = %v, want a statement failure", i, err)
		}
		rows, _, err := b.Query(ctx, "SELECT ?1 + 1", []any{int64(i)})
		if err != nil || rows.Rows[0][0] != int64(i+1) {
			t.Fatalf("query %d with an argument: rows %+v, err %v", i, rows, err)
		}
	}
	block("CREATE TABLE t (z TEXT)", "INSERT INTO t VALUES ('new')")
	rows, _, err := b.Query(ctx, "SELECT * FROM t", nil)
	if err != nil || len(rows.Columns) != 1 || rows.Columns[0] != "z" || rows.Rows[0][0] != "new" {
		t.Fatalf("query of the re-created table: rows %+v, err %v", rows, err)
	}
}

// BenchmarkQuery measures the query path (abci_query /sql) on Smallbank's
// Balance read, a 3-table join by name, while blocks commit in between
// (every commit invalidates the read connections' page caches).
func BenchmarkQuery(b *testing.B) {
	ctx := context.Background()
	be, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "relchain.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer be.Close()
	height := int64(0)
	block := func(stmts ...string) {
		blk, err := be.Begin(ctx)
		if err != nil {
			b.Fatal(err)
		}
		for _, s := range stmts {
			if _, err := blk.Exec(ctx, s, nil); err != nil {
				b.Fatalf("%s: %v", s, err)
			}
		}
		height++
		if err := commitDigested(b, blk, backend.State{Height: height, AppHash: []byte{1}}); err != nil {
			b.Fatal(err)
		}
	}
	gen := "WITH RECURSIVE s(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM s WHERE x < 10000) "
	block("CREATE TABLE accounts (custid BIGINT PRIMARY KEY, name TEXT NOT NULL UNIQUE)",
		"CREATE TABLE savings (custid BIGINT PRIMARY KEY, bal BIGINT NOT NULL)",
		"CREATE TABLE checking (custid BIGINT PRIMARY KEY, bal BIGINT NOT NULL)",
		gen+"INSERT INTO accounts SELECT x, 'customer' || x FROM s",
		gen+"INSERT INTO savings SELECT x, x FROM s",
		gen+"INSERT INTO checking SELECT x, x FROM s")
	const q = "SELECT a.custid, s.bal + c.bal FROM accounts a JOIN savings s ON s.custid = a.custid JOIN checking c ON c.custid = a.custid WHERE a.name = ?1"
	b.ResetTimer()
	for i := range b.N {
		if i%50 == 0 {
			b.StopTimer()
			block("UPDATE checking SET bal = bal + 1 WHERE custid = " + strconv.Itoa(i%10000+1))
			b.StartTimer()
		}
		rows, _, err := be.Query(ctx, q, []any{"customer" + strconv.Itoa(i%10000+1)})
		if err != nil || len(rows.Rows) != 1 {
			b.Fatalf("rows %v, err %v", rows, err)
		}
	}
}

// A rolled-back block leaves the schema the block began on: the next
// block's state digest adds its changes to the stored sums instead of
// rescanning every table, whether the rolled-back block changed no schema
// (every rehearsal ends so) or created a table (a speculated proposal that
// was not decided). The next block is not one that changed the schema: on
// a network speaking PostgreSQL's SQL that would drop its txs' effect
// digests on this node alone (app's TestSpeculationAndRestartsLeaveNoTrace).
func TestRollbackKeepsIncrementalDigest(t *testing.T) {
	ctx := context.Background()
	b, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "relchain.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	height := int64(0)
	run := func(commit bool, stmts ...string) {
		t.Helper()
		blk, err := b.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := blk.Savepoint(ctx, sqlcheck.Env{}); err != nil {
			t.Fatal(err)
		}
		for _, s := range stmts {
			if _, err := blk.Exec(ctx, s, nil); err != nil {
				t.Fatalf("%s: %v", s, err)
			}
		}
		if !commit {
			if err := blk.Rollback(ctx); err != nil {
				t.Fatal(err)
			}
			return
		}
		if err := blk.Release(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := blk.ChangeDigest(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := blk.StateDigest(ctx); err != nil {
			t.Fatal(err)
		}
		height++
		if err := blk.Commit(ctx, backend.State{Height: height, AppHash: []byte{byte(height)}}); err != nil {
			t.Fatal(err)
		}
	}
	run(true, "CREATE TABLE t (a INTEGER PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 1)")
	before := sqlite.Rescans(b)
	run(false, "UPDATE t SET v = v + 1")
	run(true, "UPDATE t SET v = v + 10")
	if got := sqlite.Rescans(b); got != before {
		t.Fatalf("a block after a rolled-back block without DDL rescanned every table (%d rescans, want %d)", got, before)
	}
	run(false, "CREATE TABLE u (a INTEGER PRIMARY KEY)")
	run(true, "UPDATE t SET v = v + 100")
	if got := sqlite.Rescans(b); got != before {
		t.Fatalf("a block after a rolled-back CREATE TABLE rescanned every table (%d rescans, want %d)", got, before)
	}
	run(true, "CREATE TABLE u (a INTEGER PRIMARY KEY)", "INSERT INTO u VALUES (1)")
	if got := sqlite.Rescans(b); got != before+1 {
		t.Fatalf("a block that created a table: %d rescans, want %d", got, before+1)
	}
	rows, _, err := b.Query(ctx, "SELECT v FROM t", nil)
	if err != nil || fmt.Sprint(rows.Rows) != "[[111]]" {
		t.Fatalf("rows %v, %v", rows, err)
	}
}

// spelling is how SQLite spells the conformance suite's SQL.
var spelling = backendtest.Spelling{
	Blob: "BLOB", Double: "REAL", Fraction: "REAL",
	IdentQuote:   `"`,
	Refused:      `SELECT sqlite_version()`, // a node-local value
	HighestParam: `SELECT ?3`,
	Meta:         "relchain_meta",
	SystemNames:  []string{"rowid", "oid", "_rowid_"},
	Typed: backendtest.Typed{
		Create: `CREATE TABLE typed (i INTEGER PRIMARY KEY, b BIGINT, r REAL, tx TEXT, vc VARCHAR(10), ok BOOLEAN, bl BLOB, n NUMERIC(10, 2), d DATE, ts TIMESTAMP)`,
		Types:  []string{"int8", "int8", "float8", "text", "text", "bool", "bytea", "numeric", "date", "timestamp"},
	},
	// SQLite types neither parameters nor expressions before a run.
	Grouped:         backendtest.Described{Params: []string{"", ""}, Types: []string{"int8", "text", ""}},
	InsertReturning: []string{"int8", "text"},
}
