package mysql_test

import (
	"testing"

	"github.com/relchain/relchain/backend/mysql"
	"github.com/relchain/relchain/backend/mysql/mysqltest"
	"github.com/relchain/relchain/statedigest"
)

// relchain's internal SQL cannot be captured by a user's names: a table
// named like the state scan's alias (x) with columns named after every
// alias, helper, relchain column and keyword-looking name the backend's
// SQL uses (in several cases) goes through capture, change digest, state
// digest (incremental, and a rescan after a schema change), checkpoint and
// restore with stored sums equal to a scan of the rows.
func TestUserNamesCannotCaptureInternalSQL(t *testing.T) {
	dsn := mysqltest.DSN(t)
	dir := t.TempDir()
	b := mustOpen(t, dsn, mysql.WithCheckpoints(dir, 3, 1, func(err error) { t.Errorf("checkpoint: %v", err) }))
	defer b.Close()
	cols := "`id` BIGINT NOT NULL PRIMARY KEY, `x` INT, `NEW` INT, `Old` TEXT, `tbl` TEXT, `op` CHAR(1), `img` TEXT, " +
		"`tx` INT, `seq` BIGINT, `sum` BLOB, `k` VARBINARY(8), `v` TEXT, `height` INT, `app_hash` TEXT, " +
		"`relchain_tx` INT, `JSON_OBJECT` TEXT, `CONVERT` TEXT, `HEX` TEXT, `Select` INT, `From` INT, " +
		"`a.b` INT, `Mixed Case` INT, `q``uote` TEXT, `'s` TEXT"
	allSucceed(t, runBlock(t, b, 1, [][]string{
		{"CREATE TABLE x (" + cols + ")"},
	}))
	allSucceed(t, runBlock(t, b, 2, [][]string{
		{"INSERT INTO x VALUES (1, 1, 2, 'o', 't', 'U', 'i', 3, 4, x'00', x'01', 'v', 5, 'h', 6, 'j', 'c', 'h', 7, 8, 9, 10, 'q', 's')"},
		{"INSERT INTO x (id, x, `NEW`) VALUES (2, NULL, NULL), (3, 33, 34)"},
		{"UPDATE x SET `x` = `x` + 1, `Old` = CONCAT(`Old`, 'x'), `relchain_tx` = 99 WHERE id = 1"},
		{"DELETE FROM x WHERE id = 3"},
	}))
	sameStoredAndScanned(t, b, "after DML")
	allSucceed(t, runBlock(t, b, 3, [][]string{
		{"ALTER TABLE x ADD COLUMN `X2` INT DEFAULT 5"},
	}))
	// The checkpoint due at height 3 dumps whatever height its snapshot
	// sees: block 4 must wait for it, or it is a checkpoint of height 4.
	b.WaitCheckpoint()
	sameStoredAndScanned(t, b, "after a schema change")
	allSucceed(t, runBlock(t, b, 4, [][]string{{"UPDATE x SET `X2` = `X2` * 2, `Select` = 1"}}))
	want := sameStoredAndScanned(t, b, "after the schema change's next block")
	b.WaitCheckpoint()
	cps, err := mysql.Checkpoints(dir)
	if err != nil || len(cps) != 1 || cps[0].Height != 3 {
		t.Fatalf("checkpoints = %v, %v; want one at height 3", cps, err)
	}
	live, err := mysql.DatabaseName(dsn)
	if err != nil {
		t.Fatal(err)
	}
	staged := live + "_r"
	t.Cleanup(func() { mysqltest.Exec(t, "DROP DATABASE IF EXISTS `"+staged+"`") })
	rdsn, err := mysql.RestoreCheckpoint(ctx(t), dsn, cps[0], staged)
	if err != nil {
		t.Fatal(err)
	}
	r := mustOpen(t, rdsn)
	defer r.Close()
	sameStoredAndScanned(t, r, "restored")
	allSucceed(t, runBlock(t, r, 4, [][]string{{"UPDATE x SET `X2` = `X2` * 2, `Select` = 1"}}))
	if got := sameStoredAndScanned(t, r, "restored, after its next block"); len(statedigest.Diff(got, want)) > 0 {
		t.Fatalf("the restored node's state after block 4 differs from the live node's: %v", statedigest.Diff(got, want))
	}
}

// sameStoredAndScanned fails t unless the stored table sums equal a scan
// of the rows, and returns the scan.
func sameStoredAndScanned(t *testing.T, b *mysql.Backend, what string) statedigest.Tables {
	t.Helper()
	stored, _, err := b.StoredState(ctx(t))
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	scanned, _, err := b.ScanState(ctx(t))
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if d := statedigest.Diff(scanned, stored); len(d) > 0 {
		t.Fatalf("%s: stored sums differ from a scan for %v", what, d)
	}
	if len(scanned) != 1 {
		t.Fatalf("%s: %d tables; want 1", what, len(scanned))
	}
	return scanned
}

// allSucceed fails t unless every tx of a block succeeded.
func allSucceed(t *testing.T, o outcome) {
	t.Helper()
	for i, c := range o.results {
		if c != "" {
			t.Fatalf("tx %d failed with class %s", i, c)
		}
	}
}
