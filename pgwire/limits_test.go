package pgwire

import (
	"context"
	"encoding/binary"
	"net"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
)

// goText is what Go's runtime and panics put in an error text; none of it may reach a client.
var goText = []string{"runtime error", "panic", "goroutine", "slice bounds", "index out of range", ".go:", "nil pointer"}

// assertNeutral fails when e carries Go runtime text.
func assertNeutral(t testing.TB, e *pgproto3.ErrorResponse) {
	t.Helper()
	for _, s := range goText {
		if strings.Contains(e.Message, s) || strings.Contains(e.Detail, s) || strings.Contains(e.Hint, s) {
			t.Errorf("error %s %q (detail %q) carries Go text %q", e.Code, e.Message, e.Detail, s)
		}
	}
}

// readRefusal reads what the server sends on a raw connection until it closes it and
// returns the one FATAL ErrorResponse it must consist of.
func readRefusal(t testing.TB, c net.Conn) *pgproto3.ErrorResponse {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	var out []byte
	buf := make([]byte, 4096)
	for {
		n, err := c.Read(buf)
		out = append(out, buf[:n]...)
		if err != nil {
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				t.Fatalf("no refusal: the server kept the connection open (got %q)", out)
			}
			break
		}
	}
	if len(out) < 5 || out[0] != 'E' || int(binary.BigEndian.Uint32(out[1:5]))+1 != len(out) {
		t.Fatalf("reply %q, want one ErrorResponse then close", out)
	}
	var e pgproto3.ErrorResponse
	if err := e.Decode(out[5:]); err != nil {
		t.Fatalf("reply %q: %v", out, err)
	}
	if e.Severity != "FATAL" {
		t.Errorf("severity %s, want FATAL", e.Severity)
	}
	assertNeutral(t, &e)
	return &e
}

func (ts *testServer) openConns() int {
	ts.srv.mu.Lock()
	defer ts.srv.mu.Unlock()
	return len(ts.srv.conns)
}

// dialFrom dials the server from a chosen loopback address (127.0.0.x).
func dialFrom(t testing.TB, ts *testServer, local string) net.Conn {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(local)}, Timeout: 10 * time.Second}
	c, err := d.Dial("tcp", ts.addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// connectFrom opens a pgx connection from a chosen loopback address.
func connectFrom(t testing.TB, ts *testServer, local string) (*pgx.Conn, error) {
	t.Helper()
	cfg, err := pgx.ParseConfig(ts.dsn(testUser, testPassword, "sslmode=disable"))
	if err != nil {
		t.Fatal(err)
	}
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(local)}, Timeout: 10 * time.Second}
	cfg.DialFunc = d.DialContext
	conn, err := pgx.ConnectConfig(testContext(t), cfg)
	if err == nil {
		t.Cleanup(func() { _ = conn.Close(context.Background()) })
	}
	return conn, err
}

