package pgwire

import (
	"database/sql"
	"encoding/base64"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/lib/pq"
)

func TestLibPQ(t *testing.T) {
	ts := startTestServer(t, nil)
	db, err := sql.Open("postgres", ts.dsn(testUser, testPassword, "sslmode=disable"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := testContext(t)
	var n int64
	var s string
	var b []byte
	// With arguments lib/pq uses the extended protocol (text parameters).
	err = db.QueryRowContext(ctx, "SELECT $1::int8, $2::text, $3::bytea", 42, "hi", []byte{1, 2}).Scan(&n, &s, &b)
	if err != nil || n != 42 || s != "hi" || string(b) != "\x01\x02" {
		t.Fatalf("echo: %v %d %q %x", err, n, s, b)
	}
	rows, err := db.QueryContext(ctx, "SELECT * FROM series(3)") // simple protocol
	if err != nil {
		t.Fatal(err)
	}
	count := 0
	for rows.Next() {
		count++
	}
	if err := rows.Err(); err != nil || count != 3 {
		t.Fatalf("series rows %d err %v", count, err)
	}
	res, err := db.ExecContext(ctx, "INSERT INTO t VALUES (1)")
	if err != nil {
		t.Fatal(err)
	}
	if affected, _ := res.RowsAffected(); affected != 1 {
		t.Errorf("RowsAffected %d", affected)
	}
	_, err = db.ExecContext(ctx, "FAIL 40001 serialization failure")
	var pqErr *pq.Error
	if !errors.As(err, &pqErr) || pqErr.Code != "40001" {
		t.Fatalf("error %v, want pq.Error 40001", err)
	}
	_, err = db.ExecContext(ctx, "SELECT $1::int4", "not a number")
	if !errors.As(err, &pqErr) || pqErr.Code != "22P02" {
		t.Fatalf("bad parameter error %v, want 22P02", err)
	}
}

func runPsql(t *testing.T, ts *testServer, sslmode, password string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command("/usr/bin/psql", append([]string{"-X", "-v", "ON_ERROR_STOP=1",
		"-h", ts.host(), "-p", ts.port(), "-U", testUser, "-d", "testdb"}, args...)...)
	cmd.Env = append(os.Environ(), "PGPASSWORD="+password, "PGSSLMODE="+sslmode, "PGCONNECT_TIMEOUT=10")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func TestPsql(t *testing.T) {
	ts := startTestServer(t, nil)
	out, err := runPsql(t, ts, "disable", testPassword, "-At", "-c", "SELECT * FROM series(3)")
	if err != nil || out != "1\n2\n3\n" {
		t.Fatalf("psql -c: %v\n%s", err, out)
	}
	script := filepath.Join(t.TempDir(), "script.sql")
	body := "-- a comment\nBEGIN;\nINSERT INTO t VALUES (1);\nSELECT ALLTYPES;\nCOMMIT;\n;\n"
	if err := os.WriteFile(script, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err = runPsql(t, ts, "disable", testPassword, "-f", script)
	if err != nil {
		t.Fatalf("psql -f: %v\n%s", err, out)
	}
	for _, want := range []string{"BEGIN", "INSERT 0 1", "héllo", `\x0001ff`, "12345.6789", "2024-02-29", "COMMIT"} {
		if !strings.Contains(out, want) {
			t.Errorf("psql output lacks %q:\n%s", want, out)
		}
	}
	out, err = runPsql(t, ts, "disable", testPassword, "-c", "FAIL 42P01 relation \"nope\" does not exist")
	if err == nil || !strings.Contains(out, `relation "nope" does not exist`) {
		t.Errorf("psql error run: %v\n%s", err, out)
	}
	out, err = runPsql(t, ts, "disable", "wrong", "-c", "SELECT 1")
	if err == nil || !strings.Contains(out, `password authentication failed for user "alice"`) {
		t.Errorf("psql wrong password: %v\n%s", err, out)
	}
}

func TestPsqlTLS(t *testing.T) {
	ts := startTestServer(t, func(s *Server) { s.TLS = selfSignedTLS(t); s.RequireTLS = true })
	out, err := runPsql(t, ts, "require", testPassword, "-At", "-c", "SELECT 1")
	if err != nil || out != "1\n" {
		t.Fatalf("psql over TLS: %v\n%s", err, out)
	}
	out, err = runPsql(t, ts, "disable", testPassword, "-c", "SELECT 1")
	if err == nil || !strings.Contains(out, "requires an SSL/TLS connection") {
		t.Fatalf("psql without TLS was not refused clearly: %v\n%s", err, out)
	}
}

func TestPgxTLS(t *testing.T) {
	ts := startTestServer(t, func(s *Server) { s.TLS = selfSignedTLS(t); s.RequireTLS = true })
	conn := connectPgx(t, ts, "sslmode=require")
	var one int
	if err := conn.QueryRow(testContext(t), "SELECT 1").Scan(&one); err != nil {
		t.Fatal(err)
	}
	_, err := pgx.Connect(testContext(t), ts.dsn(testUser, testPassword, "sslmode=disable"))
	wantSQLState(t, err, "28000")
}

func TestNoTLSConfiguredAnswersN(t *testing.T) {
	ts := startTestServer(t, nil)
	_, err := pgx.Connect(testContext(t), ts.dsn(testUser, testPassword, "sslmode=require"))
	if err == nil || !strings.Contains(err.Error(), "server refused TLS") {
		t.Fatalf("sslmode=require against a TLS-less server: %v", err)
	}
	conn := connectPgx(t, ts, "sslmode=prefer") // 'N' then plain startup on the same socket
	if err := conn.Ping(testContext(t)); err != nil {
		t.Fatal(err)
	}
}

func TestAuthenticationFailures(t *testing.T) {
	ts := startTestServer(t, nil)
	ctx := testContext(t)
	for _, c := range []struct{ user, password string }{
		{testUser, "wrong"}, {"mallory", testPassword}, {testUser, ""},
	} {
		_, err := pgx.Connect(ctx, ts.dsn(c.user, c.password, "sslmode=disable"))
		pgErr := wantSQLState(t, err, "28P01")
		if want := `password authentication failed for user "` + c.user + `"`; pgErr.Message != want || pgErr.Severity != "FATAL" {
			t.Errorf("%s/%s: %s %q", c.user, c.password, pgErr.Severity, pgErr.Message)
		}
	}
	_, err := pgx.Connect(ctx, strings.Replace(ts.dsn(testUser, testPassword, "sslmode=disable"), "/testdb", "/missing", 1))
	wantSQLState(t, err, "3D000")
	if ts.stats.opened.Load() != 0 {
		t.Errorf("a session was opened for a refused connection")
	}
}

func TestVerifierRoundTrip(t *testing.T) {
	v, err := NewVerifier("pw", 100)
	if err != nil {
		t.Fatal(err)
	}
	s := v.String()
	if !strings.HasPrefix(s, "SCRAM-SHA-256$100:") {
		t.Fatalf("String %q", s)
	}
	back, err := ParseVerifier(s)
	if err != nil || back.String() != s {
		t.Fatalf("ParseVerifier: %v %q", err, back.String())
	}
	for _, bad := range []string{"", "md5abc", "SCRAM-SHA-256$x:AA==$AA==:AA==", "SCRAM-SHA-256$4096:AA==$AA==:AA=="} {
		if _, err := ParseVerifier(bad); err == nil {
			t.Errorf("ParseVerifier(%q) succeeded", bad)
		}
	}
	if _, err := NewVerifier("pw", -1); err == nil {
		t.Error("negative iterations accepted")
	}
}

// TestSCRAMRFC7677Vector checks the exchange against the SCRAM-SHA-256 example of RFC 7677 §3.
func TestSCRAMRFC7677Vector(t *testing.T) {
	salt, _ := base64.StdEncoding.DecodeString("W22ZaJ0SNY7soEsUEjb6gQ==")
	v, err := deriveVerifier("pencil", salt, 4096)
	if err != nil {
		t.Fatal(err)
	}
	nonce := "rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0"
	ex := &scramExchange{
		verifier: v, known: true, gs2Header: "n,,", clientBare: "n=user,r=rOprNGfwEbeRWgbNEkqO",
		serverFirst: "r=" + nonce + ",s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096", nonce: nonce,
	}
	final, e := ex.verifyClientFinal("c=biws,r="+nonce+",p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=", "user")
	if e != nil || final != "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=" {
		t.Fatalf("server-final %q, error %v", final, e)
	}
	_, e = ex.verifyClientFinal("c=biws,r="+nonce+",p=eHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=", "user")
	if e == nil || e.Code != codeInvalidPassword {
		t.Fatalf("wrong proof: %v", e)
	}
}
