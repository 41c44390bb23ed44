package pgwire

import (
	"bytes"
	"context"
	"errors"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
)

func connectPgx(t *testing.T, ts *testServer, query string) *pgx.Conn {
	t.Helper()
	cfg, err := pgx.ParseConfig(ts.dsn(testUser, testPassword, query))
	if err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.ConnectConfig(testContext(t), cfg)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { _ = conn.Close(context.Background()) })
	return conn
}

func wantSQLState(t *testing.T, err error, code string) *pgconn.PgError {
	t.Helper()
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		t.Fatalf("error %v (%T) is not a *pgconn.PgError", err, err)
	}
	if pgErr.Code != code {
		t.Fatalf("SQLSTATE %s (%s), want %s", pgErr.Code, pgErr.Message, code)
	}
	return pgErr
}

func TestPgxStartupParameters(t *testing.T) {
	ts := startTestServer(t, nil)
	conn := connectPgx(t, ts, "sslmode=disable&application_name=wiretest")
	pc := conn.PgConn()
	want := map[string]string{
		"server_version": DefaultServerVersion, "server_encoding": "UTF8", "client_encoding": "UTF8",
		"DateStyle": "ISO, MDY", "integer_datetimes": "on", "standard_conforming_strings": "on",
		"TimeZone": "UTC", "application_name": "wiretest", "IntervalStyle": "postgres",
		"is_superuser": "off", "session_authorization": testUser,
	}
	for k, v := range want {
		if got := pc.ParameterStatus(k); got != v {
			t.Errorf("ParameterStatus(%s) = %q, want %q", k, got, v)
		}
	}
	if pc.PID() == 0 || pc.SecretKey() == 0 {
		t.Errorf("BackendKeyData pid %d secret %d", pc.PID(), pc.SecretKey())
	}
}

func TestPgxSimpleProtocol(t *testing.T) {
	ts := startTestServer(t, nil)
	conn := connectPgx(t, ts, "sslmode=disable&default_query_exec_mode=simple_protocol")
	ctx := testContext(t)
	var one int
	if err := conn.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("SELECT 1: %v %d", err, one)
	}
	rows, err := conn.Query(ctx, "SELECT * FROM series(5)")
	if err != nil {
		t.Fatal(err)
	}
	got, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil || len(got) != 5 || got[4] != 5 {
		t.Fatalf("series: %v %v", got, err)
	}
	tag, err := conn.Exec(ctx, "INSERT INTO t VALUES (1)")
	if err != nil || tag.String() != "INSERT 0 1" {
		t.Fatalf("insert tag %q %v", tag, err)
	}
	checkAllTypesRow(t, conn, ctx)
	_, err = conn.Exec(ctx, "FAIL 23505 duplicate key")
	pgErr := wantSQLState(t, err, "23505")
	if pgErr.Message != "duplicate key" || pgErr.Detail != "fake detail" || pgErr.Severity != "ERROR" {
		t.Errorf("error fields %+v", pgErr)
	}
	// The connection survives the error.
	if err := conn.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil {
		t.Fatal(err)
	}
}

