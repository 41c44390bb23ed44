package e2e

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/relchain/relchain/client"
	"github.com/relchain/relchain/netctl"
)

// TestStateSyncCrashWindowHeals kills (as kill -9) a node that joins by
// state sync between the snapshot's restore and its first block, at the two
// points of that window, and starts it again with nothing changed: it must
// resume on its own and catch up. Before the fix, a node killed after
// CometBFT recorded the state-synced state panicked on every start ("state
// (H) and store (0) height mismatch", CometBFT #1077), and one killed before
// that started state sync anew and waited forever (its database already held
// the snapshot).
func TestStateSyncCrashWindowHeals(t *testing.T) {
	c := mustStartCluster(t, clusterOptions{checkpointEvery: 10, testHooks: true})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	c.mustExec(ctx, 0, stmt("CREATE TABLE acct (id INTEGER PRIMARY KEY, bal INTEGER NOT NULL)"))
	c.mustExec(ctx, 0, stmt("WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < 500) INSERT INTO acct SELECT i, i FROM s"))
	loaded := c.maxHeight(ctx, 0)
	// Blocks come only with txs: a writer keeps them coming, for the
	// checkpoints, the headers that verify a snapshot and the joiners to
	// catch up with.
	writes := keepWriting(ctx, t, c, "UPDATE acct SET bal = bal + 1 WHERE id = 1")
	if err := waitFor(ctx, "a checkpoint with the loaded rows", func() bool { return c.newestCheckpoint(t, 0) >= loaded }); err != nil {
		t.Fatal(err)
	}

	for n, point := range []string{"statesync-restored", "statesync-bootstrapped"} {
		name := fmt.Sprintf("node%d", 4+n)
		info, err := netctl.AddNode(ctx, netctl.JoinOptions{Dir: c.dir, Name: name, StateSync: true})
		if err != nil {
			t.Fatal(err)
		}
		joiner := c.net.Add(info)
		c.nodes = c.net.Nodes
		for len(c.net.NodeEnv) <= joiner {
			c.net.NodeEnv = append(c.net.NodeEnv, nil)
		}
		c.net.NodeEnv[joiner] = []string{"RELCHAIN_UNSAFE_CRASH_AT=" + point}
		if err := c.net.Start(joiner); err != nil {
			t.Fatal(err)
		}
		if err := waitFor(ctx, name+" to die at "+point, func() bool { return !c.net.Running(joiner) }); err != nil {
			t.Fatal(err)
		}
		log, _ := os.ReadFile(c.net.LogFile(joiner))
		if !strings.Contains(string(log), "restored and verified the snapshot") {
			t.Fatalf("%s stopped before it restored a snapshot (%v):\n%s", name, c.net.ExitError(joiner), tail(log, 3000))
		}
		// Started again as it was: it must resume by itself.
		c.net.NodeEnv[joiner] = nil
		if err := c.net.Start(joiner); err != nil {
			t.Fatal(err)
		}
		// Its block store must grow past the network's height (the app's
		// height alone is the restored snapshot's).
		target := c.maxHeight(ctx, 0, 1, 2, 3)
		cl := c.client(joiner, nil)
		if err := waitFor(ctx, name+" to store blocks up to "+fmt.Sprint(target), func() bool {
			st, err := cl.RPC().Status(ctx)
			return (err == nil && st.SyncInfo.LatestBlockHeight >= target) || !c.net.Running(joiner)
		}); err != nil || !c.net.Running(joiner) {
			log, _ := os.ReadFile(c.net.LogFile(joiner))
			t.Fatalf("%s killed at %s did not resume (%v, exit %v):\n%s", name, point, err, c.net.ExitError(joiner), tail(log, 4000))
		}
		log, err = os.ReadFile(c.net.LogFile(joiner))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(log), "a state sync was interrupted") {
			t.Fatalf("%s resumed without the interrupted state sync being noticed:\n%s", name, tail(log, 4000))
		}
		t.Logf("%s killed at %s resumed and reached height %d", name, point, target)
	}
	if n := writes(); n == 0 {
		t.Fatal("no write committed during the joins")
	}
	h, got := c.consistentRead(ctx, "SELECT count(*), sum(bal) FROM acct")
	c.requireSameRows(h, "acct", got[0])
}

// keepWriting commits sql through node 1 in a loop until the test ends; the
// function it returns stops it and reports how many writes committed.
func keepWriting(ctx context.Context, t *testing.T, c *cluster, sql string) func() int64 {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan int64, 1)
	go func() {
		cl := c.client(1, newKey(t))
		var n int64
		pace := time.NewTicker(50 * time.Millisecond) // a load, not a flood
		defer pace.Stop()
		for ctx.Err() == nil {
			res, err := cl.Exec(ctx, client.ModeCommit, stmt(sql))
			if err == nil && res.Err() == nil {
				n++
			}
			select {
			case <-ctx.Done():
			case <-pace.C:
			}
		}
		done <- n
	}()
	var total int64 = -1
	stop := func() int64 {
		if total < 0 {
			cancel()
			total = <-done
		}
		return total
	}
	t.Cleanup(func() { stop() })
	return stop
}
