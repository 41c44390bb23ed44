package backendtest

import (
	"context"
	"testing"
	"time"

	"github.com/relchain/relchain/backend"
)

// CheckpointEmptyBlock commits one empty block at height on b, a backend
// with a checkpoint due every block (and a WaitCheckpoint method), waits
// for that checkpoint and returns it: list must then give exactly one, at
// height. It helps a Restore function.
func CheckpointEmptyBlock(t *testing.T, b backend.Backend, height int64, list func() ([]backend.Checkpoint, error)) backend.Checkpoint {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	blk, err := b.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := blk.ChangeDigest(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := blk.StateDigest(ctx); err != nil {
		t.Fatal(err)
	}
	if err := blk.Commit(ctx, backend.State{Height: height, AppHash: []byte{1}}); err != nil {
		t.Fatal(err)
	}
	w, ok := b.(interface{ WaitCheckpoint() })
	if !ok {
		t.Fatalf("%T has no WaitCheckpoint", b)
	}
	w.WaitCheckpoint()
	cps, err := list()
	if err != nil || len(cps) != 1 || cps[0].Height != height {
		t.Fatalf("checkpoints %v, %v; want one at height %d", cps, err, height)
	}
	return cps[0]
}
