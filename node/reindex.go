package node

import (
	"fmt"

	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/cometbft/cometbft/libs/log"
	"github.com/cometbft/cometbft/state/indexer"
	"github.com/cometbft/cometbft/state/txindex"
	"github.com/cometbft/cometbft/state/txindex/null"
	"github.com/cometbft/cometbft/types"
)

// CometBFT indexes a block's events and txs after it committed, from its
// event bus; a node killed between a block's commit and its indexing
// keeps the block and its results but never indexes them (nothing fires
// their events again). A tx of such a block is then missing from the
// node's tx index for good: a client's resubmission of it is answered as
// if it never committed. Before the node starts, catchUpIndex indexes
// again the newest blocks the index lacks, from the block store and the
// results the state store keeps (what `cometbft reindex-event` does).

// maxIndexCatchUp bounds the newest blocks catchUpIndex looks at: the
// indexer lags the commits by a few blocks at most.
const maxIndexCatchUp = 64

// blockSource is what catchUpIndex reads of the block and state stores.
type blockSource interface {
	Base() int64
	Height() int64
	LoadBlock(height int64) *types.Block
}

// resultSource gives a block's results as the state store keeps them.
type resultSource interface {
	LoadFinalizeBlockResponse(height int64) (*abci.ResponseFinalizeBlock, error)
}

// catchUpIndex indexes the newest blocks the indexers lack (at most
// maxIndexCatchUp) and returns the heights it indexed.
func catchUpIndex(blocks blockSource, results resultSource, txs txindex.TxIndexer, blockIdx indexer.BlockIndexer) ([]int64, error) {
	if _, off := txs.(*null.TxIndex); off || txs == nil || blockIdx == nil {
		return nil, nil
	}
	top, from := blocks.Height(), blocks.Height()+1
	for h := top; h >= max(blocks.Base(), 1) && h > top-maxIndexCatchUp; h-- {
		done, err := indexed(blocks.LoadBlock(h), txs, blockIdx)
		if err != nil {
			return nil, err
		}
		if done {
			break
		}
		from = h
	}
	var out []int64
	for h := from; h <= top; h++ {
		ok, err := reindexBlock(blocks.LoadBlock(h), results, txs, blockIdx)
		if err != nil {
			return out, fmt.Errorf("index block %d again: %w", h, err)
		}
		if ok {
			out = append(out, h)
		}
	}
	return out, nil
}

// indexed reports whether block b's events and txs are in the indexes
// (its last tx, for a block with txs: the indexer writes them after the
// block's events, all in one batch).
func indexed(b *types.Block, txs txindex.TxIndexer, blockIdx indexer.BlockIndexer) (bool, error) {
	if b == nil {
		return false, nil
	}
	if n := len(b.Txs); n > 0 {
		r, err := txs.Get(b.Txs[n-1].Hash())
		return r != nil, err
	}
	return blockIdx.Has(b.Height)
}

// reindexBlock indexes block b's events and txs from its kept results;
// false when the state store keeps none (a block not applied yet: the
// handshake applies it, firing its events).
func reindexBlock(b *types.Block, results resultSource, txs txindex.TxIndexer, blockIdx indexer.BlockIndexer) (bool, error) {
	if b == nil {
		return false, nil
	}
	resp, err := results.LoadFinalizeBlockResponse(b.Height)
	if err != nil || resp == nil || len(resp.TxResults) != len(b.Txs) {
		return false, nil
	}
	if err := blockIdx.Index(types.EventDataNewBlockEvents{Height: b.Height, Events: resp.Events, NumTxs: int64(len(b.Txs))}); err != nil {
		return false, err
	}
	batch := txindex.NewBatch(int64(len(b.Txs)))
	for i, tx := range b.Txs {
		r := &abci.TxResult{Height: b.Height, Index: uint32(i), Tx: tx, Result: *resp.TxResults[i]}
		if err := batch.Add(r); err != nil {
			return false, err
		}
	}
	return true, txs.AddBatch(batch)
}

// logCatchUp reports what catchUpIndex did.
func logCatchUp(logger log.Logger, heights []int64, err error) {
	switch {
	case err != nil:
		logger.Error("relchain: could not index again the blocks the tx index lacks; `cometbft reindex-event` can", "err", err)
	case len(heights) > 0:
		logger.Info("relchain: indexed again the blocks committed before a stop but not indexed", "from", heights[0], "to", heights[len(heights)-1])
	}
}
