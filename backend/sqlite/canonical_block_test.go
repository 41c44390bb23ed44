package sqlite_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/sqlite"
	"github.com/relchain/relchain/rowcanon"
	"github.com/relchain/relchain/sqlcheck"
	"github.com/relchain/relchain/statetree"
)

// canonSchema has single and composite keys of several kinds (int8,
// text+int4, uuid, numeric) and a parent whose foreign-key actions
// cascade to a child: the parent keeps capture triggers, so its records
// come from them (capture.go's triggerRecord), the child's rows change
// by the actions.
var canonSchema = []string{
	`CREATE TABLE one (id int8 PRIMARY KEY, v text, n numeric)`,
	`CREATE TABLE two (a text, b int4, x float8, d date, PRIMARY KEY (b, a))`,
	`CREATE TABLE three (u uuid PRIMARY KEY, ts timestamptz, ok bool, raw bytea)`,
	`CREATE TABLE four (k numeric PRIMARY KEY, v int4)`,
	`CREATE TABLE par (id int4 PRIMARY KEY, name text)`,
	`CREATE TABLE kid (id int4 PRIMARY KEY, pid int4 REFERENCES par (id) ON DELETE CASCADE ON UPDATE CASCADE, w text)`,
}

var canonTablesOf = []string{"four", "kid", "one", "par", "three", "two"}

// canonStmt draws one statement of the property test.
func canonStmt(r *rand.Rand) string {
	i, j := r.IntN(12), r.IntN(12)
	uuid := func(n int) string { return fmt.Sprintf("'00000000-0000-4000-8000-%012d'", n) }
	switch r.IntN(20) {
	case 0:
		return fmt.Sprintf(`INSERT INTO one VALUES (%d, 'v%d', %d.%d0) ON CONFLICT (id) DO UPDATE SET v = excluded.v, n = excluded.n`, i, j, i, j)
	case 1:
		return fmt.Sprintf(`UPDATE one SET id = id + %d WHERE id = %d`, j-6, i)
	case 2:
		return fmt.Sprintf(`DELETE FROM one WHERE id %% 4 = %d`, i%4)
	case 3:
		return fmt.Sprintf(`UPDATE one SET v = v || 'x', n = n + 1 WHERE id > %d`, i)
	case 4:
		return fmt.Sprintf(`INSERT INTO two VALUES ('k%d', %d, %d.25, '2024-01-%02d') ON CONFLICT DO NOTHING`, i%4, j, i, j+1)
	case 5:
		return fmt.Sprintf(`UPDATE two SET b = b + 1, x = -x WHERE a = 'k%d'`, i%4)
	case 6:
		return fmt.Sprintf(`DELETE FROM two WHERE b = %d`, i)
	case 7:
		return fmt.Sprintf(`INSERT INTO three VALUES (%s, '2024-02-29 12:00:%02d+02', %t, '\x%02x') ON CONFLICT (u) DO UPDATE SET ok = NOT three.ok`, uuid(i), j, i%2 == 0, j)
	case 8:
		return fmt.Sprintf(`UPDATE three SET u = %s WHERE u = %s`, uuid(i), uuid(j))
	case 9:
		return fmt.Sprintf(`DELETE FROM three WHERE u = %s`, uuid(i))
	case 10:
		return fmt.Sprintf(`INSERT INTO four VALUES (%d.%d, %d) ON CONFLICT (k) DO UPDATE SET v = excluded.v`, i, j%3*5, j)
	case 11:
		return fmt.Sprintf(`UPDATE four SET k = k + 0.5 WHERE v = %d`, j)
	case 12:
		return fmt.Sprintf(`DELETE FROM four WHERE v > %d`, j)
	case 13, 14:
		return fmt.Sprintf(`INSERT INTO par VALUES (%d, 'p%d') ON CONFLICT (id) DO UPDATE SET name = excluded.name`, i, j)
	case 15:
		return fmt.Sprintf(`UPDATE par SET id = id + %d WHERE id = %d`, j-6, i)
	case 16:
		return fmt.Sprintf(`DELETE FROM par WHERE id = %d`, i)
	case 17, 18:
		return fmt.Sprintf(`INSERT INTO kid VALUES (%d, %d, 'w%d') ON CONFLICT (id) DO UPDATE SET pid = excluded.pid`, i, j, i)
	}
	if r.IntN(3) == 0 {
		return `TRUNCATE kid`
	}
	return fmt.Sprintf(`UPDATE kid SET id = id + 12 WHERE pid = %d`, i)
}

