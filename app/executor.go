package app

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"

	"github.com/relchain/relchain/api"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/sqlcheck"
	"github.com/relchain/relchain/txn"
)

// Executor validates and executes blocks of bc-transactions on one backend.
//
// FinalizeBlock and Commit are called by one goroutine (CometBFT's consensus
// connection, or a replay tool). Check, State and WaitHeight may be called
// concurrently from others.
type Executor struct {
	be      backend.Backend
	chainID string
	params  Params

	mu        sync.Mutex
	committed backend.State
	heightCh  chan struct{} // closed and replaced at every commit
	pending   *pendingBlock

	verified *verifiedCache
	gate     Gate
	replay   map[string]replayState // committed replay windows, by public key; guarded by mu
}

// Gate is the determinism and safety check of one statement. It must be a
// pure function of the statement's text: every node must reach the same
// verdict. It returns nil to allow the statement, or an error whose text
// names the offending construct; an error wrapping sqlcheck.ErrUnparseable
// is reported as a syntax error (code 6) rather than a refusal (code 7).
type Gate func(sql string) error

// SetGate installs the gate; call it before the first block or CheckTx.
func (e *Executor) SetGate(g Gate) { e.gate = g }

// CheckReplay refuses a tx whose nonce its key already executed (or that is
// too old), against committed state: CheckTx and the mempool's recheck.
func (e *Executor) CheckReplay(tx *txn.Tx) *Rejection {
	e.mu.Lock()
	w, ok := e.replay[string(tx.PubKey)]
	e.mu.Unlock()
	var why string
	if ok {
		why = w.check(tx.Nonce)
	} else {
		why = (*replayState)(nil).check(tx.Nonce)
	}
	if why != "" {
		return &Rejection{Code: api.CodeReplayed, Reason: why}
	}
	return nil
}

// checkGate runs the gate over every statement of tx.
func (e *Executor) checkGate(tx *txn.Tx) *Rejection {
	if e.gate == nil {
		return nil
	}
	for i, st := range tx.Statements {
		if err := e.gate(st.SQL); err != nil {
			if errors.Is(err, sqlcheck.ErrUnparseable) {
				return &Rejection{Code: api.CodeSyntax, Reason: fmt.Sprintf("statement %d cannot be accepted: %v", i+1, err)}
			}
			return &Rejection{Code: api.CodeForbidden, Reason: fmt.Sprintf("statement %d is not allowed: %v", i+1, err)}
		}
	}
	return nil
}

type pendingBlock struct {
	height  int64
	block   backend.Block
	appHash []byte
	replay  map[string]replayState // windows this block changed
}

// NewExecutor loads the committed state from be.
func NewExecutor(ctx context.Context, be backend.Backend, chainID string, params Params) (*Executor, error) {
	if params.MaxStatements == 0 {
		params.MaxStatements = DefaultParams().MaxStatements
	}
	if params.Backend != "" && params.Backend != be.Dialect() {
		return nil, fmt.Errorf("genesis says the network runs backend %q, this node is configured with %q: every validator must run the same backend", params.Backend, be.Dialect())
	}
	st, err := be.LoadState(ctx)
	if err != nil {
		return nil, fmt.Errorf("load committed state: %w", err)
	}
	stored, err := be.LoadReplayWindows(ctx)
	if err != nil {
		return nil, fmt.Errorf("load replay windows: %w", err)
	}
	replay := make(map[string]replayState, len(stored))
	for k, v := range stored {
		w, err := decodeReplayState(v)
		if err != nil {
			return nil, fmt.Errorf("load replay window of key %X: %w", k, err)
		}
		replay[k] = *w
	}
	return &Executor{
		replay:    replay,
		be:        be,
		chainID:   chainID,
		params:    params,
		committed: st,
		heightCh:  make(chan struct{}),
		verified:  newVerifiedCache(1 << 16),
	}, nil
}

// Backend returns the executor's backend.
func (e *Executor) Backend() backend.Backend { return e.be }

// Params returns the network parameters.
func (e *Executor) Params() Params { return e.params }

// State returns the last committed state.
func (e *Executor) State() backend.State {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.committed
}

// Rejection is a tx that failed the envelope checks.
type Rejection struct {
	Code   uint32
	Reason string // deterministic, short
	Detail string // may carry non-deterministic detail (backend messages)
}

func (r *Rejection) Error() string {
	if r.Detail != "" {
		return r.Reason + ": " + r.Detail
	}
	return r.Reason
}

