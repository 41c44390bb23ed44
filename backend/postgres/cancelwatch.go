package postgres

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// cancelRequestTimeout bounds the cancel request's own connection.
const cancelRequestTimeout = 5 * time.Second

// sendCancelRequest asks the server to cancel what pc's session is running,
// on a connection of its own, best effort: if it fails, the statement runs
// to its end.
func sendCancelRequest(pc *pgconn.PgConn) {
	ctx, cancel := context.WithTimeout(context.Background(), cancelRequestTimeout)
	defer cancel()
	_ = pc.CancelRequest(ctx)
}

// cancelledSessions are the connections a cancel request was sent for
// (watchStatement): the server delivers a cancel to the session's process
// as a signal, which may arrive after the statement it was meant for has
// ended and cancel the next one — a CI run's node halted on its block's
// first statement, cancelled ("57014 due to user request") by the cancel
// of the interactive transaction's rehearsal that the block had pre-empted
// on the same session. A session in this set runs nothing more that
// matters: the writer and a lane's kept connection are closed and
// replaced before their next block (takeCancelled).
var cancelledSessions sync.Map // *pgconn.PgConn -> struct{}

// cancelsSent counts cancel requests; every 256th forgets the closed
// sessions (a reader's, which nothing takes, would otherwise stay).
var cancelsSent atomic.Int64

// markCancelled records that a cancel request is sent for pc's session.
func markCancelled(pc *pgconn.PgConn) {
	cancelledSessions.Store(pc, struct{}{})
	if cancelsSent.Add(1)%256 == 0 {
		cancelledSessions.Range(func(k, _ any) bool {
			if k.(*pgconn.PgConn).IsClosed() {
				cancelledSessions.Delete(k)
			}
			return true
		})
	}
}

// takeCancelled reports whether a cancel request was sent for pc's session
// since the last call, and forgets it.
func takeCancelled(pc *pgconn.PgConn) bool {
	_, ok := cancelledSessions.LoadAndDelete(pc)
	return ok
}

// cancelDeadlineDelay is how long a statement may take to stop after its
// cancel request before the writer's connection is given a deadline (which
// ends the wait and the connection; the next Begin reconnects). The same
// delay as cancelOnDone's.
const cancelDeadlineDelay = 5 * time.Second

// watchStatement makes ctx's end cancel the statements the writer runs
// until stop is called, without a goroutine per statement.
//
// pgx watches a call's context itself (cancelOnDone), but by starting a
// goroutine for every call and handing it an unbuffered channel at the
// end: on the executor's path, one statement per wl-transaction or more,
// that cost about 15 µs of CPU per Smallbank wl-transaction in thread
// wake-ups (BENCHMARKS.md, issue 19). Here pgx gets a context that never
// ends (so it watches nothing), and context.AfterFunc registers the
// cancellation on ctx itself: a goroutine starts only if ctx ends during
// the call. It sends the cancel request (the statement fails with 57014,
// a node fault, see nodeFault) and, if the statement still has not
// returned after cancelDeadlineDelay, gives the connection a deadline.
//
// stop returns once that goroutine, if it started, has finished: its
// cancel request has reached the server before the caller can send the
// next statement (the server ignores a cancel request that arrives while
// it waits for a command, so a request sent as the statement completed
// hits nothing). If ctx has already ended, the caller must not run the
// statement at all (see ctxBlock).
func watchStatement(ctx context.Context, pc *pgconn.PgConn) (driverCtx context.Context, stop func()) {
	if ctx.Done() == nil || pc == nil {
		return ctx, func() {}
	}
	returned, finished := make(chan struct{}), make(chan struct{})
	deadlineSet := false
	stopAfter := context.AfterFunc(ctx, func() {
		defer close(finished)
		markCancelled(pc)
		sendCancelRequest(pc)
		timer := time.NewTimer(cancelDeadlineDelay)
		defer timer.Stop()
		select {
		case <-returned:
		case <-timer.C:
			_ = pc.Conn().SetDeadline(time.Now())
			deadlineSet = true
		}
	})
	return context.WithoutCancel(ctx), func() {
		close(returned)
		if stopAfter() {
			return // ctx did not end during the call
		}
		<-finished
		if deadlineSet {
			_ = pc.Conn().SetDeadline(time.Time{})
		}
	}
}
