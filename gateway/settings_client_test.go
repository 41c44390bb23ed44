package gateway

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/relchain/relchain/pgwire"
)

// startSettingsGateway runs a gateway whose node is never asked: the
// statements these tests send are answered by the gateway itself.
func startSettingsGateway(t *testing.T) (*Gateway, string) {
	t.Helper()
	users := filepath.Join(t.TempDir(), "users.toml")
	if _, err := AddUser(users, "alice", "secret-a", ""); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	g, err := Start(ctx, Config{Listen: "127.0.0.1:0", Nodes: []string{"http://127.0.0.1:1"}, Dialect: "sqlite", UsersFile: users, Classifier: Conservative{}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = g.Close() })
	return g, fmt.Sprintf("postgres://alice:secret-a@%s/relchain?sslmode=disable", g.Addr())
}

// TestSessionStatementsThroughClients: pgx (extended protocol: Parse,
// Describe, Execute) and psql (simple protocol) get PostgreSQL's answers.
func TestSessionStatementsThroughClients(t *testing.T) {
	_, dsn := startSettingsGateway(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for sql, want := range map[string]string{
		"SHOW TRANSACTION ISOLATION LEVEL": "serializable", "SHOW TimeZone": "UTC", "SHOW standard_conforming_strings": "on",
		"SHOW search_path": `"$user", public`, "SHOW DateStyle": "ISO, MDY",
	} {
		var got string
		if err := conn.QueryRow(ctx, sql).Scan(&got); err != nil || got != want {
			t.Errorf("pgx: %s = %q, %v; want %q", sql, got, err, want)
		}
	}
	for _, sql := range []string{"SET statement_timeout = '5s'", "SET extra_float_digits = 3", "SET search_path TO public", "DISCARD ALL"} {
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Errorf("pgx: %s: %v", sql, err)
		}
	}
	_, err = conn.Exec(ctx, "SET TIME ZONE 'Europe/Paris'")
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "0A000" || !strings.Contains(pe.Message, "TimeZone") {
		t.Errorf("pgx: SET TIME ZONE 'Europe/Paris': %v, want 0A000 naming TimeZone", err)
	}

	if _, err := os.Stat("/usr/bin/psql"); err != nil {
		t.Skip("no /usr/bin/psql")
	}
	cmd := exec.CommandContext(ctx, "/usr/bin/psql", "-X", "-A", "-v", "ON_ERROR_STOP=1", dsn,
		"-c", "SHOW TRANSACTION ISOLATION LEVEL", "-c", "SET statement_timeout = 1500", "-c", "SHOW statement_timeout",
		"-c", "DISCARD ALL", "-c", "SHOW statement_timeout", "-c", "SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL READ COMMITTED")
	out, err := cmd.CombinedOutput()
	want := "transaction_isolation\nserializable\n(1 row)\nSET\nstatement_timeout\n1500ms\n(1 row)\nDISCARD ALL\nstatement_timeout\n0\n(1 row)\n"
	if err == nil || !strings.HasPrefix(string(out), want) || !strings.Contains(string(out), `isolation level "read committed" is not available`) {
		t.Errorf("psql: %v\n%s\nwant it to start with\n%s and end with the refusal of read committed", err, out, want)
	}
}

// TestStatementTimeoutIsEnforced: a read whose node never answers ends
// with PostgreSQL's 57014 once statement_timeout expires, instead of
// waiting for the node.
func TestStatementTimeoutIsEnforced(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0") // accepts, never answers
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	nodes, err := NewNodes([]string{"http://" + ln.Addr().String()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := newSession(&Gateway{dialect: "sqlite", nodes: nodes}, &User{Name: "alice"}, nil)
	if got := gatewayAnswer(t, s, "SET statement_timeout = 50"); got.tag != "SET" {
		t.Fatalf("SET statement_timeout: %v", got)
	}
	_, err = s.Execute(context.Background(), "SELECT 1", nil)
	var pe *pgwire.Error
	if !errors.As(err, &pe) || pe.Code != "57014" || pe.Message != "canceling statement due to statement timeout" {
		t.Errorf("read past statement_timeout: %v, want 57014 canceling statement due to statement timeout", err)
	}
}