// Check runs the envelope checks CheckTx performs: size, decoding, chain
// id, signature, statements present and each one parseable. It never
// executes a statement. A nil error means the tx may enter a block.
func (e *Executor) Check(ctx context.Context, raw []byte) (*txn.Tx, *Rejection) {
	tx, rej := e.validate(raw, false)
	if rej != nil {
		return nil, rej
	}
	if rej := e.CheckReplay(tx); rej != nil {
		return nil, rej
	}
	if rej := e.checkGate(tx); rej != nil {
		return nil, rej
	}
	for i, st := range tx.Statements {
		if err := e.be.CheckSyntax(ctx, st.SQL); err != nil {
			return nil, &Rejection{Code: api.CodeSyntax, Reason: fmt.Sprintf("statement %d cannot be accepted", i+1), Detail: err.Error()}
		}
	}
	var h [32]byte
	copy(h[:], txn.Hash(raw))
	e.verified.add(h)
	return tx, nil
}

// validate performs the deterministic envelope checks. With trusted set,
// a signature already verified by Check on this node is not verified
// again (the outcome is the same function of the bytes either way).
func (e *Executor) validate(raw []byte, trusted bool) (*txn.Tx, *Rejection) {
	if len(raw) > e.params.MaxTxBytes {
		return nil, &Rejection{Code: api.CodeTooLarge, Reason: fmt.Sprintf("transaction is %d bytes, the network's limit (genesis max_tx_bytes) is %d", len(raw), e.params.MaxTxBytes)}
	}
	tx, err := txn.Decode(raw)
	if err != nil {
		return nil, &Rejection{Code: api.CodeMalformed, Reason: err.Error()}
	}
	if tx.ChainID != e.chainID {
		return nil, &Rejection{Code: api.CodeWrongChain, Reason: fmt.Sprintf("transaction is for chain %q, this is chain %q", tx.ChainID, e.chainID)}
	}
	if len(tx.Statements) == 0 {
		return nil, &Rejection{Code: api.CodeNoStatements, Reason: "transaction has no statements"}
	}
	if len(tx.Statements) > e.params.MaxStatements {
		return nil, &Rejection{Code: api.CodeTooLarge, Reason: fmt.Sprintf("transaction has %d statements, the network's limit (genesis max_statements) is %d", len(tx.Statements), e.params.MaxStatements)}
	}
	if !trusted {
		if err := tx.Verify(); err != nil {
			return nil, &Rejection{Code: api.CodeBadSignature, Reason: err.Error()}
		}
	}
	return tx, nil
}

// FinalizeBlock executes the block at height in one db-transaction and
// returns one result per tx and the AppHash. The writes become durable
// only at Commit. Calling FinalizeBlock again for the same height before
// Commit discards the earlier attempt.
func (e *Executor) FinalizeBlock(ctx context.Context, height int64, txs [][]byte) ([]TxResult, []byte, error) {
	e.mu.Lock()
	committed := e.committed
	pending := e.pending
	e.pending = nil
	e.mu.Unlock()
	if pending != nil {
		if err := pending.block.Rollback(ctx); err != nil {
			return nil, nil, fmt.Errorf("finalize block %d: discard earlier uncommitted attempt at height %d: %w", height, pending.height, err)
		}
	}
	if height != committed.Height+1 {
		return nil, nil, fmt.Errorf("finalize block %d: the database has committed height %d, expected block %d", height, committed.Height, committed.Height+1)
	}
	block, err := e.be.Begin(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("finalize block %d: begin: %w", height, err)
	}
	replay := make(map[string]replayState)
	results, err := e.execute(ctx, block, txs, replay)
	if err == nil && e.params.BlockAtomic && anyFailed(results) {
		block, err = e.abortBlock(ctx, block, results)
	}
	if err == nil {
		err = e.saveReplay(ctx, block, replay)
	}
	if err != nil {
		_ = block.Rollback(ctx)
		return nil, nil, fmt.Errorf("finalize block %d: %w", height, err)
	}
	changes, err := block.ChangeDigest(ctx)
	if err != nil {
		_ = block.Rollback(ctx)
		return nil, nil, fmt.Errorf("finalize block %d: change digest: %w", height, err)
	}
	appHash := committed.AppHash
	if len(txs) > 0 {
		appHash = ComputeAppHash(committed.AppHash, height, results, changes)
	}
	e.mu.Lock()
	e.pending = &pendingBlock{height: height, block: block, appHash: appHash, replay: replay}
	e.mu.Unlock()
	return results, appHash, nil
}

