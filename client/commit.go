package client

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	ctypes "github.com/cometbft/cometbft/rpc/core/types"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/txn"
)

// DefaultCommitBlocks is how many blocks after its submission a tx may take
// to be committed before commit-mode Exec and a Stream give up on it (it
// was evicted from the mempool, or will never be proposed).
const DefaultCommitBlocks = 300

// ErrNotCommitted is wrapped by the error of a tx that was accepted by
// CheckTx but not committed within the allowed number of blocks.
var ErrNotCommitted = errors.New("transaction not committed")

// ErrQuarantined is wrapped by the error of a commit-mode wait whose tx
// the client's node quarantined after CheckTx had admitted it: the node
// could not execute it within its [block] tx_timeout (or memory bound)
// when it was proposed, and no longer proposes it or votes for a block
// holding it. The outcome is not known for certain (validators that
// could execute it may still commit it; look the tx up by hash), but on
// a network of alike nodes it will not be committed: waiting on would
// only run into the context's deadline.
var ErrQuarantined = errors.New("transaction quarantined by the node")

// quarantineProbeEvery is how long a commit-mode wait goes between
// re-submitting its tx to learn whether the node quarantined it, or
// committed it in a block the wait did not see. The re-submission is the
// same bytes: the mempool answers that it has them while the tx is
// pending, and the executor's replay protection makes a second copy
// harmless in any case.
const quarantineProbeEvery = 3 * time.Second

func (c *Client) probeInterval() time.Duration {
	if c.probeEvery > 0 {
		return c.probeEvery
	}
	return quarantineProbeEvery
}

// SetCommitBlocks sets how many blocks after its submission a commit-mode
// Exec waits for its tx (default DefaultCommitBlocks; n <= 0 restores it).
// The context bounds the wait as well.
func (c *Client) SetCommitBlocks(n int64) {
	if n <= 0 {
		n = DefaultCommitBlocks
	}
	c.commitBlocks.Store(n)
}

func (c *Client) maxBlocks() int64 {
	if n := c.commitBlocks.Load(); n > 0 {
		return n
	}
	return DefaultCommitBlocks
}

// mempool full and tx-in-cache, as CometBFT's broadcast_tx_sync reports them.
func isMempoolFull(err error) bool {
	return err != nil && (strings.Contains(err.Error(), "mempool is full") || strings.Contains(err.Error(), "considered as full"))
}

func isInCache(err error) bool {
	return err != nil && strings.Contains(err.Error(), "tx already exists in cache")
}

// isTransient is a transport failure: the request may or may not have
// reached the node.
func isTransient(err error) bool {
	return err != nil && (strings.Contains(err.Error(), "post failed") || strings.Contains(err.Error(), "Failed to read response body"))
}

// maxResends bounds how often a tx is re-sent after a transport failure.
const maxResends = 5

// syncAnswer is what broadcastSync learnt.
type syncAnswer struct {
	r *ctypes.ResultBroadcastTx
	// inCache: the node already has the very same tx (in its mempool, or
	// committed recently).
	inCache bool
}

// broadcastSync is broadcast_tx_sync, retried with a short backoff while
// the node's mempool is full, and re-sent (the same bytes, so never
// executed twice) after a transport failure.
func (c *Client) broadcastSync(ctx context.Context, raw []byte) (syncAnswer, error) {
	var a syncAnswer
	backoff := 10 * time.Millisecond
	resends := 0
	for {
		r, err := c.rpc.BroadcastTxSync(ctx, raw)
		switch {
		case err == nil:
			a.r = r
			return a, nil
		case isInCache(err):
			a.inCache = true
			return a, nil
		case isMempoolFull(err):
		case isTransient(err) && resends < maxResends && ctx.Err() == nil:
			resends++
		default:
			return a, c.wrap("broadcast_tx_sync", err)
		}
		select {
		case <-ctx.Done():
			return a, c.wrap("broadcast_tx_sync", fmt.Errorf("%w (last: %v)", ctx.Err(), err))
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 500*time.Millisecond)
	}
}

