package sqlite_test

import (
	"context"
	"testing"

	"github.com/relchain/relchain/backend"
)

// commitDigested commits blk as the executor does: after ChangeDigest has
// consumed its change records (records left behind would be taken for an
// out-of-band write by the next Begin) and StateDigest folded them.
func commitDigested(t testing.TB, blk backend.Block, st backend.State) error {
	t.Helper()
	ctx := context.Background()
	if _, err := blk.ChangeDigest(ctx); err != nil {
		return err
	}
	if _, err := blk.StateDigest(ctx); err != nil {
		return err
	}
	return blk.Commit(ctx, st)
}