// execute runs every tx of the block in its own savepoint. An error return
// means the backend itself failed (not a tx): the block cannot be applied.
func (e *Executor) execute(ctx context.Context, block backend.Block, txs [][]byte, replay map[string]replayState) ([]TxResult, error) {
	results := make([]TxResult, len(txs))
	for i, raw := range txs {
		var h [32]byte
		copy(h[:], txn.Hash(raw))
		tx, rej := e.validate(raw, e.verified.take(h))
		if rej == nil {
			rej = e.consumeNonce(tx, replay)
		}
		if rej == nil {
			rej = e.checkGate(tx)
		}
		if rej != nil {
			results[i] = TxResult{Code: rej.Code, Data: encodeJSON(api.FailureData{Reason: rej.Reason}), Log: rej.Error()}
			continue
		}
		res, err := e.executeTx(ctx, block, tx)
		if err != nil {
			return nil, fmt.Errorf("tx %d (%X): %w", i, h[:6], err)
		}
		results[i] = res
	}
	return results, nil
}

func (e *Executor) executeTx(ctx context.Context, block backend.Block, tx *txn.Tx) (TxResult, error) {
	if err := block.Savepoint(ctx); err != nil {
		return TxResult{}, fmt.Errorf("savepoint: %w", err)
	}
	out := execData{Results: make([]*backend.Rows, 0, len(tx.Statements))}
	for j, st := range tx.Statements {
		rows, err := block.Exec(ctx, st.SQL, argValues(st.Args))
		if err == nil {
			sanitizeRows(rows)
			out.Results = append(out.Results, rows)
			continue
		}
		be := backend.AsError(err)
		if be == nil {
			return TxResult{}, fmt.Errorf("statement %d: %w", j+1, err)
		}
		if rerr := block.RollbackTo(ctx); rerr != nil {
			return TxResult{}, fmt.Errorf("roll back to savepoint after statement %d failed: %w", j+1, rerr)
		}
		return TxResult{
			Code: api.CodeExecFailed,
			Data: encodeJSON(api.FailureData{Statement: j + 1, Class: string(be.Class), SQLState: be.SQLState}),
			Log:  fmt.Sprintf("statement %d failed: %s", j+1, be.Error()),
		}, nil
	}
	if err := block.Release(ctx); err != nil {
		return TxResult{}, fmt.Errorf("release savepoint: %w", err)
	}
	return TxResult{Code: api.CodeOK, Data: encodeJSON(out)}, nil
}

// consumeNonce checks tx's nonce against the committed window as changed by
// earlier txs of this block, and marks it executed. Every tx that passed
// the envelope checks consumes its nonce, whatever its statements do.
func (e *Executor) consumeNonce(tx *txn.Tx, replay map[string]replayState) *Rejection {
	key := string(tx.PubKey)
	w, ok := replay[key]
	if !ok {
		e.mu.Lock()
		w = e.replay[key]
		e.mu.Unlock()
	}
	if why := w.check(tx.Nonce); why != "" {
		return &Rejection{Code: api.CodeReplayed, Reason: why}
	}
	w.mark(tx.Nonce)
	replay[key] = w
	return nil
}

// saveReplay writes the windows the block changed into its db-transaction.
func (e *Executor) saveReplay(ctx context.Context, block backend.Block, replay map[string]replayState) error {
	if len(replay) == 0 {
		return nil
	}
	enc := make(map[string][]byte, len(replay))
	for k, w := range replay {
		enc[k] = w.encode()
	}
	if err := block.SaveReplayWindows(ctx, enc); err != nil {
		return fmt.Errorf("save replay windows: %w", err)
	}
	return nil
}

// abortBlock implements block_atomic: it discards every write of the block
// and marks the txs that succeeded as aborted. It returns a fresh, empty
// db-transaction in which Commit will record the height.
func (e *Executor) abortBlock(ctx context.Context, block backend.Block, results []TxResult) (backend.Block, error) {
	if err := block.Rollback(ctx); err != nil {
		return block, fmt.Errorf("block_atomic: roll back block: %w", err)
	}
	for i := range results {
		if results[i].Code == api.CodeOK {
			results[i] = TxResult{
				Code: api.CodeBlockAborted,
				Data: encodeJSON(api.FailureData{Reason: "another transaction of the block failed and block_atomic is set"}),
				Log:  "rolled back with the whole block (block_atomic)",
			}
		}
	}
	nb, err := e.be.Begin(ctx)
	if err != nil {
		return block, fmt.Errorf("block_atomic: begin: %w", err)
	}
	return nb, nil
}