// 2,000 half-open startups: the first MaxConns (default 256) are accepted and held, every
// other one is refused at once with 53300 without holding a slot; the held ones still
// complete their startup, and closing them frees the slots.
func TestHalfOpenFloodCappedWith53300(t *testing.T) {
	ts := startTestServer(t, func(s *Server) {
		s.MaxConnsPerAddr = -1
		s.StartupTimeout = time.Minute
	})
	goroutines := runtime.NumGoroutine()
	startup := startupBytes(3<<16, "user", testUser, "database", "db")
	half := len(startup) / 2
	var held []net.Conn
	refused := 0
	for i := range 2000 {
		c := dialFrom(t, ts, "127.0.0.1")
		if _, err := c.Write(startup[:half]); err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
		if i < DefaultMaxConns {
			held = append(held, c)
			continue
		}
		e := readRefusal(t, c)
		if e.Code != "53300" || e.Message != "sorry, too many clients already" {
			t.Fatalf("connection %d refused with %s %q, want 53300", i, e.Code, e.Message)
		}
		_ = c.Close()
		refused++
	}
	if refused != 2000-DefaultMaxConns {
		t.Errorf("%d refused, want %d", refused, 2000-DefaultMaxConns)
	}
	if n := ts.openConns(); n != DefaultMaxConns {
		t.Errorf("%d connections held, want %d", n, DefaultMaxConns)
	}
	// A held half-open startup is still served when it completes.
	last := held[len(held)-1]
	if _, err := last.Write(startup[half:]); err != nil {
		t.Fatal(err)
	}
	fe := pgproto3.NewFrontend(last, last)
	_ = last.SetReadDeadline(time.Now().Add(10 * time.Second))
	if msg, err := fe.Receive(); err != nil {
		t.Fatalf("held connection after completing its startup: %v", err)
	} else if _, ok := msg.(*pgproto3.AuthenticationSASL); !ok {
		t.Fatalf("held connection got %T, want AuthenticationSASL", msg)
	}
	for _, c := range held {
		_ = c.Close()
	}
	// Neither the held nor the refused connections leave anything behind.
	waitFor(t, func() bool {
		ts.srv.mu.Lock()
		refusing := len(ts.srv.refusing)
		ts.srv.mu.Unlock()
		return ts.openConns() == 0 && refusing == 0 && runtime.NumGoroutine() <= goroutines+2
	})
	if _, err := connectFrom(t, ts, "127.0.0.1"); err != nil {
		t.Fatalf("connecting after the flood: %v", err)
	}
}

func TestPerAddressCap(t *testing.T) {
	ts := startTestServer(t, func(s *Server) { s.MaxConnsPerAddr = 3 })
	var first []*pgx.Conn
	for range 3 {
		c, err := connectFrom(t, ts, "127.0.0.1")
		if err != nil {
			t.Fatal(err)
		}
		first = append(first, c)
	}
	_, err := connectFrom(t, ts, "127.0.0.1")
	if pe := wantSQLState(t, err, "53300"); pe != nil && pe.Severity != "FATAL" {
		t.Errorf("severity %s", pe.Severity)
	}
	raw := dialFrom(t, ts, "127.0.0.1")
	if e := readRefusal(t, raw); e.Code != "53300" {
		t.Errorf("raw connection over the per-address cap: %s %q", e.Code, e.Message)
	}
	// Another address is not affected.
	if _, err := connectFrom(t, ts, "127.0.0.2"); err != nil {
		t.Fatalf("from another address: %v", err)
	}
	// Closing one frees its slot.
	_ = first[0].Close(context.Background())
	waitFor(t, func() bool { return ts.openConns() == 3 })
	if _, err := connectFrom(t, ts, "127.0.0.1"); err != nil {
		t.Fatalf("after a slot was freed: %v", err)
	}
}

// Half-open startups end at the startup timeout and give their slots back.
func TestHalfOpenClosedAtStartupTimeout(t *testing.T) {
	ts := startTestServer(t, func(s *Server) {
		s.MaxConns = 8
		s.MaxConnsPerAddr = -1
		s.StartupTimeout = 300 * time.Millisecond
	})
	var held []net.Conn
	for range 8 {
		c := dialFrom(t, ts, "127.0.0.1")
		if _, err := c.Write([]byte{0, 0, 0, 40, 0, 3}); err != nil {
			t.Fatal(err)
		}
		held = append(held, c)
	}
	if e := readRefusal(t, dialFrom(t, ts, "127.0.0.1")); e.Code != "53300" {
		t.Fatalf("ninth connection: %s %q, want 53300", e.Code, e.Message)
	}
	for _, c := range held {
		if e := readRefusal(t, c); e.Code != codeProtocolViolation || !strings.Contains(e.Message, "startup did not finish in time") {
			t.Errorf("half-open startup ended with %s %q", e.Code, e.Message)
		}
	}
	waitFor(t, func() bool { return ts.openConns() == 0 })
	if _, err := connectFrom(t, ts, "127.0.0.1"); err != nil {
		t.Fatalf("after the half-open connections timed out: %v", err)
	}
}

