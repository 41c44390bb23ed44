package mysql_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand"
	"testing"
	"time"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/mysql"
	"github.com/relchain/relchain/backend/mysql/mysqltest"
	"github.com/relchain/relchain/rowcanon"
	"github.com/relchain/relchain/sqlcheck"
	"github.com/relchain/relchain/statetree"
)

// deltaSchema: an integer key, a composite key of a CHAR (padded), a
// binary and a DATETIME column, a text key under a case-insensitive
// PAD SPACE collation (a read by 'a' finds 'A '), and a key of a BIGINT
// UNSIGNED (numeric), a DECIMAL and a DATE.
var deltaSchema = [][]string{
	{`CREATE TABLE t1 (id INT PRIMARY KEY, v VARCHAR(10), n DECIMAL(10,2))`},
	{`CREATE TABLE t2 (c CHAR(3) NOT NULL, b VARBINARY(4) NOT NULL, at DATETIME(6) NOT NULL, x INT, PRIMARY KEY (c, b, at))`},
	{`CREATE TABLE t3 (k VARCHAR(8) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci PRIMARY KEY, v INT)`},
	{`CREATE TABLE t4 (k DECIMAL(30,10) NOT NULL, d DATE NOT NULL, u BIGINT UNSIGNED, PRIMARY KEY (u, k, d))`},
}

// randStmt is one random statement on the tables of deltaSchema: INSERTs,
// UPDATEs of the key and of other columns, DELETEs, some failing (a
// duplicate key).
func randStmt(r *rand.Rand) string {
	id, to := r.Intn(12), r.Intn(12)
	c := []string{"a", "b", "a b"}[r.Intn(3)]
	bin := []string{"00", "0000", "ff", ""}[r.Intn(4)]
	at := []string{"2024-01-01 00:00:00", "2024-01-01 00:00:00.000001", "1999-12-31 23:59:59.5"}[r.Intn(3)]
	k := []string{"a", "A", "a ", "b", "B ", "ä"}[r.Intn(6)]
	switch r.Intn(12) {
	case 0:
		return fmt.Sprintf("INSERT INTO t1 VALUES (%d, 'v%d', %d.%02d)", id, to, to, id)
	case 1:
		return fmt.Sprintf("UPDATE t1 SET id = %d WHERE id = %d", to, id)
	case 2:
		return fmt.Sprintf("UPDATE t1 SET v = CONCAT(v, 'x'), n = n * 2 WHERE id >= %d", id)
	case 3:
		return fmt.Sprintf("DELETE FROM t1 WHERE id = %d", id)
	case 4:
		return fmt.Sprintf("INSERT INTO t2 VALUES ('%s', X'%s', '%s', %d)", c, bin, at, id)
	case 5:
		return fmt.Sprintf("UPDATE t2 SET c = '%s', x = %d WHERE b = X'%s'", c, to, bin)
	case 6:
		return fmt.Sprintf("DELETE FROM t2 WHERE at = '%s' AND x < %d", at, id)
	case 7:
		return fmt.Sprintf("INSERT INTO t3 VALUES ('%s', %d) ON DUPLICATE KEY UPDATE k = '%s', v = v + 1", k, id, k)
	case 9:
		return fmt.Sprintf("INSERT INTO t4 VALUES (%d.%d, '2024-02-%02d', 18446744073709551%03d)", id*1000000000, to, 1+id, 600+to)
	case 10:
		return fmt.Sprintf("UPDATE t4 SET k = k + 0.0000000001, u = u - %d WHERE d >= '2024-02-%02d'", id, 1+to)
	case 11:
		return fmt.Sprintf("DELETE FROM t4 WHERE k < %d", id*1000000000)
	}
	return fmt.Sprintf("DELETE FROM t3 WHERE k = '%s' AND v < %d", k, id)
}

// treesOf builds each table's statetree from its committed canonical rows.
func treesOf(t *testing.T, b *mysql.Backend, tables []string) map[string]*statetree.Tree {
	t.Helper()
	trees := map[string]*statetree.Tree{}
	for _, table := range tables {
		tr := statetree.New()
		for _, row := range canonRowsOf(t, b, table) {
			if err := tr.Set(row.key, rowcanon.LeafHash(row.image)); err != nil {
				t.Fatal(err)
			}
		}
		trees[table] = tr
	}
	return trees
}

