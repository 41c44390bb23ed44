package client

import (
	"context"
	"errors"
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
	res, _, err := c.findTx(ctx, hash)
	return res, err
}
