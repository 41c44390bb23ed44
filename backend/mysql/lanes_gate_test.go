package mysql_test

import (
	"context"
	"testing"
	"time"

	"github.com/relchain/relchain/backend/backendtest"
	"github.com/relchain/relchain/backend/mysql"
)

// A state read never holds the lanes' read gate while it waits for a
// connection of the internal pool: a parallel block's Commit waits for
// the gate holding the backend, and readers holding connections wait
// behind that Commit for the gate (see the same test in backend/postgres).
func TestAReadWaitingForAConnectionDoesNotHoldTheReadGate(t *testing.T) {
	b, _ := setupLaneDB(t)
	release, err := mysql.HoldInternal(ctx(t), b)
	if err != nil {
		t.Fatal(err)
	}
	rctx, cancel := context.WithTimeout(ctx(t), 500*time.Millisecond)
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = b.LoadState(rctx)
	}()
	held := backendtest.GateHeldWhile(done, func() (func(), bool) { return mysql.TryPublish(b) })
	release()
	if held {
		t.Error("LoadState held the read gate while it waited for a connection")
	}
	if _, err := b.LoadState(ctx(t)); err != nil {
		t.Errorf("LoadState once the connections are free: %v", err)
	}
}
