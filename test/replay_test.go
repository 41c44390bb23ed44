package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/client"
	"github.com/relchain/relchain/txn"
)

// A committed bc-transaction is never executed again: not while the
// mempool cache remembers it, and not after every node restarted and the
// cache is gone.
func TestCommittedTxIsNeverReplayed(t *testing.T) {
	c := mustStartCluster(t, clusterOptions{})
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	c.mustExec(ctx, 0, stmt("CREATE TABLE counter (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)"),
		stmt("INSERT INTO counter VALUES (1, 0)"))
	cl := c.client(1, newKey(t))
	raw, err := cl.Sign(ctx, []txn.Statement{stmt("UPDATE counter SET n = n + 1 WHERE id = 1")})
	if err != nil {
		t.Fatal(err)
	}
	res, err := cl.Broadcast(ctx, client.ModeCommit, raw)
	if err != nil || !res.OK() {
		t.Fatalf("first submission: %v %+v", err, res)
	}

	resubmit := func(when string) {
		t.Helper()
		for i := range c.nodes {
			r, err := c.client(i, nil).RPC().BroadcastTxSync(ctx, raw)
			switch {
			case err != nil && strings.Contains(err.Error(), "already exists in cache"):
				// CometBFT's own mempool cache remembered it.
			case err != nil:
				t.Fatalf("%s: resubmit to %s: %v", when, c.nodes[i].Name, err)
			case r.Code != api.CodeReplayed || !strings.Contains(r.Log, "already executed"):
				t.Fatalf("%s: resubmit to %s: code %d log %q, want code %d (replayed)", when, c.nodes[i].Name, r.Code, r.Log, api.CodeReplayed)
			}
		}
	}
	resubmit("while running")

	c.net.StopAll()
	if err := c.net.StartAll(); err != nil {
		t.Fatalf("restart: %v", err)
	}
	if err := c.net.WaitReady(ctx); err != nil {
		t.Fatalf("after restart: %v", err)
	}
	resubmit("after restarting every node")
	for i := range c.nodes {
		r, err := c.client(i, nil).RPC().BroadcastTxSync(ctx, raw)
		if err != nil || r.Code != api.CodeReplayed {
			t.Fatalf("after restart %s: code %v err %v, want code %d from CheckTx (the cache is gone)", c.nodes[i].Name, r, err, api.CodeReplayed)
		}
	}

	// The counter moved exactly once, on every node.
	h, perNode := c.consistentRead(ctx, "SELECT n FROM counter WHERE id = 1")
	for i, rows := range perNode {
		if got := asInt(t, rows[0][0][0]); got != 1 {
			t.Fatalf("%s at height %d: n = %d, want 1", c.nodes[i].Name, h, got)
		}
	}
}
