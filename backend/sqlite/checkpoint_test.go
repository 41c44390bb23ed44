package sqlite_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/sqlite"
	"github.com/relchain/relchain/sqlcheck"
	"github.com/relchain/relchain/statedigest"
)

// Checkpoints are taken every N committed blocks, named by the height they
// hold, pruned to the newest and the K before it, and each is a database whose rows match
// the state digest it recorded.
func TestCheckpointsEveryNBlocksKeepNewest(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	ckdir := filepath.Join(dir, "checkpoints")
	be, err := sqlite.Open(ctx, filepath.Join(dir, "relchain.db"), sqlite.WithCheckpoints(ckdir, 3, 2, func(err error) { t.Errorf("checkpoint: %v", err) }))
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	for h := int64(1); h <= 13; h++ {
		blk, err := be.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := blk.Savepoint(ctx, sqlcheck.Env{}); err != nil {
			t.Fatal(err)
		}
		stmts := []string{fmt.Sprintf("INSERT INTO t (id, v) VALUES (%d, 'row %d')", h, h)}
		if h == 1 {
			stmts = append([]string{"CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)"}, stmts...)
		}
		for _, s := range stmts {
			if _, err := blk.Exec(ctx, s, nil); err != nil {
				t.Fatal(err)
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
		if err := blk.Commit(ctx, backend.State{Height: h, AppHash: []byte{byte(h)}}); err != nil {
			t.Fatal(err)
		}
		be.WaitCheckpoint() // one at a time, so that none is skipped
	}
	if err := be.CheckpointError(); err != nil {
		t.Fatal(err)
	}
	cps, err := sqlite.Checkpoints(ckdir)
	if err != nil {
		t.Fatal(err)
	}
	// keep = 2: the newest (not yet confirmed by the chain when taken)
	// and the two before it.
	var heights []int64
	for _, cp := range cps {
		heights = append(heights, cp.Height)
	}
	if got := fmt.Sprint(heights); got != "[12 9 6]" {
		t.Fatalf("checkpoints at heights %s, want [12 9 6]", got)
	}
	for _, cp := range cps {
		c, err := sqlite.Open(ctx, cp.Path)
		if err != nil {
			t.Fatal(err)
		}
		stored, h, err := c.StoredState(ctx)
		if err != nil {
			t.Fatal(err)
		}
		scanned, _, err := c.ScanState(ctx)
		if err != nil {
			t.Fatal(err)
		}
		rows, _, err := c.Query(ctx, "SELECT count(*) FROM t", nil)
		c.Close()
		if err != nil {
			t.Fatal(err)
		}
		if h != cp.Height || fmt.Sprint(rows.Rows) != fmt.Sprintf("[[%d]]", cp.Height) {
			t.Errorf("checkpoint %d holds height %d and rows %v", cp.Height, h, rows.Rows)
		}
		if d := statedigest.Diff(stored, scanned); len(d) > 0 {
			t.Errorf("checkpoint %d: rows differ from its digest in %v", cp.Height, d)
		}
	}
}