// checkAllTypesRow reads the ALLTYPES row and compares every column.
func checkAllTypesRow(t *testing.T, conn *pgx.Conn, ctx context.Context, opts ...any) {
	t.Helper()
	var (
		i2, i4, i8  int64
		f4, f8      float64
		b           bool
		txt, n, u   string
		by          []byte
		d, ts, tz   time.Time
		j, jb       map[string]any
		nul         *int64
		untyped     string
		numericText pgtype.Numeric
	)
	args := append([]any{}, opts...)
	err := conn.QueryRow(ctx, "SELECT ALLTYPES", args...).Scan(&i2, &i4, &i8, &f4, &f8, &b, &txt, &by,
		&numericText, &d, &ts, &tz, &u, &j, &jb, &nul, &untyped)
	if err != nil {
		t.Fatalf("ALLTYPES: %v", err)
	}
	nv, _ := numericText.Value()
	n, _ = nv.(string)
	checks := []struct {
		name      string
		got, want any
	}{
		{"i2", i2, int64(-2)}, {"i4", i4, int64(40000)}, {"i8", i8, int64(1) << 40}, {"f4", f4, 1.5},
		{"f8", f8, -2.25}, {"b", b, true}, {"t", txt, "héllo"}, {"n", n, "12345.6789"},
		{"d", d.Format(time.DateOnly), "2024-02-29"},
		{"ts", ts.Format("2006-01-02 15:04:05.000000"), "2024-02-29 13:14:15.123456"},
		{"tz", tz.UTC().Format(time.RFC3339), "2024-02-29T13:14:15Z"},
		{"u", u, "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"}, {"j", j["a"], float64(1)},
		{"nul", nul == nil, true}, {"untyped", untyped, "7"},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if !bytes.Equal(by, []byte{0, 1, 0xff}) {
		t.Errorf("bytea = %x", by)
	}
	if arr, ok := jb["b"].([]any); !ok || len(arr) != 2 {
		t.Errorf("jsonb = %v", jb)
	}
}

func TestPgxExtendedResults(t *testing.T) {
	ts := startTestServer(t, nil)
	conn := connectPgx(t, ts, "sslmode=disable")
	ctx := testContext(t)
	checkAllTypesRow(t, conn, ctx)                                             // binary where pgx asks for it
	checkAllTypesRow(t, conn, ctx, pgx.QueryResultFormats{pgx.TextFormatCode}) // all text
	checkAllTypesRow(t, conn, ctx, pgx.QueryExecModeDescribeExec)
}

func TestPgxExtendedParams(t *testing.T) {
	ts := startTestServer(t, nil)
	for _, mode := range []string{"cache_statement", "describe_exec", "exec"} {
		t.Run(mode, func(t *testing.T) {
			conn := connectPgx(t, ts, "sslmode=disable&default_query_exec_mode="+mode)
			echoEveryType(t, conn, ts.stats, mode == "exec")
		})
	}
}

// echoEveryType sends one parameter of every supported type and checks what the Session got
// and what came back.
//
// untypedArgs: the exec mode sends every parameter as text of type 0 without describing,
// and pgx cannot render [16]byte as untyped text, so the uuid goes as a string there.
func echoEveryType(t *testing.T, conn *pgx.Conn, stats *fakeStats, untypedArgs bool) {
	t.Helper()
	ctx := testContext(t)
	day := time.Date(2023, 12, 31, 0, 0, 0, 0, time.UTC)
	stamp := time.Date(2023, 12, 31, 23, 59, 58, 500000000, time.UTC)
	var numeric pgtype.Numeric
	if err := numeric.Scan("-98765.4321"); err != nil {
		t.Fatal(err)
	}
	sql := "SELECT $1::bool, $2::int2, $3::int4, $4::int8, $5::float4, $6::float8, $7::numeric, $8::text, " +
		"$9::varchar, $10::bpchar, $11::name, $12::bytea, $13::date, $14::timestamp, $15::timestamptz, " +
		"$16::uuid, $17::json, $18::jsonb, $19::int8"
	uuid := [16]byte{0xa0, 0xee, 0xbc, 0x99, 0x9c, 0x0b, 0x4e, 0xf8, 0xbb, 0x6d, 0x6b, 0xb9, 0xbd, 0x38, 0x0a, 0x11}
	args := []any{true, int16(-3), int32(70000), int64(math.MaxInt64), float32(0.5), 1e300, numeric, "tëxt",
		"vc", "bp", "nm", []byte("\x00bin"), day, stamp, stamp, uuid, `{"k":"v"}`, `[1,2]`, nil}
	if untypedArgs {
		args[15] = "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"
	}
	want := []any{true, int64(-3), int64(70000), int64(math.MaxInt64), 0.5, 1e300, "-98765.4321", "tëxt",
		"vc", "bp", "nm", []byte("\x00bin"), day, stamp, stamp, "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
		`{"k":"v"}`, `[1,2]`, nil}
	rows, err := conn.Query(ctx, sql, args...)
	if err != nil {
		t.Fatal(err)
	}
	values, err := pgx.CollectExactlyOneRow(rows, func(r pgx.CollectableRow) ([]any, error) { return r.Values() })
	if err != nil {
		t.Fatalf("echo: %v", err)
	}
	stats.mu.Lock()
	got := stats.lastParams
	stats.mu.Unlock()
	for i := range want {
		if !equalValue(got[i], want[i]) {
			t.Errorf("param $%d decoded as %#v, want %#v", i+1, got[i], want[i])
		}
	}
	if len(values) != len(args) || values[1] != int16(-3) || values[3] != int64(math.MaxInt64) ||
		values[15] != [16]byte(uuid) || values[18] != nil {
		t.Errorf("echoed values %#v", values)
	}
}

func equalValue(got, want any) bool {
	switch w := want.(type) {
	case []byte:
		g, ok := got.([]byte)
		return ok && bytes.Equal(g, w)
	case time.Time:
		g, ok := got.(time.Time)
		return ok && g.Equal(w)
	}
	return got == want
}

func TestPgxNamedPreparedStatementReused(t *testing.T) {
	ts := startTestServer(t, nil)
	conn := connectPgx(t, ts, "sslmode=disable")
	ctx := testContext(t)
	if _, err := conn.Prepare(ctx, "echo", "SELECT $1::int8, $2::text"); err != nil {
		t.Fatal(err)
	}
	for i := range int64(3) {
		var n int64
		var s string
		if err := conn.QueryRow(ctx, "echo", i, "x").Scan(&n, &s); err != nil || n != i || s != "x" {
			t.Fatalf("run %d: %v %d %q", i, err, n, s)
		}
	}
	if _, err := conn.Prepare(ctx, "bad", "NOT SQL"); err == nil {
		t.Fatal("Parse of a bad statement succeeded")
	} else {
		wantSQLState(t, err, "42601")
	}
	if err := conn.Deallocate(ctx, "echo"); err != nil {
		t.Fatal(err)
	}
}

func TestPgxErrorsAndTransactions(t *testing.T) {
	ts := startTestServer(t, nil)
	conn := connectPgx(t, ts, "sslmode=disable")
	ctx := testContext(t)
	_, err := conn.Exec(ctx, "FAIL 22012 division by zero")
	wantSQLState(t, err, "22012")
	_, err = conn.Exec(ctx, "PLAINERR")
	if pgErr := wantSQLState(t, err, "XX000"); pgErr.Message != "plain failure" {
		t.Errorf("message %q", pgErr.Message)
	}
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st := conn.PgConn().TxStatus(); st != 'T' {
		t.Errorf("TxStatus in transaction %c", st)
	}
	_, err = tx.Exec(ctx, "FAIL 23505 dup")
	wantSQLState(t, err, "23505")
	if st := conn.PgConn().TxStatus(); st != 'E' {
		t.Errorf("TxStatus after error %c", st)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if st := conn.PgConn().TxStatus(); st != 'I' {
		t.Errorf("TxStatus after rollback %c", st)
	}
}

func TestPgxCancelSlowExecute(t *testing.T) {
	ts := startTestServer(t, nil)
	conn := connectPgx(t, ts, "sslmode=disable")
	ctx, cancel := context.WithCancel(testContext(t))
	go func() {
		<-ts.stats.sleeping
		cancel()
	}()
	// Uncancelled, the fake sleep succeeds after 10 s: an error and the
	// session's count of interrupted sleeps prove the cancel reached it.
	_, err := conn.Exec(ctx, "SELECT SLEEP")
	if err == nil {
		t.Fatal("cancelled statement succeeded")
	}
	waitFor(t, func() bool { return ts.stats.cancelled.Load() == 1 })
}

func TestCancelRequestReportsQueryCanceled(t *testing.T) {
	ts := startTestServer(t, nil)
	conn := connectPgx(t, ts, "sslmode=disable")
	ctx := testContext(t)
	errc := make(chan error, 1)
	go func() {
		_, err := conn.Exec(ctx, "SELECT SLEEP")
		errc <- err
	}()
	<-ts.stats.sleeping
	// A CancelRequest with the wrong secret is ignored.
	pc := conn.PgConn()
	if err := sendCancel(ts.addr, pc.PID(), pc.SecretKey()+1); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-errc:
		t.Fatalf("statement ended after a wrong-secret cancel: %v", err)
	case <-time.After(200 * time.Millisecond):
	}
	if err := pc.CancelRequest(ctx); err != nil {
		t.Fatal(err)
	}
	wantSQLState(t, <-errc, "57014")
	var one int
	if err := conn.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil {
		t.Fatalf("connection unusable after cancel: %v", err)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached in 5s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A panicking Session ends its own connection; the server, and every
// other connection, go on (a node serving clients must not fall over).
func TestSessionPanicEndsOnlyItsConnection(t *testing.T) {
	ts := startTestServer(t, nil)
	other := connectPgx(t, ts, "sslmode=disable")
	victim := connectPgx(t, ts, "sslmode=disable")
	ctx := testContext(t)
	if _, err := victim.Exec(ctx, "PANIC", pgx.QueryExecModeSimpleProtocol); err == nil {
		t.Fatal("a panicking statement returned no error")
	}
	var n int64
	if err := other.QueryRow(ctx, "SELECT 1", pgx.QueryExecModeSimpleProtocol).Scan(&n); err != nil || n != 1 {
		t.Fatalf("another connection after the panic: %d, %v", n, err)
	}
	again := connectPgx(t, ts, "sslmode=disable")
	if err := again.QueryRow(ctx, "SELECT 1", pgx.QueryExecModeSimpleProtocol).Scan(&n); err != nil || n != 1 {
		t.Fatalf("a new connection after the panic: %d, %v", n, err)
	}
}

// TestPgxNotices: a Result's notices reach the client as NoticeResponses
// of severity NOTICE, in order, with the statement's rows, in both the
// simple and the extended query protocol.
func TestPgxNotices(t *testing.T) {
	ts := startTestServer(t, nil)
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeSimpleProtocol, pgx.QueryExecModeExec, pgx.QueryExecModeCacheStatement} {
		cfg, err := pgx.ParseConfig(ts.dsn(testUser, testPassword, "sslmode=disable"))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) {
			got = append(got, n.Severity+" "+n.Code+" "+n.Message)
		}
		conn, err := pgx.ConnectConfig(testContext(t), cfg)
		if err != nil {
			t.Fatal(err)
		}
		var v int64
		if err := conn.QueryRow(testContext(t), "SELECT NOTICE", mode).Scan(&v); err != nil || v != 1 {
			t.Fatalf("mode %v: %v %d", mode, err, v)
		}
		want := []string{"NOTICE 00000 first notice", "NOTICE 00000 second notice"}
		if !slices.Equal(got, want) {
			t.Errorf("mode %v: notices %q, want %q", mode, got, want)
		}
		_ = conn.Close(context.Background())
	}
}
