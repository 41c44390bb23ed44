package postgres_test

import (
	"testing"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/postgres"
	"github.com/relchain/relchain/backend/postgres/pgtest"
	"github.com/relchain/relchain/sqlcheck"
)

// ReadInBlock (a rehearsal's probe) reads inside the open block, after its
// statements, under the read policy and the query limits, and leaves the
// block exactly as it found it: not read-only, not aborted, its own
// savepoint usable, nothing of the read kept.
func TestReadInBlockSeesTheBlockAndLeavesItUsable(t *testing.T) {
	b := mustOpen(t, pgtest.DSN(t), postgres.WithQueryLimits(3, 0))
	defer b.Close()
	block(t, b, 1, `CREATE TABLE t (id int PRIMARY KEY, v text)`)
	blk, err := b.Begin(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	defer blk.Rollback(ctx(t))
	br, ok := blk.(backend.BlockReader)
	if !ok {
		t.Fatalf("%T is no backend.BlockReader", blk)
	}
	if err := blk.Savepoint(ctx(t), sqlcheck.Env{Tx: 0}); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{`CREATE TABLE fresh (k int PRIMARY KEY)`, `INSERT INTO t VALUES (1, 'a'), (2, 'b')`} {
		if _, err := blk.Exec(ctx(t), s, nil); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	rows, err := br.ReadInBlock(ctx(t), `SELECT table_name FROM information_schema.tables WHERE table_name = $1`, []any{"fresh"})
	if err != nil || len(rows.Rows) != 1 || rows.Rows[0][0] != "fresh" || len(rows.Types) != 1 {
		t.Fatalf("the block's new table through information_schema: %+v %v", rows, err)
	}
	if rows, err = br.ReadInBlock(ctx(t), `SELECT v FROM t`, nil); err != nil || len(rows.Rows) != 2 || rows.Rows[0][0] != "a" {
		t.Fatalf("the block's rows (sorted): %+v %v", rows, err)
	}
	for sql, state := range map[string]string{
		`SELECT height FROM relchain.meta`: "42501",
		`DELETE FROM t`:                    "25006",
		`SELECT 1 / 0`:                     "22012",
		`SELECT generate_series(1, 10)`:    "54000", // the query path's row limit
	} {
		_, err := br.ReadInBlock(ctx(t), sql, nil)
		if be := backend.AsError(err); be == nil || be.SQLState != state {
			t.Fatalf("ReadInBlock %s: %v, want SQLSTATE %s", sql, err, state)
		}
	}
	// The block goes on: writable, its savepoint intact.
	if _, err := blk.Exec(ctx(t), `INSERT INTO fresh VALUES (1)`, nil); err != nil {
		t.Fatalf("a write after the reads: %v", err)
	}
	if err := blk.RollbackTo(ctx(t)); err != nil {
		t.Fatalf("rolling back the tx's savepoint after the reads: %v", err)
	}
	if rows, err = br.ReadInBlock(ctx(t), `SELECT count(*) FROM information_schema.tables WHERE table_name = 'fresh'`, nil); err != nil || rows.Rows[0][0] != int64(0) {
		t.Fatalf("after RollbackTo the new table is gone: %+v %v", rows, err)
	}
	if _, err := blk.Exec(ctx(t), `INSERT INTO t VALUES (5, 'e')`, nil); err != nil {
		t.Fatalf("a write after the last read: %v", err)
	}
	if err := blk.Rollback(ctx(t)); err != nil {
		t.Fatal(err)
	}
	if rows, _, err := b.Query(ctx(t), `SELECT count(*) FROM t`, nil); err != nil || rows.Rows[0][0] != int64(0) {
		t.Fatalf("after Rollback: %+v %v", rows, err)
	}
}
