package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/relchain/relchain/backend"
)

var _ backend.LockWaitBounder = ctxBlock{}

// BoundLockWaits implements backend.LockWaitBounder: SET LOCAL
// lock_timeout, which lasts until the db-transaction ends (a rehearsal
// always rolls back, and the writer's session default, 0, applies again).
func (c ctxBlock) BoundLockWaits(ctx context.Context, d time.Duration) (backend.Block, error) {
	ms := max(d.Milliseconds(), 1)
	c.b.mu.Lock()
	defer c.b.mu.Unlock()
	if c.done {
		return nil, errBlockDone
	}
	if err := c.simpleLocked(ctx, "bound lock waits", fmt.Sprintf("SET LOCAL lock_timeout = %d", ms)); err != nil {
		return nil, withCtx(ctx, err)
	}
	return lockBounded{c}, nil
}

// lockBounded is a block whose lock waits are bounded: a statement that
// gives up (SQLSTATE 55P03, lock_not_available) fails with an error that
// wraps backend.ErrLockWait.
type lockBounded struct{ ctxBlock }

func (l lockBounded) Exec(ctx context.Context, sql string, args []any) (*backend.Rows, error) {
	rows, err := l.ctxBlock.Exec(ctx, sql, args)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "55P03" {
		return nil, fmt.Errorf("%w: %w", backend.ErrLockWait, err)
	}
	return rows, err
}
