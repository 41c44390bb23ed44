package mysql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// killGrace is how long a cancelled block statement may take to stop after
// KILL QUERY before its connection is killed too.
const killGrace = 2 * time.Second

// killTimeout bounds one KILL round trip on the killer connection.
const killTimeout = 5 * time.Second

// watch makes the block's statements cancellable by ctx on the server, not
// only in the driver: the driver, on cancellation, just closes its
// connection, while the server goes on running the statement with the
// block's locks held. watch returns a context the driver cannot cancel
// and, through cancelOnServer, has ctx's end send KILL QUERY for the
// writer's connection from the killer connection (an account may kill its
// own threads without PROCESS or SUPER), and KILL CONNECTION if the
// statement has not returned after killGrace. The statement then fails at
// once and k.fault reports an error wrapping ctx.Err(). Call stop before
// the method returns.
func (k *session) watch(ctx context.Context) (driverCtx context.Context, stop func()) {
	if ctx.Done() == nil {
		return ctx, func() {}
	}
	k.callCtx = ctx
	done := cancelOnServer(ctx,
		func() { k.b.kill(k.b.killer, k.connID, "QUERY") },
		func() { k.b.kill(k.b.killer, k.connID, "CONNECTION") })
	return context.WithoutCancel(ctx), func() {
		done()
		k.callCtx = nil
	}
}

// cancelOnServer makes ctx's end, during one call on a connection whose
// driver context ctx cannot cancel, run killStatement (KILL QUERY for the
// connection), then escalate if the call has not returned killGrace
// later. It registers a context.AfterFunc: no goroutine unless ctx ends
// during the call (a goroutine per call cost thread wake-ups on the
// executor's hot path, as it did for PostgreSQL). Call returned when the
// call has returned: it waits for killStatement and escalate if they
// started, so that no kill reaches the connection once it is back in its
// pool.
//
// The driver must not see ctx: on cancellation it only closes its socket
// and returns, and the server runs the statement on, holding its locks,
// until it next writes to the socket. Had the driver seen ctx, its return
// could also win the race with the AfterFunc, and returned would then
// stop the kill before it started: a cancelled read went on holding
// its metadata lock, and a block's ALTER TABLE waited for it up to the
// read limit.
func cancelOnServer(ctx context.Context, killStatement, escalate func()) (returned func()) {
	callReturned, finished := make(chan struct{}), make(chan struct{})
	stopAfter := context.AfterFunc(ctx, func() {
		defer close(finished)
		killStatement()
		timer := time.NewTimer(killGrace)
		defer timer.Stop()
		select {
		case <-callReturned:
			return
		case <-timer.C:
		}
		escalate()
	})
	return func() {
		close(callReturned)
		if !stopAfter() {
			<-finished
		}
	}
}

// kill sends KILL QUERY or KILL CONNECTION for connection id from killer
// (best effort: if it fails, the statement runs on, and the driver's read
// on a killed connection fails).
func (b *Backend) kill(killer *sql.DB, id int64, what string) {
	if id <= 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), killTimeout)
	defer cancel()
	_, _ = killer.ExecContext(ctx, "KILL "+what+" "+strconv.FormatInt(id, 10))
}

// interrupted returns the error of the cancelled method context, or nil.
func (k *session) interrupted() error {
	if c := k.callCtx; c != nil {
		return c.Err()
	}
	return nil
}

// wrapInterrupted returns err, wrapping the method context's error when
// that ended (errors.Is(err, context.DeadlineExceeded) then holds).
func (k *session) wrapInterrupted(err error) error {
	if cerr := k.interrupted(); cerr != nil && !errors.Is(err, cerr) {
		return fmt.Errorf("%w: %w", cerr, err)
	}
	return err
}
