package client

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/relchain/relchain/api"
)

// ErrOutcomeUnknown is wrapped by the error of a resubmitted tx whose
// outcome the node could not tell: its nonce is used, but the node's tx
// index cannot say whether by this very tx (the node does not index txs,
// config.toml [tx_index] indexer = "null"; or the lookup failed). It is
// not a failure of the tx: look it up by hash on a node that indexes
// (Client.Tx, relchain tx HASH).
var ErrOutcomeUnknown = errors.New("outcome of the transaction unknown")

// errIndexOff is the tx RPC's answer when the node does not index txs.
var errIndexOff = errors.New(`the node does not index transactions (config.toml [tx_index] indexer = "null")`)

// indexLagTries is how often a refused resubmission is looked up in the
// node's tx index before the refusal is taken as final: the node indexes
// a block's txs just after committing it, so a tx committed a moment ago
// may be missing from the index for a few milliseconds.
var indexLagTries = []time.Duration{0, 50 * time.Millisecond, 150 * time.Millisecond, 400 * time.Millisecond, time.Second}

// findTx looks hash (upper-case hex) up in the node's tx index: the
// committed result and its index in its block, or an error wrapping
// ErrTxNotFound (no committed tx of that hash) or errIndexOff.
func (c *Client) findTx(ctx context.Context, hash string) (*Result, int, error) {
	h, err := hex.DecodeString(hash)
	if err != nil || len(h) != 32 {
		return nil, 0, fmt.Errorf("tx hash %q: want 64 hex digits (the SHA-256 that exec prints)", hash)
	}
	r, err := c.rpc.Tx(ctx, h, false)
	switch {
	case err == nil:
		return ExecResult(hash, r.Height, &r.TxResult), int(r.Index), nil
	case strings.Contains(err.Error(), "indexing is disabled"):
		return nil, 0, fmt.Errorf("tx %s on node %s: %w", hash, c.url, errIndexOff)
	case strings.Contains(err.Error(), "not found"):
		return nil, 0, fmt.Errorf("tx %s on node %s: %w", hash, c.url, ErrTxNotFound)
	}
	return nil, 0, c.wrap("tx", err)
}

// isResubmitRefusal reports a CheckTx refusal that a resubmission of a
// committed tx gets: CodeCommitted, or CodeReplayed from a node that could
// not tell (no index, or one lagging the block).
func isResubmitRefusal(code uint32) bool {
	return code == api.CodeCommitted || code == api.CodeReplayed
}

// settleRefusal turns CheckTx's refusal of the tx hash (code, log) into
// the answer a client owes its caller, so that resubmitting the same
// bytes, at any time and to any node, never reports a committed tx as
// failed:
//
//   - the tx is in the node's tx index: its committed result (Height set;
//     a tx that failed in its block: that failure) and its index in the
//     block;
//   - CodeReplayed and the index holds no tx of this hash (after waiting
//     out the indexer's lag): another tx of the key used the nonce; the
//     refusal stands (Height 0), its log saying so;
//   - the index cannot answer (indexing off, the lookup failed), or
//     CodeCommitted and the index does not hold it: an error wrapping
//     ErrOutcomeUnknown that says why.
//
// Any other code is returned as the refusal it is.
func (c *Client) settleRefusal(ctx context.Context, hash string, code uint32, log string) (*Result, int, error) {
	refusal := &Result{Hash: hash, Code: code, Error: log}
	if !isResubmitRefusal(code) {
		return refusal, 0, nil
	}
	var err error
	for _, wait := range indexLagTries {
		if wait > 0 {
			select {
			case <-ctx.Done():
				return nil, 0, fmt.Errorf("tx %s on node %s was refused (%s: %s); looking it up by hash: %w: %w", hash, c.url, api.CodeName(code), log, ErrOutcomeUnknown, ctx.Err())
			case <-time.After(wait):
			}
		}
		var res *Result
		var idx int
		res, idx, err = c.findTx(ctx, hash)
		switch {
		case err == nil && res.Code == api.CodeReplayed:
			return nil, 0, replayedInBlock(c.url, res)
		case err == nil:
			return res, idx, nil
		case !errors.Is(err, ErrTxNotFound):
			return nil, 0, fmt.Errorf("tx %s: node %s refused it (%s: %s) and cannot say whether this very tx committed: %w: %w; look it up by hash on a node that indexes transactions (relchain tx %s --node URL)",
				hash, c.url, api.CodeName(code), log, ErrOutcomeUnknown, err, hash)
		}
	}
	if code == api.CodeCommitted {
		return nil, 0, fmt.Errorf("tx %s: node %s says it is committed (%s) but its tx index does not return it: %w: %w", hash, c.url, log, ErrOutcomeUnknown, err)
	}
	// Not in the index. That proves the tx never committed only if the
	// node indexed the whole chain: a node restored by state sync indexes
	// from its snapshot on.
	st, serr := c.rpc.Status(ctx)
	switch {
	case serr != nil:
		return nil, 0, fmt.Errorf("tx %s: node %s refused it (%s: %s), its tx index holds no tx of this hash, and whether it indexes the whole chain is unknown: %w: %w", hash, c.url, api.CodeName(code), log, ErrOutcomeUnknown, c.wrap("status", serr))
	case st.SyncInfo.EarliestBlockHeight > 1:
		return nil, 0, fmt.Errorf("tx %s: node %s refused it (%s: %s) and its tx index holds no tx of this hash, but the node has the chain only from height %d (state sync or pruning): %w; look it up by hash on a node with the whole chain (relchain tx %s --node URL)",
			hash, c.url, api.CodeName(code), log, st.SyncInfo.EarliestBlockHeight, ErrOutcomeUnknown, hash)
	}
	refusal.Error = log + " (this transaction is not committed: the node's tx index, which covers the whole chain, holds no transaction with its hash)"
	return refusal, 0, nil
}

// replayedInBlock is the error for a resubmission whose index entry is a
// block's replay refusal of these very bytes. CometBFT's kv indexer keeps
// the last inclusion of a hash, so a proposer that included a committed
// tx a second time (refused there as a replay) hides the first, real,
// outcome; or another tx of the key used the nonce first. Which one, the
// index cannot tell: neither is reported as this tx's failure.
func replayedInBlock(url string, res *Result) error {
	return fmt.Errorf("tx %s: node %s's tx index records it refused as a replay in block %d (%s); the same bytes may have executed in an earlier block that this entry hides (a proposer included them twice), or another transaction of the key used the nonce first: %w; read the tx's effect to tell",
		res.Hash, url, res.Height, res.Error, ErrOutcomeUnknown)
}
