package node

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/cometbft/cometbft/libs/log"

	"github.com/relchain/relchain/app"
)

// Stop releases everything the node holds (CometBFT leaves its tx
// indexer's database open), so that the same home opens again in this
// process, as Recover and a restart need.
func TestNodeStopReleasesTheHome(t *testing.T) {
	home := t.TempDir()
	// CometBFT's address book writes its file once more after Stop has
	// returned (its save routine is not waited for): remove the home
	// until that write is over, or t.TempDir's removal races with it.
	t.Cleanup(func() {
		for i := 0; i < 100 && os.RemoveAll(home) != nil; i++ {
			time.Sleep(20 * time.Millisecond)
		}
	})
	if _, err := Init(home, InitOptions{Params: app.DefaultParams(), Tuning: DefaultTuning()}); err != nil {
		t.Fatal(err)
	}
	cc, rc, err := LoadConfig(home)
	if err != nil {
		t.Fatal(err)
	}
	cc.RPC.ListenAddress = "tcp://127.0.0.1:0"
	cc.P2P.ListenAddress = "tcp://127.0.0.1:0"
	if err := SaveConfig(home, cc, rc); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for i := 0; i < 2; i++ {
		n, err := New(ctx, home, log.NewNopLogger())
		if err != nil {
			t.Fatalf("open the home (time %d): %v", i+1, err)
		}
		if err := n.Start(); err != nil {
			t.Fatalf("start (time %d): %v", i+1, err)
		}
		if err := n.Stop(); err != nil {
			t.Fatalf("stop (time %d): %v", i+1, err)
		}
		select {
		case err := <-n.Halted():
			t.Fatalf("a node stopped on request reports %v", err)
		default:
		}
	}
}
