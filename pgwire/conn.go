package pgwire

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/jackc/pgx/v5/pgtype"
)

// conn is one client connection.
type conn struct {
	srv     *Server
	raw     net.Conn // the accepted connection; closing it also ends a TLS conn on top
	nc      net.Conn // raw, or the TLS conn once negotiated
	tls     bool
	be      *pgproto3.Backend
	pending []pgproto3.BackendMessage // queued before the Backend exists
	sess    Session
	types   *pgtype.Map

	pid, secretKey uint32

	// cancelMu guards the cancel function of the statement running now, which a
	// CancelRequest (another goroutine) calls.
	cancelMu     sync.Mutex
	runCancel    context.CancelFunc
	wasCancelled bool

	// Extended-protocol state.
	stmts      map[string]*statement
	portals    map[string]*portal
	skipToSync bool // an error happened in an extended-protocol batch
	fatalSent  bool // a FATAL ErrorResponse is queued: flush it and close
}

// serve runs the connection to its end; it never panics on client input.
func (c *conn) serve(ctx context.Context) {
	defer c.raw.Close()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if err := c.raw.SetDeadline(time.Now().Add(c.srv.startupTimeout())); err != nil {
		return
	}
	info, err := c.startup()
	if err != nil {
		c.failStartup(err)
		return
	}
	c.be = pgproto3.NewBackend(c.nc, c.nc)
	c.be.SetMaxBodyLen(c.srv.maxMessage())
	for _, m := range c.pending {
		c.be.Send(m)
	}
	if e := c.authenticate(info.user); e != nil {
		c.sendFatal(e)
		return
	}
	if !c.openSession(ctx, info) {
		return
	}
	defer c.sess.Close()
	if err := c.raw.SetDeadline(time.Time{}); err != nil {
		return
	}
	c.loop(ctx)
}

// failStartup reports a startup error: FATAL *Errors (and the startup timeout) are sent to
// the client, I/O errors and cancel connections just end.
func (c *conn) failStartup(err error) {
	var we *Error
	var ne net.Error
	switch {
	case errors.As(err, &we):
		sendFatalRaw(c.nc, we, time.Second)
	case errors.As(err, &ne) && ne.Timeout():
		sendFatalRaw(c.nc, fatalf(codeProtocolViolation, "startup did not finish in time"), time.Second)
	case errors.Is(err, errCancelHandled), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, net.ErrClosed), errors.Is(err, syscall.ECONNRESET):
	default:
		c.srv.logf("pgwire: startup from %v: %v", c.raw.RemoteAddr(), err)
	}
}

// openSession creates the Session and sends the rest of the startup response.
func (c *conn) openSession(ctx context.Context, info *startupInfo) bool {
	if c.srv.NewSession == nil {
		c.sendFatal(fatalf(codeInternal, "server has no session factory"))
		return false
	}
	sess, err := c.srv.NewSession(ctx, info.user, info.params)
	if err != nil {
		e := toWireError(err, false)
		fatal := *e
		fatal.Severity = severityFatal
		c.sendFatal(&fatal)
		return false
	}
	c.sess = sess
	if err := c.srv.registerPID(c); err != nil {
		c.sendFatal(fatalf(codeInternal, "generating cancel key: %v", err))
		sess.Close()
		return false
	}
	c.initQueryState()
	for _, ps := range c.startupParameterStatus(info) {
		c.be.Send(ps)
	}
	c.be.Send(&pgproto3.BackendKeyData{ProcessID: c.pid, SecretKey: c.secretKey})
	c.be.Send(&pgproto3.ReadyForQuery{TxStatus: c.sess.TxStatus()})
	if err := c.be.Flush(); err != nil {
		sess.Close()
		return false
	}
	return true
}

// sendFatal sends e as FATAL; the caller then closes the connection.
func (c *conn) sendFatal(e *Error) {
	fatal := *e
	fatal.Severity = severityFatal
	_ = c.nc.SetWriteDeadline(time.Now().Add(time.Second))
	c.be.Send(errorResponse(&fatal))
	_ = c.be.Flush()
}

// sendError queues an ErrorResponse for err; cancelled: a CancelRequest hit the statement.
// A FATAL error (pgwire's own or a Session's) marks the connection for closing.
func (c *conn) sendError(err error, cancelled bool) {
	e := toWireError(err, cancelled)
	if e.Code == codeInternal {
		c.srv.logf("pgwire: pid %d: internal error: %v", c.pid, err)
	}
	if e.Severity == severityFatal {
		c.fatalSent = true
	}
	c.be.Send(errorResponse(e))
}

