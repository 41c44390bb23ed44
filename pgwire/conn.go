package pgwire

import (
	"context"
	"errors"
	"io"
	"net"
	"runtime/debug"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/jackc/pgx/v5/pgtype"
)

// conn is one client connection.
type conn struct {
	srv  *Server
	addr string   // remote IP address, for the per-address cap
	raw  net.Conn // the accepted connection; closing it also ends a TLS conn on top
	nc   net.Conn // raw, or the TLS conn once negotiated
	tls  bool
	be   *pgproto3.Backend // writes only; messages are read by fr
	fr   *frameReader
	out  *deadlineWriter
	// authPhase is the SASL step whose 'p' message is expected (0 once authenticated).
	authPhase uint32
	// idleErr is the FATAL error sent when the read deadline set before a message passes.
	idleErr *Error
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
	retained   int  // bytes of statements and portals held, bounded by MaxSessionMemory
	// reported holds the ParameterStatus values the client was last sent.
	reported map[string]string
}

// deadlineWriter sets a write deadline before every write once timeout is set, so that a
// client that stops reading cannot hold its connection's goroutine forever.
type deadlineWriter struct {
	conn    net.Conn
	timeout time.Duration // 0: no deadline (during startup the startup deadline applies)
}

func (w *deadlineWriter) Write(p []byte) (int, error) {
	if w.timeout > 0 {
		_ = w.conn.SetWriteDeadline(time.Now().Add(w.timeout))
	}
	return w.conn.Write(p)
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
	c.fr = newFrameReader(c.nc)
	c.fr.maxCopyData = c.srv.maxCopyData() // 0 (off): MaxMessage bounds CopyData too
	c.out = &deadlineWriter{conn: c.nc}
	c.be = pgproto3.NewBackend(c.nc, c.out)
	defer c.recoverPanic()
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
	c.out.timeout = c.srv.writeTimeout()
	c.loop(ctx)
}

// recoverPanic ends a connection whose goroutine panicked (a Session's bug, or pgwire's)
// with a neutral FATAL XX000; the panic and its stack go to the log only.
func (c *conn) recoverPanic() {
	r := recover()
	if r == nil {
		return
	}
	c.srv.logf("pgwire: connection %s (pid %d) ended by a panic: %v\n%s", c.raw.RemoteAddr(), c.pid, r, debug.Stack())
	defer func() { _ = recover() }() // the Backend may be what broke
	c.sendFatal(fatalf(codeInternal, "internal error; the connection is closed"))
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
	if c.out.timeout == 0 || c.out.timeout > time.Second {
		c.out.timeout = time.Second
	}
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
		c.armIdleTimeout()
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

// The idle timeouts' answers, PostgreSQL's texts (sendFatal copies them).
var (
	errIdleSession = fatalf(codeIdleSessionTimeout, "terminating connection due to idle-session timeout")
	errIdleInTx    = fatalf(codeIdleInTxTimeout, "terminating connection due to idle-in-transaction timeout")
)

// armIdleTimeout sets the read deadline for the next message: the idle-in-transaction
// timeout inside a transaction, the idle-session timeout outside one.
func (c *conn) armIdleTimeout() {
	d, e := c.srv.idleSessionTimeout(), errIdleSession
	if c.sess.TxStatus() != 'I' {
		d, e = c.srv.idleInTxTimeout(), errIdleInTx
	}
	c.idleErr = e
	var deadline time.Time
	if d > 0 {
		deadline = time.Now().Add(d)
	}
	_ = c.nc.SetReadDeadline(deadline)
}

func (c *conn) receiveFailed(ctx context.Context, err error) {
	var pe *protocolError
	var ne net.Error
	switch {
	case ctx.Err() != nil:
		c.sendFatal(fatalf(codeAdminShutdown, "terminating connection due to administrator command"))
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, net.ErrClosed):
	case errors.As(err, &pe):
		c.logProtocolError(pe)
		c.sendFatal(fatalf(codeProtocolViolation, "%s", pe.Message))
	case errors.As(err, &ne) && ne.Timeout():
		c.sendFatal(c.idleErr)
	default: // a connection error: the client is gone
	}
}