func anyFailed(rs []TxResult) bool {
	for _, r := range rs {
		if r.Code != api.CodeOK {
			return true
		}
	}
	return false
}

func argValues(args []txn.Arg) []any {
	if len(args) == 0 {
		return nil
	}
	vs := make([]any, len(args))
	for i, a := range args {
		vs[i] = a.Value()
	}
	return vs
}

// ErrNothingToCommit is returned by Commit without a preceding FinalizeBlock.
var ErrNothingToCommit = errors.New("commit without a finalized block")

// Commit makes the pending block durable together with its height and
// AppHash, in one db-transaction.
func (e *Executor) Commit(ctx context.Context) (backend.State, error) {
	e.mu.Lock()
	p := e.pending
	e.mu.Unlock()
	if p == nil {
		return backend.State{}, ErrNothingToCommit
	}
	st := backend.State{Height: p.height, AppHash: p.appHash}
	if err := p.block.Commit(ctx, st); err != nil {
		return backend.State{}, fmt.Errorf("commit block %d: %w", p.height, err)
	}
	e.mu.Lock()
	e.pending = nil
	e.committed = st
	for k, w := range p.replay {
		e.replay[k] = w
	}
	close(e.heightCh)
	e.heightCh = make(chan struct{})
	e.mu.Unlock()
	return st, nil
}

// WaitHeight blocks until height h is committed or ctx is done.
func (e *Executor) WaitHeight(ctx context.Context, h int64) error {
	for {
		e.mu.Lock()
		cur, ch := e.committed.Height, e.heightCh
		e.mu.Unlock()
		if cur >= h {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return fmt.Errorf("height %d not reached (node is at %d): %w", h, cur, ctx.Err())
		}
	}
}

// Close rolls back an uncommitted block; the backend stays open.
func (e *Executor) Close(ctx context.Context) error {
	e.mu.Lock()
	p := e.pending
	e.pending = nil
	e.mu.Unlock()
	if p != nil {
		return p.block.Rollback(ctx)
	}
	return nil
}

// ComputeAppHash is the one place the AppHash is defined:
//
//	H("relchain/apphash/v1" | prev AppHash | height | H(results) | change digest)
//
// where H(results) covers each tx's code and data (the deterministic part of
// a result) and the change digest is the backend's digest of every row the
// block changed. A later version replaces the change digest with a full-state
// digest; it stays behind this function.
//
// A block without txs leaves the state and so the AppHash unchanged (the
// executor does not call this for it): otherwise every block would change
// the AppHash and CometBFT would follow each with an empty proof block,
// forever.
func ComputeAppHash(prev []byte, height int64, results []TxResult, changes []byte) []byte {
	rh := sha256.New()
	var n [8]byte
	for _, r := range results {
		binary.BigEndian.PutUint32(n[:4], r.Code)
		rh.Write(n[:4])
		binary.BigEndian.PutUint64(n[:], uint64(len(r.Data)))
		rh.Write(n[:])
		rh.Write(r.Data)
	}
	h := sha256.New()
	h.Write([]byte("relchain/apphash/v1"))
	binary.BigEndian.PutUint64(n[:], uint64(len(prev)))
	h.Write(n[:])
	h.Write(prev)
	binary.BigEndian.PutUint64(n[:], uint64(height))
	h.Write(n[:])
	h.Write(rh.Sum(nil))
	h.Write(changes)
	return h.Sum(nil)
}

// verifiedCache remembers tx hashes whose signature this node verified in
// CheckTx, so FinalizeBlock need not verify them again. It only ever skips
// work whose outcome is known; it never changes an outcome.
type verifiedCache struct {
	mu  sync.Mutex
	max int
	m   map[[32]byte]struct{}
}

func newVerifiedCache(max int) *verifiedCache {
	return &verifiedCache{max: max, m: make(map[[32]byte]struct{})}
}

func (c *verifiedCache) add(h [32]byte) {
	c.mu.Lock()
	if len(c.m) >= c.max {
		clear(c.m)
	}
	c.m[h] = struct{}{}
	c.mu.Unlock()
}

func (c *verifiedCache) take(h [32]byte) bool {
	c.mu.Lock()
	_, ok := c.m[h]
	delete(c.m, h)
	c.mu.Unlock()
	return ok
}
