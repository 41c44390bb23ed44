package app

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/relchain/relchain/api"
)

// ErrReadPreempted is the cause of a read that a block cancelled because
// the block changes the schema and the read held (or would have waited
// for) a lock the block needs; it failed before returning anything, and
// the same read run again after the block sees the new schema.
var ErrReadPreempted = errors.New("a block changing the schema needed this read's locks and cancelled it: retry the read")

// readGate keeps the read path (abci_query /sql and /describe, and Read
// in process) from delaying a block. Reads run on their own database
// sessions and hold shared locks on what they read (PostgreSQL's ACCESS
// SHARE, MariaDB's shared metadata lock) until they end; a statement that
// changes the schema needs an exclusive lock, so it waits for every read
// in flight on its table, up to the read limit. Before a block runs such a
// statement (preemptReads), the gate cancels every read in flight and holds
// new reads back until the block's db-transaction ends (reopen): they then
// run on the new state, having waited no longer than they would have for
// the block's lock. A block thus waits for no read longer than a
// cancellation takes, and a read cancelled this way fails with
// ErrReadPreempted (api.CodeQueryBusy).
//
// What a block computes never depends on the gate: reads change nothing,
// and the block waits for locks without a timeout either way; the gate
// only shortens the wait. It is node-local.
type readGate struct {
	mu sync.Mutex
	// closed is non-nil while a block that changes the schema is open; it
	// is closed when the block ends.
	closed chan struct{}
	reads  map[*readTicket]struct{}
	// preempted counts the reads cancelled.
	preempted atomic.Int64
}

type readTicket struct{ cancel context.CancelCauseFunc }

func newReadGate() *readGate { return &readGate{reads: make(map[*readTicket]struct{})} }

// enter admits one read: it waits while a block that changes the schema
// is open (until giveUp is closed or ctx ends) and returns the read's
// context, derived from ctx, which preemptReads cancels with
// ErrReadPreempted, and done, to call when the read has ended.
func (g *readGate) enter(ctx context.Context, giveUp <-chan struct{}) (context.Context, func(), error) {
	for {
		g.mu.Lock()
		wait := g.closed
		if wait == nil {
			rctx, cancel := context.WithCancelCause(ctx)
			t := &readTicket{cancel: cancel}
			g.reads[t] = struct{}{}
			g.mu.Unlock()
			return rctx, func() { g.leave(t) }, nil
		}
		g.mu.Unlock()
		select {
		case <-wait:
		case <-giveUp:
			return nil, nil, errors.New("a block that changes the schema is still running")
		case <-ctx.Done():
			return nil, nil, fmt.Errorf("waiting for a block that changes the schema: %w", ctx.Err())
		}
	}
}

func (g *readGate) leave(t *readTicket) {
	g.mu.Lock()
	delete(g.reads, t)
	g.mu.Unlock()
	t.cancel(nil)
}

// preemptReads closes the gate until reopen and cancels every read in
// flight. Calling it while the gate is closed cancels nothing new.
func (g *readGate) preemptReads() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed == nil {
		g.closed = make(chan struct{})
	}
	for t := range g.reads {
		t.cancel(ErrReadPreempted)
		delete(g.reads, t)
		g.preempted.Add(1)
	}
}

// reopen lets reads run again (the block's db-transaction ended).
func (g *readGate) reopen() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed != nil {
		close(g.closed)
		g.closed = nil
	}
}

// enterRead admits one read on the read path (see readGate): it waits, at
// most wait, while a block that changes the schema is open. Run the read
// with the returned context and call done when it has ended; a read that
// fails after the gate cancelled it reports readPreempted(rctx). An error
// (a *ReadError, api.CodeQueryBusy) means the read did not start.
func (e *Executor) enterRead(ctx context.Context, wait time.Duration) (rctx context.Context, done func(), err error) {
	wctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	rctx, done, err = e.slot.reads.enter(ctx, wctx.Done())
	if err != nil {
		return nil, nil, &ReadError{Code: api.CodeQueryBusy, Log: fmt.Sprintf("a block that changes the schema is running on this node and did not end within %s: retry the read", wait)}
	}
	return rctx, done, nil
}

// ReadsPreempted is how many reads blocks have cancelled (see readGate).
func (e *Executor) ReadsPreempted() int64 { return e.slot.reads.preempted.Load() }

// preemptedRead is the error of a read the gate cancelled.
func preemptedRead() *ReadError {
	return &ReadError{Code: api.CodeQueryBusy, Log: ErrReadPreempted.Error()}
}

// readPreempted reports whether a read with context ctx failed because
// preemptReads cancelled it.
func readPreempted(ctx context.Context) bool {
	return errors.Is(context.Cause(ctx), ErrReadPreempted)
}