// logProtocolError logs what a malformed message did in Go terms (the client got a neutral text).
func (c *conn) logProtocolError(pe *protocolError) {
	if pe.internal != "" {
		c.srv.logf("pgwire: %v (pid %d): %s: %s", c.raw.RemoteAddr(), c.pid, pe.Message, pe.internal)
	}
}

// dispatch handles one message; false ends the connection.
func (c *conn) dispatch(ctx context.Context, msg pgproto3.FrontendMessage) bool {
	switch msg.(type) {
	case *pgproto3.Terminate:
		return false
	case *pgproto3.Sync:
		return c.sync()
	case *pgproto3.CopyData, *pgproto3.CopyDone, *pgproto3.CopyFail:
		return true // ignored outside COPY, as the protocol specifies and PostgreSQL does
	}
	if c.skipToSync {
		return true // after an error everything up to Sync is skipped, Flush included (PostgreSQL)
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
	case *pgproto3.Flush:
		return c.be.Flush() == nil
	case *pgproto3.FunctionCall:
		// Like a simple query: an error, then ReadyForQuery; the session goes on.
		c.sendError(errorf(codeFeatureNotSupported, "function call protocol is not supported"), false)
		c.readyForQuery()
		return c.be.Flush() == nil
	default: // a password message after authentication
		c.sendFatal(fatalf(codeProtocolViolation, "invalid frontend message: unexpected message after authentication"))
		return false
	}
	if err != nil && c.fatalSent {
		return false // the connection ended during COPY
	}
	if err != nil {
		c.sendError(err, c.takeCancelled())
		c.skipToSync = true
		// PostgreSQL flushes an error at once: a client waiting without Sync or Flush sees it.
		return c.fatalSent || c.be.Flush() == nil
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
		c.clearPortals()
	}
	c.readyForQuery()
	return c.be.Flush() == nil
}

// readyForQuery queues ReadyForQuery, preceded by a ParameterStatus for
// each reported parameter whose value changed since the client was last
// told (ParameterReporter).
func (c *conn) readyForQuery() {
	if r, ok := c.sess.(ParameterReporter); ok {
		now := r.ReportedParameters()
		names := make([]string, 0, len(now))
		for name := range now {
			names = append(names, name)
		}
		slices.Sort(names)
		for _, name := range names {
			if v, told := c.reported[name]; !told || v != now[name] {
				c.be.Send(&pgproto3.ParameterStatus{Name: name, Value: now[name]})
				c.reported[name] = now[name]
			}
		}
	}
	c.be.Send(&pgproto3.ReadyForQuery{TxStatus: c.sess.TxStatus()})
}

// applyEffects carries out what a statement's result does to the
// connection's prepared statements and portals (DEALLOCATE, DISCARD ALL);
// running is the portal that executed it (nil: a simple query).
func (c *conn) applyEffects(res *Result, running *portal) error {
	switch {
	case res.DeallocateAll:
		for name := range c.stmts {
			if name != "" {
				c.dropStatement(name, false)
			}
		}
	case res.Deallocate != "":
		if c.stmts[res.Deallocate] == nil {
			return errorf(codeUndefinedPreparedStmt, "prepared statement %q does not exist", res.Deallocate)
		}
		c.dropStatement(res.Deallocate, false)
	}
	if res.ClosePortals {
		for name, p := range c.portals {
			if p != running {
				c.dropPortal(name)
			}
		}
	}
	return nil
}

// initQueryState prepares the per-connection state the query protocols use.
func (c *conn) initQueryState() {
	c.types = pgtype.NewMap()
	c.stmts, c.portals = map[string]*statement{}, map[string]*portal{}
	c.reported = map[string]string{}
}

// receive reads one client message (frame.go): lengths are bounded before allocation and a
// malformed message, whatever pgproto3's decoder does with it, is a *protocolError.
func (c *conn) receive() (pgproto3.FrontendMessage, error) {
	return c.fr.next(c.srv.maxMessage(), c.authPhase)
}
