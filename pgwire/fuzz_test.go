package pgwire

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"runtime"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
)

// serveRawSession runs the post-startup message loop of one connection over an in-memory
// pipe, feeds it data from the client side and waits for the server to finish.
func serveRawSession(t testing.TB, data []byte, maxMessage int) {
	serverSide, clientSide := net.Pipe()
	srv := &Server{MaxMessage: maxMessage}
	srv.init()
	c := &conn{srv: srv, raw: serverSide, nc: serverSide}
	c.be = pgproto3.NewBackend(serverSide, serverSide)
	c.be.SetMaxBodyLen(srv.maxMessage())
	c.sess = &fakeSession{stats: newFakeStats()}
	c.initQueryState()
	// An already-cancelled context: a SELECT SLEEP in the input returns at once instead of
	// blocking the pipe while the rest of the input waits to be written.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer serverSide.Close()
		defer c.sess.Close()
		c.loop(ctx)
	}()
	go func() { _, _ = io.Copy(io.Discard, clientSide) }()
	_, _ = clientSide.Write(data)
	_ = clientSide.Close()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("connection loop did not end for input %q", data)
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
// are, the server must not panic, hang or allocate beyond MaxMessage per message.
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
	f.Add(encodeAll(&pgproto3.Terminate{}))
	f.Fuzz(func(t *testing.T, data []byte) {
		serveRawSession(t, data, 1<<16)
	})
}

func TestManyDroppedConnectionsLeakNoGoroutines(t *testing.T) {
	ts := startTestServer(t, nil)
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
