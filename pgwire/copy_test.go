package pgwire

import (
	"bytes"
	"errors"
	"io"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
)

// COPY FROM STDIN: the client's CopyData reach the Session in order, CopyDone's result is
// the statement's, and the session goes on.
func TestCopyIn(t *testing.T) {
	ts := startTestServer(t, nil)
	conn := connectPgx(t, ts, "sslmode=disable")
	data := strings.Repeat("a line of copy data\n", 10000)
	tag, err := conn.PgConn().CopyFrom(testContext(t), strings.NewReader(data), "COPY IN")
	if err != nil {
		t.Fatalf("CopyFrom: %v", err)
	}
	if tag.String() != "COPY 10000" {
		t.Fatalf("tag %q, want COPY 10000", tag)
	}
	ts.stats.mu.Lock()
	got := string(ts.stats.copied)
	ts.stats.mu.Unlock()
	if got != data {
		t.Fatalf("the session received %d bytes, want %d", len(got), len(data))
	}
	var one int
	if err := conn.QueryRow(testContext(t), "SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("after COPY: %v", err)
	}
}

// COPY TO STDOUT: CopyOutResponse, the Session's chunks, CopyDone, its tag.
func TestCopyOut(t *testing.T) {
	ts := startTestServer(t, nil)
	conn := connectPgx(t, ts, "sslmode=disable")
	var buf bytes.Buffer
	tag, err := conn.PgConn().CopyTo(testContext(t), &buf, "COPY OUT 2500")
	if err != nil {
		t.Fatalf("CopyTo: %v", err)
	}
	if tag.String() != "COPY 2500" || !strings.HasPrefix(buf.String(), "row 1\nrow 2\n") || strings.Count(buf.String(), "\n") != 2500 {
		t.Fatalf("CopyTo: tag %q, %d bytes", tag, buf.Len())
	}
}

// failingReader returns its data, then an error: pgconn then sends CopyFail with its text.
type failingReader struct{ data io.Reader }

func (r *failingReader) Read(p []byte) (int, error) {
	n, err := r.data.Read(p)
	if err == io.EOF {
		return n, errors.New("the client gave up")
	}
	return n, err
}

// CopyFail aborts the COPY with 57014 "COPY from stdin failed: <text>", as PostgreSQL
// does; the Session hears Abort with the client's text and the connection goes on.
func TestCopyFail(t *testing.T) {
	ts := startTestServer(t, nil)
	conn := connectPgx(t, ts, "sslmode=disable")
	_, err := conn.PgConn().CopyFrom(testContext(t), &failingReader{strings.NewReader("x\ny\n")}, "COPY IN")
	pe := wantSQLState(t, err, codeQueryCanceled)
	if !strings.Contains(pe.Message, "COPY from stdin failed") || !strings.Contains(pe.Message, "the client gave up") {
		t.Fatalf("CopyFail answered %q", pe.Message)
	}
	if ends := ts.stats.ends(); !slices.Equal(ends, []string{"abort: the client gave up"}) {
		t.Fatalf("the session saw %q", ends)
	}
	var one int
	if err := conn.QueryRow(testContext(t), "SELECT 1").Scan(&one); err != nil {
		t.Fatalf("after CopyFail: %v", err)
	}
}

// A Session's error mid-stream ends the COPY with that error (its context included); the
// client's remaining copy messages are dropped and the connection goes on.
func TestCopyInSessionError(t *testing.T) {
	ts := startTestServer(t, nil)
	conn := connectPgx(t, ts, "sslmode=disable")
	data := "ok\nBAD\n" + strings.Repeat("more\n", 50000)
	_, err := conn.PgConn().CopyFrom(testContext(t), strings.NewReader(data), "COPY IN")
	pe := wantSQLState(t, err, "22P04")
	if pe.Where != "COPY fake, line 2" {
		t.Fatalf("Where %q, want the Session's context", pe.Where)
	}
	if ends := ts.stats.ends(); !slices.Equal(ends, []string{"abort: "}) {
		t.Fatalf("the session saw %q", ends)
	}
	var one int
	if err := conn.QueryRow(testContext(t), "SELECT 1").Scan(&one); err != nil {
		t.Fatalf("after the error: %v", err)
	}
}

// rawCopyConn opens an authenticated raw protocol connection and starts COPY IN.
func rawCopyConn(t *testing.T, ts *testServer) (*pgproto3.Frontend, net.Conn) {
	t.Helper()
	rc := dialRaw(t, ts)
	nc, fe := rc.conn, rc.fe
	fe.Send(&pgproto3.Query{String: "COPY IN"})
	if err := fe.Flush(); err != nil {
		t.Fatal(err)
	}
	msg, err := fe.Receive()
	if err != nil {
		t.Fatal(err)
	}
	if r, ok := msg.(*pgproto3.CopyInResponse); !ok || r.OverallFormat != 0 || len(r.ColumnFormatCodes) != 1 {
		t.Fatalf("got %#v, want CopyInResponse (text, 1 column)", msg)
	}
	return fe, nc
}

