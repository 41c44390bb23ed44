package pgwire

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"net"
	"runtime"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
)

// scriptConn is a net.Conn whose client sends script and then closes its write side, and
// which records everything the server writes: the whole answer, never cut by a close.
type scriptConn struct {
	in  *bytes.Reader
	out bytes.Buffer
}

func (c *scriptConn) Read(p []byte) (int, error)  { return c.in.Read(p) }
func (c *scriptConn) Write(p []byte) (int, error) { return c.out.Write(p) }
func (c *scriptConn) Close() error                { return nil }
func (c *scriptConn) LocalAddr() net.Addr {
	return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 5432}
}
func (c *scriptConn) RemoteAddr() net.Addr {
	return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 40000}
}
func (c *scriptConn) SetDeadline(t time.Time) error      { return nil }
func (c *scriptConn) SetReadDeadline(t time.Time) error  { return nil }
func (c *scriptConn) SetWriteDeadline(t time.Time) error { return nil }

// runScript runs serve (one connection's goroutine) on a scriptConn fed data and returns what
// the server wrote; it fails if serve does not end on its own.
func runScript(t testing.TB, data []byte, serve func(nc net.Conn)) []byte {
	t.Helper()
	nc := &scriptConn{in: bytes.NewReader(data)}
	done := make(chan struct{})
	go func() {
		defer close(done)
		serve(nc)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("connection did not end for input %q", data)
	}
	return nc.out.Bytes()
}

// serveRawSession runs the post-startup message loop of one connection on data and returns
// what the server answered.
func serveRawSession(t testing.TB, data []byte, maxMessage int) []byte {
	srv := &Server{Limits: Limits{MaxMessage: maxMessage, MaxSessionMemory: 1 << 20}}
	srv.init()
	stats := newFakeStats()
	out := runScript(t, data, func(nc net.Conn) {
		c := &conn{srv: srv, raw: nc, nc: nc}
		c.fr = newFrameReader(nc)
		c.out = &deadlineWriter{conn: nc}
		c.be = pgproto3.NewBackend(nc, c.out)
		c.sess = &fakeSession{stats: stats}
		stats.opened.Add(1)
		c.initQueryState()
		defer c.recoverPanic()
		defer c.sess.Close()
		// An already-cancelled context: a SELECT SLEEP in the input returns at once.
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		c.loop(ctx)
	})
	if o, cl := stats.opened.Load(), stats.closed.Load(); o != cl {
		t.Fatalf("sessions opened %d closed %d", o, cl)
	}
	return out
}

// serveRawConnection runs a whole connection (startup, TLS, SCRAM, session) on data.
func serveRawConnection(t testing.TB, srv *Server, data []byte) []byte {
	return runScript(t, data, func(nc net.Conn) {
		c := &conn{srv: srv, raw: nc, nc: nc, addr: remoteHost(nc)}
		c.serve(srv.baseCtx)
	})
}

// checkAnswer fails when the server's answer to input carries Go runtime text the input did
// not (a statement or name the client sent may be echoed back; Go's own text may not).
func checkAnswer(t testing.TB, input, out []byte) {
	t.Helper()
	for _, s := range goText {
		if bytes.Contains(out, []byte(s)) && !bytes.Contains(input, []byte(s)) {
			t.Fatalf("answer to %q carries Go text %q: %q", input, s, out)
		}
	}
}

// checkFrames fails unless out is a sequence of complete backend messages, and returns them
// decoded as ErrorResponses where they are ones.
func checkFrames(t testing.TB, input, out []byte) {
	t.Helper()
	for len(out) > 0 {
		if len(out) < 5 {
			t.Fatalf("answer to %q ends in a partial header %q", input, out)
		}
		n := int(binary.BigEndian.Uint32(out[1:5]))
		if n < 4 || len(out) < 1+n {
			t.Fatalf("answer to %q has a malformed frame %q", input, out)
		}
		if out[0] == 'E' {
			var e pgproto3.ErrorResponse
			if err := e.Decode(out[5 : 1+n]); err != nil {
				t.Fatalf("answer to %q: undecodable ErrorResponse: %v", input, err)
			}
			if e.Code == "" || e.Message == "" {
				t.Fatalf("answer to %q: ErrorResponse without code or message: %+v", input, e)
			}
		}
		out = out[1+n:]
	}
}

