package pgwire

import (
	"encoding/binary"
	"fmt"
	"net"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/jackc/pgx/v5/pgtype"
)

// rawClient is an authenticated connection driven message by message.
type rawClient struct {
	t    *testing.T
	conn net.Conn
	fe   *pgproto3.Frontend
}

func dialRaw(t *testing.T, ts *testServer) *rawClient {
	t.Helper()
	ctx := testContext(t)
	pc, err := pgconn.Connect(ctx, ts.dsn(testUser, testPassword, "sslmode=disable"))
	if err != nil {
		t.Fatal(err)
	}
	if err := pc.SyncConn(ctx); err != nil {
		t.Fatal(err)
	}
	h, err := pc.Hijack()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Conn.Close() })
	_ = h.Conn.SetDeadline(time.Now().Add(10 * time.Second))
	return &rawClient{t: t, conn: h.Conn, fe: h.Frontend}
}

func (rc *rawClient) send(msgs ...pgproto3.FrontendMessage) {
	rc.t.Helper()
	for _, m := range msgs {
		rc.fe.Send(m)
	}
	if err := rc.fe.Flush(); err != nil {
		rc.t.Fatal(err)
	}
}

// expect reads one message per entry and checks its type; string entries are the
// CommandComplete tag or the ErrorResponse code.
func (rc *rawClient) expect(want ...any) []pgproto3.BackendMessage {
	rc.t.Helper()
	var got []pgproto3.BackendMessage
	for i, w := range want {
		msg, err := rc.fe.Receive()
		if err != nil {
			rc.t.Fatalf("message %d: %v (want %T)", i, err, w)
		}
		got = append(got, msg)
		switch m := msg.(type) {
		case *pgproto3.CommandComplete:
			if tag, ok := w.(string); ok && string(m.CommandTag) == tag {
				continue
			}
		case *pgproto3.ErrorResponse:
			if code, ok := w.(string); ok && m.Code == code {
				continue
			}
		}
		if reflect.TypeOf(msg) != reflect.TypeOf(w) {
			rc.t.Fatalf("message %d is %T %+v, want %#v", i, msg, msg, w)
		}
		got[len(got)-1] = copyMessage(msg)
	}
	return got
}

// copyMessage detaches the few messages tests inspect from the Frontend's reused buffers.
func copyMessage(msg pgproto3.BackendMessage) pgproto3.BackendMessage {
	switch m := msg.(type) {
	case *pgproto3.ParameterDescription:
		c := *m
		c.ParameterOIDs = append([]uint32{}, m.ParameterOIDs...)
		return &c
	case *pgproto3.RowDescription:
		c := *m
		c.Fields = append([]pgproto3.FieldDescription{}, m.Fields...)
		return &c
	case *pgproto3.DataRow:
		c := &pgproto3.DataRow{}
		for _, v := range m.Values {
			c.Values = append(c.Values, append([]byte(nil), v...))
		}
		return c
	}
	return msg
}

var (
	parseComplete = &pgproto3.ParseComplete{}
	bindComplete  = &pgproto3.BindComplete{}
	closeComplete = &pgproto3.CloseComplete{}
	rowDesc       = &pgproto3.RowDescription{}
	paramDesc     = &pgproto3.ParameterDescription{}
	dataRow       = &pgproto3.DataRow{}
	noData        = &pgproto3.NoData{}
	suspended     = &pgproto3.PortalSuspended{}
	emptyQuery    = &pgproto3.EmptyQueryResponse{}
	ready         = &pgproto3.ReadyForQuery{}
)

func TestExecuteRowLimitSuspendsAndResumes(t *testing.T) {
	rc := dialRaw(t, startTestServer(t, nil))
	rc.send(&pgproto3.Parse{Query: "SELECT * FROM series(5)"}, &pgproto3.Bind{DestinationPortal: "p",
		ResultFormatCodes: []int16{1}}, &pgproto3.Describe{ObjectType: 'P', Name: "p"},
		&pgproto3.Execute{Portal: "p", MaxRows: 2}, &pgproto3.Execute{Portal: "p", MaxRows: 2},
		&pgproto3.Execute{Portal: "p"}, &pgproto3.Sync{})
	got := rc.expect(parseComplete, bindComplete, rowDesc, dataRow, dataRow, suspended, dataRow, dataRow,
		suspended, dataRow, "SELECT 1", ready)
	if f := got[2].(*pgproto3.RowDescription).Fields[0]; f.Format != 1 || f.DataTypeOID != pgtype.Int8OID {
		t.Errorf("portal RowDescription %+v", f)
	}
	if v := got[9].(*pgproto3.DataRow).Values[0]; binary.BigEndian.Uint64(v) != 5 {
		t.Errorf("last row %x", v)
	}
	// The portal died with the implicit transaction at Sync.
	rc.send(&pgproto3.Execute{Portal: "p"}, &pgproto3.Sync{})
	rc.expect(codeUndefinedCursor, ready)
}

