package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/postgres/pgtest"
	"github.com/relchain/relchain/rowcanon"
	"github.com/relchain/relchain/sqlcheck"
	"github.com/relchain/relchain/statetree"
)

// canonBlock begins a block on b and returns it as the CanonicalBlock it
// must be (the executor type-asserts it).
func canonBlock(t *testing.T, b backend.Backend) (backend.Block, backend.CanonicalBlock) {
	t.Helper()
	blk, err := b.Begin(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	cb, ok := blk.(backend.CanonicalBlock)
	if !ok {
		blk.Rollback(ctx(t))
		t.Fatalf("the Block Begin returns (%T) is no backend.CanonicalBlock", blk)
	}
	return blk, cb
}

// canonTx runs stmts as bc-transaction i of blk, rolled back to its
// savepoint if one fails (a statement error) or if rollback is set, as
// the executor does; it reports whether the tx's writes stayed.
func canonTx(t *testing.T, blk backend.Block, i int, rollback bool, stmts ...string) bool {
	t.Helper()
	if err := blk.Savepoint(ctx(t), sqlcheck.Env{Tx: i}); err != nil {
		t.Fatal(err)
	}
	for _, s := range stmts {
		if _, err := blk.Exec(ctx(t), s, nil); err != nil {
			if backend.AsError(err) == nil {
				t.Fatalf("Exec %q: %v", s, err)
			}
			rollback = true
			break
		}
	}
	end := blk.Release
	if rollback {
		end = blk.RollbackTo
	}
	if err := end(ctx(t)); err != nil {
		t.Fatal(err)
	}
	return !rollback
}

// sealDelta ends blk as the executor will: ChangeDigest, StateDigest,
// CanonicalDelta, Commit at height h; it returns the delta.
func sealDelta(t *testing.T, blk backend.Block, h int64) backend.CanonicalDelta {
	t.Helper()
	if _, err := blk.ChangeDigest(ctx(t)); err != nil {
		t.Fatal(err)
	}
	if _, err := blk.StateDigest(ctx(t)); err != nil {
		t.Fatal(err)
	}
	d, err := blk.(backend.CanonicalBlock).CanonicalDelta(ctx(t))
	if err != nil {
		t.Fatalf("CanonicalDelta: %v", err)
	}
	if err := blk.Commit(ctx(t), backend.State{Height: h, AppHash: []byte{byte(h)}}); err != nil {
		t.Fatal(err)
	}
	return d
}

// canonTables are the property test's tables: single and composite keys
// (in an order other than the columns'), of several types, with values
// that need quoting in a row image and in an array of them.
var canonTables = []string{
	`CREATE TABLE a (id int PRIMARY KEY, v text, n numeric)`,
	`CREATE TABLE "B t" (k1 text, k2 bigint, f float8, ts timestamp, PRIMARY KEY (k2, k1))`,
	`CREATE TABLE c (u uuid PRIMARY KEY, d date, raw bytea, ok bool, ch char(3))`,
	`CREATE TABLE d (ts timestamptz, n numeric(6,2), day date, ch char(4), f float4, raw bytea, note text, PRIMARY KEY (ts, n, day, ch, f, raw))`,
}

// canonTexts need quoting in a record's text or an array element.
var canonTexts = []string{`x`, ``, `a"b`, `c\d`, `(e,f)`, `{g}`, ` h `, `'i'`, `NULL`}

// canonStmt is a random statement on one of canonTables, over small key
// spaces so that keys collide (conflicts, key changes onto taken keys).
func canonStmt(r *rand.Rand) string {
	lit := func() string {
		if r.IntN(6) == 0 {
			return "NULL"
		}
		return "'" + strings.ReplaceAll(canonTexts[r.IntN(len(canonTexts))], "'", "''") + "'"
	}
	id, id2 := r.IntN(12), r.IntN(12)
	k1 := []string{"'p'", "'q,r'", `'s"t'`, `'u\v'`, `' (w) '`, `''`}[r.IntN(6)]
	uuid := func(n int) string { return fmt.Sprintf("'00000000-0000-0000-0000-%012d'", n) }
	switch r.IntN(17) {
	case 14:
		return fmt.Sprintf(`INSERT INTO d VALUES ('2024-03-0%d 01:02:03.%06d+02', %d.5, DATE '1999-12-31' + %d, %s, %d.125, '\x%02x5c22', %s) ON CONFLICT DO NOTHING`,
			1+id%3, id2, id%4, id2%3, []string{"'a'", "'b c'", `'"'`}[id%3], id2%2, id%5, lit())
	case 15:
		return fmt.Sprintf(`UPDATE d SET note = %s, n = n + 1 WHERE day = DATE '1999-12-31' + %d`, lit(), id2%3)
	case 16:
		return fmt.Sprintf(`DELETE FROM d WHERE f < %d`, id%3)
	case 12: // over truncateAt records: the next block consumes by TRUNCATE
		return `INSERT INTO a SELECT g, 'bulk', g FROM generate_series(100, 400) AS g ON CONFLICT (id) DO UPDATE SET v = excluded.v || '!'`
	case 13:
		return fmt.Sprintf(`DELETE FROM a WHERE id >= 100 + %d`, id*20)
	case 0:
		return fmt.Sprintf(`INSERT INTO a VALUES (%d, %s, %d.%d0)`, id, lit(), id2, id)
	case 1:
		return fmt.Sprintf(`INSERT INTO a VALUES (%d, %s, NULL) ON CONFLICT (id) DO UPDATE SET v = excluded.v || a.v`, id, lit())
	case 2:
		return fmt.Sprintf(`UPDATE a SET id = %d WHERE id = %d`, id, id2)
	case 3:
		return fmt.Sprintf(`UPDATE a SET n = coalesce(n, 0) + 1.5 WHERE id %% 3 = %d`, id%3)
	case 4:
		return fmt.Sprintf(`DELETE FROM a WHERE id BETWEEN %d AND %d`, id, id+2)
	case 5:
		return fmt.Sprintf(`INSERT INTO "B t" VALUES (%s, %d, %d.25, '2024-01-%02d 10:00:00.%06d') ON CONFLICT DO NOTHING`, k1, id, id2, id+1, id2)
	case 6:
		return fmt.Sprintf(`UPDATE "B t" SET k1 = %s, f = -f WHERE k2 = %d`, k1, id)
	case 7:
		return fmt.Sprintf(`UPDATE "B t" SET k2 = k2 + %d WHERE k1 = %s`, id2, k1)
	case 8:
		return fmt.Sprintf(`DELETE FROM "B t" WHERE k2 > %d`, id+8)
	case 9:
		return fmt.Sprintf(`INSERT INTO c VALUES (%s, DATE '2000-01-01' + %d, '\x%02x22', %v, 'z') ON CONFLICT (u) DO UPDATE SET ok = NOT c.ok, raw = NULL`, uuid(id), id2, id2, id%2 == 0)
	case 10:
		return fmt.Sprintf(`UPDATE c SET u = %s, ch = NULL WHERE u = %s`, uuid(id), uuid(id2))
	}
	return fmt.Sprintf(`DELETE FROM c WHERE u = %s`, uuid(id))
}

// applyDelta brings trees (by table) up to date with d.
func applyDelta(t *testing.T, trees map[string]*statetree.Tree, d backend.CanonicalDelta) {
	t.Helper()
	if d.SchemaChanged {
		t.Fatal("SchemaChanged for a block without DDL")
	}
	for i, td := range d.Tables {
		if i > 0 && d.Tables[i-1].Table >= td.Table {
			t.Fatalf("tables not sorted: %q before %q", d.Tables[i-1].Table, td.Table)
		}
		if td.Err != nil || td.Rescan {
			t.Fatalf("table %s: Err %v, Rescan %v", td.Table, td.Err, td.Rescan)
		}
		tr := trees[td.Table]
		if tr == nil {
			t.Fatalf("delta names table %q", td.Table)
		}
		for j, ch := range td.Rows {
			if j > 0 && string(td.Rows[j-1].Key) >= string(ch.Key) {
				t.Fatalf("table %s: keys not sorted or repeated at %d", td.Table, j)
			}
			var err error
			if ch.Image == nil {
				_, err = tr.Delete(ch.Key)
			} else {
				err = tr.Set(ch.Key, rowcanon.LeafHash(ch.Image))
			}
			if err != nil {
				t.Fatal(err)
			}
		}
	}
}

// Random blocks of INSERT, UPDATE (keys changed too), DELETE and INSERT
// … ON CONFLICT, with txs rolled back to their savepoint: each block's
// CanonicalDelta, applied to statetrees built before it, gives every
// table the root of its committed rows.
func TestCanonicalDeltaKeepsTreesUpToDate(t *testing.T) {
	b := mustOpen(t, pgtest.DSN(t))
	defer b.Close()
	block(t, b, 1, canonTables...)
	names, err := b.CanonicalTables(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"B t", "a", "c", "d"}; !slices.Equal(names, want) {
		t.Fatalf("CanonicalTables = %q, want %q", names, want)
	}
	trees := map[string]*statetree.Tree{}
	for _, n := range names {
		trees[n] = statetree.New()
	}
	r := rand.New(rand.NewPCG(36, 1))
	kept := 0
	for h := int64(2); h < 122; h++ {
		blk, _ := canonBlock(t, b)
		for i := range 1 + r.IntN(6) {
			stmts := make([]string, 1+r.IntN(3))
			for j := range stmts {
				stmts[j] = canonStmt(r)
			}
			if canonTx(t, blk, i, r.IntN(5) == 0, stmts...) {
				kept++
			}
			if r.IntN(4) == 0 { // the records consumed in several batches
				if _, err := blk.ChangeDigest(ctx(t)); err != nil {
					t.Fatal(err)
				}
			}
		}
		applyDelta(t, trees, sealDelta(t, blk, h))
		for _, n := range names {
			want, err := backend.TableRoot(ctx(t), b, n)
			if err != nil {
				t.Fatal(err)
			}
			if got := trees[n].Commit(); got.Hash() != want.Hash() || got.Len() != want.Len() {
				t.Fatalf("block %d, table %s: tree from deltas has %d rows, root %x; committed rows: %d, root %x",
					h, n, got.Len(), got.Hash(), want.Len(), want.Hash())
			}
		}
	}
	for _, n := range names {
		t.Logf("table %s: %d rows", n, trees[n].Len())
	}
	if kept < 200 {
		t.Fatalf("only %d txs kept their writes: the test exercises too little", kept)
	}
}

// canonDelta runs stmts as one tx of a block at height h and returns the
// block's CanonicalDelta.
func canonDelta(t *testing.T, b backend.Backend, h int64, stmts ...string) backend.CanonicalDelta {
	t.Helper()
	blk, _ := canonBlock(t, b)
	if !canonTx(t, blk, 0, false, stmts...) {
		blk.Rollback(ctx(t))
		t.Fatalf("block %d failed: %q", h, stmts)
	}
	return sealDelta(t, blk, h)
}

// tableDelta is d's part for table.
func tableDelta(t *testing.T, d backend.CanonicalDelta, table string) backend.CanonicalTableDelta {
	t.Helper()
	for _, td := range d.Tables {
		if td.Table == table {
			return td
		}
	}
	t.Fatalf("delta %+v has no table %s", d, table)
	return backend.CanonicalTableDelta{}
}

// DDL makes the delta SchemaChanged (the caller rebuilds every tree); a
// TRUNCATE asks for its table's rescan; a table without a primary key
// and a changed row holding numeric NaN are their table's Err, beside
// tables whose rows are given; relchain.sequences is no table of the
// delta.
func TestCanonicalDeltaRefusalsAndRescans(t *testing.T) {
	b := mustOpen(t, pgtest.DSN(t))
	defer b.Close()
	if d := canonDelta(t, b, 1, `CREATE TABLE k (id serial PRIMARY KEY, v text)`, `CREATE TABLE nopk (x int)`,
		`CREATE TABLE num (id int PRIMARY KEY, n numeric)`, `CREATE TABLE inf (id int PRIMARY KEY, d date, ts timestamptz)`,
		`CREATE TABLE public.int4 (a text)`, `CREATE TABLE ut (id pg_catalog.int4 PRIMARY KEY, x public.int4)`,
		`INSERT INTO k (v) VALUES ('a'), ('b')`); !d.SchemaChanged {
		t.Fatalf("block of CREATE TABLE: %+v, want SchemaChanged", d)
	}
	if d := canonDelta(t, b, 2, `CREATE INDEX k_v ON k (v)`); !d.SchemaChanged {
		t.Fatalf("block of CREATE INDEX: %+v, want SchemaChanged", d)
	}
	d := canonDelta(t, b, 3, `INSERT INTO k (v) VALUES ('c')`, `INSERT INTO nopk VALUES (1)`, `INSERT INTO num VALUES (1, 'NaN'), (2, 1)`,
		`INSERT INTO inf VALUES (1, 'infinity', NULL)`, `INSERT INTO inf VALUES (2, NULL, '-infinity')`, `INSERT INTO ut VALUES (1, ROW('one'))`)
	if d.SchemaChanged || len(d.Tables) != 5 {
		t.Fatalf("delta %+v: want 5 tables (not relchain.sequences), no SchemaChanged", d)
	}
	if td := tableDelta(t, d, "inf"); !errors.Is(td.Err, backend.ErrValueNotCanonical) || td.Rows != nil {
		t.Fatalf("inf: %+v, want Err ErrValueNotCanonical (an infinite date and timestamp), no rows", td)
	}
	for _, infRow := range []string{`id = 1`, `id = 2`} {
		blk, cb := canonBlock(t, b)
		canonTx(t, blk, 0, false, `DELETE FROM inf WHERE NOT (`+infRow+`)`)
		err := cb.CanonicalTableRows(ctx(t), "inf", func(_, _ []byte) error { return nil })
		blk.Rollback(ctx(t))
		if !errors.Is(err, backend.ErrValueNotCanonical) {
			t.Fatalf("CanonicalTableRows of inf with the row %s: %v, want ErrValueNotCanonical", infRow, err)
		}
	}
	if td := tableDelta(t, d, "k"); td.Err != nil || len(td.Rows) != 1 || td.Rows[0].Image == nil {
		t.Fatalf("k: %+v, want one row", td)
	}
	if td := tableDelta(t, d, "ut"); !errors.Is(td.Err, backend.ErrNoCanonicalForm) || td.Rows != nil {
		t.Fatalf("ut: %+v, want Err ErrNoCanonicalForm (a user's type named int4: a table's row type), no rows", td)
	}
	if td := tableDelta(t, d, "nopk"); !errors.Is(td.Err, backend.ErrNoPrimaryKey) || td.Rows != nil {
		t.Fatalf("nopk: %+v, want Err ErrNoPrimaryKey and no rows", td)
	}
	if td := tableDelta(t, d, "num"); !errors.Is(td.Err, backend.ErrValueNotCanonical) || td.Rows != nil || !strings.Contains(td.Err.Error(), "column n") {
		t.Fatalf("num: %+v, want Err ErrValueNotCanonical naming column n, no rows", td)
	}
	if err := b.CanonicalRows(ctx(t), "num", func(_, _ []byte) error { return nil }); !errors.Is(err, backend.ErrValueNotCanonical) {
		t.Fatalf("CanonicalRows of num: %v, want ErrValueNotCanonical", err)
	}
	d = canonDelta(t, b, 4, `DELETE FROM num WHERE id = 1`, `TRUNCATE k`, `INSERT INTO k (v) VALUES ('d')`)
	if d.SchemaChanged {
		t.Fatalf("block of TRUNCATE: %+v, want no SchemaChanged", d)
	}
	if td := tableDelta(t, d, "k"); !td.Rescan || td.Rows != nil || td.Err != nil {
		t.Fatalf("k after TRUNCATE: %+v, want Rescan", td)
	}
	if td := tableDelta(t, d, "num"); td.Err != nil || len(td.Rows) != 1 || td.Rows[0].Image != nil {
		t.Fatalf("num after deleting the NaN row: %+v, want its key, deleted", td)
	}
	if d := canonDelta(t, b, 5, `TRUNCATE num`, `ALTER TABLE num ADD COLUMN m int`); !d.SchemaChanged {
		t.Fatalf("block of TRUNCATE and ALTER TABLE: %+v, want SchemaChanged", d)
	}
}

// Inside a block, CanonicalTables and CanonicalTableRows see its DDL and
// its uncommitted rows; a failed read (no such table, fn's error) leaves
// the block as it was, and it commits. The committed CanonicalTables
// lists the user's tables only (no relchain.sequences), with or without
// a primary key.
func TestCanonicalReadsInsideBlock(t *testing.T) {
	b := mustOpen(t, pgtest.DSN(t))
	defer b.Close()
	block(t, b, 1, `CREATE TABLE t (id serial PRIMARY KEY, v text)`, `INSERT INTO t (v) VALUES ('a')`)
	blk, cb := canonBlock(t, b)
	defer blk.Rollback(ctx(t))
	canonTx(t, blk, 0, false, `CREATE TABLE u (x int)`, `INSERT INTO t (v) VALUES ('b'), ('c')`)
	names, err := cb.CanonicalTables(ctx(t))
	if want := []string{"t", "u"}; err != nil || !slices.Equal(names, want) {
		t.Fatalf("CanonicalTables in the block = %q, %v; want %q", names, err, want)
	}
	if names, err := b.CanonicalTables(ctx(t)); err != nil || !slices.Equal(names, []string{"t"}) {
		t.Fatalf("committed CanonicalTables = %q, %v; want [t]", names, err)
	}
	count := func(table string) (n int, err error) {
		err = cb.CanonicalTableRows(ctx(t), table, func(_, _ []byte) error { n++; return nil })
		return n, err
	}
	if n, err := count("t"); err != nil || n != 3 {
		t.Fatalf("CanonicalTableRows(t) in the block: %d rows, %v; want 3", n, err)
	}
	if _, err := count("nosuch"); err == nil || backend.NotCanonical(err) {
		t.Fatalf("CanonicalTableRows(nosuch): %v, want an error", err)
	}
	if _, err := count("u"); !errors.Is(err, backend.ErrNoPrimaryKey) {
		t.Fatalf("CanonicalTableRows(u): %v, want ErrNoPrimaryKey", err)
	}
	stop := errors.New("stop")
	if err := cb.CanonicalTableRows(ctx(t), "t", func(_, _ []byte) error { return stop }); !errors.Is(err, stop) {
		t.Fatalf("CanonicalTableRows with fn failing: %v, want fn's error", err)
	}
	canonTx(t, blk, 1, false, `INSERT INTO t (v) VALUES ('d')`)
	sealDelta(t, blk, 2)
	root, err := backend.TableRoot(ctx(t), b, "t")
	if err != nil || root.Len() != 4 {
		t.Fatalf("committed t: %d rows, %v; want 4", root.Len(), err)
	}
}

// A block whose lock waits are bounded (a rehearsal's) is a
// CanonicalBlock too.
func TestLockBoundedBlockIsCanonical(t *testing.T) {
	b := mustOpen(t, pgtest.DSN(t))
	defer b.Close()
	blk, _ := canonBlock(t, b)
	defer blk.Rollback(ctx(t))
	bounded, err := blk.(backend.LockWaitBounder).BoundLockWaits(ctx(t), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	cb, ok := bounded.(backend.CanonicalBlock)
	if !ok {
		t.Fatalf("BoundLockWaits returns %T, no CanonicalBlock", bounded)
	}
	if _, err := cb.CanonicalTables(ctx(t)); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkCanonicalDelta measures CanonicalDelta after ChangeDigest on
// BenchmarkChangeDigestWide's block (4,600 wide rows updated in one
// statement: 9,200 images naming 4,600 keys) and on Smallbank's shape
// (400 single-row UPDATEs, each in its savepoint), and reports its wall
// time per block and per changed key, beside the engine's own change
// digest of the same block (ChangeDigest, which it follows):
//
//	RELCHAIN_TEST_PG=<server> go test ./backend/postgres -run '^$' -bench CanonicalDelta -benchtime 20x
func BenchmarkCanonicalDelta(b *testing.B) {
	const rows = 4600
	ctx := context.Background()
	be := mustOpen(b, pgtest.DSN(b))
	defer be.Close()
	height := runSetupBlock(b, be, 1,
		`CREATE TABLE wide (id int PRIMARY KEY, n int NOT NULL, pad text NOT NULL)`,
		`INSERT INTO wide SELECT i, 0, i || '`+strings.Repeat("x", 480)+`' FROM generate_series(1, `+strconv.Itoa(rows)+`) AS i`)
	for _, shape := range []struct {
		name string
		txs  []string
		keys int
	}{
		{"wide-1x4600", []string{`UPDATE wide SET n = n + 1`}, rows},
		{"smallbank-400x1", smallbankTxs(400), 400},
	} {
		b.Run(shape.name, func(b *testing.B) {
			var spent, native time.Duration
			for b.Loop() {
				blk, err := be.Begin(ctx)
				if err != nil {
					b.Fatal(err)
				}
				for i, sql := range shape.txs {
					if err := blk.Savepoint(ctx, sqlcheck.Env{Tx: i}); err != nil {
						b.Fatal(err)
					}
					if _, err := blk.Exec(ctx, sql, nil); err != nil {
						b.Fatal(err)
					}
					if err := blk.Release(ctx); err != nil {
						b.Fatal(err)
					}
				}
				start := time.Now()
				if _, err := blk.ChangeDigest(ctx); err != nil {
					b.Fatal(err)
				}
				native += time.Since(start)
				start = time.Now()
				d, err := blk.(backend.CanonicalBlock).CanonicalDelta(ctx)
				spent += time.Since(start)
				if err != nil || len(d.Tables) != 1 || len(d.Tables[0].Rows) != shape.keys {
					b.Fatalf("CanonicalDelta: %v, %d tables", err, len(d.Tables))
				}
				if _, err := blk.StateDigest(ctx); err != nil {
					b.Fatal(err)
				}
				height++
				if err := blk.Commit(ctx, backend.State{Height: height, AppHash: []byte{1}}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(spent.Microseconds())/float64(b.N)/1000, "delta-ms/block")
			b.ReportMetric(float64(spent.Nanoseconds())/float64(b.N*shape.keys)/1000, "delta-µs/key")
			b.ReportMetric(float64(native.Nanoseconds())/float64(b.N*shape.keys)/1000, "native-µs/key")
		})
	}
}

// smallbankTxs are n single-row UPDATEs of wide, over distinct keys.
func smallbankTxs(n int) []string {
	txs := make([]string, n)
	for i := range txs {
		txs[i] = fmt.Sprintf(`UPDATE wide SET n = n + 1 WHERE id = %d`, 1+i*11)
	}
	return txs
}

// A table with a dropped column (its row images lack it) and its key
// last: the delta's rows are CanonicalRows' rows of the changed keys.
func TestCanonicalDeltaAfterDroppedColumn(t *testing.T) {
	b := mustOpen(t, pgtest.DSN(t))
	defer b.Close()
	block(t, b, 1, `CREATE TABLE dc (a text, gone int, z int, id int PRIMARY KEY)`,
		`INSERT INTO dc VALUES ('x,y', 1, 2, 1), ('"', 3, 4, 2), (NULL, 5, 6, 3)`)
	block(t, b, 2, `ALTER TABLE dc DROP COLUMN gone`)
	d := canonDelta(t, b, 3, `UPDATE dc SET z = z + 1 WHERE id < 3`, `DELETE FROM dc WHERE id = 3`)
	want := map[string][]byte{}
	if err := b.CanonicalRows(ctx(t), "dc", func(key, image []byte) error {
		want[string(key)] = slices.Clone(image)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	td := tableDelta(t, d, "dc")
	if td.Err != nil || len(td.Rows) != 3 {
		t.Fatalf("dc: %+v, want 3 keys", td)
	}
	for _, ch := range td.Rows {
		if img, ok := want[string(ch.Key)]; ok != (ch.Image != nil) || string(img) != string(ch.Image) {
			t.Fatalf("key %x: delta image %x, committed %x", ch.Key, ch.Image, img)
		}
	}
}

// A read that fails in the database (here a lock wait bounded by
// BoundLockWaits gives up: another session holds the table) is
// CanonicalTableRows' error and leaves the block's db-transaction as it
// was: the block goes on and commits.
func TestCanonicalReadFailureLeavesBlockUsable(t *testing.T) {
	dsn := pgtest.DSN(t)
	b := mustOpen(t, dsn)
	defer b.Close()
	block(t, b, 1, `CREATE TABLE t (id int PRIMARY KEY)`, `CREATE TABLE u (id int PRIMARY KEY)`)
	locker, err := pgx.Connect(ctx(t), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer locker.Close(context.Background())
	if _, err := locker.Exec(ctx(t), `BEGIN; LOCK TABLE t IN ACCESS EXCLUSIVE MODE`); err != nil {
		t.Fatal(err)
	}
	blk, _ := canonBlock(t, b)
	bounded, err := blk.(backend.LockWaitBounder).BoundLockWaits(ctx(t), 200*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	canonTx(t, bounded, 0, false, `INSERT INTO u VALUES (1)`)
	err = bounded.(backend.CanonicalBlock).CanonicalTableRows(ctx(t), "t", func(_, _ []byte) error { return nil })
	if err == nil || backend.NotCanonical(err) || !strings.Contains(err.Error(), "55P03") {
		t.Fatalf("CanonicalTableRows of a locked table: %v, want the lock wait's failure", err)
	}
	canonTx(t, bounded, 1, false, `INSERT INTO u VALUES (2)`)
	if d := sealDelta(t, bounded, 2); len(d.Tables) != 1 || len(d.Tables[0].Rows) != 2 {
		t.Fatalf("delta %+v, want u's 2 rows", d)
	}
	if root, err := backend.TableRoot(ctx(t), b, "u"); err != nil || root.Len() != 2 {
		t.Fatalf("committed u: %d rows, %v; want 2", root.Len(), err)
	}
}