// encodeAll concatenates the wire form of client messages.
func encodeAll(msgs ...pgproto3.FrontendMessage) []byte {
	var out []byte
	for _, m := range msgs {
		var err error
		if out, err = m.Encode(out); err != nil {
			panic(err)
		}
	}
	return out
}

// FuzzClientMessages feeds arbitrary bytes to a connection after startup: whatever they
// are, the server must not panic, hang or allocate beyond MaxMessage per message, and must
// answer in well-formed messages without Go runtime text.
func FuzzClientMessages(f *testing.F) {
	f.Add(encodeAll(&pgproto3.Query{String: "SELECT * FROM series(3); FAIL 22000 x"}))
	f.Add(encodeAll(&pgproto3.Parse{Name: "s", Query: "SELECT $1::int8, $2::text"},
		&pgproto3.Bind{PreparedStatement: "s", ParameterFormatCodes: []int16{1, 0},
			Parameters: [][]byte{binary.BigEndian.AppendUint64(nil, 7), []byte("x")}, ResultFormatCodes: []int16{1}},
		&pgproto3.Describe{ObjectType: 'P'}, &pgproto3.Execute{MaxRows: 1}, &pgproto3.Sync{}))
	f.Add(encodeAll(&pgproto3.Parse{Query: "SELECT ALLTYPES"}, &pgproto3.Bind{ResultFormatCodes: []int16{1}},
		&pgproto3.Execute{}, &pgproto3.Close{ObjectType: 'P'}, &pgproto3.Flush{}, &pgproto3.Sync{}))
	f.Add([]byte{'B', 0, 0, 0, 14, 0, 0, 0, 0, 0, 1, 0, 0, 0x7f, 0xff})
	f.Add([]byte{'Q', 0x7f, 0xff, 0xff, 0xff})
	f.Add(encodeAll(&pgproto3.FunctionCall{Function: 1, Arguments: [][]byte{[]byte("x")}}, &pgproto3.Query{String: "BEGIN"},
		&pgproto3.CopyData{Data: []byte("x")}, &pgproto3.CopyDone{}, &pgproto3.CopyFail{Message: "x"}))
	f.Add(encodeAll(&pgproto3.Parse{Query: "NOT SQL"}, &pgproto3.Flush{}, &pgproto3.Execute{}, &pgproto3.Sync{},
		&pgproto3.Query{String: "PANIC"}))
	f.Add(encodeAll(&pgproto3.Terminate{}))
	f.Fuzz(func(t *testing.T, data []byte) {
		out := serveRawSession(t, data, 1<<16)
		checkAnswer(t, data, out)
		checkFrames(t, data, out)
	})
}

// fuzzServer is the Server FuzzStartup runs connections on: TLS offered, one known user.
func fuzzServer(tb testing.TB) *Server {
	srv := &Server{
		TLS: selfSignedTLS(tb),
		Users: func(user string) (Verifier, bool) {
			return testVerifier, user == testUser
		},
		NewSession: func(context.Context, string, map[string]string) (Session, error) {
			return &fakeSession{stats: newFakeStats()}, nil
		},
	}
	srv.init()
	return srv
}

// FuzzStartup feeds arbitrary bytes to a new connection, before and during startup: startup
// packets, SSLRequest (and a TLS handshake on garbage), GSSENCRequest, CancelRequest, SCRAM.
// The server must not panic or hang, and must answer without Go runtime text.
func FuzzStartup(f *testing.F) {
	ssl := binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(nil, 8), sslRequestCode)
	gss := binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(nil, 8), gssEncRequestCode)
	startup := startupBytes(3<<16, "user", testUser, "database", "db")
	sasl := encodeAll(&pgproto3.SASLInitialResponse{AuthMechanism: scramMechanism, Data: []byte("n,,n=,r=abc")})
	f.Add(startup)
	f.Add(append(append(append([]byte{}, startup...), sasl...), encodeAll(&pgproto3.SASLResponse{Data: []byte("c=biws,r=abc,p=AAAA")})...))
	f.Add(append(append([]byte{}, gss...), startup...))
	f.Add(append(append([]byte{}, ssl...), 0x16, 3, 1, 0, 5, 1, 0, 0, 1, 0))
	f.Add(startupBytes(3<<16|2, "user", "bob", "_pq_.x", "1"))
	f.Add([]byte{0, 0, 0, 16, 0x04, 0xd2, 0x16, 0x2e, 0, 0, 0, 1, 0, 0, 0, 2})
	f.Add(append(append([]byte{}, startup...), 'p', 0x7f, 0, 0, 0))
	srv := fuzzServer(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		checkAnswer(t, data, serveRawConnection(t, srv, data))
	})
}

