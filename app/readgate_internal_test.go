package app

import (
	"context"
	"errors"
	"testing"
)

// The read gate cancels the reads in flight with ErrReadPreempted, holds
// new reads while it is closed (until reopened, or until they give up) and
// lets them through after.
func TestReadGate(t *testing.T) {
	g := newReadGate()
	never := make(chan struct{})
	r1, done1, err := g.enter(context.Background(), never)
	if err != nil {
		t.Fatal(err)
	}
	r2, done2, err := g.enter(context.Background(), never)
	if err != nil {
		t.Fatal(err)
	}
	done2() // an ended read is not cancelled by the gate
	g.preemptReads()
	if !readPreempted(r1) || r1.Err() == nil {
		t.Fatalf("the read in flight: cause %v, want ErrReadPreempted", context.Cause(r1))
	}
	if readPreempted(r2) {
		t.Fatal("a read that had ended was counted as preempted")
	}
	done1()
	if n := g.preempted.Load(); n != 1 {
		t.Fatalf("preempted %d reads, want 1", n)
	}

	// Closed: a new read waits; giving up is an error; a second preemption
	// cancels nothing more.
	giveUp := make(chan struct{})
	close(giveUp)
	if _, _, err := g.enter(context.Background(), giveUp); err == nil {
		t.Fatal("a read entered a closed gate")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := g.enter(ctx, never); !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled read waiting at the gate: %v", err)
	}
	entered := make(chan error, 1)
	go func() {
		rctx, done, err := g.enter(context.Background(), never)
		if err == nil {
			err = rctx.Err() // still live: not preempted
			done()
		}
		entered <- err
	}()
	g.preemptReads()
	select {
	case <-entered:
		t.Fatal("a read entered while the gate was closed")
	default:
	}
	g.reopen()
	if err := <-entered; err != nil {
		t.Fatalf("the waiting read after the gate reopened: %v", err)
	}
	if n := g.preempted.Load(); n != 1 {
		t.Fatalf("preempted %d reads, want 1", n)
	}
	g.reopen() // idempotent
}
