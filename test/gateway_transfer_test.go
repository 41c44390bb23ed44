package e2e

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Two sessions move money between the same two accounts in explicit
// transactions that read balances and write what they computed (the
// pattern that loses updates without validation). Every COMMIT succeeds
// or fails with 40001 and is retried; a validator is killed and
// restarted in the middle; at the end the total is conserved, every
// acknowledged transfer is there exactly once, and every validator holds
// the same rows.
func TestGatewayConcurrentTransfers(t *testing.T) {
	onBackends(t, notOn{"mysql": gatewayNotOnMySQL}, testGatewayConcurrentTransfers)
}

const transfersPerSession = 12

func testGatewayConcurrentTransfers(t *testing.T, backend string) {
	c := mustStartCluster(t, clusterOptions{backend: backend, pg: true})
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	setup, err := pgx.Connect(ctx, c.pgURL(0, "alice"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		`CREATE TABLE acct (id INTEGER PRIMARY KEY, bal INTEGER NOT NULL)`,
		`CREATE TABLE transfer (id TEXT PRIMARY KEY, amount INTEGER NOT NULL)`,
		`INSERT INTO acct (id, bal) VALUES (1, 1000), (2, 1000)`,
	} {
		mustPgxExec(t, setup, s)
	}
	setup.Close(ctx)

	var mu sync.Mutex
	acked := map[string]bool{}
	conflicts := 0
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	// A validator that serves no session is killed once both sessions
	// have committed a third of their transfers, and started again once
	// both have committed two thirds: the sessions wait at those points,
	// so transfers commit before, while and after it is down.
	kill, restart := newTransferPause(transfersPerSession/3), newTransferPause(2*transfersPerSession/3)
	failed := make(chan struct{}) // closed when a session has failed
	var failOnce sync.Once
	for sess, node := range []int{0, 1} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pause := func(ctx context.Context, k int) error {
				if err := kill.wait(ctx, k); err != nil {
					return err
				}
				return restart.wait(ctx, k)
			}
			n, err := runTransfers(ctx, c, sess, node, pause, func(id string) { mu.Lock(); acked[id] = true; mu.Unlock() })
			mu.Lock()
			conflicts += n
			mu.Unlock()
			if err != nil {
				failOnce.Do(func() { close(failed) })
			}
			errs <- err
		}()
	}
	var downFrom, downTo int64
	for _, p := range []struct {
		pause *transferPause
		act   func() error
	}{
		{kill, func() error { downFrom = c.maxHeight(ctx, 0, 1, 2); return c.net.Kill(3) }},
		{restart, func() error { downTo = c.maxHeight(ctx, 0, 1, 2); return c.net.Start(3) }},
	} {
		if p.pause.reachedByBoth(ctx, failed) {
			if err := p.act(); err != nil {
				t.Fatal(err)
			}
		}
		close(p.pause.release)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%d transfers committed, %d COMMITs conflicted (40001) and were retried", len(acked), conflicts)
	if downTo <= downFrom {
		t.Fatalf("the network committed no block while validator 3 was down (height %d when it was killed, %d when it was started): the kill was not exercised", downFrom, downTo)
	}
	t.Logf("validator 3 was down from height %d to %d, while %d transfers per session committed", downFrom, downTo, restart.at-kill.at)
	if err := c.net.WaitHeight(ctx, 3, c.maxHeight(ctx, 0, 1, 2)); err != nil {
		t.Fatalf("the restarted validator: %v", err)
	}
	// consistentRead answers at one height on every node, and fails unless
	// they all agree.
	h, rows := c.consistentRead(ctx, "SELECT SUM(bal) FROM acct", "SELECT id FROM transfer ORDER BY id")
	if fmt.Sprint(rows[0][0][0][0]) != "2000" {
		t.Fatalf("total %v at height %d, want 2000", rows[0][0][0][0], h)
	}
	c.requireSameRows(h, "transfer", rows[1])
	present := map[string]bool{}
	for _, r := range rows[1][0] {
		present[fmt.Sprint(r[0])] = true
	}
	for id := range acked {
		if !present[id] {
			t.Errorf("acknowledged transfer %s is missing", id)
		}
	}
	if len(present) != len(acked) || len(acked) != 2*transfersPerSession {
		t.Errorf("%d transfers acknowledged, %d present, want %d", len(acked), len(present), 2*transfersPerSession)
	}
}

// transferPause is a point both sessions of the transfer test wait at:
// before their transfer number at, until release is closed.
type transferPause struct {
	at      int
	arrived chan struct{} // one send per session that reached at
	release chan struct{}
}

func newTransferPause(at int) *transferPause {
	return &transferPause{at: at, arrived: make(chan struct{}, 2), release: make(chan struct{})}
}

// wait, before transfer k, waits at the pause if k is its point.
func (p *transferPause) wait(ctx context.Context, k int) error {
	if k != p.at {
		return nil
	}
	p.arrived <- struct{}{}
	select {
	case <-p.release:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("waiting before transfer %d: %w", k, ctx.Err())
	}
}

// reachedByBoth waits until both sessions wait at the pause; false if a
// session failed or ctx ended first.
func (p *transferPause) reachedByBoth(ctx context.Context, failed <-chan struct{}) bool {
	for n := 0; n < 2; n++ {
		select {
		case <-p.arrived:
		case <-failed:
			return false
		case <-ctx.Done():
			return false
		}
	}
	return true
}

// runTransfers commits transfersPerSession transfers through node's
// listener, retrying each on 40001, and returns how many conflicted.
// pause runs before each transfer (its number).
func runTransfers(ctx context.Context, c *cluster, sess, node int, pause func(context.Context, int) error, ack func(string)) (int, error) {
	conn, err := pgx.Connect(ctx, c.pgURL(node, pgUsers[sess]))
	if err != nil {
		return 0, err
	}
	defer conn.Close(context.Background())
	conflicts := 0
	for k := 0; k < transfersPerSession; k++ {
		if err := pause(ctx, k); err != nil {
			return conflicts, fmt.Errorf("session %d: %w", sess, err)
		}
		id := fmt.Sprintf("s%d-%02d", sess, k)
		for attempt := 0; ; attempt++ {
			err := transferOnce(ctx, conn, id, int64(1+sess), int64(2-sess), 7)
			var pe *pgconn.PgError
			if err == nil {
				ack(id)
				break
			}
			if !errors.As(err, &pe) || pe.Code != "40001" || attempt == 50 {
				return conflicts, fmt.Errorf("session %d transfer %s: %w", sess, id, err)
			}
			conflicts++
		}
	}
	return conflicts, nil
}

// transferOnce reads both balances and writes the computed ones.
func transferOnce(ctx context.Context, conn *pgx.Conn, id string, from, to, amount int64) error {
	tx, err := conn.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(context.Background())
	var a, b int64
	if err := tx.QueryRow(ctx, `SELECT bal FROM acct WHERE id = $1`, from).Scan(&a); err != nil {
		return err
	}
	if err := tx.QueryRow(ctx, `SELECT bal FROM acct WHERE id = $1`, to).Scan(&b); err != nil {
		return err
	}
	for _, s := range []struct {
		sql  string
		args []any
	}{
		{`UPDATE acct SET bal = $1 WHERE id = $2`, []any{a - amount, from}},
		{`UPDATE acct SET bal = $1 WHERE id = $2`, []any{b + amount, to}},
		{`INSERT INTO transfer (id, amount) VALUES ($1, $2)`, []any{id, amount}},
	} {
		if _, err := tx.Exec(ctx, s.sql, s.args...); err != nil {
			return err
		}
	}
	return tx.Commit(ctx)
}
