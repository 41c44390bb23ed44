package node

import (
	"fmt"

	nm "github.com/cometbft/cometbft/node"
	"github.com/cometbft/cometbft/state/txindex"
	"github.com/cometbft/cometbft/state/txindex/null"

	"github.com/relchain/relchain/app"
)

// txIndexOf is the CometBFT node's tx index as the app's CheckTx asks it
// whether a resubmitted tx is already committed (app.TxIndex), or nil if
// the node cannot hand it out. It is read-only and node-local: it decides
// only which refusal CheckTx answers (CodeCommitted or CodeReplayed), never
// a block's result.
func txIndexOf(n *nm.Node) app.TxIndex {
	env, err := n.ConfigureRPC()
	if err != nil || env.TxIndexer == nil {
		return nil
	}
	return indexLookup(env.TxIndexer)
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