// applyDelta brings trees up to date with d, checking its shape: tables
// sorted, keys sorted and once each.
func applyDelta(t *testing.T, trees map[string]*statetree.Tree, d backend.CanonicalDelta) {
	t.Helper()
	if d.SchemaChanged {
		t.Fatal("a block without DDL reports SchemaChanged")
	}
	for i, td := range d.Tables {
		if i > 0 && d.Tables[i-1].Table >= td.Table {
			t.Fatalf("tables out of order: %s then %s", d.Tables[i-1].Table, td.Table)
		}
		if td.Err != nil || td.Rescan {
			t.Fatalf("table %s: Err %v, Rescan %v", td.Table, td.Err, td.Rescan)
		}
		tr := trees[td.Table]
		for j, ch := range td.Rows {
			if j > 0 && bytes.Compare(td.Rows[j-1].Key, ch.Key) >= 0 {
				t.Fatalf("%s: keys out of order or twice: %x then %x", td.Table, td.Rows[j-1].Key, ch.Key)
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

// runRandomBlock runs a random block of txs (some rolled back to their
// savepoint, by a failing statement or on purpose), consuming change
// records now and then, and returns its CanonicalDelta before Commit.
func runRandomBlock(t *testing.T, b *mysql.Backend, r *rand.Rand, h int64) backend.CanonicalDelta {
	t.Helper()
	blk, err := b.Begin(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	cb, ok := blk.(backend.CanonicalBlock)
	if !ok {
		t.Fatalf("Begin's block %T is not a backend.CanonicalBlock", blk)
	}
	for i := 0; i < 1+r.Intn(6); i++ {
		stmts := make([]string, 1+r.Intn(4))
		for j := range stmts {
			stmts[j] = randStmt(r)
		}
		if runTx(t, blk, i, stmts) == "" && r.Intn(4) == 0 {
			if err := blk.Savepoint(ctx(t), sqlcheck.Env{Tx: i}); err != nil {
				t.Fatal(err)
			}
			runTx(t, blk, i, []string{randStmt(r), randStmt(r)})
			if err := blk.RollbackTo(ctx(t)); err != nil {
				t.Fatal(err)
			}
		}
		if r.Intn(3) == 0 {
			if _, err := blk.ChangeDigest(ctx(t)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := blk.ChangeDigest(ctx(t)); err != nil {
		t.Fatal(err)
	}
	d, err := cb.CanonicalDelta(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := blk.Commit(ctx(t), backend.State{Height: h, AppHash: []byte{byte(h)}}); err != nil {
		t.Fatal(err)
	}
	return d
}

// Seeded random blocks of INSERTs, UPDATEs (of the key too), DELETEs and
// savepoints rolled back: the block's CanonicalDelta, applied to the
// tables' trees before it, gives the root backend.TableRoot reads after
// its Commit, for every table.
func TestCanonicalDeltaKeepsTreesUpToDate(t *testing.T) {
	b := mustOpen(t, mysqltest.DSN(t), mysql.WithoutGate())
	defer b.Close()
	allSucceed(t, runBlock(t, b, 1, deltaSchema))
	tables := []string{"t1", "t2", "t3", "t4"}
	trees := treesOf(t, b, tables)
	r := rand.New(rand.NewSource(36))
	changed := map[string]int{}
	for h := int64(2); h < 42; h++ {
		d := runRandomBlock(t, b, r, h)
		applyDelta(t, trees, d)
		for _, td := range d.Tables {
			changed[td.Table] += len(td.Rows)
		}
		for _, table := range tables {
			want, err := backend.TableRoot(ctx(t), b, table)
			if err != nil {
				t.Fatal(err)
			}
			if got := trees[table].Commit(); got.Hash() != want.Hash() {
				t.Fatalf("height %d: %s: root from the delta %x (%d rows), after commit %x (%d rows)",
					h, table, got.Hash(), got.Len(), want.Hash(), want.Len())
			}
		}
	}
	for _, table := range tables {
		if changed[table] < 20 {
			t.Errorf("only %d changed keys of %s in 40 blocks: the test exercises too little", changed[table], table)
		}
	}
	t.Logf("changed keys in 40 blocks: %v", changed)
}

// openCanonBlock begins a block at the backend's next height and returns
// it as a backend.CanonicalBlock too.
func openCanonBlock(t *testing.T, b *mysql.Backend) (backend.Block, backend.CanonicalBlock) {
	t.Helper()
	blk, err := b.Begin(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	cb, ok := blk.(backend.CanonicalBlock)
	if !ok {
		t.Fatalf("Begin's block %T is not a backend.CanonicalBlock", blk)
	}
	return blk, cb
}

// A block's canonical reads see its own db-transaction (and the block
// BoundLockWaits returns, as the executor's rehearsal takes it, is still
// a CanonicalBlock): CanonicalTables
// lists a table its DDL made, CanonicalTableRows its uncommitted rows.
// A block with DDL reports SchemaChanged.
func TestCanonicalBlockReadsItsOwnTransaction(t *testing.T) {
	b := mustOpen(t, mysqltest.DSN(t), mysql.WithoutGate())
	defer b.Close()
	blk, cb := openCanonBlock(t, b)
	if bounded, err := blk.(backend.LockWaitBounder).BoundLockWaits(ctx(t), time.Second); err != nil {
		t.Fatal(err)
	} else if _, ok := bounded.(backend.CanonicalBlock); !ok {
		t.Fatalf("BoundLockWaits's block %T is not a backend.CanonicalBlock", bounded)
	}
	if runTx(t, blk, 0, []string{`CREATE TABLE k (id INT PRIMARY KEY, s VARCHAR(8))`}) != "" {
		t.Fatal("CREATE TABLE failed")
	}
	runTx(t, blk, 1, []string{`INSERT INTO k VALUES (1, 'one'), (2, 'two')`})
	tables, err := cb.CanonicalTables(ctx(t))
	if err != nil || len(tables) != 1 || tables[0] != "k" {
		t.Fatalf("CanonicalTables in the block = %v, %v; want [k]", tables, err)
	}
	n := 0
	if err := cb.CanonicalTableRows(ctx(t), "k", func(_, _ []byte) error { n++; return nil }); err != nil || n != 2 {
		t.Fatalf("CanonicalTableRows(k) in the block: %d rows, %v; want 2", n, err)
	}
	if _, err := blk.ChangeDigest(ctx(t)); err != nil {
		t.Fatal(err)
	}
	if d, err := cb.CanonicalDelta(ctx(t)); err != nil || !d.SchemaChanged {
		t.Fatalf("CanonicalDelta of a block with DDL = %+v, %v; want SchemaChanged", d, err)
	}
	if err := blk.Rollback(ctx(t)); err != nil {
		t.Fatal(err)
	}
}

// Without DDL, a table without a primary key, one with a JSON column and
// one holding a value outside rowcanon's domain get their refusal as Err
// and no Rows (the others their rows); a table keyed by a float is
// rescanned.
func TestCanonicalDeltaRefusesPerTable(t *testing.T) {
	b := mustOpen(t, mysqltest.DSN(t), mysql.WithoutGate())
	defer b.Close()
	allSucceed(t, runBlock(t, b, 1, [][]string{{`CREATE TABLE k (id INT PRIMARY KEY, s VARCHAR(8))`}}))
	allSucceed(t, runBlock(t, b, 2, [][]string{{`CREATE TABLE nokey (a INT)`}, {`CREATE TABLE doc (id INT PRIMARY KEY, j JSON)`},
		{`CREATE TABLE fk (f DOUBLE PRIMARY KEY)`}}))
	allSucceed(t, runBlock(t, b, 3, [][]string{{`INSERT INTO k VALUES (1, 'one'), (2, 'two')`}}))
	blk, cb := openCanonBlock(t, b)
	runTx(t, blk, 0, []string{`INSERT INTO nokey VALUES (1)`, `INSERT INTO doc VALUES (1, '{}')`, `INSERT INTO fk VALUES (0.5)`,
		`UPDATE k SET s = CONCAT('a', CHAR(0)) WHERE id = 1`, `DELETE FROM k WHERE id = 2`})
	if _, err := blk.ChangeDigest(ctx(t)); err != nil {
		t.Fatal(err)
	}
	d, err := cb.CanonicalDelta(ctx(t))
	if err != nil || d.SchemaChanged || len(d.Tables) != 4 {
		t.Fatalf("CanonicalDelta = %+v, %v; want 4 tables", d, err)
	}
	for i, want := range []struct {
		table string
		is    error
	}{{"doc", backend.ErrNoCanonicalForm}, {"fk", nil}, {"k", backend.ErrValueNotCanonical}, {"nokey", backend.ErrNoPrimaryKey}} {
		td := d.Tables[i]
		if td.Table != want.table || !errors.Is(td.Err, want.is) || (td.Err != nil) != (want.is != nil) || td.Rows != nil {
			t.Errorf("table %d: %s, Err %v, %d rows; want %s with Err %v and no rows", i, td.Table, td.Err, len(td.Rows), want.table, want.is)
		}
		if td.Rescan != (want.table == "fk") {
			t.Errorf("table %s: Rescan %v", td.Table, td.Rescan)
		}
	}
	if err := blk.Rollback(ctx(t)); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkCanonicalDelta: a block of 1,000 single-row UPDATEs (each its
// own tx) on a table of 10,000 rows; op is ChangeDigest plus
// CanonicalDelta, the block then rolled back. delta-ms is CanonicalDelta
// alone.
func BenchmarkCanonicalDelta(b *testing.B) {
	be := mustOpen(b, mysqltest.DSN(b), mysql.WithoutGate())
	defer be.Close()
	c := context.Background()
	fill := []string{}
	for i := 0; i < 10; i++ {
		fill = append(fill, fmt.Sprintf(`INSERT INTO bench (id, v, n) SELECT seq + %d, 'v', seq FROM seq_1_to_1000`, i*1000))
	}
	benchBlock(b, be, 1, [][]string{{`CREATE TABLE bench (id INT PRIMARY KEY, v VARCHAR(20), n DECIMAL(12,2))`}})
	benchBlock(b, be, 2, [][]string{fill})
	var deltaTime time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		blk, err := be.Begin(c)
		if err != nil {
			b.Fatal(err)
		}
		for j := 0; j < 1000; j++ {
			mustTx(b, blk, j, fmt.Sprintf(`UPDATE bench SET n = n + 1 WHERE id = %d`, 1+j*10))
		}
		b.StartTimer()
		if _, err := blk.ChangeDigest(c); err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		d, err := blk.(backend.CanonicalBlock).CanonicalDelta(c)
		deltaTime += time.Since(start)
		if err != nil || len(d.Tables) != 1 || len(d.Tables[0].Rows) != 1000 {
			b.Fatalf("CanonicalDelta = %d tables, %v", len(d.Tables), err)
		}
		b.StopTimer()
		if err := blk.Rollback(c); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(deltaTime.Milliseconds())/float64(b.N), "delta-ms")
}

// benchBlock commits one block of txs, each statement of which must succeed.
func benchBlock(b *testing.B, be *mysql.Backend, h int64, txs [][]string) {
	b.Helper()
	c := context.Background()
	blk, err := be.Begin(c)
	if err != nil {
		b.Fatal(err)
	}
	for i, stmts := range txs {
		mustTx(b, blk, i, stmts...)
	}
	if _, err := blk.ChangeDigest(c); err != nil {
		b.Fatal(err)
	}
	if err := blk.Commit(c, backend.State{Height: h}); err != nil {
		b.Fatal(err)
	}
}

func mustTx(b *testing.B, blk backend.Block, i int, stmts ...string) {
	b.Helper()
	c := context.Background()
	if err := blk.Savepoint(c, sqlcheck.Env{Tx: i}); err != nil {
		b.Fatal(err)
	}
	for _, s := range stmts {
		if _, err := blk.Exec(c, s, nil); err != nil {
			b.Fatalf("%s: %v", s, err)
		}
	}
	if err := blk.Release(c); err != nil {
		b.Fatal(err)
	}
}

// CanonicalDelta names the keys of change records no ChangeDigest has
// consumed yet too (a superset is harmless, a missing key never): a row
// inserted after the last ChangeDigest is in the delta with its image, one
// deleted before it with nil.
func TestCanonicalDeltaSeesRecordsNotYetDigested(t *testing.T) {
	b := mustOpen(t, mysqltest.DSN(t), mysql.WithoutGate())
	defer b.Close()
	allSucceed(t, runBlock(t, b, 1, [][]string{{`CREATE TABLE k (id INT PRIMARY KEY)`}}))
	allSucceed(t, runBlock(t, b, 2, [][]string{{`INSERT INTO k VALUES (1)`}}))
	blk, cb := openCanonBlock(t, b)
	defer blk.Rollback(ctx(t))
	runTx(t, blk, 0, []string{`DELETE FROM k WHERE id = 1`})
	if _, err := blk.ChangeDigest(ctx(t)); err != nil {
		t.Fatal(err)
	}
	runTx(t, blk, 1, []string{`INSERT INTO k VALUES (2)`})
	d, err := cb.CanonicalDelta(ctx(t))
	if err != nil || len(d.Tables) != 1 {
		t.Fatalf("CanonicalDelta = %+v, %v; want table k", d, err)
	}
	rows := d.Tables[0].Rows
	one, _ := rowcanon.EncodeKey([]rowcanon.Value{rowcanon.Int(1)})
	two, _ := rowcanon.EncodeKey([]rowcanon.Value{rowcanon.Int(2)})
	if len(rows) != 2 || !bytes.Equal(rows[0].Key, one) || rows[0].Image != nil || !bytes.Equal(rows[1].Key, two) || rows[1].Image == nil {
		t.Fatalf("rows %+v; want key 1 deleted, key 2 with its image", rows)
	}
}
