package e2e

import (
	"context"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/relchain/relchain/client"
	"github.com/relchain/relchain/netctl"
	"github.com/relchain/relchain/node"
	"github.com/relchain/relchain/txn"
)

// A node that starts behind its peers block-syncs before it runs
// consensus, and /readyz says 503 until it has caught up. The network is
// ready (netctl's WaitReady: what `relchain localnet` waits for before it
// prints "ready", and every cluster test before its first write) only when
// each node has caught up, not as soon as each has a block: CI once saw
// localnet's node answer /readyz with 503 after "ready".
func TestNetworkIsReadyOnlyOnceEveryNodeCaughtUp(t *testing.T) {
	runAlone(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	nodes, err := netctl.Generate(netctl.Options{Validators: 4, Dir: filepath.Join(t.TempDir(), "net"), Tuning: node.DefaultTuning()})
	if err != nil {
		t.Fatal(err)
	}
	net := netctl.NewNetwork(relchainBin, nodes)
	t.Cleanup(net.StopAll)
	for i := range 3 {
		if err := net.Start(i); err != nil {
			t.Fatal(err)
		}
	}
	if err := net.WaitHeight(ctx, 0, 1); err != nil {
		t.Fatal(err)
	}
	// An idle network makes no blocks: writes make node 3 fall behind.
	writer, err := client.New(nodes[0].RPC, newKey(t))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 6 {
		sql := "INSERT INTO t (id) VALUES (" + strconv.Itoa(i) + ")"
		if i == 0 {
			sql = "CREATE TABLE t (id INTEGER PRIMARY KEY)"
		}
		if _, err := writer.Exec(ctx, client.ModeCommit, txn.Statement{SQL: sql}); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	// Node 3 joins three validators some blocks ahead of it.
	if err := net.Start(3); err != nil {
		t.Fatal(err)
	}
	if err := net.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	c, err := client.New(nodes[3].RPC, nil)
	if err != nil {
		t.Fatal(err)
	}
	st, err := c.RPC().Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.SyncInfo.CatchingUp {
		t.Fatalf("WaitReady returned while node3 was still catching up (at height %d)", st.SyncInfo.LatestBlockHeight)
	}
	t.Logf("node3 caught up at height %d", st.SyncInfo.LatestBlockHeight)
}
