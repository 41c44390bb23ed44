package e2e

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/relchain/relchain/node"
)

// A node's listener applies relchain.toml [pg]'s limits: over
// max_connections_per_address a client is refused with 53300, and a session
// idle longer than idle_session_timeout is closed with 57P05.
func TestGatewayListenerLimits(t *testing.T) {
	c := mustStartCluster(t, clusterOptions{pg: true, prepare: func(c *cluster) {
		setRelchainTOML(c, 0, "max_connections_per_address = 32", "max_connections_per_address = 2")
		setRelchainTOML(c, 0, `idle_session_timeout = "1h"`, `idle_session_timeout = "2s"`)
	}})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	url := c.pgURL(0, "alice")
	first := connectWhenFree(t, ctx, url).PgConn()
	second := connectWhenFree(t, ctx, url)
	defer second.Close(context.Background())
	_, err := pgx.Connect(ctx, url)
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "53300" {
		t.Fatalf("a third connection from one address: %v, want SQLSTATE 53300", err)
	}
	// The first session, left idle, is closed by the server with 57P05.
	h, err := first.Hijack()
	if err != nil {
		t.Fatal(err)
	}
	defer h.Conn.Close()
	_ = h.Conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	msg, err := h.Frontend.Receive()
	e, ok := msg.(*pgproto3.ErrorResponse)
	if err != nil || !ok || e.Code != "57P05" || e.Severity != "FATAL" {
		t.Fatalf("idle session: %T %+v %v, want FATAL 57P05", msg, msg, err)
	}
	if _, err := h.Frontend.Receive(); err == nil {
		t.Fatal("the idle session's connection stayed open")
	}
	// Its slot is free again.
	connectWhenFree(t, ctx, url).Close(context.Background())
}

// connectWhenFree connects to url, retrying while the listener refuses
// with 53300: a connection the client has just closed (pgAddr's probe, an
// ended session) holds its slot until the listener has noticed.
func connectWhenFree(t *testing.T, ctx context.Context, url string) *pgx.Conn {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		conn, err := pgx.Connect(ctx, url)
		if err == nil {
			return conn
		}
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "53300" || time.Now().After(deadline) {
			t.Fatalf("connect %s: %v", url, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// setRelchainTOML replaces old by new in node i's relchain.toml (before it starts).
func setRelchainTOML(c *cluster, i int, old, new string) {
	c.t.Helper()
	path := filepath.Join(c.nodes[i].Home, node.RelchainConfigFile)
	b, err := os.ReadFile(path)
	if err != nil {
		c.t.Fatal(err)
	}
	if !strings.Contains(string(b), old) {
		c.t.Fatalf("%s lacks %s:\n%s", path, old, b)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(string(b), old, new, 1)), 0o644); err != nil {
		c.t.Fatal(err)
	}
}
