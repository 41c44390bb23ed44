//go:build testhooks

package node

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/cometbft/cometbft/libs/log"

	"github.com/relchain/relchain/app"
)

// A byzantine proposer puts the injected txs first, unchecked, removes
// their files, and proposes the mempool's txs in the bytes left.
func TestByzantineProposerInjectsFirst(t *testing.T) {
	ctx := context.Background()
	be, err := OpenBackend(ctx, t.TempDir(), DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	ex, err := app.NewExecutor(ctx, be, "c", app.DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { be.Close() })
	dir := t.TempDir()
	for _, n := range []string{"b.tx", "a.tx"} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("injected "+n), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	a := hookOptions{injectDir: dir}.wrap(app.New(ex, log.NewNopLogger()), log.NewNopLogger())
	mempool := [][]byte{bytes.Repeat([]byte("m"), 10), bytes.Repeat([]byte("n"), 10)}
	res, err := a.PrepareProposal(ctx, &abci.RequestPrepareProposal{Height: 1, Txs: mempool, MaxTxBytes: 36})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"injected a.tx", "injected b.tx", "mmmmmmmmmm"}
	if len(res.Txs) != len(want) {
		t.Fatalf("proposal %q, want %q", res.Txs, want)
	}
	for i := range want {
		if string(res.Txs[i]) != want[i] {
			t.Fatalf("proposal %q, want %q", res.Txs, want)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*.tx")); len(left) != 0 {
		t.Errorf("files left after proposing: %v", left)
	}
	// Nothing more to inject: the app's own proposal.
	if res, _ := a.PrepareProposal(ctx, &abci.RequestPrepareProposal{Height: 2, Txs: mempool, MaxTxBytes: 36}); len(res.Txs) != 2 {
		t.Errorf("second proposal %q, want the mempool's two txs", res.Txs)
	}
}
