package postgres_test

import (
	"context"
	"errors"
	"testing"
	"time"

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

// A deadlined Exec stops on the server whatever plan the statement has,
// also where PostgreSQL works a while between the rows it returns: a set
// returning function materialised into a tuplestore before the first row,
// a sort, a hash aggregate, a materialised CTE, an INSERT ... SELECT, a
// string built from every row. (A PostgreSQL network whose slow tx seemed
// to stall it was suspected of one of these; the tx had in fact been
// refused by the gate at CheckTx and never ran.) Ungated: the gate admits
// at most 1,000,000 series rows, which an idle machine may run within the
// deadline; the last case is the e2e quarantine test's kind of statement
// at the gate's bound, with more work per row.
func TestDeadlinedExecStopsOnTheServerWhateverThePlan(t *testing.T) {
	b := mustOpenUngated(t, pgtest.DSN(t))
	defer b.Close()
	block(t, b, 1, `CREATE TABLE t (g bigint)`)
	for _, c := range []struct{ marker, sql string }{
		{"plan_srf", `SELECT count(*) AS plan_srf FROM generate_series(1, 100000000) g`},
		{"plan_sort", `SELECT g AS plan_sort FROM generate_series(1, 100000000) g ORDER BY g DESC LIMIT 1`},
		{"plan_hash", `SELECT count(*) AS plan_hash FROM (SELECT DISTINCT md5(g::text) FROM generate_series(1, 100000000) g) s`},
		{"plan_cte", `WITH c AS MATERIALIZED (SELECT g FROM generate_series(1, 100000000) g) SELECT count(*) AS plan_cte FROM c`},
		{"plan_insert", `INSERT INTO t SELECT g FROM generate_series(1, 100000000) AS plan_insert(g)`},
		{"plan_agg", `SELECT length(string_agg(md5(g::text), ',')) AS plan_agg FROM generate_series(1, 100000000) g`},
		{"plan_gated", `SELECT count(DISTINCT md5(md5(md5(md5(g::text))))) AS plan_gated FROM generate_series(1, 1000000) g`},
	} {
		t.Run(c.marker, func(t *testing.T) { mustStopAtDeadline(t, b, c.sql, c.marker) })
	}
}

// mustStopAtDeadline runs sql in a block under a 300 ms deadline and
// requires the Exec to fail as a node fault wrapping
// context.DeadlineExceeded, the statement (found by marker in
// pg_stat_activity) to leave the server while its session stays (the
// cancel request stopped it: had it been ignored, watchStatement would
// have cut the connection after cancelDeadlineDelay), and the writer to
// begin the next block on a new session (a cancel request may still
// reach the old one's next statement: cancelledSessions).
func mustStopAtDeadline(t *testing.T, b backend.Backend, sql, marker string) {
	t.Helper()
	blk, err := b.Begin(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	pid := backendPID(t, blk)
	if err := blk.Savepoint(ctx(t), sqlcheck.Env{}); err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	_, err = blk.Exec(short, sql, nil)
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) || backend.AsError(err) != nil {
		t.Fatalf("deadlined Exec = %v, want a node fault wrapping context.DeadlineExceeded", err)
	}
	if err := blk.Rollback(ctx(t)); err != nil {
		t.Fatalf("Rollback after the deadlined Exec: %v", err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for activeQueries(t, "%"+marker+"%") != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the cancelled statement still runs on the server")
		}
		time.Sleep(100 * time.Millisecond)
	}
	if !sessionAlive(t, pid) {
		t.Errorf("server process %v is gone: the cancel request did not stop the statement, cutting the connection did", pid)
	}
	next, err := b.Begin(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	if got := backendPID(t, next); got == pid {
		t.Errorf("the writer's next block runs in server process %v, whose statement a cancel request was sent for", got)
	}
	if err := next.Rollback(ctx(t)); err != nil {
		t.Fatal(err)
	}
}

// backendPID is the server process of blk's connection.
func backendPID(t *testing.T, blk backend.Block) any {
	t.Helper()
	rows, err := blk.Exec(ctx(t), `SELECT pg_backend_pid()`, nil)
	if err != nil {
		t.Fatal(err)
	}
	return rows.Rows[0][0]
}

// sessionAlive reports whether the server process pid still serves a
// session.
func sessionAlive(t *testing.T, pid any) bool {
	t.Helper()
	return countActivity(t, `pid = $1`, pid) == 1
}
