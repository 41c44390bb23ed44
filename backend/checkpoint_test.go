package backend

import (
	"context"
	"sync/atomic"
	"testing"
)

func TestStartDueRunsOnlyAtMultiplesOfEvery(t *testing.T) {
	var c Checkpointer
	var ran atomic.Int64
	take := func(ctx context.Context) error {
		if _, ok := ctx.Deadline(); !ok {
			t.Error("take got a context without a deadline")
		}
		ran.Add(1)
		return nil
	}
	for h := int64(1); h <= 10; h++ {
		c.StartDue(h, 5, take)
		c.Wait()
	}
	c.StartDue(10, 0, take) // checkpoints off
	c.Wait()
	if n := ran.Load(); n != 2 {
		t.Fatalf("took %d checkpoints over heights 1..10 every 5, want 2", n)
	}
}
