package backend

import (
	"context"
	"errors"
	"time"
)

// ErrLockWait is wrapped by the error of a statement that gave up waiting
// for a lock another session holds, past the bound a LockWaitBounder set.
// It is a node-local outcome (it depends on other sessions and timing),
// never a tx result.
var ErrLockWait = errors.New("gave up waiting for a lock another session holds")

// LockWaitBounder is implemented by a Block whose lock waits can be
// bounded for the rest of its db-transaction. Only rehearsals use it (see
// app.Executor.Rehearse): a rehearsal must not queue for a lock a read
// holds, because every read of the same table then queues behind it. A
// block consensus runs never bounds its lock waits: a timeout must not
// decide a transaction's outcome.
type LockWaitBounder interface {
	// BoundLockWaits makes every later lock wait of the db-transaction
	// give up after d, and returns the Block to use from then on: its
	// statements that give up fail with an error wrapping ErrLockWait.
	BoundLockWaits(ctx context.Context, d time.Duration) (Block, error)
}
