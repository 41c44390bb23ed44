package pgwire

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"math"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/jackc/pgx/v5/pgtype"
)

func TestDecodeParam(t *testing.T) {
	m := pgtype.NewMap()
	day := time.Date(2020, 1, 2, 0, 0, 0, 0, time.UTC)
	uuidBin, _ := hex.DecodeString("a0eebc999c0b4ef8bb6d6bb9bd380a11")
	cases := []struct {
		oid    uint32
		format int16
		src    []byte
		want   any
	}{
		{pgtype.BoolOID, 0, []byte("t"), true},
		{pgtype.BoolOID, 1, []byte{0}, false},
		{pgtype.Int2OID, 1, []byte{0xff, 0xfe}, int64(-2)},
		{pgtype.Int4OID, 0, []byte("-40"), int64(-40)},
		{pgtype.Int8OID, 1, binary.BigEndian.AppendUint64(nil, math.MaxUint64), int64(-1)},
		{pgtype.Float4OID, 0, []byte("0.25"), 0.25},
		{pgtype.Float8OID, 1, binary.BigEndian.AppendUint64(nil, math.Float64bits(-3.5)), -3.5},
		{pgtype.NumericOID, 0, []byte("1.50"), "1.50"},
		{pgtype.NumericOID, 0, []byte("NaN"), "NaN"},
		{pgtype.TextOID, 1, []byte("bin text"), "bin text"},
		{pgtype.UnknownOID, 0, []byte("u"), "u"},
		{0, 0, []byte("zero"), "zero"},
		{pgtype.JSONBOID, 1, []byte("\x01{}"), "{}"},
		{pgtype.JSONOID, 0, []byte("[]"), "[]"},
		{pgtype.ByteaOID, 0, []byte(`\x00ff`), []byte{0, 0xff}},
		{pgtype.ByteaOID, 1, []byte{}, []byte{}},
		{pgtype.DateOID, 0, []byte("2020-01-02"), day},
		{pgtype.DateOID, 0, []byte("infinity"), "infinity"},
		{pgtype.TimestampOID, 0, []byte("2020-01-02 00:00:00"), day},
		{pgtype.TimestamptzOID, 0, []byte("2020-01-02 01:00:00+01"), day},
		// node-postgres sends a JavaScript Date as ISO 8601, with a T.
		{pgtype.TimestamptzOID, 0, []byte("2020-01-02T01:00:00.000+01:00"), day},
		{pgtype.TimestampOID, 0, []byte("2020-01-02T00:00:00.000+05:00"), day},
		{pgtype.DateOID, 0, []byte("2020-01-02T00:00:00.000+00:00"), day},
		// Sequelize writes a space before the zone; Z is UTC.
		{pgtype.TimestamptzOID, 0, []byte("2020-01-02 01:00:00.000 +01:00"), day},
		{pgtype.TimestamptzOID, 0, []byte("2020-01-02T00:00:00Z"), day},
		{pgtype.UUIDOID, 1, uuidBin, "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"},
		{pgtype.IntervalOID, 0, []byte("1 day"), "1 day"},
		{pgtype.Int8OID, 0, nil, nil},
	}
	for _, c := range cases {
		got, err := decodeValue(m, c.oid, c.format, c.src)
		if err != nil || !equalValue(got, c.want) {
			t.Errorf("decode(oid %d, format %d, %q) = %#v, %v; want %#v", c.oid, c.format, c.src, got, err, c.want)
		}
	}
	for _, bad := range []struct {
		oid    uint32
		format int16
		src    []byte
	}{
		{pgtype.Int4OID, 0, []byte("x")}, {pgtype.Int4OID, 1, []byte{1}}, {pgtype.NumericOID, 0, []byte("1e")},
		{pgtype.JSONBOID, 1, []byte("{}")}, {pgtype.IntervalOID, 1, []byte{1}}, {pgtype.DateOID, 0, []byte("soon")},
		{pgtype.UUIDOID, 0, []byte("not-a-uuid")},
	} {
		if v, err := decodeValue(m, bad.oid, bad.format, bad.src); err == nil {
			t.Errorf("decode(oid %d, format %d, %q) = %#v, want an error", bad.oid, bad.format, bad.src, v)
		}
	}
}

