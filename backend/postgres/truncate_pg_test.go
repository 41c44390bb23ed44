package postgres_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/postgres"
	"github.com/relchain/relchain/backend/postgres/pgtest"
)

// Consuming change records by TRUNCATE (after large blocks; always with
// WithTruncatedChanges) gives the DELETE path's digests; while another
// session holds a lock on relchain.changes (a checkpoint's pg_dump holds
// ACCESS SHARE), the block falls back to DELETE at once instead of waiting;
// and records written out of band after a truncating block still stop the
// next one.
func TestConsumeByTruncate(t *testing.T) {
	delDSN, truncDSN := pgtest.DSN(t), pgtest.DSN(t)
	del := mustOpen(t, delDSN)
	defer del.Close()
	trunc := mustOpen(t, truncDSN, postgres.WithTruncatedChanges())
	defer trunc.Close()
	blocks := [][][]string{
		{{`CREATE TABLE t (id int PRIMARY KEY, v text)`, `INSERT INTO t SELECT i, 'v' || i FROM generate_series(1, 50) AS i`}},
		{{`UPDATE t SET v = v || '!' WHERE id <= 20`}, {`DELETE FROM t WHERE id > 45`}, {`INSERT INTO t VALUES (1, 'dup')`}},
		{{`UPDATE t SET v = 'x' WHERE id % 2 = 0`}, {`INSERT INTO t VALUES (100, NULL)`}},
	}
	filenode := func() uint32 { return changesFilenode(t, truncDSN) }
	// Block 1 truncates (a new file); block 2 runs while a dump-like
	// session holds ACCESS SHARE, so it deletes (same file); block 3
	// truncates again.
	for i, txs := range blocks {
		h := int64(i + 1)
		before := filenode()
		var release func()
		if h == 2 {
			release = holdAccessShare(t, truncDSN)
		}
		want, got := runBlock(t, del, h, txs), runBlock(t, trunc, h, txs)
		if release != nil {
			release()
		}
		if got != want {
			t.Fatalf("block %d: digests differ:\nDELETE:   %s\nTRUNCATE: %s", h, want, got)
		}
		if truncated := filenode() != before; truncated != (h != 2) {
			t.Fatalf("block %d: relchain.changes truncated = %v, want %v", h, truncated, h != 2)
		}
	}
	psql(t, truncDSN, `UPDATE t SET v = 'oob' WHERE id = 3`)
	if _, err := trunc.Begin(ctx(t)); !errors.Is(err, backend.ErrOutOfBandChange) || !strings.Contains(err.Error(), "public.t") {
		t.Fatalf("Begin after an out-of-band write: %v, want ErrOutOfBandChange naming public.t", err)
	}
}

// changesFilenode is relchain.changes' file node: a TRUNCATE gives the
// table a new one, a DELETE does not.
func changesFilenode(t *testing.T, dsn string) (n uint32) {
	t.Helper()
	c, err := pgx.Connect(ctx(t), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	if err := c.QueryRow(ctx(t), `SELECT pg_relation_filenode('relchain.changes')`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// holdAccessShare locks relchain.changes in ACCESS SHARE mode, as pg_dump
// does, in an open transaction, until the returned function runs.
func holdAccessShare(t *testing.T, dsn string) func() {
	t.Helper()
	c, err := pgx.Connect(ctx(t), dsn)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Exec(ctx(t), `BEGIN; LOCK TABLE relchain.changes IN ACCESS SHARE MODE`); err != nil {
		t.Fatal(err)
	}
	return func() {
		c.Exec(context.Background(), `ROLLBACK`)
		c.Close(context.Background())
	}
}

// By default a block truncates only after a block that consumed
// truncateAt (256) records or more.
func TestConsumeByTruncateAfterLargeBlocks(t *testing.T) {
	dsn := pgtest.DSN(t)
	b := mustOpen(t, dsn)
	defer b.Close()
	filenode := func() uint32 { return changesFilenode(t, dsn) }
	steps := []struct {
		sql      string
		truncate bool
	}{
		{`CREATE TABLE t (id int PRIMARY KEY, v int)`, false},
		{`INSERT INTO t SELECT i, i FROM generate_series(1, 300) AS i`, false}, // 300 records
		{`UPDATE t SET v = v + 1 WHERE id = 1`, true},                          // after 300
		{`UPDATE t SET v = v + 1 WHERE id = 2`, false},                         // after 1
	}
	for i, s := range steps {
		before := filenode()
		runBlock(t, b, int64(i+1), [][]string{{s.sql}})
		if truncated := filenode() != before; truncated != s.truncate {
			t.Fatalf("block %d (%s): truncated = %v, want %v", i+1, s.sql, truncated, s.truncate)
		}
	}
}
