package node

import (
	"errors"
	"slices"
	"testing"

	dbm "github.com/cometbft/cometbft-db"
	abci "github.com/cometbft/cometbft/abci/types"
	blockidxkv "github.com/cometbft/cometbft/state/indexer/block/kv"
	"github.com/cometbft/cometbft/state/txindex/kv"
	"github.com/cometbft/cometbft/types"
)

// fakeChain is a block store and a state store of blocks 1 to len:
// block h holds h-1 txs; results are kept for the heights in applied.
type fakeChain struct {
	blocks  []*types.Block
	applied map[int64]bool
}

func (c *fakeChain) Base() int64   { return 1 }
func (c *fakeChain) Height() int64 { return int64(len(c.blocks)) }
func (c *fakeChain) LoadBlock(h int64) *types.Block {
	if h < 1 || h > c.Height() {
		return nil
	}
	return c.blocks[h-1]
}

func (c *fakeChain) LoadFinalizeBlockResponse(h int64) (*abci.ResponseFinalizeBlock, error) {
	if !c.applied[h] {
		return nil, errors.New("no results")
	}
	resp := &abci.ResponseFinalizeBlock{}
	for i := range c.blocks[h-1].Txs {
		resp.TxResults = append(resp.TxResults, &abci.ExecTxResult{Code: uint32(i), Data: []byte{byte(h)}})
	}
	return resp, nil
}

// A node killed after committing blocks but before indexing them indexes
// them again at its next start: the txs of every applied block are found
// by hash with their results, a block not applied yet is left to the
// handshake, and a second start indexes nothing.
func TestCatchUpIndexesTheBlocksAKillLeftOut(t *testing.T) {
	c := &fakeChain{applied: map[int64]bool{}}
	for h := int64(1); h <= 5; h++ {
		var txs types.Txs
		for i := int64(1); i < h; i++ {
			txs = append(txs, types.Tx{byte(h), byte(i)})
		}
		c.blocks = append(c.blocks, &types.Block{Header: types.Header{Height: h}, Data: types.Data{Txs: txs}})
		c.applied[h] = h < 5 // block 5 is stored, not applied
	}
	store := dbm.NewMemDB()
	txs := kv.NewTxIndex(&firstOutcomeDB{trackedDB: &trackedDB{DB: store}})
	blocks := blockidxkv.New(dbm.NewPrefixDB(store, []byte("block_events")))
	// Blocks 1 and 2 were indexed before the kill; 3 and 4 were not.
	for _, h := range []int64{1, 2} {
		if ok, err := reindexBlock(c.LoadBlock(h), c, txs, blocks); !ok || err != nil {
			t.Fatalf("index block %d: %v %v", h, ok, err)
		}
	}
	if r, _ := txs.Get(c.blocks[3].Txs[0].Hash()); r != nil {
		t.Fatal("block 4's tx is indexed before the catch-up")
	}
	got, err := catchUpIndex(c, c, txs, blocks)
	if err != nil || !slices.Equal(got, []int64{3, 4}) {
		t.Fatalf("catch-up indexed %v (%v), want blocks 3 and 4", got, err)
	}
	for h := int64(2); h <= 4; h++ {
		for i, tx := range c.blocks[h-1].Txs {
			r, err := txs.Get(tx.Hash())
			if err != nil || r == nil || r.Height != h || r.Index != uint32(i) || r.Result.Code != uint32(i) {
				t.Fatalf("tx %d of block %d after the catch-up: %+v %v", i, h, r, err)
			}
		}
	}
	if ok, err := blocks.Has(4); !ok || err != nil {
		t.Fatalf("block 4's events after the catch-up: %v %v", ok, err)
	}
	if got, err := catchUpIndex(c, c, txs, blocks); err != nil || len(got) != 0 {
		t.Fatalf("a second catch-up indexed %v (%v), want nothing", got, err)
	}
}