func TestEncodeValue(t *testing.T) {
	m := pgtype.NewMap()
	cases := []struct {
		oid    uint32
		format int16
		v      any
		want   []byte
	}{
		{pgtype.Int4OID, 1, int64(7), []byte{0, 0, 0, 7}},
		{pgtype.Int2OID, 0, int64(-7), []byte("-7")},
		{pgtype.TextOID, 0, int64(12), []byte("12")},
		{pgtype.TextOID, 0, true, []byte("true")},
		{pgtype.TextOID, 1, 2.5, []byte("2.5")},
		{0, 0, time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC), []byte("2020-01-02 03:04:05Z")},
		{pgtype.TextOID, 0, "", []byte{}},
		{pgtype.JSONBOID, 1, `{"a":1}`, []byte("\x01{\"a\":1}")},
		{pgtype.NumericOID, 0, "1.5", []byte("1.5")},
		{pgtype.UUIDOID, 1, "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", []byte{0xa0, 0xee, 0xbc, 0x99, 0x9c, 0x0b, 0x4e, 0xf8, 0xbb, 0x6d, 0x6b, 0xb9, 0xbd, 0x38, 0x0a, 0x11}},
		{pgtype.ByteaOID, 0, []byte{1}, []byte(`\x01`)},
		{pgtype.ByteaOID, 1, []byte{}, []byte{}},
		{pgtype.BoolOID, 0, false, []byte("f")},
		{pgtype.Int8OID, 0, nil, nil},
		{pgtype.ByteaOID, 0, []byte(nil), nil},
	}
	for _, c := range cases {
		got, err := encodeValue(m, c.oid, c.format, c.v)
		if err != nil || !bytes.Equal(got, c.want) || (got == nil) != (c.want == nil) {
			t.Errorf("encode(oid %d, format %d, %#v) = %q, %v; want %q", c.oid, c.format, c.v, got, err, c.want)
		}
	}
	for _, bad := range []struct {
		oid    uint32
		format int16
		v      any
	}{
		{pgtype.Int2OID, 1, int64(1 << 20)}, {pgtype.NumericOID, 1, "abc"}, {pgtype.Int4OID, 1, "x"},
		{pgtype.BoolOID, 1, time.Now()},
	} {
		if got, err := encodeValue(m, bad.oid, bad.format, bad.v); err == nil {
			t.Errorf("encode(oid %d, format %d, %#v) = %q, want an error", bad.oid, bad.format, bad.v, got)
		}
	}
}

func TestErrorString(t *testing.T) {
	e := &Error{Code: "23505", Message: "duplicate", Detail: "key (id)=(1)"}
	if got := e.Error(); got != "duplicate (SQLSTATE 23505): key (id)=(1)" {
		t.Errorf("Error() = %q", got)
	}
	if got := (&Error{Code: "XX000", Message: "m"}).Error(); got != "m (SQLSTATE XX000)" {
		t.Errorf("Error() = %q", got)
	}
}

