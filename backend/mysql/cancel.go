package mysql

import (
	"context"
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
// and registers on ctx (context.AfterFunc: no goroutine unless ctx ends
// during the call, where a goroutine per call cost thread wake-ups on the
// executor's hot path, as it did for PostgreSQL) a function that, when
// ctx ends, sends KILL QUERY for the writer's connection from the killer
// connection (an account may kill its own threads without PROCESS or
// SUPER), and KILL CONNECTION if the statement has not returned after
// killGrace. The statement then fails at once and k.fault reports an
// error wrapping ctx.Err(). stop waits for that function, if it started,
// to finish; call it before the method returns.
func (k *block) watch(ctx context.Context) (driverCtx context.Context, stop func()) {
	if ctx.Done() == nil {
		return ctx, func() {}
	}
	k.callCtx = ctx
	returned, finished := make(chan struct{}), make(chan struct{})
	stopAfter := context.AfterFunc(ctx, func() {
		defer close(finished)
		k.b.kill(k.connID, "QUERY")
		timer := time.NewTimer(killGrace)
		defer timer.Stop()
		select {
		case <-returned:
			return
		case <-timer.C:
		}
		k.b.kill(k.connID, "CONNECTION")
	})
	return context.WithoutCancel(ctx), func() {
		close(returned)
		if !stopAfter() {
			<-finished
		}
		k.callCtx = nil
	}
}

// kill sends KILL QUERY or KILL CONNECTION for connection id (best
// effort: if it fails, the statement runs on, and the driver's read on a
// killed connection fails).
func (b *Backend) kill(id int64, what string) {
	if id <= 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), killTimeout)
	defer cancel()
	_, _ = b.killer.ExecContext(ctx, "KILL "+what+" "+strconv.FormatInt(id, 10))
}

// interrupted returns the error of the cancelled method context, or nil.
func (k *block) interrupted() error {
	if c := k.callCtx; c != nil {
		return c.Err()
	}
	return nil
}

// wrapInterrupted returns err, wrapping the method context's error when
// that ended (errors.Is(err, context.DeadlineExceeded) then holds).
func (k *block) wrapInterrupted(err error) error {
	if cerr := k.interrupted(); cerr != nil && !errors.Is(err, cerr) {
		return fmt.Errorf("%w: %w", cerr, err)
	}
	return err
}
