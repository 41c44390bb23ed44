package client

import (
	"context"
	"errors"
	"fmt"

	abci "github.com/cometbft/cometbft/abci/types"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/txn"
)

// Rehearse runs stmts on the node as this client's key would run them in
// one bc-transaction of the next block, and rolls them back (see
// api.RehearsePath): the results an interactive transaction shows its
// client, each with the observation ExecInteractive commits. A failing
// statement comes back as the response's Code and Failure, not as an
// error; the error is for a request the node could not serve (a
// *QueryError with api.CodeQueryBusy means: retry).
//
// A client that shows results as it goes rehearses the transaction's
// statements so far each time. What it observed of a statement is that
// statement's first run: when a later rehearsal returns another
// observation for it, a block changed what it read, and the transaction
// has conflicted already (commit the first observations and the block
// reports api.CodeConflict; better, start again at once).
//
// The request is signed by the client's key (txn.SignRehearsal) at the
// last height the node reported to this client; when the node finds that
// height stale (api.CodeStaleRequest, first use included) it is signed
// again once at the node's height.
func (c *Client) Rehearse(ctx context.Context, stmts []txn.Statement) (*api.RehearseResponse, error) {
	return c.RehearseProbe(ctx, stmts, nil)
}

// RehearseProbe is Rehearse with a probe (nil: none): a read-only
// statement the node runs after stmts, when they all succeeded, inside
// the rehearsal's db-transaction under the read policy, so that it sees
// their schema changes (a catalog read of an interactive transaction
// after its DDL). Its outcome is the response's Probe (api.RehearsePath);
// it is signed with the request and never committed.
func (c *Client) RehearseProbe(ctx context.Context, stmts []txn.Statement, probe *txn.Statement) (*api.RehearseResponse, error) {
	if c.key == nil {
		return nil, errors.New("this client has no signing key")
	}
	chainID, err := c.ChainID(ctx)
	if err != nil {
		return nil, err
	}
	var r *abci.ResponseQuery
	for attempt := 0; attempt < 2; attempt++ {
		body := txn.SignRehearsalProbe(c.key, chainID, c.rehearseHeight.Load(), stmts, probe)
		if r, err = c.abciQuery(ctx, api.RehearsePath, body); err != nil {
			return nil, c.wrap("abci_query", err)
		}
		if r.Height > 0 {
			c.rehearseHeight.Store(r.Height)
		}
		if r.Code != api.CodeStaleRequest {
			break
		}
	}
	if r.Code != api.CodeOK {
		return nil, &QueryError{Code: r.Code, Message: r.Log}
	}
	var out api.RehearseResponse
	if err := decodeJSON(r.Value, &out); err != nil {
		return nil, fmt.Errorf("decode rehearsal: %w", err)
	}
	return &out, nil
}

// ExecInteractive commits an interactive transaction: stmts with what the
// client observed of each (seen[i], from a rehearsal; nil: not compared).
// The block applies it only if every statement returns what was observed;
// otherwise the result's code is api.CodeConflict and nothing was applied.
func (c *Client) ExecInteractive(ctx context.Context, stmts []txn.Statement, seen []txn.Observation) (*Result, error) {
	raw, err := c.SignInteractive(ctx, stmts, seen)
	if err != nil {
		return nil, err
	}
	return c.Broadcast(ctx, ModeCommit, raw)
}

// SignInteractive signs the envelope ExecInteractive submits (with no
// observations, an ordinary bc-transaction of stmts): for a caller that
// may have to send the same envelope to another node.
func (c *Client) SignInteractive(ctx context.Context, stmts []txn.Statement, seen []txn.Observation) ([]byte, error) {
	if c.key == nil {
		return nil, errors.New("this client has no signing key")
	}
	chainID, err := c.ChainID(ctx)
	if err != nil {
		return nil, err
	}
	tx := &txn.Tx{ChainID: chainID, Nonce: c.nonce.Add(1), Statements: stmts, Expect: seen}
	if err := tx.CheckExpect(); err != nil {
		return nil, fmt.Errorf("interactive transaction: %w", err)
	}
	tx.Sign(c.key)
	return txn.Encode(tx), nil
}