// broadcastCommit submits with broadcast_tx_sync and waits for the tx's
// block through the node's shared block follower (a NewBlock subscription),
// or, if no subscription can be had, by polling the tx RPC.
func (c *Client) broadcastCommit(ctx context.Context, raw []byte) (*Result, error) {
	hash := hashHex(raw)
	f, err := c.acquireFollower(ctx)
	if err != nil || !f.isLive() {
		if f != nil {
			releaseFollower(f)
		}
		return c.commitByPolling(ctx, raw, hash)
	}
	defer releaseFollower(f)
	got := make(chan *Result, 1)
	w := f.register(hash, func(b *blockData, i int) {
		got <- ExecResult(hash, b.Height, b.Results[i])
	})
	a, err := c.broadcastSync(ctx, raw)
	switch {
	case err != nil:
		if f.cancelWaiter(w) {
			return nil, err
		}
	case a.inCache:
		// The node has this tx already: pending in its mempool, or
		// committed, perhaps in a block before the follower's start.
		if res, ok := c.lookupTx(ctx, hash); ok && f.cancelWaiter(w) {
			return res, nil
		}
	case isResubmitRefusal(a.r.Code):
		// Its nonce is used: by this very tx (committed, perhaps before
		// a restart, or by an attempt that failed in transit) or by
		// another one. The tx index tells.
		res, _, err := c.settleRefusal(ctx, hash, a.r.Code, a.r.Log)
		if f.cancelWaiter(w) {
			return res, err
		}
	case a.r.Code != api.CodeOK:
		if f.cancelWaiter(w) {
			return &Result{Hash: hash, Code: a.r.Code, Error: a.r.Log}, nil
		}
	}
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	nextProbe := time.Now().Add(c.probeInterval())
	for {
		select {
		case res := <-got:
			return res, nil
		case <-ctx.Done():
			if f.cancelWaiter(w) {
				return nil, fmt.Errorf("wait for tx %s on node %s: %w", hash, c.url, ctx.Err())
			}
			// A block resolved it just now: its result is on the way.
			return <-got, nil
		case <-tick.C:
			if n := f.height() - w.height; n > c.maxBlocks() && f.cancelWaiter(w) {
				return nil, fmt.Errorf("tx %s on node %s: %w within %d blocks (evicted from the mempool?)", hash, c.url, ErrNotCommitted, n)
			}
			if time.Now().After(nextProbe) {
				nextProbe = time.Now().Add(c.probeInterval())
				a := c.probe(ctx, raw, hash)
				if (a.committed != nil || a.quarantined != nil) && f.cancelWaiter(w) {
					return a.committed, a.quarantined
				}
			}
		}
	}
}

// probeAnswer is what re-submitting a pending tx learnt.
type probeAnswer struct {
	// quarantined: the node's CheckTx now refuses the tx as quarantined,
	// saying why in log; it wraps ErrQuarantined.
	quarantined error
	log         string
	// committed: the node has the tx already ("in cache") or its nonce is
	// used ("already committed", "replayed"), and its tx index holds it
	// at index; or the node refuses it as a replay its index proves
	// final (not committed: Code CodeReplayed, Height 0).
	committed *Result
	index     int
}

// probe re-submits a tx that is taking long to commit (the same bytes:
// harmless, see quarantineProbeEvery) and reports a quarantine, or the
// committed result when the node answers that it has the tx and its
// index holds it: a block a wait did not see must not leave it waiting
// until its deadline. Any other answer (pending, a transport error) is
// the zero probeAnswer: the wait goes on.
func (c *Client) probe(ctx context.Context, raw []byte, hash string) probeAnswer {
	r, err := c.rpc.BroadcastTxSync(ctx, raw)
	switch {
	case err == nil && r.Code == api.CodeQuarantined:
		return probeAnswer{quarantined: c.quarantinedErr(hash, r.Log), log: r.Log}
	case isInCache(err) || (err == nil && isResubmitRefusal(r.Code)):
		if res, idx, ok := c.lookupTxIndex(ctx, hash); ok {
			return probeAnswer{committed: res, index: idx}
		}
		if err == nil && r.Code == api.CodeReplayed {
			// The tx left the mempool (a recheck refused it: another tx
			// of its key used the nonce) and no block holds it: on an
			// idle chain no block comes to end the wait. A refusal the
			// index proves final is the outcome.
			if res, _, serr := c.settleRefusal(ctx, hash, r.Code, r.Log); serr == nil && res != nil && res.Height == 0 {
				return probeAnswer{committed: res}
			}
		}
	}
	return probeAnswer{}
}