// trees builds each table's statetree from its committed rows.
func trees(t *testing.T, b *sqlite.Backend, tables []string) map[string]*statetree.Tree {
	t.Helper()
	m := make(map[string]*statetree.Tree)
	for _, tbl := range tables {
		tr := statetree.New()
		err := b.CanonicalRows(context.Background(), tbl, func(key, image []byte) error {
			return tr.Set(key, rowcanon.LeafHash(image))
		})
		if err != nil {
			t.Fatalf("CanonicalRows(%s): %v", tbl, err)
		}
		m[tbl] = tr
	}
	return m
}

// applyDelta brings trees up to date with d, checking its order.
func applyDelta(t *testing.T, d backend.CanonicalDelta, trees map[string]*statetree.Tree) {
	t.Helper()
	if d.SchemaChanged {
		t.Fatalf("SchemaChanged without DDL")
	}
	for i, td := range d.Tables {
		if i > 0 && d.Tables[i-1].Table >= td.Table {
			t.Fatalf("tables not sorted: %s after %s", td.Table, d.Tables[i-1].Table)
		}
		if td.Err != nil || td.Rescan {
			t.Fatalf("%s: Err %v, Rescan %v", td.Table, td.Err, td.Rescan)
		}
		for j, c := range td.Rows {
			if j > 0 && bytes.Compare(td.Rows[j-1].Key, c.Key) >= 0 {
				t.Fatalf("%s: keys not sorted and distinct at %d", td.Table, j)
			}
			var err error
			if c.Image == nil {
				_, err = trees[td.Table].Delete(c.Key)
			} else {
				err = trees[td.Table].Set(c.Key, rowcanon.LeafHash(c.Image))
			}
			if err != nil {
				t.Fatalf("%s: apply: %v", td.Table, err)
			}
		}
	}
}