// loop reads and dispatches messages until Terminate, disconnect or a fatal error.
func (c *conn) loop(ctx context.Context) {
	for {
		msg, err := c.receive()
		if err != nil {
			c.receiveFailed(ctx, err)
			return
		}
		ok := c.dispatch(ctx, msg)
		if c.fatalSent {
			_ = c.be.Flush()
			return
		}
		if !ok {
			return
		}
	}
}

func (c *conn) receiveFailed(ctx context.Context, err error) {
	var tooBig *pgproto3.ExceededMaxBodyLenErr
	switch {
	case ctx.Err() != nil:
		c.sendFatal(fatalf(codeAdminShutdown, "terminating connection due to administrator command"))
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, net.ErrClosed):
	case errors.As(err, &tooBig):
		c.sendFatal(fatalf(codeProgramLimitExceeded,
			"message of %d bytes exceeds the limit of %d bytes", tooBig.ActualBodyLen, tooBig.MaxExpectedBodyLen))
	default:
		var ne net.Error
		if errors.As(err, &ne) {
			return
		}
		c.sendFatal(fatalf(codeProtocolViolation, "invalid frontend message: %v", err))
	}
}

// dispatch handles one message; false ends the connection.
func (c *conn) dispatch(ctx context.Context, msg pgproto3.FrontendMessage) bool {
	switch msg.(type) {
	case *pgproto3.Terminate:
		return false
	case *pgproto3.Sync:
		return c.sync()
	case *pgproto3.Flush:
		return c.be.Flush() == nil
	case *pgproto3.CopyData, *pgproto3.CopyDone, *pgproto3.CopyFail:
		return true // ignored outside COPY, as the protocol specifies
	}
	if c.skipToSync {
		return true
	}
	var err error
	switch m := msg.(type) {
	case *pgproto3.Query:
		return c.simpleQuery(ctx, m.String)
	case *pgproto3.Parse:
		err = c.parse(ctx, m)
	case *pgproto3.Bind:
		err = c.bind(m)
	case *pgproto3.Describe:
		err = c.describe(m)
	case *pgproto3.Execute:
		err = c.execute(ctx, m)
	case *pgproto3.Close:
		err = c.closeTarget(m)
	case *pgproto3.FunctionCall:
		err = errorf(codeFeatureNotSupported, "the function call protocol is not supported")
	default:
		c.sendFatal(fatalf(codeProtocolViolation, "unexpected message %T", msg))
		return false
	}
	if err != nil {
		c.sendError(err, c.takeCancelled())
		c.skipToSync = true
	}
	return true
}

// run calls f with a context that a CancelRequest for this connection cancels.
func (c *conn) run(ctx context.Context, f func(ctx context.Context) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	c.cancelMu.Lock()
	c.runCancel, c.wasCancelled = cancel, false
	c.cancelMu.Unlock()
	err := f(ctx)
	c.cancelMu.Lock()
	c.runCancel = nil
	c.cancelMu.Unlock()
	return err
}

// cancelRunning is called by the CancelRequest handler for this connection.
func (c *conn) cancelRunning() {
	c.cancelMu.Lock()
	defer c.cancelMu.Unlock()
	if c.runCancel != nil {
		c.runCancel()
		c.wasCancelled = true
	}
}

// takeCancelled reports (and clears) whether a CancelRequest hit the last statement.
func (c *conn) takeCancelled() bool {
	c.cancelMu.Lock()
	defer c.cancelMu.Unlock()
	was := c.wasCancelled
	c.wasCancelled = false
	return was
}

// sync ends an extended-protocol batch: portals die with the implicit transaction.
func (c *conn) sync() bool {
	c.skipToSync = false
	if c.sess.TxStatus() == 'I' {
		clear(c.portals)
	}
	c.be.Send(&pgproto3.ReadyForQuery{TxStatus: c.sess.TxStatus()})
	return c.be.Flush() == nil
}

// initQueryState prepares the per-connection state the query protocols use.
func (c *conn) initQueryState() {
	c.types = pgtype.NewMap()
	c.stmts, c.portals = map[string]*statement{}, map[string]*portal{}
}

// receive reads one client message. pgproto3's decoders can panic on hostile input (v5.7.5:
// Bind with a parameter length below -1 slices out of range), so a panic is turned into a
// protocol error and the connection is closed like for any other malformed message.
func (c *conn) receive() (msg pgproto3.FrontendMessage, err error) {
	defer func() {
		if r := recover(); r != nil {
			msg, err = nil, fmt.Errorf("malformed message (decoder panic: %v)", r)
		}
	}()
	return c.be.Receive()
}