func (c *Client) quarantinedErr(hash, log string) error {
	return fmt.Errorf("tx %s on node %s: %w: %s", hash, c.url, ErrQuarantined, log)
}

// lookupTx asks the tx RPC for a committed tx.
func (c *Client) lookupTx(ctx context.Context, hash string) (*Result, bool) {
	res, _, ok := c.lookupTxIndex(ctx, hash)
	return res, ok
}

// lookupTxIndex is lookupTx with the tx's index in its block.
func (c *Client) lookupTxIndex(ctx context.Context, hash string) (*Result, int, bool) {
	res, idx, err := c.findTx(ctx, hash)
	return res, idx, err == nil
}

// commitByPolling is the fallback without a subscription: submit, then
// poll the tx RPC by hash.
func (c *Client) commitByPolling(ctx context.Context, raw []byte, hash string) (*Result, error) {
	a, err := c.broadcastSync(ctx, raw)
	if err != nil {
		return nil, err
	}
	if !a.inCache && a.r.Code != api.CodeOK {
		res, _, err := c.settleRefusal(ctx, hash, a.r.Code, a.r.Log)
		return res, err
	}
	var start int64 = -1
	if st, err := c.rpc.Status(ctx); err == nil {
		start = st.SyncInfo.LatestBlockHeight
	}
	wait := 20 * time.Millisecond
	lastCheck := time.Now()
	nextProbe := time.Now().Add(c.probeInterval())
	for {
		if res, ok := c.lookupTx(ctx, hash); ok {
			return res, nil
		}
		if time.Now().After(nextProbe) {
			nextProbe = time.Now().Add(c.probeInterval())
			if a := c.probe(ctx, raw, hash); a.committed != nil || a.quarantined != nil {
				return a.committed, a.quarantined
			}
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("wait for tx %s on node %s (polling tx): %w", hash, c.url, ctx.Err())
		case <-time.After(wait):
		}
		wait = min(2*wait, 500*time.Millisecond)
		if start >= 0 && time.Since(lastCheck) > 2*time.Second {
			lastCheck = time.Now()
			if st, err := c.rpc.Status(ctx); err == nil && st.SyncInfo.LatestBlockHeight-start > c.maxBlocks() {
				// One last look: the indexer may lag the block.
				if res, ok := c.lookupTx(ctx, hash); ok {
					return res, nil
				}
				return nil, fmt.Errorf("tx %s on node %s: %w within %d blocks (evicted from the mempool?)", hash, c.url, ErrNotCommitted, st.SyncInfo.LatestBlockHeight-start)
			}
		}
	}
}

// SignBatch builds and signs a batch envelope: one bc-transaction carrying
// the given wl-transactions (each one or more statements), each executed
// atomically on its own.
func (c *Client) SignBatch(ctx context.Context, wls [][]txn.Statement) ([]byte, error) {
	stmts, groups, err := flattenBatch(wls)
	if err != nil {
		return nil, err
	}
	if c.key == nil {
		return nil, errors.New("this client has no signing key")
	}
	chainID, err := c.ChainID(ctx)
	if err != nil {
		return nil, err
	}
	tx := &txn.Tx{ChainID: chainID, Nonce: c.nonce.Add(1), Statements: stmts, Groups: groups}
	tx.Sign(c.key)
	return txn.Encode(tx), nil
}