func TestIdleSessionTimeouts(t *testing.T) {
	ts := startTestServer(t, func(s *Server) {
		s.IdleSessionTimeout = 200 * time.Millisecond
		s.IdleInTransactionTimeout = 300 * time.Millisecond
	})
	rc := dialRaw(t, ts)
	_ = rc.conn.SetDeadline(time.Time{})
	e := readRefusal(t, rc.conn)
	if e.Code != "57P05" || e.Message != "terminating connection due to idle-session timeout" {
		t.Errorf("idle session ended with %s %q", e.Code, e.Message)
	}
	rc = dialRaw(t, ts)
	rc.send(&pgproto3.Query{String: "BEGIN"})
	rc.expect("BEGIN", ready)
	_ = rc.conn.SetDeadline(time.Time{})
	e = readRefusal(t, rc.conn)
	if e.Code != "25P03" || e.Message != "terminating connection due to idle-in-transaction timeout" {
		t.Errorf("idle transaction ended with %s %q", e.Code, e.Message)
	}
	waitFor(t, func() bool { return ts.stats.opened.Load() == 2 && ts.stats.closed.Load() == 2 })
}

// The reviewer's class: frames whose internal lengths do not fit, each answered with a
// neutral 08P01 (never Go panic text) and the connection closed.
func TestMalformedFramesAnswer08P01(t *testing.T) {
	ts := startTestServer(t, nil)
	frame := func(typ byte, body ...byte) []byte {
		return append(append([]byte{typ}, binary.BigEndian.AppendUint32(nil, uint32(len(body)+4))...), body...)
	}
	cases := map[string][]byte{
		// portal "", statement "", 0 format codes, 5 parameters, none present.
		"Bind parameter count beyond the frame": frame('B', 0, 0, 0, 0, 0, 5),
		// one parameter whose length (0x7fff0000) runs past the frame.
		"Bind parameter length beyond the frame": frame('B', 0, 0, 0, 0, 0, 1, 0x7f, 0xff, 0, 0),
		// a parameter length of -2 (pgproto3 v5.7.5 panics: slice bounds out of range).
		"Bind negative parameter length":     frame('B', 0, 0, 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xfe, 'x'),
		"Bind format count beyond the frame": frame('B', 0, 0, 0, 9, 0, 1),
		"Bind result format count beyond":    frame('B', 0, 0, 0, 0, 0, 0, 0, 7),
		// name "", query "SELECT 1", 3 parameter OIDs declared, 1 present.
		"Parse OID count beyond the frame": frame('P', append(append([]byte{0}, "SELECT 1\x00"...), 0, 3, 0, 0, 0, 23)...),
		"Parse without terminator":         frame('P', 's', 'x'),
		"Describe empty":                   frame('D'),
		"Execute truncated":                frame('E', 0, 0, 0),
		"Close without name":               frame('C', 'S'),
		"FunctionCall args beyond frame":   frame('F', 0, 0, 4, 0xd2, 0, 0, 0, 3, 0, 0),
		"Sync with a body":                 frame('S', 1),
		"Query without terminator":         frame('Q', 'S', 'E', 'L'),
		"unknown type":                     frame('Z'),
		"password message after startup":   frame('p', 0),
		"length below 4":                   {'Q', 0, 0, 0, 3},
	}
	for name, raw := range cases {
		t.Run(name, func(t *testing.T) {
			if e := rawAfterStartup(t, ts, raw); e.Code != codeProtocolViolation {
				t.Errorf("code %s (%s), want 08P01", e.Code, e.Message)
			}
		})
	}
	if n := ts.stats.opened.Load(); n != int64(len(cases)) {
		t.Errorf("%d sessions, want %d", n, len(cases))
	}
}

