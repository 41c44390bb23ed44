package postgres_test

import (
	"context"
	"errors"
	"testing"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/backendtest"
	"github.com/relchain/relchain/backend/postgres/pgtest"
	"github.com/relchain/relchain/sqlcheck"
)

// A statement cancelled as it completes leaves no cancel request behind
// for the next statement (watchStatement's stop waits for it): fails if
// stop does not wait.
func TestCancelAtCompletionLeavesNoStrayCancel(t *testing.T) {
	backendtest.CancelAtCompletion(t, func(t *testing.T) backend.Backend {
		return mustOpenUngated(t, pgtest.DSN(t)) // pg_sleep
	}, `SELECT pg_sleep(0.01)`)
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