func TestManyDroppedConnectionsLeakNoGoroutines(t *testing.T) {
	// No caps: every one of the 1,000 is served (refusals and their leaks are
	// TestHalfOpenFloodCappedWith53300's).
	ts := startTestServer(t, func(s *Server) { s.MaxConns, s.MaxConnsPerAddr = -1, -1 })
	before := runtime.NumGoroutine()
	for i := range 1000 {
		c, err := net.Dial("tcp", ts.addr)
		if err != nil {
			t.Fatal(err)
		}
		switch i % 4 {
		case 1:
			_, _ = c.Write([]byte{0, 0, 0, 40}) // half a startup packet
		case 2:
			_, _ = c.Write(startupBytes(3<<16, "user", "alice")) // drop during SCRAM
		case 3:
			_, _ = c.Write(binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(nil, 8), sslRequestCode))
		}
		_ = c.Close()
	}
	// Connections are accepted in order: once a later one is served, all 1,000 were accepted.
	last := dialRaw(t, ts)
	last.send(&pgproto3.Terminate{})
	_ = last.conn.Close()
	waitFor(t, func() bool {
		ts.srv.mu.Lock()
		open := len(ts.srv.conns)
		ts.srv.mu.Unlock()
		return open == 0 && runtime.NumGoroutine() <= before+2
	})
}

func TestCloseEndsRunningStatementsAndSessions(t *testing.T) {
	ts := startTestServer(t, nil)
	clients := make([]*rawClient, 3)
	for i := range clients {
		clients[i] = dialRaw(t, ts)
	}
	clients[0].send(&pgproto3.Query{String: "SELECT SLEEP"})
	<-ts.stats.sleeping
	if err := ts.srv.Close(); err != nil {
		t.Fatal(err)
	}
	// Uncancelled, the fake sleep would succeed after 10 s.
	if n := ts.stats.cancelled.Load(); n != 1 {
		t.Errorf("Close interrupted %d running statements, want 1", n)
	}
	if o, c := ts.stats.opened.Load(), ts.stats.closed.Load(); o != 3 || c != 3 {
		t.Errorf("sessions opened %d closed %d after Close", o, c)
	}
	if _, err := net.DialTimeout("tcp", ts.addr, time.Second); err == nil {
		t.Error("listener still accepts after Close")
	}
}

func TestTerminateClosesSessionOnce(t *testing.T) {
	ts := startTestServer(t, nil)
	rc := dialRaw(t, ts)
	rc.send(&pgproto3.Terminate{})
	waitFor(t, func() bool { return ts.stats.closed.Load() == 1 })
}

// slowToLeave is a listener whose Accept, once the listener is closed,
// returns only when leave closes: Serve is then still running when the
// test's second Close comes.
type slowToLeave struct {
	net.Listener
	leave chan struct{}
}

func (l slowToLeave) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.leave
	}
	return c, err
}

// A second Close, made before Serve has returned from the first (as a
// test's cleanup may), returns nil: it used to close the listener again
// and fail with "use of closed network connection".
func TestCloseTwiceBeforeServeReturns(t *testing.T) {
	srv := &Server{NewSession: func(context.Context, string, map[string]string) (Session, error) {
		return &fakeSession{stats: newFakeStats()}, nil
	}}
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := slowToLeave{Listener: inner, leave: make(chan struct{})}
	srv.init() // before the test reads srv.listeners below
	done := make(chan error, 1)
	go func() { done <- srv.Serve(l) }()
	waitFor(t, func() bool {
		srv.mu.Lock()
		defer srv.mu.Unlock()
		return len(srv.listeners) == 1
	})
	if err := srv.Close(); err != nil {
		t.Fatalf("first Close: %v", err)
	}
	if err := srv.Close(); err != nil {
		t.Errorf("second Close before Serve returned: %v", err)
	}
	close(l.leave)
	if err := <-done; !errors.Is(err, ErrServerClosed) {
		t.Errorf("Serve returned %v, want ErrServerClosed", err)
	}
}
