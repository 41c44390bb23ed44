package e2e

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/relchain/relchain/txn"
)

// With one of four validators stopped the network keeps committing: each
// height whose proposer is the stopped validator moves on to the next
// proposer after relchain's timeout_propose and timeout_precommit
// (node.DefaultTuning), and every write commits on the three that run.
func TestNetworkCommitsWithOneValidatorStopped(t *testing.T) {
	c := mustStartCluster(t, clusterOptions{consensusTimeouts: true})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c.mustExec(ctx, 0, stmt("CREATE TABLE absent_log (seq INTEGER PRIMARY KEY, via INTEGER NOT NULL)"))
	if err := c.net.Kill(victim); err != nil {
		t.Fatalf("kill %s: %v", c.nodes[victim].Name, err)
	}
	from := c.maxHeight(ctx, 0, 1, 2)

	// Each write is its own block plus the block that carries its AppHash:
	// 16 writes span over 30 heights, so the stopped validator's turn as
	// proposer comes several times.
	const writes = 16
	last := from
	insert := "INSERT INTO absent_log (seq, via) VALUES (" + c.ph(1) + ", " + c.ph(2) + ")"
	for i := range writes {
		via := i % victim // nodes 0, 1 and 2
		res := c.mustExec(ctx, via, stmt(insert, txn.Int(int64(i)), txn.Int(int64(via))))
		if res.Height <= last {
			t.Fatalf("write %d through %s committed at height %d, not above the previous %d", i, c.nodes[via].Name, res.Height, last)
		}
		last = res.Height
	}

	later := 0
	obs := c.client(0, nil)
	for h := from + 1; h <= last; h++ {
		cm, err := obs.RPC().Commit(ctx, &h)
		if err != nil {
			t.Fatalf("commit %d: %v", h, err)
		}
		if cm.Commit.Round > 0 {
			later++
		}
	}
	if later == 0 {
		t.Fatalf("heights %d-%d were all decided in round 0: the stopped validator never was the proposer", from+1, last)
	}
	t.Logf("%d writes over heights %d-%d, %d of them decided past round 0 (the stopped proposer's turns)", writes, from+1, last, later)

	const q = "SELECT count(*), sum(seq), sum(via) FROM absent_log"
	var want []any
	for i := range victim {
		res, err := c.client(i, nil).Query(ctx, last, q)
		if err != nil {
			t.Fatalf("%s: %s: %v", c.nodes[i].Name, q, err)
		}
		if len(res.Rows) != 1 {
			t.Fatalf("%s: %s: %d rows", c.nodes[i].Name, q, len(res.Rows))
		}
		if i == 0 {
			want = res.Rows[0]
			if n := asInt(t, want[0]); n != writes {
				t.Fatalf("%s at height %d: %d rows, want %d", c.nodes[i].Name, res.Height, n, writes)
			}
			if s := asInt(t, want[1]); s != writes*(writes-1)/2 {
				t.Fatalf("%s at height %d: sum(seq) = %d, want %d", c.nodes[i].Name, res.Height, s, writes*(writes-1)/2)
			}
			continue
		}
		if !reflect.DeepEqual(res.Rows[0], want) {
			t.Fatalf("%s: %s = %v, %s has %v", c.nodes[i].Name, q, res.Rows[0], c.nodes[0].Name, want)
		}
	}
}