// A CopyData message over MaxCopyData is refused before it is read: FATAL 08P01, the COPY
// aborted.
func TestCopyDataOversized(t *testing.T) {
	ts := startTestServer(t, func(s *Server) { s.MaxCopyData = 1000 })
	fe, _ := rawCopyConn(t, ts)
	fe.Send(&pgproto3.CopyData{Data: bytes.Repeat([]byte("x"), 999)})
	fe.Send(&pgproto3.CopyData{Data: bytes.Repeat([]byte("y"), 1001)})
	if err := fe.Flush(); err != nil {
		t.Fatal(err)
	}
	e := receiveError(t, fe)
	if e.Severity != "FATAL" || e.Code != codeProtocolViolation || !strings.Contains(e.Message, "CopyData message of 1001 bytes exceeds the limit of 1000") {
		t.Fatalf("got %s %s %q", e.Severity, e.Code, e.Message)
	}
	if ends := ts.stats.ends(); !slices.Equal(ends, []string{"abort: "}) {
		t.Fatalf("the session saw %q", ends)
	}
}

// MaxCopyBytes bounds one COPY's stream: 54000, the COPY aborted, the connection goes on.
func TestCopyBytesLimit(t *testing.T) {
	ts := startTestServer(t, func(s *Server) { s.MaxCopyBytes = 5000 })
	conn := connectPgx(t, ts, "sslmode=disable")
	_, err := conn.PgConn().CopyFrom(testContext(t), strings.NewReader(strings.Repeat("0123456789\n", 1000)), "COPY IN")
	wantSQLState(t, err, codeProgramLimitExceeded)
	if ends := ts.stats.ends(); !slices.Equal(ends, []string{"abort: "}) {
		t.Fatalf("the session saw %q", ends)
	}
}

// A client that stops sending mid-COPY is timed out like a client idle in a transaction.
func TestCopyIdleTimeout(t *testing.T) {
	ts := startTestServer(t, func(s *Server) { s.IdleInTransactionTimeout = 300 * time.Millisecond })
	fe, _ := rawCopyConn(t, ts)
	fe.Send(&pgproto3.CopyData{Data: []byte("a\n")})
	if err := fe.Flush(); err != nil {
		t.Fatal(err)
	}
	e := receiveError(t, fe)
	if e.Severity != "FATAL" || e.Code != codeIdleInTxTimeout {
		t.Fatalf("got %s %s %q", e.Severity, e.Code, e.Message)
	}
	if ends := ts.stats.ends(); !slices.Equal(ends, []string{"abort: "}) {
		t.Fatalf("the session saw %q", ends)
	}
}

// The extended protocol: Execute of a COPY starts copy-in; a Sync during it is ignored, the
// one after CopyDone ends the batch.
func TestCopyInExtended(t *testing.T) {
	ts := startTestServer(t, nil)
	fe := dialRaw(t, ts).fe
	fe.Send(&pgproto3.Parse{Query: "COPY IN"})
	fe.Send(&pgproto3.Bind{})
	fe.Send(&pgproto3.Execute{})
	fe.Send(&pgproto3.Sync{})
	if err := fe.Flush(); err != nil {
		t.Fatal(err)
	}
	for {
		msg, err := fe.Receive()
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := msg.(*pgproto3.CopyInResponse); ok {
			break
		}
	}
	fe.Send(&pgproto3.CopyData{Data: []byte("1\n2\n")})
	fe.Send(&pgproto3.CopyDone{})
	fe.Send(&pgproto3.Sync{}) // the one before was ignored during copy-in (PostgreSQL)
	if err := fe.Flush(); err != nil {
		t.Fatal(err)
	}
	var tags []string
	for {
		msg, err := fe.Receive()
		if err != nil {
			t.Fatal(err)
		}
		switch m := msg.(type) {
		case *pgproto3.CommandComplete:
			tags = append(tags, string(m.CommandTag))
		case *pgproto3.ErrorResponse:
			t.Fatalf("error %s %s", m.Code, m.Message)
		}
		if _, ok := msg.(*pgproto3.ReadyForQuery); ok {
			break
		}
	}
	if !slices.Equal(tags, []string{"COPY 2"}) {
		t.Fatalf("tags %q", tags)
	}
}

func receiveError(t *testing.T, fe *pgproto3.Frontend) *pgproto3.ErrorResponse {
	t.Helper()
	for {
		msg, err := fe.Receive()
		if err != nil {
			t.Fatalf("no ErrorResponse: %v", err)
		}
		if e, ok := msg.(*pgproto3.ErrorResponse); ok {
			return e
		}
	}
}
