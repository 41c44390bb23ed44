package e2e

import (
	"context"
	"encoding/binary"
	"errors"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Hostile clients of a node's listener: wrong passwords and unknown
// users, malformed and oversized messages, 1,000 connections opened and
// dropped, and a client that opens a transaction and goes silent. The
// node never stops committing, other sessions are unaffected, and a
// well-behaved client still works afterwards.
func TestGatewayHostileClients(t *testing.T) {
	c := mustStartCluster(t, clusterOptions{pg: true})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	addr := c.pgAddr(0)
	conn, err := pgx.Connect(ctx, c.pgURL(0, "alice"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	mustPgxExec(t, conn, `CREATE TABLE acct (id INTEGER PRIMARY KEY, bal INTEGER NOT NULL)`)
	mustPgxExec(t, conn, `INSERT INTO acct (id, bal) VALUES (1, 100), (2, 100)`)

	checkBadPasswords(t, ctx, addr)
	checkMalformedMessages(t, addr)
	checkManyConnections(t, ctx, addr)
	checkSilentTransaction(t, ctx, c, conn)

	var n int64
	if err := conn.QueryRow(ctx, `SELECT COUNT(*) FROM acct`).Scan(&n); err != nil || n != 2 {
		t.Fatalf("after the hostile clients: %d rows, %v", n, err)
	}
	h, rows := c.consistentRead(ctx, "SELECT id, bal FROM acct ORDER BY id")
	c.requireSameRows(h, "acct", rows[0])
}

// checkBadPasswords: a wrong password and an unknown user are refused
// before any query, with SQLSTATE 28P01.
func checkBadPasswords(t *testing.T, ctx context.Context, addr string) {
	for _, url := range []string{
		"postgres://alice:wrong@" + addr + "/relchain?sslmode=disable",
		"postgres://mallory:pw-mallory@" + addr + "/relchain?sslmode=disable",
		"postgres://alice@" + addr + "/relchain?sslmode=disable",
	} {
		_, err := pgx.Connect(ctx, url)
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "28P01" {
			t.Errorf("%s: %v, want SQLSTATE 28P01", url, err)
		}
	}
}

// checkMalformedMessages sends broken startups and an oversized message;
// each gets an error or a closed connection, never a hang.
func checkMalformedMessages(t *testing.T, addr string) {
	startup := func(version uint32, rest []byte) []byte {
		b := binary.BigEndian.AppendUint32(nil, uint32(8+len(rest)))
		b = binary.BigEndian.AppendUint32(b, version)
		return append(b, rest...)
	}
	for name, msg := range map[string][]byte{
		"bad protocol version": startup(0x00020000, []byte("user\x00alice\x00\x00")),
		"length below minimum": {0, 0, 0, 2, 0, 3, 0, 0},
		"oversized length":     {0x7f, 0xff, 0xff, 0xff, 0, 3, 0, 0},
		"no user":              startup(0x00030000, []byte("\x00")),
		"garbage":              []byte(strings.Repeat("\xff", 64)),
	} {
		nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		_ = nc.SetDeadline(time.Now().Add(15 * time.Second))
		if _, err := nc.Write(msg); err != nil {
			t.Fatalf("%s: write: %v", name, err)
		}
		buf := make([]byte, 4096)
		n, _ := nc.Read(buf)
		if n > 0 && buf[0] != 'E' {
			t.Errorf("%s: the server answered %q, want an ErrorResponse or a closed connection", name, buf[:n])
		}
		if _, err := nc.Read(buf); err == nil {
			t.Errorf("%s: the connection stayed open", name)
		}
		nc.Close()
	}
}

// checkManyConnections opens 1,000 connections, half of them sending a
// partial startup, and drops them all; 50 at a time from one address is
// over the listener's per-address cap (32), so some are refused with 53300.
// Once the listener has let go of them, a new client is served.
func checkManyConnections(t *testing.T, ctx context.Context, addr string) {
	var wg sync.WaitGroup
	sem := make(chan struct{}, 50)
	for i := 0; i < 1000; i++ {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
			if err != nil {
				t.Errorf("connection %d: %v", i, err)
				return
			}
			if i%2 == 0 {
				_, _ = nc.Write([]byte{0, 0, 0, 40, 0, 3})
			}
			nc.Close()
		}()
	}
	wg.Wait()
	connectWhenFree(t, ctx, pgURLAt(addr, "alice")).Close(context.Background())
}

// checkSilentTransaction: a client opens a transaction, writes, and goes
// silent. It holds no lock: another session updates the same row at once
// and blocks go on; its late COMMIT succeeds or fails with 40001.
func checkSilentTransaction(t *testing.T, ctx context.Context, c *cluster, other *pgx.Conn) {
	silent, err := pgx.Connect(ctx, c.pgURL(0, "bob"))
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close(context.Background())
	tx, err := silent.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var bal int64
	if err := tx.QueryRow(ctx, `SELECT bal FROM acct WHERE id = 1`).Scan(&bal); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `UPDATE acct SET bal = $1 WHERE id = 1`, bal+5); err != nil {
		t.Fatal(err)
	}
	before := c.maxHeight(ctx, 0)
	start := time.Now()
	for k := 0; k < 3; k++ {
		if tag := mustPgxExec(t, other, `UPDATE acct SET bal = bal - 1 WHERE id = 1`); tag.String() != "UPDATE 1" {
			t.Fatalf("the other session's update: %s", tag)
		}
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Fatalf("the other session's updates took %s beside a silent transaction", d)
	}
	if after := c.maxHeight(ctx, 0); after <= before {
		t.Fatalf("no block committed beside the silent transaction (height %d → %d)", before, after)
	}
	err = tx.Commit(ctx)
	var pe *pgconn.PgError
	if err == nil || !errors.As(err, &pe) || pe.Code != "40001" {
		t.Fatalf("the silent transaction's late COMMIT: %v, want SQLSTATE 40001 (it read a balance that changed)", err)
	}
	var now int64
	if err := other.QueryRow(ctx, `SELECT bal FROM acct WHERE id = 1`).Scan(&now); err != nil || now != bal-3 {
		t.Fatalf("balance %d (%v), want %d: the conflicting transaction must not apply", now, err, bal-3)
	}
}
