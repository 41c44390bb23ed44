package mysql_test

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/mysql"
	"github.com/relchain/relchain/backend/mysql/mysqltest"
	"github.com/relchain/relchain/statedigest"
)

// A checkpoint is the state committed at its height: restored into a new
// database and opened, it has that height and AppHash, the same table sums
// (stored and scanned), the same system state, and the next block gives
// the same results and digests as on the node it was taken from. Swapping
// it in for the live database keeps all that.
func TestCheckpointRestoresTheCommittedState(t *testing.T) {
	dsn := mysqltest.DSN(t)
	dir := t.TempDir()
	// Without the gate: the table holds every type, floating-point ones
	// (which the gate refuses) included.
	b := mustOpen(t, dsn, mysql.WithoutGate(), mysql.WithCheckpoints(dir, 2, 1, func(err error) { t.Errorf("checkpoint: %v", err) }))
	defer b.Close()
	blk, err := b.Begin(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	runTx(t, blk, 0, []string{`CREATE TABLE x (id BIGINT PRIMARY KEY, d DECIMAL(12,3), f DOUBLE, r FLOAT,
		dt DATETIME(6), ts TIMESTAMP(3) NULL, bl BLOB, s VARCHAR(40), bi BIT(5), j JSON, u BIGINT UNSIGNED)`})
	if err := blk.SaveSystem(ctx(t), map[string][]byte{"k1": {0, 1}, "k2": []byte("v")}); err != nil {
		t.Fatal(err)
	}
	if _, err := blk.ChangeDigest(ctx(t)); err != nil {
		t.Fatal(err)
	}
	if _, err := blk.StateDigest(ctx(t)); err != nil {
		t.Fatal(err)
	}
	if err := blk.Commit(ctx(t), backend.State{Height: 1, AppHash: []byte{1}}); err != nil {
		t.Fatal(err)
	}
	runBlock(t, b, 2, [][]string{
		{`INSERT INTO x VALUES (1, 1.5, 0.1, 0.1, '2024-01-02 03:04:05.5', '2024-01-02 03:04:05.123', x'00ff5c27', 'it''s "q" \\ é
line', b'101', '{"a": [1, 2.50]}', 18446744073709551615)`},
		{`INSERT INTO x (id, f) VALUES (2, 1e300), (3, -2.2250738585072014e-308)`},
		{`INSERT INTO x (id, s, bl) VALUES (4, '', x'')`},
	})
	b.WaitCheckpoint()
	if err := b.CheckpointError(); err != nil {
		t.Fatal(err)
	}
	scan2, _, err := b.ScanState(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	sys2, err := b.LoadSystem(ctx(t))
	if err != nil || len(sys2) != 2 {
		t.Fatalf("system state %v, %v", sys2, err)
	}
	block3 := [][]string{{`UPDATE x SET s = CONCAT(COALESCE(s, ''), 'x'), f = f / 3`}, {`DELETE FROM x WHERE id = 4`}}
	want3 := runBlock(t, b, 3, block3)
	b.WaitCheckpoint()

	cps, err := mysql.Checkpoints(dir)
	if err != nil || len(cps) != 1 || cps[0].Height != 2 {
		t.Fatalf("checkpoints = %v, %v; want one at height 2", cps, err)
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
	check := func(what, dsn string) *mysql.Backend {
		t.Helper()
		r := mustOpen(t, dsn)
		s, err := r.LoadState(ctx(t))
		if err != nil || s.Height != 2 || !bytes.Equal(s.AppHash, []byte{2}) {
			t.Fatalf("%s: state %+v, %v; want height 2", what, s, err)
		}
		stored, _, err := r.StoredState(ctx(t))
		if err != nil {
			t.Fatal(err)
		}
		scanned, _, err := r.ScanState(ctx(t))
		if err != nil {
			t.Fatal(err)
		}
		if d := statedigest.Diff(scanned, stored); len(d) > 0 {
			t.Fatalf("%s: stored sums differ from a scan for %v", what, d)
		}
		if d := statedigest.Diff(scan2, scanned); len(d) > 0 {
			t.Fatalf("%s: tables %v differ from the state at height 2", what, d)
		}
		if sys, err := r.LoadSystem(ctx(t)); err != nil || !reflect.DeepEqual(sys, sys2) {
			t.Fatalf("%s: system state %v, %v; want %v", what, sys, err, sys2)
		}
		return r
	}
	r := check("restored", rdsn)
	r.Close()

	// Swap it in for the live database (the node is stopped).
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	replaced := live + "_old"
	t.Cleanup(func() { mysqltest.Exec(t, "DROP DATABASE IF EXISTS `"+replaced+"`") })
	if err := mysql.SwapDatabases(ctx(t), dsn, staged, replaced); err != nil {
		t.Fatal(err)
	}
	r = check("swapped in", dsn)
	defer r.Close()
	got3 := runBlock(t, r, 3, block3)
	sameOutcome(t, "block 3 on the restored database", got3, want3)
}
