package postgres_test

import (
	"context"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/postgres"
	"github.com/relchain/relchain/backend/postgres/pgtest"
	"github.com/relchain/relchain/statedigest"
)

// imagesTable holds values whose text forms need quoting, escaping or
// the pinned session settings (TimeZone, bytea_output).
var imagesTable = []string{
	`CREATE TABLE t (id int PRIMARY KEY, s text, ts timestamptz, n numeric, b bytea, j jsonb, a int[])`,
	`INSERT INTO t VALUES (1, 'a,b"c', '2024-01-01 00:00+00', 1.50, '\x0102', '{"k": [1, 2]}', '{1,2}'),
		(2, NULL, NULL, NULL, NULL, NULL, NULL), (3, '', NULL, NULL, NULL, NULL, '{}')`,
}

// TestRowImageIsTheRowsTextForm pins the row image (format 2): a change
// of it changes every PostgreSQL digest, so it must be deliberate.
func TestRowImageIsTheRowsTextForm(t *testing.T) {
	dsn := pgtest.DSN(t)
	b := mustOpen(t, dsn)
	defer b.Close()
	block(t, b, 1, imagesTable...)
	got, err := postgres.RowImages(ctx(t), dsn, "public.t")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`(1,"a,b""c","2024-01-01 00:00:00+00",1.50,"\\x0102","{""k"": [1, 2]}","{1,2}")`,
		`(2,,,,,,)`,
		`(3,"",,,,,{})`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("row images:\n got %q\nwant %q", got, want)
	}
	checkStoredIsScanned(t, b)
}

// TestImageFormatMigratesAtTheNextBlock: a database whose table sums are
// of row_to_json images (format 1, an older relchain) is verified in that
// format until its next block, which rescans every table with the text
// images and records format 2. Its sums are then those of a database that
// ran the same blocks in format 2 throughout.
func TestImageFormatMigratesAtTheNextBlock(t *testing.T) {
	oldDSN, newDSN := pgtest.DSN(t), pgtest.DSN(t)
	old, fresh := mustOpen(t, oldDSN), mustOpen(t, newDSN)
	defer fresh.Close()
	block(t, old, 1, imagesTable...)
	block(t, fresh, 1, imagesTable...)
	textSums := storedSums(t, old)
	old.Close()
	if err := postgres.DowngradeImages(ctx(t), oldDSN); err != nil {
		t.Fatal(err)
	}

	old = mustOpen(t, oldDSN)
	defer old.Close()
	jsonSums := checkStoredIsScanned(t, old)
	if len(statedigest.Diff(jsonSums, textSums)) == 0 {
		t.Fatal("the downgraded sums equal the text images' sums: the test would show nothing")
	}
	if f := imageFormat(t, oldDSN); f != 0 {
		t.Fatalf("relchain.format says %d before the migrating block, want no row", f)
	}

	update := `UPDATE t SET s = 'x' WHERE id = 2`
	block(t, old, 2, update)
	block(t, fresh, 2, update)
	migrated := checkStoredIsScanned(t, old)
	if diff := statedigest.Diff(migrated, storedSums(t, fresh)); len(diff) > 0 {
		t.Errorf("after the migrating block, tables %v differ from a database that was always in format 2", diff)
	}
	if f := imageFormat(t, oldDSN); f != 2 {
		t.Errorf("relchain.format says %d after the migrating block, want 2", f)
	}

	// Reopened, the database is in format 2: blocks fold deltas again.
	old.Close()
	old = mustOpen(t, oldDSN)
	block(t, old, 3, `DELETE FROM t WHERE id = 3`)
	block(t, fresh, 3, `DELETE FROM t WHERE id = 3`)
	if diff := statedigest.Diff(checkStoredIsScanned(t, old), storedSums(t, fresh)); len(diff) > 0 {
		t.Errorf("block 3: tables %v differ", diff)
	}
}

// TestMigratingBlockRolledBackMigratesAgain: a migrating block that rolls
// back leaves format 1, and the next block migrates.
func TestMigratingBlockRolledBackMigratesAgain(t *testing.T) {
	dsn := pgtest.DSN(t)
	b := mustOpen(t, dsn)
	block(t, b, 1, imagesTable...)
	b.Close()
	if err := postgres.DowngradeImages(ctx(t), dsn); err != nil {
		t.Fatal(err)
	}
	b = mustOpen(t, dsn)
	defer b.Close()
	blk, err := b.Begin(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := blk.Exec(ctx(t), `UPDATE t SET s = 'y' WHERE id = 1`, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := blk.ChangeDigest(ctx(t)); err != nil {
		t.Fatal(err)
	}
	if _, err := blk.StateDigest(ctx(t)); err != nil {
		t.Fatal(err)
	}
	if err := blk.Rollback(ctx(t)); err != nil {
		t.Fatal(err)
	}
	if f := imageFormat(t, dsn); f != 0 {
		t.Fatalf("relchain.format says %d after a rolled-back block, want no row", f)
	}
	checkStoredIsScanned(t, b)
	block(t, b, 2, `UPDATE t SET s = 'z' WHERE id = 1`)
	if f := imageFormat(t, dsn); f != 2 {
		t.Errorf("relchain.format says %d after the next block, want 2", f)
	}
	checkStoredIsScanned(t, b)
}

// checkStoredIsScanned fails unless b's stored table sums are what a scan
// of its tables gives (what relchain verify checks), and returns them.
func checkStoredIsScanned(t *testing.T, b backend.StateReader) statedigest.Tables {
	t.Helper()
	stored := storedSums(t, b)
	scanned, _, err := b.ScanState(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	if diff := statedigest.Diff(stored, scanned); len(diff) > 0 {
		t.Fatalf("tables %v: stored sums differ from a scan", diff)
	}
	return stored
}

func storedSums(t *testing.T, b backend.StateReader) statedigest.Tables {
	t.Helper()
	stored, _, err := b.StoredState(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	return stored
}

// imageFormat is relchain.format's images, or 0 if it has no row.
func imageFormat(t *testing.T, dsn string) int {
	t.Helper()
	conn, err := pgx.Connect(ctx(t), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var f int
	if err := conn.QueryRow(ctx(t), `SELECT coalesce((SELECT images FROM relchain.format WHERE id = 1), 0)`).Scan(&f); err != nil {
		t.Fatal(err)
	}
	return f
}
