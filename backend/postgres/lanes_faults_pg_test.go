package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/backendtest"
	"github.com/relchain/relchain/backend/postgres"
	"github.com/relchain/relchain/backend/postgres/pgtest"
	"github.com/relchain/relchain/rowcanon"
)

// terminateSessions ends the server sessions of database db whose
// application_name is app (every session when app is empty), as a server
// restart would, and waits until they are gone.
func terminateSessions(t *testing.T, db, app string) {
	t.Helper()
	conn, err := pgx.Connect(ctx(t), pgtest.ServerDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	const match = `datname = $1 AND pid <> pg_backend_pid() AND ($2 = '' OR application_name = $2)`
	var n int
	if err := conn.QueryRow(ctx(t), `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE `+match, db, app).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatalf("no session of %s (application %q) to terminate", db, app)
	}
	for left := n; left > 0; {
		if err := conn.QueryRow(ctx(t), `SELECT count(*) FROM pg_stat_activity WHERE `+match, db, app).Scan(&left); err != nil {
			t.Fatal(err)
		}
		if left > 0 {
			time.Sleep(10 * time.Millisecond) // a poll, not an assertion on time
		}
	}
}

// A parallel block's kept lane connections lost since the last block (a
// server restart, which a connection notices only when used) cost the
// next block nothing: each used to fail one attempt of it, so a node with
// k lanes waited out k-1 backoffs after every outage (the e2e
// shared-db-kill manifest's recovery stalled behind them).
func TestLostLaneConnectionsDoNotFailTheNextBlock(t *testing.T) {
	b, dsn := setupLaneDB(t)
	db, err := postgres.DatabaseOf(dsn)
	if err != nil {
		t.Fatal(err)
	}
	txs := laneTxs()
	blk, err := runParallel(t, b, txs, 4)
	if err != nil {
		t.Fatal(err)
	}
	finishLaneBlock(t, b, blk, 2)

	for h, app := range []string{"relchain-lane", ""} {
		// The lanes' sessions alone, then every session (the writer's too).
		terminateSessions(t, db, app)
		blk, err := b.Begin(ctx(t))
		if app == "" && backend.IsUnavailable(err) {
			blk, err = b.Begin(ctx(t)) // the writer's lost session: one retry
		}
		if err != nil {
			t.Fatal(err)
		}
		if _, err := blk.(backend.Lanes).OpenLanes(ctx(t), 4); err != nil {
			t.Fatalf("round %d, kept lane sessions lost (application %q): open lanes: %v", h, app, err)
		}
		if err := blk.Rollback(ctx(t)); err != nil {
			t.Fatal(err)
		}
	}
}

// A read never holds the lanes' read gate while it waits for a
// connection of the reader pool: a parallel block's Commit waits for the
// gate holding the backend, and readers that hold the pool's connections
// wait behind that Commit for the gate, so a read waiting for the pool
// under the gate deadlocked the node (reads and blocks).
func TestAReadWaitingForTheReaderPoolDoesNotHoldTheReadGate(t *testing.T) {
	b := mustOpen(t, pgtest.DSN(t), postgres.WithMaxReaders(1))
	t.Cleanup(func() { b.Close() })
	block(t, b, 1, "CREATE TABLE kv (k int PRIMARY KEY, v text)", "INSERT INTO kv VALUES (1, 'a')")
	reads := map[string]func(context.Context) error{
		"CanonicalTables": func(c context.Context) error { _, err := b.CanonicalTables(c); return err },
		"CanonicalRowsByKey": func(c context.Context) error {
			_, _, err := b.CanonicalRowsByKey(c, "kv", [][]byte{key(t, rowcanon.Int(1))})
			return err
		},
		"ScanState":   func(c context.Context) error { _, _, err := b.ScanState(c); return err },
		"StoredState": func(c context.Context) error { _, _, err := b.StoredState(c); return err },
		"Query": func(c context.Context) error {
			_, _, err := b.Query(c, "SELECT v FROM kv", nil)
			return err
		},
	}
	for name, read := range reads {
		t.Run(name, func(t *testing.T) {
			release, err := postgres.HoldReader(ctx(t), b)
			if err != nil {
				t.Fatal(err)
			}
			// The read waits for the held connection until its context
			// ends; meanwhile the gate must stay free.
			rctx, cancel := context.WithTimeout(ctx(t), 500*time.Millisecond)
			defer cancel()
			done := make(chan struct{})
			go func() {
				defer close(done)
				_ = read(rctx)
			}()
			held := backendtest.GateHeldWhile(done, func() (func(), bool) { return postgres.TryPublish(b) })
			release()
			if held {
				t.Errorf("%s held the read gate while it waited for a reader connection", name)
			}
			if err := read(ctx(t)); err != nil {
				t.Errorf("%s once the connection is free: %v", name, err)
			}
		})
	}
}
