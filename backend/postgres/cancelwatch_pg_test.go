package postgres_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/postgres/pgtest"
	"github.com/relchain/relchain/sqlcheck"
)

// A context that ends as its statement completes must not leave a cancel
// request behind that fails a later statement: a block's statements run
// under contexts that end (a proposal's speculative execution), and the
// cancellation, which the writer registers on the context itself
// (watchStatement), must have reached the server, or been dropped, before
// the next statement is sent. Each round cancels a statement at a
// different moment around its completion; the statement after it, under a
// live context, must always succeed.
func TestCancelAtCompletionLeavesNoStrayCancel(t *testing.T) {
	b := mustOpenUngated(t, pgtest.DSN(t)) // pg_sleep
	defer b.Close()
	block(t, b, 1, `CREATE TABLE t (id int PRIMARY KEY, n int NOT NULL)`, `INSERT INTO t VALUES (1, 0)`)
	height := int64(2)
	cancelled := 0
	for round := range 120 {
		blk, err := b.Begin(ctx(t))
		if err != nil {
			t.Fatal(err)
		}
		if err := blk.Savepoint(ctx(t), sqlcheck.Env{}); err != nil {
			t.Fatal(err)
		}
		short, cancel := context.WithCancel(context.Background())
		// The statement takes 10 ms; the cancel comes from before it
		// is sent to well after it has returned (a cancel request takes
		// a connection of its own, a few milliseconds here).
		timer := time.AfterFunc(time.Duration(round%40)*400*time.Microsecond, cancel)
		_, err = blk.Exec(short, `UPDATE t SET n = n + 1 WHERE id = 1 AND pg_sleep(0.01) IS NOT NULL`, nil)
		timer.Stop()
		cancel()
		if err != nil {
			if !errors.Is(err, context.Canceled) || backend.AsError(err) != nil {
				t.Fatalf("round %d: a cancelled statement = %v, want a node fault wrapping context.Canceled", round, err)
			}
			cancelled++
			if err := blk.Rollback(ctx(t)); err != nil {
				t.Fatalf("round %d: rollback after a cancelled statement: %v", round, err)
			}
			continue
		}
		for i := range 3 {
			if _, err := blk.Exec(ctx(t), `UPDATE t SET n = n + 1 WHERE id = 1`, nil); err != nil {
				t.Fatalf("round %d: statement %d after one whose context ended as it completed: %v", round, i, err)
			}
		}
		if err := blk.Release(ctx(t)); err != nil {
			t.Fatal(err)
		}
		if _, err := blk.ChangeDigest(ctx(t)); err != nil {
			t.Fatal(err)
		}
		if _, err := blk.StateDigest(ctx(t)); err != nil {
			t.Fatal(err)
		}
		if err := blk.Commit(ctx(t), backend.State{Height: height, AppHash: []byte{1}}); err != nil {
			t.Fatalf("round %d: commit: %v", round, err)
		}
		height++
	}
	t.Logf("%d of 120 statements were cancelled", cancelled)
}

// A statement whose context has already ended is not sent: Exec fails at
// once with the context's error, as a node fault, and the block can be
// rolled back.
func TestExecUnderEndedContextRunsNothing(t *testing.T) {
	b := mustOpen(t, pgtest.DSN(t))
	defer b.Close()
	block(t, b, 1, `CREATE TABLE t (id int PRIMARY KEY)`)
	blk, err := b.Begin(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := blk.Savepoint(ctx(t), sqlcheck.Env{}); err != nil {
		t.Fatal(err)
	}
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := blk.Exec(ended, `INSERT INTO t VALUES (1)`, nil); !errors.Is(err, context.Canceled) || backend.AsError(err) != nil {
		t.Fatalf("Exec under an ended context = %v, want a node fault wrapping context.Canceled", err)
	}
	if err := blk.RollbackTo(ended); !errors.Is(err, context.Canceled) {
		t.Fatalf("RollbackTo under an ended context = %v, want an error wrapping context.Canceled", err)
	}
	if err := blk.Rollback(ctx(t)); err != nil {
		t.Fatal(err)
	}
	rows, _ := block(t, b, 2, `SELECT count(*) FROM t`)
	if got := rows[0].Rows[0][0]; got != int64(0) {
		t.Fatalf("rows after the rolled-back block = %v, want 0", got)
	}
}
