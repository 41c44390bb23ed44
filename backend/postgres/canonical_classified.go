package postgres

import (
	"context"
	"time"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/internal/sqlstore"
)

// canonClassified is sqlstore.ClassifiedBlock that also passes
// backend.CanonicalBlock on to its inner Block (a ctxBlock, or the
// lockBounded one BoundLockWaits returns), its errors classified alike:
// the executor finds CanonicalBlock on the Block Begin returns.
type canonClassified struct{ sqlstore.ClassifiedBlock }

var (
	_ backend.CanonicalBlock          = canonClassified{}
	_ backend.CanonicalSequenceReader = canonClassified{}
	_ backend.BlockReader             = canonClassified{}
	_ backend.LockWaitBounder         = canonClassified{}
	_ backend.Lanes                   = canonClassified{}
)

func (c canonClassified) classify(ctx context.Context, err error) error {
	return backend.ClassifyUnavailable(ctx, err, c.Transient)
}

// inner is the wrapped Block as a CanonicalBlock: every Block the
// backend wraps is one.
func (c canonClassified) inner() backend.CanonicalBlock {
	return c.Inner.(backend.CanonicalBlock)
}

// CanonicalDelta implements backend.CanonicalBlock.
func (c canonClassified) CanonicalDelta(ctx context.Context) (backend.CanonicalDelta, error) {
	d, err := c.inner().CanonicalDelta(ctx)
	return d, c.classify(ctx, err)
}

// CanonicalSequences implements backend.CanonicalSequenceReader.
func (c canonClassified) CanonicalSequences(ctx context.Context) ([]backend.SequenceState, error) {
	seqs, err := c.Inner.(backend.CanonicalSequenceReader).CanonicalSequences(ctx)
	return seqs, c.classify(ctx, err)
}

// CanonicalTables implements backend.CanonicalBlock.
func (c canonClassified) CanonicalTables(ctx context.Context) ([]string, error) {
	names, err := c.inner().CanonicalTables(ctx)
	return names, c.classify(ctx, err)
}

// CanonicalTableRows implements backend.CanonicalBlock.
func (c canonClassified) CanonicalTableRows(ctx context.Context, table string, fn func(key, image []byte) error) error {
	return c.classify(ctx, c.inner().CanonicalTableRows(ctx, table, fn))
}

// OpenLanes implements backend.Lanes; each lane's errors are classified
// already (laneHandle).
func (c canonClassified) OpenLanes(ctx context.Context, n int) ([]backend.Lane, error) {
	lanes, err := c.Inner.(backend.Lanes).OpenLanes(ctx, n)
	return lanes, c.classify(ctx, err)
}

// BoundLockWaits implements backend.LockWaitBounder as ClassifiedBlock
// does, keeping CanonicalBlock on the Block it returns.
func (c canonClassified) BoundLockWaits(ctx context.Context, d time.Duration) (backend.Block, error) {
	blk, err := c.ClassifiedBlock.BoundLockWaits(ctx, d)
	if cb, ok := blk.(sqlstore.ClassifiedBlock); ok {
		return canonClassified{cb}, err
	}
	return blk, err
}
