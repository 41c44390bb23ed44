package sqlstore

import (
	"context"
	"time"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/sqlcheck"
)

// ClassifiedBlock is the Block a server backend's Begin hands out: every
// error of the inner Block's methods passes through
// backend.ClassifyUnavailable with the backend's transient test, so that a
// lost connection or a restarting server reaches the executor as
// backend.ErrDatabaseUnavailable, whatever the method.
type ClassifiedBlock struct {
	Inner     backend.Block
	Transient func(error) bool
}

var _ backend.Block = ClassifiedBlock{}

func (c ClassifiedBlock) classify(ctx context.Context, err error) error {
	return backend.ClassifyUnavailable(ctx, err, c.Transient)
}

// Savepoint implements backend.Block.
func (c ClassifiedBlock) Savepoint(ctx context.Context, env sqlcheck.Env) error {
	return c.classify(ctx, c.Inner.Savepoint(ctx, env))
}

// Release implements backend.Block.
func (c ClassifiedBlock) Release(ctx context.Context) error {
	return c.classify(ctx, c.Inner.Release(ctx))
}

// RollbackTo implements backend.Block.
func (c ClassifiedBlock) RollbackTo(ctx context.Context) error {
	return c.classify(ctx, c.Inner.RollbackTo(ctx))
}

// Exec implements backend.Block.
func (c ClassifiedBlock) Exec(ctx context.Context, sql string, args []any) (*backend.Rows, error) {
	rows, err := c.Inner.Exec(ctx, sql, args)
	return rows, c.classify(ctx, err)
}

// ChangeDigest implements backend.Block.
func (c ClassifiedBlock) ChangeDigest(ctx context.Context) (backend.Changes, error) {
	ch, err := c.Inner.ChangeDigest(ctx)
	return ch, c.classify(ctx, err)
}

// StateDigest implements backend.Block.
func (c ClassifiedBlock) StateDigest(ctx context.Context) ([]byte, error) {
	d, err := c.Inner.StateDigest(ctx)
	return d, c.classify(ctx, err)
}

// SaveSystem implements backend.Block.
func (c ClassifiedBlock) SaveSystem(ctx context.Context, kv map[string][]byte) error {
	return c.classify(ctx, c.Inner.SaveSystem(ctx, kv))
}

// Commit implements backend.Block. A Commit error that wraps
// backend.ErrDatabaseUnavailable may come after the server applied the
// COMMIT: Backend.RecordedState resolves it.
func (c ClassifiedBlock) Commit(ctx context.Context, s backend.State) error {
	return c.classify(ctx, c.Inner.Commit(ctx, s))
}

// Rollback implements backend.Block.
func (c ClassifiedBlock) Rollback(ctx context.Context) error {
	return c.classify(ctx, c.Inner.Rollback(ctx))
}

var _ backend.LockWaitBounder = ClassifiedBlock{}

// BoundLockWaits implements backend.LockWaitBounder by passing the call to
// the inner Block when it bounds lock waits, and keeps classifying the
// Block it returns; an inner Block that cannot bound them is returned as
// it is (unbounded, as before the wrapper).
func (c ClassifiedBlock) BoundLockWaits(ctx context.Context, d time.Duration) (backend.Block, error) {
	lb, ok := c.Inner.(backend.LockWaitBounder)
	if !ok {
		return c, nil
	}
	inner, err := lb.BoundLockWaits(ctx, d)
	if err != nil {
		return nil, c.classify(ctx, err)
	}
	return ClassifiedBlock{Inner: inner, Transient: c.Transient}, nil
}

var _ backend.BlockReader = ClassifiedBlock{}

// ReadInBlock implements backend.BlockReader by passing the call to the
// inner Block; one that cannot read in the block fails with
// backend.ErrBlockReadUnsupported.
func (c ClassifiedBlock) ReadInBlock(ctx context.Context, sql string, args []any) (*backend.Rows, error) {
	br, ok := c.Inner.(backend.BlockReader)
	if !ok {
		return nil, backend.ErrBlockReadUnsupported
	}
	rows, err := br.ReadInBlock(ctx, sql, args)
	return rows, c.classify(ctx, err)
}