// FunctionCall is refused like an unsupported query: ErrorResponse 0A000 then
// ReadyForQuery, and the session goes on. Inside a failed extended batch it is skipped.
func TestFunctionCallRefusedSessionUsable(t *testing.T) {
	rc := dialRaw(t, startTestServer(t, nil))
	call := &pgproto3.FunctionCall{Function: 1234, ArgFormatCodes: []uint16{0},
		Arguments: [][]byte{[]byte("x")}, ResultFormatCode: 0}
	rc.send(call)
	rc.expect(codeFeatureNotSupported, ready)
	rc.send(&pgproto3.Query{String: "SELECT 1"})
	rc.expect(rowDesc, dataRow, "SELECT 1", ready)
	rc.send(&pgproto3.Parse{Query: "NOT SQL"}, call, &pgproto3.Sync{})
	rc.expect("42601", ready)
	rc.send(call)
	rc.expect(codeFeatureNotSupported, ready)
}

// Declared lengths are checked before anything is allocated, and a buffer grows only as its
// bytes arrive: a client cannot make the server allocate what it does not send.
func TestDeclaredLengthsAllocateNothingUnsent(t *testing.T) {
	ts := startTestServer(t, func(s *Server) {
		s.MaxMessage = 512 << 20
		s.StartupTimeout = time.Minute // a refusal, not the startup timeout, must end the SASL case
	})
	allocated := func(f func()) uint64 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		f()
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	// Over the limit: refused with 08P01 at once.
	n := allocated(func() {
		e := rawAfterStartup(t, ts, append([]byte{'Q'}, binary.BigEndian.AppendUint32(nil, 1<<31-1)...))
		if e.Code != codeProtocolViolation {
			t.Errorf("2 GiB declared: %s %q, want 08P01", e.Code, e.Message)
		}
	})
	if n > 64<<20 {
		t.Errorf("refusing a 2 GiB declared length allocated %d bytes", n)
	}
	// Under the limit: 256 MiB declared, 10 bytes sent, then the client goes away.
	n = allocated(func() {
		rc := dialRaw(t, ts)
		if _, err := rc.conn.Write(append(append([]byte{'Q'}, binary.BigEndian.AppendUint32(nil, 256<<20)...), "SELECT 1 -"...)); err != nil {
			t.Fatal(err)
		}
		rc.send(&pgproto3.Flush{}) // 5 more bytes, inside the Query's body
		_ = rc.conn.Close()
		waitFor(t, func() bool { return ts.stats.opened.Load() == ts.stats.closed.Load() })
	})
	if n > 64<<20 {
		t.Errorf("a 256 MiB declared length with 15 bytes sent allocated %d bytes", n)
	}
	// Before authentication, messages are bounded by 64 KiB whatever MaxMessage says.
	conn, _ := scramStart(t, ts)
	if _, err := conn.Write(append([]byte{'p'}, binary.BigEndian.AppendUint32(nil, 1<<20)...)); err != nil {
		t.Fatal(err)
	}
	if e := readRefusal(t, conn); e.Code != codeProtocolViolation {
		t.Errorf("1 MiB SASL message: %s %q, want 08P01", e.Code, e.Message)
	}
}

// Prepared statements and portals count against MaxSessionMemory; Close gives it back.
func TestSessionMemoryBound(t *testing.T) {
	ts := startTestServer(t, func(s *Server) { s.MaxSessionMemory = 1 << 20 })
	rc := dialRaw(t, ts)
	text := "INSERT INTO t VALUES ('" + strings.Repeat("x", 100<<10) + "')"
	parsed := 0
	for i := 0; i < 20; i++ {
		rc.send(&pgproto3.Parse{Name: "s" + string(rune('a'+i)), Query: text}, &pgproto3.Sync{})
		msg, err := rc.fe.Receive()
		if err != nil {
			t.Fatal(err)
		}
		if e, ok := msg.(*pgproto3.ErrorResponse); ok {
			if e.Code != codeProgramLimitExceeded {
				t.Fatalf("Parse %d: %s %q", i, e.Code, e.Message)
			}
			rc.expect(ready)
			break
		}
		rc.expect(ready)
		parsed++
	}
	if parsed < 5 || parsed > 10 {
		t.Fatalf("%d statements of 100 KiB parsed under a 1 MiB bound", parsed)
	}
	rc.send(&pgproto3.Close{ObjectType: 'S', Name: "sa"}, &pgproto3.Parse{Name: "again", Query: text}, &pgproto3.Sync{})
	rc.expect(closeComplete, parseComplete, ready)
	rc.send(&pgproto3.Query{String: "SELECT 1"})
	rc.expect(rowDesc, dataRow, "SELECT 1", ready)
}

