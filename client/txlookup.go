package client

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
)

// ErrTxNotFound is returned by Tx for a hash the node has no committed tx
// of: not committed yet (it may still be in a mempool), never submitted,
// or evicted. It is not a failure of the tx.
var ErrTxNotFound = errors.New("no committed transaction with this hash (not committed yet, or unknown)")

// Tx returns the committed result of the bc-transaction with hash (hex,
// as Result.Hash), read from the node's tx index (CometBFT's /tx RPC):
// its height, code, result data (the statements' results) and log. A
// hash the node has not committed returns an error wrapping
// ErrTxNotFound; so may, for a moment, one it has just committed (CometBFT
// indexes a block's txs right after the commit).
func (c *Client) Tx(ctx context.Context, hash string) (*Result, error) {
	hash = strings.ToUpper(strings.TrimPrefix(strings.TrimPrefix(hash, "0x"), "0X"))
	h, err := hex.DecodeString(hash)
	if err != nil || len(h) != 32 {
		return nil, fmt.Errorf("tx hash %q: want 64 hex digits (the SHA-256 that exec prints)", hash)
	}
	r, err := c.rpc.Tx(ctx, h, false)
	if err != nil {
		if strings.Contains(err.Error(), "not found") {
			return nil, fmt.Errorf("tx %s on node %s: %w", hash, c.url, ErrTxNotFound)
		}
		return nil, c.wrap("tx", err)
	}
	return ExecResult(hash, r.Height, &r.TxResult), nil
}
