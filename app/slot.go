package app

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// ErrRehearsalBusy is returned (wrapped) by Rehearse when the node's block
// db-transaction stayed busy with consensus until the caller's deadline,
// or the rehearsal ran past one of its lock bounds: retry.
var ErrRehearsalBusy = errors.New("the node is busy: retry the rehearsal")

// blockSlot serializes the backend's one Block between consensus (from
// execBlock until Commit or the block's rollback) and rehearsals.
// Consensus always wins: it cancels a running rehearsal, which rolls back
// at once, and no rehearsal starts while consensus holds or wants the
// slot. A rehearsal thus delays a block by at most one statement's
// cancellation and never changes what the block computes.
type blockSlot struct {
	ch      chan struct{} // holds one token while the slot is taken
	held    atomic.Bool   // taken by consensus
	mu      sync.Mutex
	waiting int                // consensus callers waiting for the slot
	cancel  context.CancelFunc // the running rehearsal's
	// preempted counts the rehearsals consensus cancelled; granted the
	// times a rehearsal got the slot (it ran something).
	preempted atomic.Int64
	granted   atomic.Int64
	// reads is the read path's gate: a block that changes the schema
	// closes it (see readGate); releaseBlock reopens it.
	reads *readGate
}

func newBlockSlot() *blockSlot { return &blockSlot{ch: make(chan struct{}, 1), reads: newReadGate()} }

// holdForBlock takes the slot for consensus; it is a no-op when consensus
// holds it already (a speculated block is pending).
func (s *blockSlot) holdForBlock() {
	if s.held.Load() {
		return
	}
	s.mu.Lock()
	s.waiting++
	if s.cancel != nil {
		s.cancel()
		s.preempted.Add(1)
	}
	s.mu.Unlock()
	s.ch <- struct{}{}
	s.mu.Lock()
	s.waiting--
	s.mu.Unlock()
	s.held.Store(true)
}

// releaseBlock gives the slot back once no block is open, and lets reads
// a block that changed the schema held back run.
func (s *blockSlot) releaseBlock() {
	if s.held.CompareAndSwap(true, false) {
		s.reads.reopen()
		<-s.ch
	}
}

// holdForRehearsal takes the slot for one rehearsal until release is
// called; the returned context is cancelled when consensus needs the slot.
func (s *blockSlot) holdForRehearsal(ctx context.Context) (context.Context, func(), error) {
	for {
		select {
		case s.ch <- struct{}{}:
		case <-ctx.Done():
			return nil, nil, fmt.Errorf("%w (%v)", ErrRehearsalBusy, ctx.Err())
		}
		s.mu.Lock()
		if s.waiting == 0 {
			rctx, cancel := context.WithCancel(ctx)
			s.cancel = cancel
			s.mu.Unlock()
			s.granted.Add(1)
			return rctx, func() { s.releaseRehearsal(cancel) }, nil
		}
		s.mu.Unlock()
		<-s.ch // consensus is waiting: let it go first
		select {
		case <-time.After(time.Millisecond):
		case <-ctx.Done():
			return nil, nil, fmt.Errorf("%w (%v)", ErrRehearsalBusy, ctx.Err())
		}
	}
}

func (s *blockSlot) releaseRehearsal(cancel context.CancelFunc) {
	s.mu.Lock()
	s.cancel = nil
	s.mu.Unlock()
	cancel()
	<-s.ch
}
