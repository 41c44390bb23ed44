package client

import (
	"context"
	"testing"
	"time"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/txn"
)

// A commit-mode wait whose tx a mempool recheck evicted (another process
// of its key used the nonce) ends on an idle chain: the probe's
// resubmission is refused as a replay, the tx index of a node holding the
// whole chain has no such tx, so the refusal is the outcome. Before, only
// a block count ended such a wait, and on an idle chain none came
// (TestGatewaySignerRecoversFromAnotherProcessOfItsKey hung 28 minutes in
// CI). Through the block follower and by polling alike.
func TestCommitWaitEndsWhenTheProbeIsRefusedAsAReplay(t *testing.T) {
	for _, path := range []string{"follower", "polling"} {
		t.Run(path, func(t *testing.T) {
			submits := 0
			node := &fakeNode{earliest: 1, decide: func([]byte) (uint32, string) {
				submits++
				if submits == 1 {
					return api.CodeOK, "" // in the mempool, then evicted
				}
				return api.CodeReplayed, ""
			}}
			var events eventSource // nil: the follower polls, and so does the wait
			if path == "follower" {
				events = &fakeEvents{subs: make(chan *fakeSub, 10)}
			}
			c, _ := probingClient(t, node, events, 2) // and no block after: an idle chain
			if path == "follower" {
				waitUntil(t, "a live subscription", func() bool {
					f, err := c.acquireFollower(context.Background())
					if err != nil {
						return false
					}
					defer releaseFollower(f)
					return f.isLive()
				})
			}
			tx := &txn.Tx{ChainID: "fake", Nonce: 1, Statements: []txn.Statement{{SQL: "INSERT INTO t VALUES (1)"}}}
			tx.Sign(c.key)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			res, err := c.broadcastCommit(ctx, txn.Encode(tx))
			if err != nil {
				t.Fatalf("wait ended with %v, want the replay refusal", err)
			}
			if res == nil || res.Code != api.CodeReplayed || res.Height != 0 {
				t.Fatalf("wait ended with %+v, want the replay refusal (code %d, no height)", res, api.CodeReplayed)
			}
			node.mu.Lock()
			defer node.mu.Unlock()
			if submits < 2 {
				t.Fatalf("%d submissions: the probe never resubmitted", submits)
			}
		})
	}
}