func flattenBatch(wls [][]txn.Statement) ([]txn.Statement, []int, error) {
	if len(wls) == 0 {
		return nil, nil, errors.New("a batch needs at least one wl-transaction")
	}
	var stmts []txn.Statement
	groups := make([]int, len(wls))
	for i, wl := range wls {
		if len(wl) == 0 {
			return nil, nil, fmt.Errorf("wl-transaction %d has no statement", i+1)
		}
		groups[i] = len(wl)
		stmts = append(stmts, wl...)
	}
	return stmts, groups, nil
}

// BatchResult is the outcome of a pseudo-synchronous batch: the
// bc-transaction's own result, and one outcome per wl-transaction.
type BatchResult struct {
	Hash   string `json:"hash"`
	Height int64  `json:"height,omitempty"`
	// Code is the bc-transaction's: CodeOK whenever it was executed,
	// whatever its wl-transactions' outcomes (see WL); otherwise the
	// envelope was rejected (at CheckTx: Height is 0) or, on a block-atomic
	// network, the batch failed as a whole.
	Code    uint32           `json:"code"`
	Error   string           `json:"error,omitempty"` // CheckTx's or the block's log
	Failure *api.FailureData `json:"failure,omitempty"`
	// WL holds one outcome per wl-transaction, in order, when Code is
	// CodeOK.
	WL []api.WLResult `json:"wl,omitempty"`
}

// OK reports whether the bc-transaction was executed (its wl-transactions
// may still have failed one by one).
func (b *BatchResult) OK() bool { return b.Code == api.CodeOK }

// Err describes a rejected or failed bc-transaction, or returns nil.
func (b *BatchResult) Err() error {
	if b.OK() {
		return nil
	}
	return &TxError{Code: b.Code, Message: b.Error, Failure: b.Failure}
}

// WLErr returns nil if wl-transaction i (0-based) committed, otherwise a
// *TxError with its code and failure.
func (b *BatchResult) WLErr(i int) error {
	if !b.OK() {
		return b.Err()
	}
	if i < 0 || i >= len(b.WL) {
		return fmt.Errorf("batch %s has no wl-transaction %d", b.Hash, i+1)
	}
	w := b.WL[i]
	if w.Code == api.CodeOK {
		return nil
	}
	msg := api.CodeName(w.Code)
	if w.Failure != nil {
		msg = fmt.Sprintf("wl-transaction %d, statement %d: %s %s", i+1, w.Failure.Statement, w.Failure.Class, w.Failure.SQLState)
	}
	return &TxError{Code: w.Code, Message: msg, Failure: w.Failure}
}

// Committed counts the wl-transactions that committed.
func (b *BatchResult) Committed() int {
	n := 0
	for _, w := range b.WL {
		if w.Code == api.CodeOK {
			n++
		}
	}
	return n
}

// batchResult converts the committed bc-transaction's result; wls is the
// number of wl-transactions it carried (0: unknown).
func batchResult(r *Result, wls int) (*BatchResult, error) {
	b := &BatchResult{Hash: r.Hash, Height: r.Height, Code: r.Code, Error: r.Error, Failure: r.Failure, WL: r.Batch}
	if b.OK() && r.Height > 0 && wls > 0 && len(b.WL) != wls {
		return b, fmt.Errorf("batch %s: the node reported %d wl-transaction outcomes, the batch has %d", r.Hash, len(b.WL), wls)
	}
	return b, nil
}

// ExecBatch submits one bc-transaction carrying the wl-transactions wls
// (pseudo-synchronous processing: k wl-transactions in one envelope) and
// waits until it is committed. Each wl-transaction is executed atomically
// on its own: a failing one is rolled back alone and the others commit.
func (c *Client) ExecBatch(ctx context.Context, wls [][]txn.Statement) (*BatchResult, error) {
	raw, err := c.SignBatch(ctx, wls)
	if err != nil {
		return nil, err
	}
	r, err := c.broadcastCommit(ctx, raw)
	if err != nil {
		return nil, err
	}
	return batchResult(r, len(wls))
}
