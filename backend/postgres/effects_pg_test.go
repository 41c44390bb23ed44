package postgres_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/postgres"
	"github.com/relchain/relchain/backend/postgres/pgtest"
	"github.com/relchain/relchain/sqlcheck"
)

// psql is a session of its own on dsn, like an operator's psql: its writes
// are captured (the triggers are active) but belong to no tx.
func psql(t *testing.T, dsn string, sql string) {
	t.Helper()
	c, err := pgx.Connect(ctx(t), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	if _, err := c.Exec(ctx(t), sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// oneTx runs one bc-transaction (index i) in a block and returns the
// block's Changes; during the tx, psql (if set) runs in another session.
func oneTx(t *testing.T, b backend.Backend, height int64, i int, sql string, during func()) backend.Changes {
	t.Helper()
	blk, err := b.Begin(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	defer blk.Rollback(ctx(t))
	if err := blk.Savepoint(ctx(t), sqlcheck.Env{Tx: i}); err != nil {
		t.Fatal(err)
	}
	if _, err := blk.Exec(ctx(t), sql, nil); err != nil {
		t.Fatal(err)
	}
	if during != nil {
		during()
	}
	if err := blk.Release(ctx(t)); err != nil {
		t.Fatal(err)
	}
	c, err := blk.ChangeDigest(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := blk.StateDigest(ctx(t)); err != nil {
		t.Fatal(err)
	}
	if err := blk.Commit(ctx(t), backend.State{Height: height, AppHash: []byte{byte(height)}}); err != nil {
		t.Fatal(err)
	}
	return c
}

// A database installed before change records carried a tx index gets the
// column at Open; records already there belong to no tx, and stop the
// next block (backend.ErrOutOfBandChange). Records written out of band by
// other sessions while a block runs (a tx's savepoint open on the writer)
// belong to no tx: they enter the block's digest, no tx's effect digest.
func TestEffectsMigrationAndOutOfBandWrites(t *testing.T) {
	ref := mustOpen(t, pgtest.DSN(t))
	defer ref.Close()
	block(t, ref, 1, `CREATE TABLE t (id int PRIMARY KEY, v text)`, `INSERT INTO t VALUES (1, 'a')`)
	want := oneTx(t, ref, 2, 3, `INSERT INTO t VALUES (7, 'g')`, nil)

	dsn := pgtest.DSN(t)
	b := mustOpen(t, dsn)
	block(t, b, 1, `CREATE TABLE t (id int PRIMARY KEY, v text)`, `INSERT INTO t VALUES (1, 'a')`)
	b.Close()
	// The database as an older relchain left it, with a record written
	// out of band.
	psql(t, dsn, `ALTER TABLE relchain.changes DROP COLUMN tx`)
	psql(t, dsn, `INSERT INTO t VALUES (5, 'oob')`)

	b = mustOpen(t, dsn)
	defer b.Close()
	c, err := pgx.Connect(ctx(t), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	rows, err := c.Query(ctx(t), `SELECT tx FROM relchain.changes`)
	if err != nil {
		t.Fatalf("after Open: %v", err)
	}
	txs, err := pgx.CollectRows(rows, pgx.RowTo[int])
	if err != nil || len(txs) != 1 || txs[0] != -1 {
		t.Fatalf("records left from before the migration: tx %v (%v), want [-1]", txs, err)
	}
	// Opening again leaves the column alone.
	mustOpen(t, dsn).Close()
	// Records no block made stop the next block before it starts.
	if _, err := b.Begin(ctx(t)); !errors.Is(err, backend.ErrOutOfBandChange) || !strings.Contains(err.Error(), "public.t (1)") {
		t.Fatalf("Begin with an out-of-band record left: %v, want ErrOutOfBandChange naming public.t", err)
	}
	psql(t, dsn, `DELETE FROM relchain.changes`)
	got := oneTx(t, b, 2, 3, `INSERT INTO t VALUES (7, 'g')`, func() {
		psql(t, dsn, `INSERT INTO t VALUES (8, 'oob')`)
	})
	if len(got.Effects) != 1 || !bytes.Equal(got.Effects[3], want.Effects[3]) || len(want.Effects[3]) == 0 {
		t.Fatalf("effects %x, want only tx 3's %x", got.Effects, want.Effects[3])
	}
	if bytes.Equal(got.Block, want.Block) {
		t.Fatal("out-of-band records did not enter the block's digest")
	}
	if !bytes.Equal(want.Block, want.Effects[3]) {
		t.Fatal("the only tx's effect digest differs from its block's digest")
	}
	var left int
	if err := c.QueryRow(ctx(t), `SELECT count(*) FROM relchain.changes`).Scan(&left); err != nil || left != 0 {
		t.Fatalf("%d change records left after the block (%v), want 0", left, err)
	}
}

// An UPDATE is captured as one record holding both images, which
// ChangeDigest splits into the 'B' and 'U' records of the digest. A
// database installed before (a column seq, and an UPDATE captured as two
// records) is migrated at Open and then digests exactly as a fresh one.
// (Records a former trigger left behind were written out of band: they
// stop the next block, see TestEffectsMigrationAndOutOfBandWrites.)
func TestUpdateRecordFormatMigration(t *testing.T) {
	setup := func(b backend.Backend) {
		oneTx(t, b, 1, 0, `CREATE TABLE t (id int PRIMARY KEY, v text)`, nil)
		oneTx(t, b, 2, 0, `INSERT INTO t VALUES (1, 'a'), (2, 'b')`, nil)
	}
	ref := mustOpen(t, pgtest.DSN(t))
	defer ref.Close()
	setup(ref)
	want := oneTx(t, ref, 3, 0, `UPDATE t SET v = v || 'x'`, nil)

	dsn := pgtest.DSN(t)
	b := mustOpen(t, dsn)
	setup(b)
	b.Close()
	// The database as the former relchain left it: a column seq, no
	// column old, and the former trigger writing 'B' and 'U' records.
	psql(t, dsn, `ALTER TABLE relchain.changes DROP COLUMN old, ADD COLUMN seq bigint GENERATED ALWAYS AS IDENTITY`)
	psql(t, dsn, `CREATE OR REPLACE FUNCTION relchain.capture() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
	INSERT INTO relchain.changes (tbl, op, img)
	VALUES (TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME, 'B', row_to_json(OLD)::text),
		(TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME, 'U', row_to_json(NEW)::text);
	RETURN NULL;
END
$fn$`)
	b = mustOpen(t, dsn)
	defer b.Close()
	if got := oneTx(t, b, 3, 0, `UPDATE t SET v = v || 'x'`, nil); !bytes.Equal(got.Block, want.Block) {
		t.Fatalf("block digest after migration %x, want %x (a fresh database's)", got.Block, want.Block)
	}
	c, err := pgx.Connect(ctx(t), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	var cols string
	if err := c.QueryRow(ctx(t), `SELECT string_agg(attname, ',' ORDER BY attname) FROM pg_attribute
		WHERE attrelid = 'relchain.changes'::regclass AND attnum > 0 AND NOT attisdropped`).Scan(&cols); err != nil {
		t.Fatal(err)
	}
	if cols != "img,old,op,tbl,tx" {
		t.Fatalf("relchain.changes has columns %s after Open, want img,old,op,tbl,tx", cols)
	}
	// The migrated database captures in the new format, and digests as a
	// fresh one.
	if got := oneTx(t, b, 4, 0, `UPDATE t SET v = v || 'y' WHERE id = 1`, nil); got.Block == nil {
		t.Fatal("no digest")
	}
	var n int
	if err := c.QueryRow(ctx(t), `SELECT count(*) FROM relchain.changes`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("%d change records left (%v), want 0", n, err)
	}
	assertScanMatches(t, b)
}

// assertScanMatches checks that the stored table sums equal a full scan's.
func assertScanMatches(t *testing.T, b *postgres.Backend) {
	t.Helper()
	stored, h1, err := b.StoredState(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	scanned, h2, err := b.ScanState(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	if h1 != h2 || !bytes.Equal(stored.Digest(), scanned.Digest()) {
		t.Fatalf("stored sums (height %d) differ from a full scan (height %d)", h1, h2)
	}
}