// A panic in a Session ends its connection with a neutral XX000, not Go's text.
func TestSessionPanicAnswersNeutralError(t *testing.T) {
	ts := startTestServer(t, nil)
	rc := dialRaw(t, ts)
	rc.send(&pgproto3.Query{String: "PANIC"})
	e := readRefusal(t, rc.conn)
	if e.Code != codeInternal {
		t.Errorf("panic answered %s %q, want XX000", e.Code, e.Message)
	}
}

// Over the connection cap a CancelRequest is still honoured, as in PostgreSQL.
func TestCancelRequestOverCap(t *testing.T) {
	ts := startTestServer(t, func(s *Server) { s.MaxConns = 1 })
	pc, err := pgconn.Connect(testContext(t), ts.dsn(testUser, testPassword, "sslmode=disable"))
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := pc.Exec(context.Background(), "SELECT SLEEP").ReadAll()
		done <- err
	}()
	<-ts.stats.sleeping
	if err := sendCancel(ts.addr, pc.PID(), pc.SecretKey()); err != nil {
		t.Fatal(err)
	}
	wantSQLState(t, <-done, codeQueryCanceled)
}

// psql, with TLS preferred (its default) or off, reports the refusal's own text.
func TestPsqlOverCapSaysTooManyClients(t *testing.T) {
	ts := startTestServer(t, func(s *Server) {
		s.MaxConns = 1
		s.TLS = selfSignedTLS(t)
	})
	held := dialFrom(t, ts, "127.0.0.1")
	if _, err := held.Write([]byte{0, 0, 0, 40}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return ts.openConns() == 1 })
	for _, sslmode := range []string{"prefer", "disable"} {
		out, err := runPsql(t, ts, sslmode, testPassword, "-c", "SELECT 1")
		if err == nil || !strings.Contains(out, "sorry, too many clients already") {
			t.Errorf("psql sslmode=%s over the cap: %v\n%s", sslmode, err, out)
		}
	}
}

// A flood of refused clients that never close: more than the refusals the server lingers on
// at once, every one still gets its 53300, and nothing is left behind.
func TestRefusalFloodAnswersEveryClient(t *testing.T) {
	ts := startTestServer(t, func(s *Server) { s.MaxConns = 1 })
	goroutines := runtime.NumGoroutine()
	held := dialFrom(t, ts, "127.0.0.1")
	if _, err := held.Write([]byte{0, 0, 0, 40}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return ts.openConns() == 1 })
	var flood []net.Conn
	for range 4 * maxRefusing {
		c := dialFrom(t, ts, "127.0.0.1")
		if _, err := c.Write([]byte{0, 0, 0, 40}); err != nil {
			t.Fatal(err)
		}
		flood = append(flood, c)
	}
	for i, c := range flood {
		if e := readRefusal(t, c); e.Code != codeTooManyConnections {
			t.Fatalf("flood connection %d: %s %q", i, e.Code, e.Message)
		}
		_ = c.Close()
	}
	_ = held.Close()
	waitFor(t, func() bool {
		ts.srv.mu.Lock()
		refusing := len(ts.srv.refusing)
		ts.srv.mu.Unlock()
		return ts.openConns() == 0 && refusing == 0 && runtime.NumGoroutine() <= goroutines+2
	})
}