// scramStart opens a connection, sends a StartupMessage for alice and reads the SASL offer.
func scramStart(t *testing.T, ts *testServer) (net.Conn, *pgproto3.Frontend) {
	t.Helper()
	c, err := net.Dial("tcp", ts.addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := c.Write(startupBytes(3<<16, "user", testUser)); err != nil {
		t.Fatal(err)
	}
	fe := pgproto3.NewFrontend(c, c)
	msg, err := fe.Receive()
	sasl, ok := msg.(*pgproto3.AuthenticationSASL)
	if !ok || len(sasl.AuthMechanisms) != 1 || sasl.AuthMechanisms[0] != scramMechanism {
		t.Fatalf("SASL offer %T %+v %v", msg, msg, err)
	}
	return c, fe
}

// expectFatal reads until an ErrorResponse and checks its code and message.
func expectFatal(t *testing.T, fe *pgproto3.Frontend, code, msgPart string) {
	t.Helper()
	for {
		msg, err := fe.Receive()
		if err != nil {
			t.Fatalf("no ErrorResponse: %v", err)
		}
		if e, ok := msg.(*pgproto3.ErrorResponse); ok {
			if e.Severity != "FATAL" || e.Code != code || !strings.Contains(e.Message, msgPart) {
				t.Fatalf("got %s %s %q, want FATAL %s containing %q", e.Severity, e.Code, e.Message, code, msgPart)
			}
			return
		}
	}
}

func TestMalformedSCRAM(t *testing.T) {
	ts := startTestServer(t, nil)
	firsts := []struct{ mech, data, want string }{
		{"PLAIN", "n,,n=,r=abc", "invalid SASL authentication mechanism"},
		{scramMechanism, "p=tls-server-end-point,,n=,r=abc", "channel binding"},
		{scramMechanism, "x,,n=,r=abc", "GS2 header"},
		{scramMechanism, "n,a=bob,n=,r=abc", "authorization identity"},
		{scramMechanism, "n,,n=,r=", "empty client nonce"},
		{scramMechanism, "n,,r=abc", "lacks n= or r="},
		{scramMechanism, "n,", "truncated"},
	}
	for _, c := range firsts {
		_, fe := scramStart(t, ts)
		fe.Send(&pgproto3.SASLInitialResponse{AuthMechanism: c.mech, Data: []byte(c.data)})
		_ = fe.Flush()
		expectFatal(t, fe, codeProtocolViolation, c.want)
	}
	finals := []struct{ data, want string }{
		{"c=biws,r=%s", "lacks the proof"},
		{"c=eSws,r=%s,p=AAAA", "channel binding data"},
		{"c=biws,r=wrong,p=AAAA", "nonce does not match"},
		{"c=biws,r=%s,p=!!", "invalid client proof"},
		{"r=%s,p=AAAA", "lacks c= or r="},
	}
	for _, c := range finals {
		_, fe := scramStart(t, ts)
		fe.Send(&pgproto3.SASLInitialResponse{AuthMechanism: scramMechanism, Data: []byte("n,,n=,r=clientnonce")})
		_ = fe.Flush()
		msg, err := fe.Receive()
		cont, ok := msg.(*pgproto3.AuthenticationSASLContinue)
		if !ok {
			t.Fatalf("server-first %T %v", msg, err)
		}
		nonce := strings.TrimPrefix(strings.Split(string(cont.Data), ",")[0], "r=")
		fe.Send(&pgproto3.SASLResponse{Data: []byte(strings.Replace(c.data, "%s", nonce, 1))})
		_ = fe.Flush()
		expectFatal(t, fe, codeProtocolViolation, c.want)
	}
	// A password message instead of a SASL response.
	c, fe := scramStart(t, ts)
	_, _ = c.Write([]byte{'X', 0, 0, 0, 4})
	expectFatal(t, fe, codeProtocolViolation, "expected SASL initial response")
}

func TestServeReturnsWhenListenerClosed(t *testing.T) {
	srv := &Server{}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv.init() // Serve's own init then writes nothing the wait below reads
	done := make(chan error, 1)
	go func() { done <- srv.Serve(l) }()
	// Close the listener Serve accepts on, not one it has yet to reach.
	waitFor(t, func() bool {
		srv.mu.Lock()
		defer srv.mu.Unlock()
		_, serving := srv.listeners[l]
		return serving
	})
	_ = l.Close()
	select {
	case err := <-done:
		if !errors.Is(err, net.ErrClosed) && !errors.Is(err, ErrServerClosed) {
			t.Errorf("Serve returned %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not return after its listener closed")
	}
	if err := srv.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if err := srv.Serve(l); !errors.Is(err, ErrServerClosed) {
		t.Errorf("Serve after Close returned %v", err)
	}
}