func TestExtendedErrorDiscardsUntilSync(t *testing.T) {
	rc := dialRaw(t, startTestServer(t, nil))
	rc.send(&pgproto3.Parse{Query: "NOT SQL"}, &pgproto3.Bind{}, &pgproto3.Execute{},
		&pgproto3.Query{String: "SELECT 1"}, &pgproto3.Sync{})
	rc.expect("42601", ready)
	rc.send(&pgproto3.Parse{Name: "s", Query: "SELECT 1"}, &pgproto3.Bind{PreparedStatement: "s"},
		&pgproto3.Execute{}, &pgproto3.Sync{})
	rc.expect(parseComplete, bindComplete, dataRow, "SELECT 1", ready)
	rc.send(&pgproto3.Parse{Name: "s", Query: "SELECT 1"}, &pgproto3.Sync{})
	rc.expect(codeDuplicatePreparedStmt, ready)
	rc.send(&pgproto3.Close{ObjectType: 'S', Name: "s"}, &pgproto3.Close{ObjectType: 'S', Name: "s"},
		&pgproto3.Bind{PreparedStatement: "s"}, &pgproto3.Sync{})
	rc.expect(closeComplete, closeComplete, codeUndefinedPreparedStmt, ready)
}

func TestDescribeStatementAndParameterChecks(t *testing.T) {
	rc := dialRaw(t, startTestServer(t, nil))
	rc.send(&pgproto3.Parse{Name: "e", Query: "SELECT $1, $2::text", ParameterOIDs: []uint32{pgtype.Int4OID}},
		&pgproto3.Describe{ObjectType: 'S', Name: "e"}, &pgproto3.Sync{})
	got := rc.expect(parseComplete, paramDesc, rowDesc, ready)
	if oids := got[1].(*pgproto3.ParameterDescription).ParameterOIDs; !reflect.DeepEqual(oids, []uint32{23, 25}) {
		t.Errorf("ParameterDescription %v", oids)
	}
	rc.send(&pgproto3.Bind{PreparedStatement: "e", Parameters: [][]byte{[]byte("1")}}, &pgproto3.Sync{})
	rc.expect(codeProtocolViolation, ready)
	rc.send(&pgproto3.Bind{PreparedStatement: "e", ParameterFormatCodes: []int16{1},
		Parameters: [][]byte{{1, 2}, []byte("xx")}}, &pgproto3.Sync{})
	rc.expect(codeInvalidBinaryRepr, ready)
	rc.send(&pgproto3.Bind{PreparedStatement: "e", ParameterFormatCodes: []int16{0, 1},
		Parameters: [][]byte{[]byte("12"), nil}, ResultFormatCodes: []int16{0, 1}},
		&pgproto3.Execute{}, &pgproto3.Sync{})
	got = rc.expect(bindComplete, dataRow, "SELECT 1", ready)
	if vals := got[1].(*pgproto3.DataRow).Values; string(vals[0]) != "12" || vals[1] != nil {
		t.Errorf("echo row %q", vals)
	}
	rc.send(&pgproto3.Parse{Query: "INSERT INTO t VALUES (1)"}, &pgproto3.Describe{ObjectType: 'S'},
		&pgproto3.Bind{}, &pgproto3.Describe{ObjectType: 'P'}, &pgproto3.Execute{}, &pgproto3.Sync{})
	rc.expect(parseComplete, paramDesc, noData, bindComplete, noData, "INSERT 0 1", ready)
	rc.send(&pgproto3.Parse{Query: " ; -- nothing"}, &pgproto3.Describe{ObjectType: 'S'}, &pgproto3.Bind{},
		&pgproto3.Execute{}, &pgproto3.Sync{})
	rc.expect(parseComplete, paramDesc, noData, bindComplete, emptyQuery, ready)
	rc.send(&pgproto3.Parse{Query: "SELECT 1; SELECT 1"}, &pgproto3.Sync{})
	rc.expect(codeSyntaxError, ready)
}

