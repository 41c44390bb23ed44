package e2e

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/relchain/relchain/backend/postgres/pgtest"
)

// TestDatabaseLossIsWaitedOutByThatNode_Postgres takes one validator's
// database away under load (its sessions are ended and it refuses new
// ones for a while): a transient fault of that node's database, not a
// transaction's. That node must neither exit nor record the block: it
// says it waits for its database, the other three keep committing, and
// once the database accepts connections again the node goes on by itself
// (no restart), catches up and holds exactly the others' rows, every
// acknowledged write once. (Before issue 32 it stopped for good.)
func TestDatabaseLossIsWaitedOutByThatNode_Postgres(t *testing.T) {
	const phase = 60
	c := mustStartCluster(t, clusterOptions{backend: "postgres", consensusTimeouts: true})
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	c.mustExec(ctx, 0, stmt("CREATE TABLE log (writer INTEGER NOT NULL, seq INTEGER NOT NULL)"))
	c.mustExec(ctx, 0, stmt("CREATE TABLE counter (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)"))
	c.mustExec(ctx, 0, stmt("INSERT INTO counter (id, n) VALUES (1, 0)"))

	admin, err := pgx.Connect(ctx, pgtest.ServerDSN(t))
	if err != nil {
		t.Fatalf("connect to the test server: %v", err)
	}
	t.Cleanup(func() { admin.Close(context.Background()) })
	db := c.pgDatabase(victim)
	allow := func(ctx context.Context, on bool) error {
		_, err := admin.Exec(ctx, fmt.Sprintf("ALTER DATABASE %s ALLOW_CONNECTIONS %t", pgx.Identifier{db}.Sanitize(), on))
		if err != nil {
			return fmt.Errorf("allow connections %t on %s: %w", on, db, err)
		}
		return nil
	}
	// Before the databases are dropped (cleanups run last-registered first).
	t.Cleanup(func() { _ = allow(context.Background(), true) })

	l := startLoad(t, c, []int{0, 1, 2})
	must := func(err error) {
		t.Helper()
		if err != nil {
			l.stopAndWait()
			t.Fatalf("%v (load: %s)", err, l.summary())
		}
	}
	// logSays waits until the victim's log holds want.
	logSays := func(want string) error {
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			if b, _ := os.ReadFile(c.net.LogFile(victim)); strings.Contains(string(b), want) {
				return nil
			}
			select {
			case <-c.net.Exited(victim):
				return fmt.Errorf("%s exited (%v) while its log did not say %q", c.nodes[victim].Name, c.net.ExitError(victim), want)
			case <-ctx.Done():
				return fmt.Errorf("%s's log did not say %q: %w", c.nodes[victim].Name, want, ctx.Err())
			case <-tick.C:
			}
		}
	}
	running := func() error {
		select {
		case <-c.net.Exited(victim):
			return fmt.Errorf("%s exited (%v): a node must wait for its database, not stop", c.nodes[victim].Name, c.net.ExitError(victim))
		default:
			return nil
		}
	}
	must(l.waitAcked(ctx, phase))

	must(allow(ctx, false))
	if _, err := admin.Exec(ctx, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1", db); err != nil {
		t.Fatalf("end %s's sessions: %v", db, err)
	}
	must(logSays("the database is unavailable: the block waits for it"))
	waitingAt := c.maxHeight(ctx, 0, 1, 2)
	t.Logf("%s waits for its database; the others are at height %d (load: %s)", c.nodes[victim].Name, waitingAt, l.summary())
	must(l.waitAcked(ctx, l.ackedCount()+phase))
	must(running())

	back := time.Now()
	must(allow(ctx, true))
	target := c.maxHeight(ctx, 0, 1, 2)
	must(c.net.WaitHeight(ctx, victim, target))
	must(running())
	t.Logf("%s went on by itself and reached the others' height %d %s after its database accepted connections again",
		c.nodes[victim].Name, target, time.Since(back).Round(time.Millisecond))
	must(l.waitAcked(ctx, l.ackedCount()+phase/2))
	l.stopAndWait()
	if len(l.unexpected) > 0 {
		t.Fatalf("valid writes failed with a result code: %v", l.unexpected[:min(5, len(l.unexpected))])
	}

	c.requireAckedOnceEverywhere(ctx, l)
}

// requireAckedOnceEverywhere waits until every node has committed the same
// height with the same AppHash, requires the same rows of the load's
// tables on every node, and every write the load had acknowledged exactly
// once among them. The load must have stopped.
func (c *cluster) requireAckedOnceEverywhere(ctx context.Context, l *load) {
	c.t.Helper()
	const (
		qRows    = "SELECT writer, seq, count(*) FROM log GROUP BY writer, seq ORDER BY writer, seq"
		qCounter = "SELECT (SELECT n FROM counter WHERE id = 1), (SELECT count(*) FROM log)"
	)
	h, res := c.consistentRead(ctx, qRows, qCounter)
	c.requireSameRows(h, qRows, res[0])
	c.requireSameRows(h, qCounter, res[1])
	present := make(map[[2]int64]int64)
	for _, r := range res[0][0] {
		present[[2]int64{asInt(c.t, r[0]), asInt(c.t, r[1])}] = asInt(c.t, r[2])
	}
	for key := range l.acked {
		if present[key] != 1 {
			c.t.Errorf("acknowledged write (writer %d, seq %d) appears %d times (the same on every node)", key[0], key[1], present[key])
		}
	}
	c.t.Logf("all %d nodes agree at height %d: %d acknowledged writes", validators, h, len(l.acked))
}

// pgDatabase is the name of node i's PostgreSQL database.
func (c *cluster) pgDatabase(i int) string {
	c.t.Helper()
	u, err := url.Parse(c.adminDSN(i))
	if err != nil || c.pgDSN == "" {
		c.t.Fatalf("the DSN of %s: %q %v", c.nodes[i].Name, c.pgDSN, err)
	}
	return strings.TrimPrefix(u.Path, "/")
}
