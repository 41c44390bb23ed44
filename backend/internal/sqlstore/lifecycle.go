package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/relchain/relchain/backend"
)

// closeRollbackTimeout bounds Close's rollback of a block still open: a
// server that does not answer must not keep the node from stopping.
const closeRollbackTimeout = 5 * time.Second

// CheckBegin is the test both server backends make, holding their mutex,
// before a block begins: none on a closed backend, and one at a time.
func CheckBegin(dialect string, closed, blockOpen bool) error {
	if closed {
		return fmt.Errorf("%s: begin: %w", dialect, errClosed)
	}
	if blockOpen {
		return backend.ErrBlockOpen
	}
	return nil
}

var errClosed = errors.New("backend is closed")

// Close is a server backend's Close. It waits for a running checkpoint
// first (outside mu: the checkpoint does not take it), then, holding mu and
// only the first time (closed records it), rolls back the block still open,
// if any (rollbackOpen, given a bounded time), and releases the backend's
// connections whatever became of that rollback. Its error is the rollback's.
func Close(mu *sync.Mutex, closed *bool, ckpt *Checkpointing, rollbackOpen func(context.Context) error, release func()) error {
	ckpt.WaitCheckpoint()
	mu.Lock()
	defer mu.Unlock()
	if *closed {
		return nil
	}
	*closed = true
	ctx, cancel := context.WithTimeout(context.Background(), closeRollbackTimeout)
	err := rollbackOpen(ctx)
	cancel()
	release()
	return err
}

// Rollback is a block's Rollback: holding the backend's mutex mu, it rolls
// the block back (rollback) unless it has ended already (done).
func Rollback(mu *sync.Mutex, done *bool, rollback func() error) error {
	mu.Lock()
	defer mu.Unlock()
	if *done {
		return nil
	}
	return rollback()
}

// Defaults of the options of a server backend's Query, the same for
// PostgreSQL and MySQL. MaxQueryRows and MaxQueryBytes bound what one
// Query returns (a clear error past them): reads are served by the node to
// anyone who reaches it.
const (
	DefaultQueryTimeout  = 30 * time.Second
	DefaultMaxReaders    = 8
	DefaultMaxQueryRows  = 100_000
	DefaultMaxQueryBytes = 64 << 20
)
