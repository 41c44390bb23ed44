// Resubmissions of committed txs: CheckTx tells "these very bytes are
// already committed" (CodeCommitted) from "another tx used this nonce"
// (CodeReplayed) by asking the node's tx index, so that a client retrying
// an unknown outcome is never told its committed write failed.

package app

import (
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/txn"
)

// CommittedTx is what a node's tx index records of a committed
// bc-transaction: the block it is in and its result code there.
type CommittedTx struct {
	Height int64
	Code   uint32
}

// ErrTxIndexOff is wrapped by a TxIndex's error when the node does not
// index txs (CometBFT's config.toml [tx_index] indexer = "null").
var ErrTxIndexOff = errors.New(`this node does not index transactions (config.toml [tx_index] indexer = "null")`)

// TxIndex looks a committed bc-transaction up by its hash (the SHA-256 of
// its bytes, txn.Hash) in the node's tx index: ok false when the index
// holds no tx of that hash; an error when the index cannot answer (it is
// off: ErrTxIndexOff; or unreadable). It is node-local and may lag the
// last block by a moment: it may only inform a CheckTx answer, never a
// block's result.
type TxIndex func(hash []byte) (tx CommittedTx, ok bool, err error)

// SetTxIndex gives CheckTx the node's tx index (the node sets it before
// it starts; without one, a committed tx resubmitted is refused with
// CodeReplayed, as a reused nonce is). Safe to call at any time.
func (a *App) SetTxIndex(f TxIndex) { a.txIndex.Store(&f) }

// committedRejection turns CheckTx's replay refusal of raw into
// CodeCommitted when the node's tx index holds raw itself: the same
// bytes, committed at a height with a code. Otherwise (another tx used
// the nonce, no index, the index cannot answer) the refusal stands, with
// a note on why the index could not tell.
func (a *App) committedRejection(raw []byte, rej *Rejection) *Rejection {
	if rej.Code != api.CodeReplayed {
		return rej
	}
	p := a.txIndex.Load()
	if p == nil || *p == nil {
		return rej
	}
	hash := txn.Hash(raw)
	tx, ok, err := (*p)(hash)
	switch {
	case err != nil:
		out := *rej
		out.Detail = strings.TrimPrefix(out.Detail+"; ", "; ") + "whether this very transaction committed could not be looked up: " + err.Error()
		return &out
	case !ok:
		return rej
	}
	return &Rejection{Code: api.CodeCommitted, Reason: fmt.Sprintf(
		"transaction %s is already committed, in block %d with code %d (%s); look it up by hash (tx RPC, relchain tx) for its result",
		strings.ToUpper(hex.EncodeToString(hash)), tx.Height, tx.Code, api.CodeName(tx.Code))}
}
