package node

import (
	"testing"

	dbm "github.com/cometbft/cometbft-db"
	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/cometbft/cometbft/state/txindex"
	"github.com/cometbft/cometbft/state/txindex/kv"
	"github.com/cometbft/cometbft/types"

	"github.com/relchain/relchain/api"
)

// A tx included again after it committed (a proposer's replay, refused
// as code 8) must not hide its committed outcome from lookups by hash:
// CometBFT's kv indexer overwrites a hash's entry with its latest
// inclusion; the node's tx_index database keeps the first outcome. Run
// on CometBFT's real kv indexer, as the indexer service calls it.
func TestTxIndexKeepsTheFirstOutcome(t *testing.T) {
	ix := kv.NewTxIndex(&firstOutcomeDB{trackedDB: &trackedDB{DB: dbm.NewMemDB()}})
	index := func(height int64, results ...*abci.TxResult) {
		t.Helper()
		b := txindex.NewBatch(int64(len(results)))
		for i, r := range results {
			r.Height, r.Index = height, uint32(i)
			if err := b.Add(r); err != nil {
				t.Fatal(err)
			}
		}
		if err := ix.AddBatch(b); err != nil {
			t.Fatal(err)
		}
	}
	get := func(tx []byte) *abci.TxResult {
		t.Helper()
		r, err := ix.Get(types.Tx(tx).Hash())
		if err != nil || r == nil {
			t.Fatalf("get %q: %v %v", tx, r, err)
		}
		return r
	}
	result := func(tx string, code uint32) *abci.TxResult {
		return &abci.TxResult{Tx: []byte(tx), Result: abci.ExecTxResult{Code: code}}
	}
	index(5, result("ok", api.CodeOK), result("failed", api.CodeExecFailed), result("refused", api.CodeReplayed))
	// Height 7 includes all three again (refused as replays), and "ok"
	// twice; "new" appears for the first time, refused.
	index(7, result("ok", api.CodeReplayed), result("failed", api.CodeReplayed), result("refused", api.CodeReplayed),
		result("ok", api.CodeReplayed), result("new", api.CodeReplayed))
	// Height 9 includes "fresh" twice in one block: executed, then refused.
	index(9, result("fresh", api.CodeOK), result("fresh", api.CodeReplayed))
	for _, c := range []struct {
		tx     string
		height int64
		code   uint32
	}{
		{"ok", 5, api.CodeOK},
		{"failed", 5, api.CodeExecFailed},
		{"refused", 5, api.CodeReplayed},
		{"new", 7, api.CodeReplayed},
		{"fresh", 9, api.CodeOK},
	} {
		if r := get([]byte(c.tx)); r.Height != c.height || r.Result.Code != c.code {
			t.Errorf("%s: indexed at height %d with code %d, want height %d code %d", c.tx, r.Height, r.Result.Code, c.height, c.code)
		}
	}
	// A later successful inclusion still replaces a refusal (CometBFT's
	// own rule for the non-batch path keeps a success too).
	index(11, result("new", api.CodeOK))
	if r := get([]byte("new")); r.Height != 11 || r.Result.Code != api.CodeOK {
		t.Errorf("new after a success: height %d code %d, want 11 and 0", r.Height, r.Result.Code)
	}
	// Lookups through the adapter CheckTx uses.
	tx, ok, err := indexLookup(ix)(types.Tx("ok").Hash())
	if err != nil || !ok || tx.Height != 5 || tx.Code != api.CodeOK {
		t.Errorf("indexLookup(ok) = %+v %v %v, want height 5 code 0", tx, ok, err)
	}
	if _, ok, err := indexLookup(ix)(types.Tx("absent").Hash()); ok || err != nil {
		t.Errorf("indexLookup(absent) = %v %v, want not found", ok, err)
	}
}