func TestFlushSendsWithoutSync(t *testing.T) {
	rc := dialRaw(t, startTestServer(t, nil))
	rc.send(&pgproto3.Parse{Query: "SELECT 1"}, &pgproto3.Flush{})
	rc.expect(parseComplete)
	rc.send(&pgproto3.Sync{})
	rc.expect(ready)
}

func TestSimpleQueryStopsAtError(t *testing.T) {
	rc := dialRaw(t, startTestServer(t, nil))
	rc.send(&pgproto3.Query{String: "INSERT INTO a VALUES (1); FAIL 22000 boom; INSERT INTO b VALUES (1)"})
	rc.expect("INSERT 0 1", "22000", ready)
	rc.send(&pgproto3.Query{String: ""})
	rc.expect(emptyQuery, ready)
	rc.send(&pgproto3.Query{String: ";;  -- only a comment"})
	rc.expect(emptyQuery, ready)
	rc.send(&pgproto3.Query{String: "BEGIN; SELECT * FROM series(2)"})
	got := rc.expect("BEGIN", rowDesc, dataRow, dataRow, "SELECT 2", ready)
	if st := got[5].(*pgproto3.ReadyForQuery).TxStatus; st != 'T' {
		t.Errorf("TxStatus %c", st)
	}
}

// rawAfterStartup sends raw bytes on an authenticated connection and returns the error
// the server reports before it closes the connection.
func rawAfterStartup(t *testing.T, ts *testServer, raw []byte) *pgproto3.ErrorResponse {
	t.Helper()
	rc := dialRaw(t, ts)
	if _, err := rc.conn.Write(raw); err != nil {
		t.Fatal(err)
	}
	msg, err := rc.fe.Receive()
	if err != nil {
		t.Fatalf("no error response: %v", err)
	}
	e, ok := msg.(*pgproto3.ErrorResponse)
	if !ok || e.Severity != "FATAL" {
		t.Fatalf("got %T %+v, want a FATAL ErrorResponse", msg, msg)
	}
	copied := *e
	assertNeutral(t, &copied)
	if _, err := rc.fe.Receive(); err == nil {
		t.Fatal("connection still open after FATAL")
	}
	return &copied
}

func TestHostileMessagesAfterStartup(t *testing.T) {
	ts := startTestServer(t, func(s *Server) { s.MaxMessage = 4096 })
	huge := append([]byte{'Q'}, binary.BigEndian.AppendUint32(nil, 1<<31-1)...)
	cases := []struct {
		name string
		raw  []byte
		code string
	}{
		{"unknown type", []byte{'Z', 0, 0, 0, 4}, codeProtocolViolation},
		{"oversized length", huge, codeProtocolViolation},
		{"just over MaxMessage", append([]byte{'Q'}, binary.BigEndian.AppendUint32(nil, 4096+5)...), codeProtocolViolation},
		{"length below 4", []byte{'Q', 0, 0, 0, 3}, codeProtocolViolation},
		{"truncated Bind body", []byte{'B', 0, 0, 0, 7, 'p', 0, 0}, codeProtocolViolation},
		{"Bind with parameter overrun", []byte{'B', 0, 0, 0, 14, 0, 0, 0, 0, 0, 1, 0, 0, 0x7f, 0xff}, codeProtocolViolation},
		{"password message after startup", []byte{'p', 0, 0, 0, 5, 0}, codeProtocolViolation},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if e := rawAfterStartup(t, ts, c.raw); e.Code != c.code {
				t.Errorf("code %s (%s), want %s", e.Code, e.Message, c.code)
			}
		})
	}
	// A message cut off by a disconnect ends the connection quietly.
	rc := dialRaw(t, ts)
	_, _ = rc.conn.Write([]byte{'Q', 0, 0, 0, 100, 'S', 'E'})
	_ = rc.conn.Close()
	waitFor(t, func() bool { return ts.stats.opened.Load() == ts.stats.closed.Load() })
}

// startupBytes is a StartupMessage with the given protocol version and parameters.
func startupBytes(version uint32, kv ...string) []byte {
	body := binary.BigEndian.AppendUint32(nil, version)
	for _, s := range kv {
		body = append(append(body, s...), 0)
	}
	body = append(body, 0)
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(body)+4)), body...)
}

// readAll reads what the server sends until it closes (or 5 s pass).
func readAll(t *testing.T, c net.Conn) []byte {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	var out []byte
	buf := make([]byte, 4096)
	for {
		n, err := c.Read(buf)
		out = append(out, buf[:n]...)
		if err != nil {
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				t.Fatalf("server kept the connection open; got %q", out)
			}
			return out
		}
	}
}

