package node

import (
	"crypto/sha256"
	"fmt"

	dbm "github.com/cometbft/cometbft-db"
	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/cometbft/cometbft/libs/log"
	nm "github.com/cometbft/cometbft/node"
	"github.com/cometbft/cometbft/state/txindex"
	"github.com/cometbft/cometbft/state/txindex/null"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/app"
)

// attachTxIndex first indexes the blocks a kill left out of the CometBFT
// node's tx index (catchUpIndex), then hands the index to the app's
// CheckTx, which asks it whether a resubmitted tx is already committed
// (app.TxIndex; none if the node cannot hand it out). The index is
// read-only there and node-local: it decides only which refusal CheckTx
// answers (CodeCommitted or CodeReplayed), never a block's result.
func attachTxIndex(n *nm.Node, a *app.App, logger log.Logger) {
	env, err := n.ConfigureRPC()
	if err != nil || env.TxIndexer == nil {
		a.SetTxIndex(nil)
		return
	}
	heights, err := catchUpIndex(env.BlockStore, env.StateStore, env.TxIndexer, env.BlockIndexer)
	logCatchUp(logger, heights, err)
	a.SetTxIndex(indexLookup(env.TxIndexer))
}

// indexLookup adapts a CometBFT tx indexer. CometBFT's kv indexer panics
// when its database fails (closed while the node stops, say): that is an
// error here, never a crash of CheckTx.
func indexLookup(ix txindex.TxIndexer) app.TxIndex {
	if _, off := ix.(*null.TxIndex); off {
		return func([]byte) (app.CommittedTx, bool, error) { return app.CommittedTx{}, false, app.ErrTxIndexOff }
	}
	return func(hash []byte) (tx app.CommittedTx, ok bool, err error) {
		defer func() {
			if r := recover(); r != nil {
				tx, ok, err = app.CommittedTx{}, false, fmt.Errorf("read the tx index: %v", r)
			}
		}()
		r, err := ix.Get(hash)
		if err != nil {
			return app.CommittedTx{}, false, fmt.Errorf("read the tx index: %w", err)
		}
		if r == nil {
			return app.CommittedTx{}, false, nil
		}
		return app.CommittedTx{Height: r.Height, Code: r.Result.Code}, true, nil
	}
}

// firstOutcomeDB is the tx index's database (CometBFT's "tx_index"),
// keeping a tx hash's first recorded outcome against a later inclusion
// of the same bytes that a block refused as a replay (code 8). CometBFT's
// kv indexer writes a block's txs with AddBatch, which overwrites a
// hash's entry with its latest inclusion: a proposer that includes a
// committed tx again (it fails there as a replay) would otherwise hide
// the committed outcome from every lookup by hash (the tx RPC, CheckTx's
// CodeCommitted, a client's resubmission). Only the by-hash entry is
// kept; the later inclusion's height and event entries are written as
// CometBFT writes them. Node-local: the index is no consensus state.
type firstOutcomeDB struct {
	*trackedDB
}

func (d *firstOutcomeDB) Set(k, v []byte) error {
	if d.keep(k, v, nil) {
		return nil
	}
	return d.trackedDB.Set(k, v)
}

func (d *firstOutcomeDB) SetSync(k, v []byte) error {
	if d.keep(k, v, nil) {
		return nil
	}
	return d.trackedDB.SetSync(k, v)
}

func (d *firstOutcomeDB) NewBatch() dbm.Batch {
	return &firstOutcomeBatch{Batch: d.trackedDB.NewBatch(), db: d, set: map[string]bool{}}
}

// keep reports whether writing v at k must be skipped: k is a tx hash, v
// that tx's result with code 8, and the index (or the batch, set) already
// holds an outcome for it.
func (d *firstOutcomeDB) keep(k, v []byte, set map[string]bool) bool {
	if len(k) != sha256.Size {
		return false
	}
	var r abci.TxResult
	if r.Unmarshal(v) != nil || sha256.Sum256(r.Tx) != [sha256.Size]byte(k) {
		return false
	}
	if set != nil && set[string(k)] {
		return r.Result.Code == api.CodeReplayed
	}
	if set != nil {
		set[string(k)] = true
	}
	if r.Result.Code != api.CodeReplayed {
		return false
	}
	old, err := d.DB.Get(k)
	return err == nil && old != nil
}

// firstOutcomeBatch is a batch of firstOutcomeDB; set holds the tx hashes
// it already carries (a block may hold the same bytes twice).
type firstOutcomeBatch struct {
	dbm.Batch
	db  *firstOutcomeDB
	set map[string]bool
}

func (b *firstOutcomeBatch) Set(k, v []byte) error {
	if b.db.keep(k, v, b.set) {
		return nil
	}
	return b.Batch.Set(k, v)
}