// randomBlock runs one block of random txs, some rolled back to their
// savepoint, returns its CanonicalDelta and commits it.
func randomBlock(t *testing.T, b *sqlite.Backend, r *rand.Rand, h int64) backend.CanonicalDelta {
	t.Helper()
	ctx := context.Background()
	blk, err := b.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer blk.Rollback(ctx)
	for tx := 0; tx < 1+r.IntN(5); tx++ {
		if err := blk.Savepoint(ctx, sqlcheck.Env{Tx: tx, Time: time.Date(2026, 12, 4, 0, 0, 0, 0, time.UTC)}); err != nil {
			t.Fatal(err)
		}
		failed := false
		for s := 0; s < 1+r.IntN(4) && !failed; s++ {
			sql := canonStmt(r)
			if _, err := b.Gate().AnalyzeInBlock(ctx, blk, sql); err != nil {
				t.Fatalf("gate: %s: %v", sql, err)
			}
			_, err := blk.Exec(ctx, sql, nil)
			failed = err != nil
			if failed && backend.AsError(err) == nil {
				t.Fatalf("exec: %s: %v", sql, err)
			}
		}
		if failed || r.IntN(4) == 0 {
			err = blk.RollbackTo(ctx)
		} else {
			err = blk.Release(ctx)
		}
		if err != nil {
			t.Fatal(err)
		}
		if r.IntN(2) == 0 {
			if _, err := blk.ChangeDigest(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := blk.ChangeDigest(ctx); err != nil {
		t.Fatal(err)
	}
	cb := blk.(backend.CanonicalBlock)
	afterState := r.IntN(2) == 0 // the delta does not depend on StateDigest
	var d backend.CanonicalDelta
	if !afterState {
		if d, err = cb.CanonicalDelta(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := blk.StateDigest(ctx); err != nil {
		t.Fatal(err)
	}
	if afterState {
		if d, err = cb.CanonicalDelta(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if err := blk.Commit(ctx, backend.State{Height: h, AppHash: []byte{byte(h)}}); err != nil {
		t.Fatal(err)
	}
	return d
}

// canonBlocks is how many random blocks the property test runs (about a
// second and a half; fewer under the race detector).
var canonBlocks = map[bool]int{false: 300, true: 60}[raceDetector]

// Applying each random block's CanonicalDelta to the statetrees of the
// state before it gives every table the root of its rows after the block
// commits (backend.TableRoot): no changed key is missed, whatever the
// block did (upserts, key changes, cascades, TRUNCATE, txs rolled back
// to their savepoint).
func TestCanonicalDeltaKeepsTreesUpToDate(t *testing.T) {
	b := mustOpenPostgresDialect(t)
	for i, s := range canonSchema {
		pgBlock(t, b, int64(i+1), pgStmt{sql: s})
	}
	tr := trees(t, b, canonTablesOf)
	r := rand.New(rand.NewPCG(36, 1))
	h := int64(len(canonSchema))
	changed := 0
	for n := 0; n < canonBlocks; n++ {
		h++
		d := randomBlock(t, b, r, h)
		applyDelta(t, d, tr)
		changed += len(d.Tables)
		for _, tbl := range canonTablesOf {
			want, err := backend.TableRoot(context.Background(), b, tbl)
			if err != nil {
				t.Fatal(err)
			}
			if got := tr[tbl].Commit(); got.Hash() != want.Hash() || got.Len() != want.Len() {
				t.Fatalf("block %d: %s: delta gives %x (%d rows), table has %x (%d rows)", h, tbl, got.Hash(), got.Len(), want.Hash(), want.Len())
			}
		}
	}
	if changed < canonBlocks {
		t.Fatalf("only %d table deltas in %d blocks: the generator changes too little", changed, canonBlocks)
	}
}

// beginBlock begins a block, rolled back when the test ends unless the
// test commits it.
func beginBlock(t *testing.T, b backend.Backend) backend.Block {
	t.Helper()
	ctx := context.Background()
	blk, err := b.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { blk.Rollback(ctx) })
	return blk
}

// canonBlock begins a block and runs stmts in one released tx, failing on
// any error; the caller ends the block.
func canonBlock(t *testing.T, b backend.Backend, stmts ...pgStmt) backend.Block {
	t.Helper()
	ctx := context.Background()
	blk := beginBlock(t, b)
	if err := blk.Savepoint(ctx, sqlcheck.Env{}); err != nil {
		t.Fatal(err)
	}
	for _, s := range stmts {
		if _, err := b.Gate().AnalyzeInBlock(ctx, blk, s.sql); err != nil {
			t.Fatalf("gate: %s: %v", s.sql, err)
		}
		if _, err := blk.Exec(ctx, s.sql, s.args); err != nil {
			t.Fatalf("exec: %s: %v", s.sql, err)
		}
	}
	if err := blk.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := blk.ChangeDigest(ctx); err != nil {
		t.Fatal(err)
	}
	return blk
}

// delta is the block's CanonicalDelta.
func delta(t *testing.T, blk backend.Block) backend.CanonicalDelta {
	t.Helper()
	d, err := blk.(backend.CanonicalBlock).CanonicalDelta(context.Background())
	if err != nil {
		t.Fatalf("CanonicalDelta: %v", err)
	}
	return d
}

// A block that ran DDL asks for a rebuild. So does exactly every block
// whose StateDigest rescans (a block after one whose DDL was rolled back
// reloads the schema and rescans too); the next one does not.
func TestCanonicalDeltaSchemaChanged(t *testing.T) {
	b := mustOpenPostgresDialect(t)
	pgBlock(t, b, 1, pgStmt{sql: `CREATE TABLE a (id int4 PRIMARY KEY)`})
	ctx := context.Background()
	blk := canonBlock(t, b, pgStmt{sql: `CREATE TABLE b (id int4 PRIMARY KEY)`}, pgStmt{sql: `INSERT INTO a VALUES (1)`})
	if d := delta(t, blk); !d.SchemaChanged {
		t.Fatalf("CREATE TABLE: %+v, want SchemaChanged", d)
	}
	blk.Rollback(ctx)
	blk = canonBlock(t, b, pgStmt{sql: `ALTER TABLE a ADD COLUMN v text`})
	if d := delta(t, blk); !d.SchemaChanged {
		t.Fatalf("ALTER TABLE: %+v, want SchemaChanged", d)
	}
	blk.Rollback(ctx)
	for h := int64(2); h <= 3; h++ {
		blk = canonBlock(t, b, pgStmt{sql: fmt.Sprintf(`INSERT INTO a VALUES (%d)`, h)})
		d := delta(t, blk)
		before := sqlite.Rescans(b)
		if _, err := blk.StateDigest(ctx); err != nil {
			t.Fatal(err)
		}
		if rescan := sqlite.Rescans(b) > before; d.SchemaChanged != rescan {
			t.Fatalf("block %d: SchemaChanged %v, state digest rescanned %v", h, d.SchemaChanged, rescan)
		}
		if h == 3 && (d.SchemaChanged || len(d.Tables) != 1 || d.Tables[0].Table != "a" || len(d.Tables[0].Rows) != 1) {
			t.Fatalf("block %d: %+v, want a's one row", h, d)
		}
		if err := blk.Commit(ctx, backend.State{Height: h, AppHash: []byte{byte(h)}}); err != nil {
			t.Fatal(err)
		}
	}
}

// A table without a primary key, or with a column of a type without a
// canonical form, has its refusal as its part's Err, and no rows; the
// other tables' parts are whole.
func TestCanonicalDeltaRefusesTables(t *testing.T) {
	b := mustOpenPostgresDialect(t)
	pgBlock(t, b, 1, pgStmt{sql: `CREATE TABLE nopk (a int4, b text)`},
		pgStmt{sql: `CREATE TABLE arr (id int4 PRIMARY KEY, xs int4[])`},
		pgStmt{sql: `CREATE TABLE ok (id int4 PRIMARY KEY)`})
	blk := canonBlock(t, b, pgStmt{sql: `INSERT INTO nopk VALUES (1, 'x')`},
		pgStmt{sql: `INSERT INTO arr VALUES (1, '{1,2}')`}, pgStmt{sql: `INSERT INTO ok VALUES (7)`})
	d := delta(t, blk)
	if len(d.Tables) != 3 {
		t.Fatalf("delta %+v, want arr, nopk, ok", d)
	}
	want := map[string]error{"arr": backend.ErrNoCanonicalForm, "nopk": backend.ErrNoPrimaryKey}
	for i, name := range []string{"arr", "nopk"} {
		td := d.Tables[i]
		if td.Table != name || !errors.Is(td.Err, want[name]) || !backend.NotCanonical(td.Err) || td.Rows != nil {
			t.Fatalf("%s: %+v, want Err %v and no rows", name, td, want[name])
		}
	}
	if td := d.Tables[2]; td.Table != "ok" || td.Err != nil || len(td.Rows) != 1 || td.Rows[0].Image == nil {
		t.Fatalf("ok: %+v", td)
	}
}

// A changed row holding text that is not UTF-8 (a bound parameter the
// dialect stores as it came) has ErrValueNotCanonical as its table's
// Err; so does CanonicalRows once it is committed. A text holding U+0000
// in a key column, which a change record's image cuts at the NUL, makes
// the table's part a Rescan, and the rescan finds the refused value.
func TestCanonicalDeltaValueNotCanonical(t *testing.T) {
	b := mustOpenPostgresDialect(t)
	pgBlock(t, b, 1, pgStmt{sql: `CREATE TABLE s (id int4 PRIMARY KEY, t text)`},
		pgStmt{sql: `CREATE TABLE k (t text PRIMARY KEY)`})
	ctx := context.Background()
	blk := canonBlock(t, b, pgStmt{sql: `INSERT INTO s VALUES (1, $1)`, args: []any{"\xff\xfe"}})
	d := delta(t, blk)
	if len(d.Tables) != 1 || !errors.Is(d.Tables[0].Err, backend.ErrValueNotCanonical) || d.Tables[0].Rows != nil {
		t.Fatalf("invalid UTF-8: %+v, want ErrValueNotCanonical", d)
	}
	blk.Rollback(ctx)
	blk = canonBlock(t, b, pgStmt{sql: `INSERT INTO k VALUES ($1)`, args: []any{"a\x00b"}})
	d = delta(t, blk)
	if len(d.Tables) != 1 || !d.Tables[0].Rescan || d.Tables[0].Err != nil {
		t.Fatalf("NUL in a key: %+v, want Rescan", d)
	}
	err := blk.(backend.CanonicalBlock).CanonicalTableRows(ctx, "k", func(key, image []byte) error { return nil })
	if !errors.Is(err, backend.ErrValueNotCanonical) {
		t.Fatalf("CanonicalTableRows(k): %v, want ErrValueNotCanonical", err)
	}
	blk.Rollback(ctx)
	pgBlock(t, b, 2, pgStmt{sql: `INSERT INTO s VALUES (1, $1)`, args: []any{"\xff"}})
	err = b.CanonicalRows(ctx, "s", func(key, image []byte) error { return nil })
	if !errors.Is(err, backend.ErrValueNotCanonical) || !backend.NotCanonical(err) {
		t.Fatalf("CanonicalRows(s): %v, want ErrValueNotCanonical", err)
	}
}

// Inside a block, CanonicalTables sees the block's new table and
// CanonicalTableRows its uncommitted rows; reading them leaves the block
// as it was: it goes on and commits the same state digest as a block
// that never read.
func TestCanonicalReadsInBlock(t *testing.T) {
	ctx := context.Background()
	var digests [2][]byte
	for i := range digests {
		b := mustOpenPostgresDialect(t)
		pgBlock(t, b, 1, pgStmt{sql: `CREATE TABLE z (id int4 PRIMARY KEY)`}, pgStmt{sql: `CREATE TABLE nopk (a int4)`})
		blk := canonBlock(t, b, pgStmt{sql: `CREATE TABLE y (id int4 PRIMARY KEY, v text)`},
			pgStmt{sql: `INSERT INTO y VALUES (1, 'a'), (2, 'b')`})
		cb := blk.(backend.CanonicalBlock)
		if i == 0 {
			names, err := cb.CanonicalTables(ctx)
			if err != nil || !slices.Equal(names, []string{"nopk", "y", "z"}) {
				t.Fatalf("CanonicalTables in block: %v, %v", names, err)
			}
			if names, err := b.CanonicalTables(ctx); err != nil || !slices.Equal(names, []string{"nopk", "z"}) {
				t.Fatalf("CanonicalTables of committed state: %v, %v", names, err)
			}
			n := 0
			err = cb.CanonicalTableRows(ctx, "y", func(key, image []byte) error { n++; return nil })
			if err != nil || n != 2 {
				t.Fatalf("CanonicalTableRows(y) in block: %d rows, %v", n, err)
			}
			if err := cb.CanonicalTableRows(ctx, "nopk", func(key, image []byte) error { return nil }); !errors.Is(err, backend.ErrNoPrimaryKey) {
				t.Fatalf("CanonicalTableRows(nopk): %v", err)
			}
		}
		if err := blk.Savepoint(ctx, sqlcheck.Env{Tx: 1}); err != nil {
			t.Fatal(err)
		}
		if _, err := blk.Exec(ctx, `INSERT INTO y VALUES (3, 'c')`, nil); err != nil {
			t.Fatal(err)
		}
		if err := blk.Release(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := blk.ChangeDigest(ctx); err != nil {
			t.Fatal(err)
		}
		d, err := blk.StateDigest(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := blk.Commit(ctx, backend.State{Height: 2, AppHash: []byte{2}}); err != nil {
			t.Fatal(err)
		}
		digests[i] = d
	}
	if !bytes.Equal(digests[0], digests[1]) {
		t.Fatalf("state digest %x after the reads, %x without", digests[0], digests[1])
	}
}

// A backend of SQLite's own dialect has no canonical rows: every method
// says so with errors.ErrUnsupported.
func TestCanonicalUnsupportedInSQLiteDialect(t *testing.T) {
	ctx := context.Background()
	b, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "relchain.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	blk, err := b.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer blk.Rollback(ctx)
	cb := blk.(backend.CanonicalBlock)
	_, e1 := b.CanonicalTables(ctx)
	e2 := b.CanonicalRows(ctx, "t", func(key, image []byte) error { return nil })
	_, e3 := cb.CanonicalDelta(ctx)
	_, e4 := cb.CanonicalTables(ctx)
	e5 := cb.CanonicalTableRows(ctx, "t", func(key, image []byte) error { return nil })
	for i, err := range []error{e1, e2, e3, e4, e5} {
		if !errors.Is(err, errors.ErrUnsupported) {
			t.Errorf("method %d: %v, want errors.ErrUnsupported", i+1, err)
		}
	}
}

// Records ChangeDigest has not consumed yet are in the delta too, and a
// block's delta holds nothing of the block before it (committed or
// rolled back).
func TestCanonicalDeltaTakesPendingRecords(t *testing.T) {
	b := mustOpenPostgresDialect(t)
	pgBlock(t, b, 1, pgStmt{sql: `CREATE TABLE a (id int4 PRIMARY KEY)`}, pgStmt{sql: `CREATE TABLE c (id int4 PRIMARY KEY)`})
	ctx := context.Background()
	blk := canonBlock(t, b, pgStmt{sql: `INSERT INTO c VALUES (9)`})
	blk.Rollback(ctx)
	blk, err := b.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer blk.Rollback(ctx)
	if err := blk.Savepoint(ctx, sqlcheck.Env{}); err != nil {
		t.Fatal(err)
	}
	if _, err := blk.Exec(ctx, `INSERT INTO a VALUES (1), (2)`, nil); err != nil {
		t.Fatal(err)
	}
	d := delta(t, blk)
	if len(d.Tables) != 1 || d.Tables[0].Table != "a" || len(d.Tables[0].Rows) != 2 || d.Tables[0].Rows[0].Image == nil {
		t.Fatalf("delta before ChangeDigest: %+v, want a's two rows", d)
	}
}

// BenchmarkCanonicalDelta: the delta of a block that updated 1,000 rows
// of a 10,000-row table (composite key), beside the engine's own change
// digest of the same block (issue 37 compares them), per changed row:
//
//	go test ./backend/sqlite -run '^$' -bench CanonicalDelta -benchtime 50x -count 3
func BenchmarkCanonicalDelta(b *testing.B) {
	ctx := context.Background()
	be, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "relchain.db"), sqlite.WithPostgresDialect())
	if err != nil {
		b.Fatal(err)
	}
	defer be.Close()
	blk, err := be.Begin(ctx)
	if err == nil {
		err = blk.Savepoint(ctx, sqlcheck.Env{})
	}
	for _, sql := range []string{`CREATE TABLE acct (k text, n int8, bal numeric, PRIMARY KEY (k, n))`,
		`INSERT INTO acct SELECT 'k' || (i % 10), i, i * 1.5 FROM generate_series(1, 10000) AS g(i)`} {
		if err == nil {
			_, err = blk.Exec(ctx, sql, nil)
		}
	}
	if err == nil {
		err = blk.Release(ctx)
	}
	if err == nil {
		_, err = blk.ChangeDigest(ctx)
	}
	if err == nil {
		_, err = blk.StateDigest(ctx)
	}
	if err == nil {
		err = blk.Commit(ctx, backend.State{Height: 1, AppHash: []byte{1}})
	}
	if err != nil {
		b.Fatal(err)
	}
	const keys = 1000
	var native, canonical time.Duration
	for i := 0; b.Loop(); i++ {
		blk, err := be.Begin(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if err := blk.Savepoint(ctx, sqlcheck.Env{}); err != nil {
			b.Fatal(err)
		}
		if _, err := blk.Exec(ctx, fmt.Sprintf(`UPDATE acct SET bal = bal + 1 WHERE n %% 10 = %d`, i%10), nil); err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		if _, err := blk.ChangeDigest(ctx); err != nil {
			b.Fatal(err)
		}
		native += time.Since(start)
		start = time.Now()
		d, err := blk.(backend.CanonicalBlock).CanonicalDelta(ctx)
		canonical += time.Since(start)
		if err != nil || len(d.Tables) != 1 || len(d.Tables[0].Rows) != keys {
			b.Fatalf("delta %v: %v", len(d.Tables), err)
		}
		blk.Rollback(ctx)
	}
	b.ReportMetric(float64(native.Nanoseconds())/float64(b.N*keys)/1000, "native-µs/key")
	b.ReportMetric(float64(canonical.Nanoseconds())/float64(b.N*keys)/1000, "delta-µs/key")
}

// A float key of -0, which a change record's image writes as 0.0 (a key
// holds +0 for either zero; the image keeps the sign), is kept up to date
// as any other: inserted, moved to +0 and back, deleted, alone and in a
// composite key.
func TestCanonicalDeltaNegativeZeroKeys(t *testing.T) {
	b := mustOpenPostgresDialect(t)
	pgBlock(t, b, 1, pgStmt{sql: `CREATE TABLE fz (f float8 PRIMARY KEY, v int4)`},
		pgStmt{sql: `CREATE TABLE fz2 (a float4, b float8, PRIMARY KEY (a, b))`})
	tables := []string{"fz", "fz2"}
	tr := trees(t, b, tables)
	ctx := context.Background()
	for h, sql := range []string{
		`INSERT INTO fz VALUES ('-0', 1)`,
		`INSERT INTO fz2 VALUES ('-0', '-0'), (0, 1)`,
		`UPDATE fz SET f = 0 WHERE v = 1`,
		`UPDATE fz SET f = '-0' WHERE v = 1`,
		`UPDATE fz2 SET b = 5 WHERE b = 0`,
		`DELETE FROM fz`,
		`DELETE FROM fz2 WHERE b = 5`,
	} {
		blk := canonBlock(t, b, pgStmt{sql: sql})
		applyDelta(t, delta(t, blk), tr)
		if _, err := blk.StateDigest(ctx); err != nil {
			t.Fatal(err)
		}
		if err := blk.Commit(ctx, backend.State{Height: int64(h + 2), AppHash: []byte{byte(h)}}); err != nil {
			t.Fatal(err)
		}
		for _, tbl := range tables {
			want, err := backend.TableRoot(ctx, b, tbl)
			if err != nil {
				t.Fatal(err)
			}
			if got := tr[tbl].Commit(); got.Hash() != want.Hash() || got.Len() != want.Len() {
				t.Fatalf("after %s: %s: delta gives %d rows, table has %d (roots differ: %v)", sql, tbl, got.Len(), want.Len(), got.Hash() != want.Hash())
			}
		}
	}
}

// checkTrees fails unless every tree of tr has its table's root.
func checkTrees(t *testing.T, b *sqlite.Backend, tr map[string]*statetree.Tree, after string) {
	t.Helper()
	for tbl, tree := range tr {
		want, err := backend.TableRoot(context.Background(), b, tbl)
		if err != nil {
			t.Fatal(err)
		}
		if got := tree.Commit(); got.Hash() != want.Hash() || got.Len() != want.Len() {
			t.Fatalf("after %s: %s: delta gives %d rows, table has %d (roots differ: %v)", after, tbl, got.Len(), want.Len(), got.Hash() != want.Hash())
		}
	}
}

// randomFloat is any float64 but NaN (SQLite stores NaN as NULL), zeros
// and infinities often.
func randomFloat(r *rand.Rand) float64 {
	switch r.IntN(8) {
	case 0:
		return math.Copysign(0, -1)
	case 1:
		return math.Inf(1 - 2*r.IntN(2))
	case 2:
		return float64(r.IntN(1000) - 500) // whole: REAL affinity stores it as an integer
	}
	for {
		if f := math.Float64frombits(r.Uint64()); !math.IsNaN(f) {
			return f
		}
	}
}

// A table whose records all come from the hook takes its rows after the
// block from its last records, not from the table: every value a record
// can hold gives the row the table holds. Random floats of every bit
// pattern (the images write them as quote() does: 15 or 20 digits, -0 as
// 0.0), whole REALs, texts with quotes and non-ASCII, bytes, numerics,
// timestamps, in key and non-key columns, inserted, updated, moved to
// another key and deleted in one block.
func TestCanonicalDeltaFromRecordsHoldsEveryValue(t *testing.T) {
	b := mustOpenPostgresDialect(t)
	pgBlock(t, b, 1, pgStmt{sql: `CREATE TABLE vals (k float8 PRIMARY KEY, f8 float8, f4 float4, n numeric, s text, raw bytea, ts timestamptz, i int8)`})
	tr := trees(t, b, []string{"vals"})
	r := rand.New(rand.NewPCG(36, 2))
	texts := []string{"", "it's", "''", "naïve ☃", "a,b", "NULL", "X'00'"}
	changed := 0
	for h := int64(2); h < 60; h++ {
		var stmts []pgStmt
		for range 1 + r.IntN(6) {
			k := float64(r.IntN(24)) / 4
			if r.IntN(4) == 0 {
				k = randomFloat(r)
			}
			switch r.IntN(4) {
			case 0, 1:
				raw := make([]byte, r.IntN(5))
				for i := range raw {
					raw[i] = byte(r.IntN(256))
				}
				stmts = append(stmts, pgStmt{
					sql: `INSERT INTO vals VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (k) DO UPDATE SET f8 = excluded.f8, f4 = excluded.f4, s = excluded.s, raw = excluded.raw`,
					args: []any{k, randomFloat(r), float64(float32(randomFloat(r))), fmt.Sprintf("%d.%03d", r.IntN(2000)-1000, r.IntN(1000)),
						texts[r.IntN(len(texts))], raw, time.Unix(int64(r.IntN(2e9)), int64(r.IntN(1e6))*1000).UTC().Format("2006-01-02 15:04:05.999999+00"), r.Int64()}})
			case 2:
				stmts = append(stmts, pgStmt{sql: `UPDATE vals SET k = $1, f8 = -f8 WHERE k = $2`, args: []any{randomFloat(r), k}})
			case 3:
				stmts = append(stmts, pgStmt{sql: `DELETE FROM vals WHERE k = $1`, args: []any{k}})
			}
		}
		blk := canonBlockLenient(t, b, stmts...)
		d := delta(t, blk)
		for _, td := range d.Tables {
			changed += len(td.Rows)
		}
		applyDelta(t, d, tr)
		if _, err := blk.StateDigest(context.Background()); err != nil {
			t.Fatal(err)
		}
		if err := blk.Commit(context.Background(), backend.State{Height: h, AppHash: []byte{byte(h)}}); err != nil {
			t.Fatal(err)
		}
		checkTrees(t, b, tr, fmt.Sprintf("block %d", h))
	}
	if rows := tr["vals"].Commit().Len(); changed < 100 || rows < 10 {
		t.Fatalf("%d keys changed, %d rows left: the generator changes too little", changed, rows)
	}
}

// canonBlockLenient is canonBlock where a statement may fail (a key
// moved onto one that exists): each runs in its own savepoint.
func canonBlockLenient(t *testing.T, b backend.Backend, stmts ...pgStmt) backend.Block {
	t.Helper()
	ctx := context.Background()
	blk := beginBlock(t, b)
	for i, s := range stmts {
		if err := blk.Savepoint(ctx, sqlcheck.Env{Tx: i}); err != nil {
			t.Fatal(err)
		}
		end := blk.Release
		if _, err := blk.Exec(ctx, s.sql, s.args); err != nil {
			if backend.AsError(err) == nil {
				t.Fatalf("exec: %s: %v", s.sql, err)
			}
			end = blk.RollbackTo
		}
		if err := end(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := blk.ChangeDigest(ctx); err != nil {
		t.Fatal(err)
	}
	return blk
}

// Records ChangeDigest consumed inside a savepoint that is then rolled
// back name changes no row holds: the delta reads such a block's keys
// back rather than trust its last records.
func TestCanonicalDeltaAfterADigestInsideARolledBackSavepoint(t *testing.T) {
	b := mustOpenPostgresDialect(t)
	pgBlock(t, b, 1, pgStmt{sql: `CREATE TABLE acc (id int8 PRIMARY KEY, bal int8)`},
		pgStmt{sql: `INSERT INTO acc VALUES (1, 10), (2, 20)`})
	tr := trees(t, b, []string{"acc"})
	ctx := context.Background()
	blk := beginBlock(t, b)
	if err := blk.Savepoint(ctx, sqlcheck.Env{}); err != nil {
		t.Fatal(err)
	}
	for _, sql := range []string{`UPDATE acc SET bal = 0 WHERE id = 1`, `DELETE FROM acc WHERE id = 2`, `INSERT INTO acc VALUES (3, 30)`} {
		if _, err := blk.Exec(ctx, sql, nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := blk.ChangeDigest(ctx); err != nil {
		t.Fatal(err)
	}
	if err := blk.RollbackTo(ctx); err != nil {
		t.Fatal(err)
	}
	applyDelta(t, delta(t, blk), tr)
	if _, err := blk.StateDigest(ctx); err != nil {
		t.Fatal(err)
	}
	if err := blk.Commit(ctx, backend.State{Height: 2, AppHash: []byte{2}}); err != nil {
		t.Fatal(err)
	}
	checkTrees(t, b, tr, "the rolled-back savepoint")
}

// A schema change made outside relchain (an operator's CREATE INDEX in
// the sqlite3 shell, say) is this node's alone: the next block, which
// runs no DDL, must not count as one that changed the schema, or its
// results would lose their effect digests on this node only and split it
// from the others. The change is reconciled at Begin, and the block's
// state digest is read whole once (node-local work, same digest).
func TestOutOfBandSchemaChangeIsNotTheBlocks(t *testing.T) {
	path := filepath.Join(t.TempDir(), "relchain.db")
	b, err := sqlite.Open(context.Background(), path, sqlite.WithPostgresDialect())
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	pgBlock(t, b, 1, pgStmt{sql: `CREATE TABLE a (id int4 PRIMARY KEY, v int4)`})
	pgBlock(t, b, 2, pgStmt{sql: `INSERT INTO a VALUES (1, 1)`})
	writeOutOfBand(t, path, `CREATE INDEX a_v ON a (v)`)
	ctx := context.Background()
	blk := canonBlock(t, b, pgStmt{sql: `INSERT INTO a VALUES (2, 2)`})
	if d := delta(t, blk); d.SchemaChanged || len(d.Tables) != 1 || d.Tables[0].Table != "a" {
		t.Fatalf("a block after an out-of-band CREATE INDEX: %+v, want a's row and no schema change", d)
	}
	digest, err := blk.StateDigest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := blk.Commit(ctx, backend.State{Height: 3, AppHash: []byte{3}}); err != nil {
		t.Fatal(err)
	}
	scanned, _, err := b.ScanState(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(scanned.Digest(), digest) {
		t.Fatal("the block's state digest differs from the database's, read whole")
	}
}

// A schema changed outside relchain with an object the gate would have
// refused (a view that reads the node's SQLite build) is taken at Begin as
// Open takes it: blocks go on, and the view is refused where a statement
// reads it, as on a node that restarted with it (TestGateTrapsInOldSchema).
// Were it vetted at Begin instead, this node alone would refuse its next
// block's DDL, or stop.
func TestOutOfBandSchemaChangeTrappedAtUse(t *testing.T) {
	path := filepath.Join(t.TempDir(), "relchain.db")
	b, err := sqlite.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	runBlock(t, b, 1, [][]string{{`CREATE TABLE a (id INTEGER PRIMARY KEY)`}})
	writeOutOfBand(t, path, `CREATE VIEW vtrap AS SELECT sqlite_version() AS r`)
	run := runBlock(t, b, 2, [][]string{{`INSERT INTO a (id) VALUES (1)`}, {`CREATE TABLE c (id INTEGER PRIMARY KEY)`}, {`SELECT * FROM vtrap`}})
	if run.failed[0] || run.failed[1] || !run.failed[2] {
		t.Fatalf("failed txs %v, want only the read of the out-of-band view", run.failed)
	}
}