func TestHostileStartup(t *testing.T) {
	ts := startTestServer(t, func(s *Server) { s.StartupTimeout = 300 * time.Millisecond })
	cases := []struct {
		name string
		raw  []byte
		want string // substring of the reply; "" = closed without a reply
	}{
		{"never finishes", nil, "startup did not finish in time"},
		{"partial packet", []byte{0, 0, 0, 50, 0, 3}, "startup did not finish in time"},
		{"huge length", []byte{0xff, 0xff, 0xff, 0xff}, "invalid length of startup packet"},
		{"tiny length", []byte{0, 0, 0, 4}, "invalid length of startup packet"},
		{"protocol 2", startupBytes(2<<16, "user", "alice"), "unsupported frontend protocol 2.0"},
		{"no user", startupBytes(3<<16, "database", "x"), "no PostgreSQL user name"},
		{"unterminated parameter", append(binary.BigEndian.AppendUint32(nil, 10), 0, 3, 0, 0, 'u', 's'), "invalid startup packet layout"},
		{"unknown cancel", []byte{0, 0, 0, 16, 0x04, 0xd2, 0x16, 0x2e, 0, 0, 0, 1, 0, 0, 0, 2}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", ts.addr)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if _, err := conn.Write(c.raw); err != nil {
				t.Fatal(err)
			}
			out := readAll(t, conn)
			if c.want == "" && len(out) != 0 || !strings.Contains(string(out), c.want) {
				t.Errorf("reply %q, want it to contain %q", out, c.want)
			}
		})
	}
}

func TestStartupNegotiation(t *testing.T) {
	ts := startTestServer(t, nil)
	conn, err := net.Dial("tcp", ts.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	gss := binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(nil, 8), gssEncRequestCode)
	ssl := binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(nil, 8), sslRequestCode)
	for _, pkt := range [][]byte{gss, ssl} {
		if _, err := conn.Write(pkt); err != nil {
			t.Fatal(err)
		}
		reply := make([]byte, 1)
		if _, err := conn.Read(reply); err != nil || reply[0] != 'N' {
			t.Fatalf("reply %q %v, want N", reply, err)
		}
	}
	// Protocol 3.2 with an unknown _pq_ option: NegotiateProtocolVersion(3.0, option), then SASL.
	if _, err := conn.Write(startupBytes(3<<16|2, "user", "alice", "_pq_.frob", "1")); err != nil {
		t.Fatal(err)
	}
	fe := pgproto3.NewFrontend(conn, conn)
	buf := make([]byte, 5)
	if _, err := conn.Read(buf[:1]); err != nil || buf[0] != 'v' {
		t.Fatalf("first reply %q %v, want NegotiateProtocolVersion", buf[:1], err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	rest := make([]byte, 4+4+4+len("_pq_.frob")+1)
	if _, err := fullRead(conn, rest); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprintf("%x", rest[4:12]); got != "0000000000000001" || !strings.Contains(string(rest), "_pq_.frob") {
		t.Fatalf("NegotiateProtocolVersion body %x", rest)
	}
	msg, err := fe.Receive()
	if _, ok := msg.(*pgproto3.AuthenticationSASL); !ok {
		t.Fatalf("after negotiation got %T %v", msg, err)
	}
}

func fullRead(c net.Conn, buf []byte) (int, error) {
	n := 0
	for n < len(buf) {
		m, err := c.Read(buf[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

func TestSessionFatalErrorClosesConnection(t *testing.T) {
	ts := startTestServer(t, nil)
	for _, msgs := range [][]pgproto3.FrontendMessage{
		{&pgproto3.Query{String: "INSERT INTO t VALUES (1); FATALERR; INSERT INTO t VALUES (2)"}},
		{&pgproto3.Parse{Query: "FATALERR"}, &pgproto3.Bind{}, &pgproto3.Execute{}, &pgproto3.Sync{}},
	} {
		rc := dialRaw(t, ts)
		rc.send(msgs...)
		var last pgproto3.BackendMessage
		for {
			msg, err := rc.fe.Receive()
			if err != nil {
				break
			}
			last = copyMessage(msg)
			if e, ok := msg.(*pgproto3.ErrorResponse); ok {
				c := *e
				last = &c
			}
		}
		if e, ok := last.(*pgproto3.ErrorResponse); !ok || e.Severity != "FATAL" || e.Code != "57P01" {
			t.Errorf("last message before close %T %+v", last, last)
		}
	}
}
