package app

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/relchain/relchain/api"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/sqlcheck"
	"github.com/relchain/relchain/statedigest"
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
	// stateDigest is the state (StateDigest) after the committed block:
	// an empty block that leaves it unchanged leaves the AppHash
	// unchanged. systemSum is the system state's part of it, systemRaw
	// the committed system entries it sums (all but the AppHash inputs).
	stateDigest []byte
	systemSum   statedigest.Sum
	systemRaw   map[string][]byte
	heightCh    chan struct{} // closed and replaced at every commit
	pending     *pendingBlock

	verified *verifiedCache
	replay   map[string]replayState // committed replay windows, by public key; guarded by mu
	// chainTime is the consensus time of the last block this node
	// committed (zero until the first one since start); guarded by mu.
	// CheckTx bounds nonces with it (see ReplayWindow).
	chainTime time.Time
	perms     perms // admins (fixed) and committed grants (guarded by mu)
}

// BlockInfo is what the executor needs to know of a decided block besides
// its txs: its height, and the consensus time and hash from which each tx's
// deterministic environment (clock, random seed) is derived.
type BlockInfo struct {
	Height int64
	Time   time.Time
	Hash   []byte
}

// CheckReplay refuses a tx whose nonce its key already executed (or that is
// too old), against committed state: CheckTx and the mempool's recheck.
func (e *Executor) CheckReplay(tx *txn.Tx) *Rejection {
	e.mu.Lock()
	w, ok := e.replay[string(tx.PubKey)]
	chainTime := e.chainTime
	e.mu.Unlock()
	if chainTime.IsZero() {
		// No block committed since start: the node's clock stands in
		// (CheckTx only admits; the block decides with its own time).
		chainTime = time.Now()
	}
	var why string
	if ok {
		why = w.check(tx.Nonce, chainTime)
	} else {
		why = (*replayState)(nil).check(tx.Nonce, chainTime)
	}
	if why != "" {
		return &Rejection{Code: api.CodeReplayed, Reason: why}
	}
	return nil
}

// analysisRejection maps a backend's Analyze failure of statement i (1-based)
// to a rejection: the gate's refusal is code 7 with its deterministic
// message, a parse failure code 6. Other classes are statement failures
// (code 10). It returns nil if err is not a statement failure.
func analysisRejection(i int, err error) *Rejection {
	be := backend.AsError(err)
	if be == nil {
		return nil
	}
	switch be.Class {
	case backend.ClassPermission:
		return &Rejection{Code: api.CodeForbidden, Reason: fmt.Sprintf("statement %d is not allowed: %s", i, be.Message)}
	case backend.ClassSyntax, backend.ClassInvalid:
		return &Rejection{Code: api.CodeSyntax, Reason: fmt.Sprintf("statement %d cannot be accepted", i), Detail: be.Error()}
	}
	return &Rejection{Code: api.CodeExecFailed, Reason: fmt.Sprintf("statement %d failed", i), Detail: be.Error()}
}

type pendingBlock struct {
	height      int64
	hash        []byte        // the block's hash (BlockInfo.Hash)
	txLimit     time.Duration // how long one tx may run (Speculate); 0: no limit
	results     []TxResult    // set once the block executed completely
	time        time.Time     // the block's consensus time
	block       backend.Block
	appHash     []byte
	stateDigest []byte
	system      map[string][]byte      // system entries this block wrote
	systemSum   statedigest.Sum        // after the block
	replay      map[string]replayState // windows this block changed
	grants      map[string]grantSet    // grants this block changed
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
	sums, _, err := be.StoredState(ctx)
	if err != nil {
		return nil, fmt.Errorf("load the state digest: %w", err)
	}
	admins, err := parseAdmins(params.Admins)
	if err != nil {
		return nil, err
	}
	stored, err := be.LoadSystem(ctx)
	if err != nil {
		return nil, fmt.Errorf("load system state: %w", err)
	}
	replay := make(map[string]replayState)
	grants := make(map[string]grantSet)
	for k, v := range stored {
		switch {
		case k == apphashKey:
			if _, err := decodeAppHashInputs(v); err != nil {
				return nil, fmt.Errorf("load system state: %w", err)
			}
		case strings.HasPrefix(k, replayKeyPrefix):
			w, err := decodeReplayState(v)
			if err != nil {
				return nil, fmt.Errorf("load replay window of key %X: %w", k[len(replayKeyPrefix):], err)
			}
			replay[k[len(replayKeyPrefix):]] = *w
		case strings.HasPrefix(k, grantKeyPrefix):
			g, err := decodeGrantSet(v)
			if err != nil {
				return nil, fmt.Errorf("load grants of key %X: %w", k[len(grantKeyPrefix):], err)
			}
			grants[k[len(grantKeyPrefix):]] = g
		default:
			return nil, fmt.Errorf("load system state: unknown key %q (written by a newer relchain?)", k)
		}
	}
	delete(stored, apphashKey)
	sys := SystemSum(stored)
	return &Executor{
		systemSum:   sys,
		systemRaw:   stored,
		replay:      replay,
		perms:       perms{admins: admins, grants: grants},
		be:          be,
		chainID:     chainID,
		params:      params,
		committed:   st,
		stateDigest: StateDigest(sums.Digest(), &sys),
		heightCh:    make(chan struct{}),
		verified:    newVerifiedCache(1 << 16),
	}, nil
}

func (e *Executor) committedStateDigest() []byte {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.stateDigest
}

// Grants returns the committed permission state.
func (e *Executor) Grants() api.Grants {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.perms.view(e.committed.Height, e.params.Admins)
}

// Backend returns the executor's backend.
func (e *Executor) Backend() backend.Backend {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.be
}

// Reload makes be the executor's backend, loading its committed state as
// NewExecutor does: after state sync installed a restored database. No
// block may be pending; the caller closes the old backend.
func (e *Executor) Reload(ctx context.Context, be backend.Backend) error {
	fresh, err := NewExecutor(ctx, be, e.chainID, e.params)
	if err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.pending != nil {
		return errors.New("reload: a block is pending")
	}
	e.be = fresh.be
	e.committed = fresh.committed
	e.stateDigest = fresh.stateDigest
	e.systemSum = fresh.systemSum
	e.systemRaw = fresh.systemRaw
	e.replay = fresh.replay
	e.perms = fresh.perms
	close(e.heightCh)
	e.heightCh = make(chan struct{})
	return nil
}

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

// Recheck is CheckTx's verdict on a tx still in the mempool after a block:
// only what a block can change is checked again, the replay window and
// whether the sender still holds any grant (a revoked key's txs leave the
// mempool instead of failing in a block). Grants on single tables are
// checked in the block.
func (e *Executor) Recheck(tx *txn.Tx) *Rejection {
	if rej := e.CheckReplay(tx); rej != nil {
		return rej
	}
	e.mu.Lock()
	why := e.perms.admit(tx)
	e.mu.Unlock()
	if why != "" {
		return &Rejection{Code: api.CodeUnauthorized, Reason: why}
	}
	return nil
}

// ddlAlone: the backend commits DDL implicitly (MySQL), so a
// bc-transaction with DDL must be one statement, alone in its block
// (backend.Block). CheckTx refuses such a tx with more statements,
// PrepareProposal puts it alone, and FinalizeBlock fails it, before
// anything runs, in a block with other txs.
func (e *Executor) ddlAlone() bool { return e.Backend().Dialect() == "mysql" }

const ddlAloneReason = "on MySQL a bc-transaction with DDL must consist of that one statement, alone in its block (MySQL commits DDL implicitly)"

// HasDDL reports whether raw decodes to a bc-transaction one of whose
// statements the backend's Analyze calls DDL. A tx that does not decode,
// or whose statements Analyze refuses, is not DDL: FinalizeBlock fails it
// wherever it stands.
func (e *Executor) HasDDL(ctx context.Context, raw []byte) bool {
	tx, err := txn.Decode(raw)
	if err != nil {
		return false
	}
	for _, st := range tx.Statements {
		if isSystem(st.SQL) {
			continue
		}
		if a, err := e.Backend().Analyze(ctx, st.SQL); err == nil && a.DDL {
			return true
		}
	}
	return false
}

// anyDDL reports whether any of txs has DDL (HasDDL).
func (e *Executor) anyDDL(ctx context.Context, txs [][]byte) bool {
	for _, raw := range txs {
		if e.HasDDL(ctx, raw) {
			return true
		}
	}
	return false
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
	e.mu.Lock()
	why := e.perms.admit(tx)
	e.mu.Unlock()
	if why != "" {
		return nil, &Rejection{Code: api.CodeUnauthorized, Reason: why}
	}
	sender := string(tx.PubKey)
	for i, st := range tx.Statements {
		if isSystem(st.SQL) {
			if _, err := parseSystem(st, e.Backend().Dialect()); err != nil {
				return nil, &Rejection{Code: api.CodeSyntax, Reason: fmt.Sprintf("statement %d: %v", i+1, err)}
			}
			continue
		}
		a, err := e.Backend().Analyze(ctx, st.SQL)
		if err != nil {
			if rej := analysisRejection(i+1, err); rej != nil && rej.Code != api.CodeExecFailed {
				return nil, rej
			}
			// A failure that depends on state (a table created by an
			// earlier tx of the same block, say): the block decides.
			continue
		}
		e.mu.Lock()
		why := e.perms.authorize(sender, a)
		e.mu.Unlock()
		if why != "" {
			return nil, &Rejection{Code: api.CodeUnauthorized, Reason: fmt.Sprintf("statement %d: %s", i+1, why)}
		}
		if a.DDL && len(tx.Statements) > 1 && e.ddlAlone() {
			return nil, &Rejection{Code: api.CodeForbidden, Reason: fmt.Sprintf("statement %d: %s", i+1, ddlAloneReason)}
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
		if err := verifySignature(tx); err != nil {
			return nil, &Rejection{Code: api.CodeBadSignature, Reason: err.Error()}
		}
	}
	return tx, nil
}

// FinalizeBlock executes the decided block in one db-transaction and
// returns one result per tx and the AppHash. The writes become durable only
// at Commit. When Speculate already executed this very block (same height
// and block hash), its outcome is returned without executing again;
// otherwise an uncommitted earlier attempt is discarded first. A decided
// block runs without a deadline of the executor's own: at least one honest
// validator executed it within its limits before voting for it.
func (e *Executor) FinalizeBlock(ctx context.Context, b BlockInfo, txs [][]byte) ([]TxResult, []byte, error) {
	if p := e.speculated(b); p != nil {
		return p.results, p.appHash, nil
	}
	return e.execBlock(ctx, b, txs, 0)
}

// Speculated reports whether FinalizeBlock of b would return the outcome of
// an earlier Speculate instead of executing.
func (e *Executor) Speculated(b BlockInfo) bool { return e.speculated(b) != nil }

func (e *Executor) speculated(b BlockInfo) *pendingBlock {
	e.mu.Lock()
	p := e.pending
	e.mu.Unlock()
	if p != nil && p.height == b.Height && p.hash != nil && p.results != nil && bytes.Equal(p.hash, b.Hash) {
		return p
	}
	return nil
}

// Speculate executes a proposed block before it is decided, exactly as
// FinalizeBlock would, but gives each tx at most txLimit (the caller's
// node-local limit; 0: none), and keeps the outcome uncommitted:
// FinalizeBlock of the same block returns it, and a different block (or
// the next Speculate) discards it. An error means the block could not be
// executed here; when it happened while tx i ran, it is a *TxError naming
// i, and a tx that ran out of time wraps context.DeadlineExceeded.
func (e *Executor) Speculate(ctx context.Context, b BlockInfo, txs [][]byte, txLimit time.Duration) error {
	_, _, err := e.execBlock(ctx, b, txs, txLimit)
	return err
}

// TxError is a failure of the backend (not a deterministic result) while
// one tx of a block executed: a deadline, a lost connection, exhausted
// memory.
type TxError struct {
	Index int
	Hash  []byte
	Err   error
}

func (t *TxError) Error() string {
	return fmt.Sprintf("tx %d (%X): %v", t.Index, t.Hash[:6], t.Err)
}

func (t *TxError) Unwrap() error { return t.Err }

// execBlock runs the block from the committed state and makes it the
// pending block. Rollbacks after a failure do not inherit ctx's deadline:
// the block must be undone even when the deadline is what stopped it.
func (e *Executor) execBlock(ctx context.Context, b BlockInfo, txs [][]byte, txLimit time.Duration) ([]TxResult, []byte, error) {
	height := b.Height
	undo := context.WithoutCancel(ctx)
	e.mu.Lock()
	committed := e.committed
	pending := e.pending
	e.pending = nil
	e.mu.Unlock()
	if pending != nil {
		if err := pending.block.Rollback(undo); err != nil {
			return nil, nil, fmt.Errorf("finalize block %d: discard earlier uncommitted attempt at height %d: %w", height, pending.height, err)
		}
	}
	if height != committed.Height+1 {
		return nil, nil, fmt.Errorf("finalize block %d: the database has committed height %d, expected block %d", height, committed.Height, committed.Height+1)
	}
	// A statement whose deterministic failure cost the backend the whole
	// db-transaction (backend.ErrBlockLost) is recorded in forced, and the
	// block runs again from the start: every node fails the same statement
	// the same way, so every node runs the same attempts. Each attempt adds
	// one entry, so there are at most len(txs)+1.
	forced := make(map[int]TxResult)
	for {
		blk, err := e.Backend().Begin(ctx)
		if err != nil {
			return nil, nil, fmt.Errorf("finalize block %d: begin: %w", height, err)
		}
		p := &pendingBlock{height: height, hash: b.Hash, time: b.Time, txLimit: txLimit, block: blk, replay: make(map[string]replayState), grants: make(map[string]grantSet)}
		results, outs, err := e.execute(ctx, b, p, txs, forced)
		var lost *lostBlock
		if errors.As(err, &lost) {
			_ = p.block.Rollback(undo)
			forced[lost.index] = lost.result
			continue
		}
		if err == nil && e.params.BlockAtomic && anyFailed(results) {
			err = e.abortBlock(ctx, p, results)
		}
		if err == nil {
			err = e.saveSystem(ctx, p)
		}
		if err == nil {
			err = e.seal(ctx, p, committed, results, outs)
		}
		if err != nil {
			_ = p.block.Rollback(undo)
			return nil, nil, fmt.Errorf("finalize block %d: %w", height, err)
		}
		p.results = results
		e.mu.Lock()
		e.pending = p
		e.mu.Unlock()
		return results, p.appHash, nil
	}
}

// seal digests the executed block: the change and state digests, the
// results' data, and the AppHash (with its inputs recorded in the block).
func (e *Executor) seal(ctx context.Context, p *pendingBlock, committed backend.State, results []TxResult, outs []*execData) error {
	changes, err := p.block.ChangeDigest(ctx)
	if err != nil {
		return fmt.Errorf("change digest: %w", err)
	}
	encodeExecData(results, outs, changes.Effects)
	tables, err := p.block.StateDigest(ctx)
	if err != nil {
		return fmt.Errorf("state digest: %w", err)
	}
	p.stateDigest = StateDigest(tables, &p.systemSum)
	p.appHash = committed.AppHash
	// An empty block changes nothing, unless this node's database
	// changed outside the chain: then its AppHash must differ.
	if len(results) > 0 || !bytes.Equal(p.stateDigest, e.committedStateDigest()) {
		in := AppHashInputs{Prev: committed.AppHash, Height: p.height, Results: ResultsHash(results), Changes: changes.Block}
		p.appHash = in.AppHash(p.stateDigest)
		if err := p.block.SaveSystem(ctx, map[string][]byte{apphashKey: in.encode()}); err != nil {
			return fmt.Errorf("record the AppHash inputs: %w", err)
		}
	}
	return nil
}

// lostBlock is returned by execute when tx index failed deterministically
// and the backend lost the block's db-transaction with it.
type lostBlock struct {
	index  int
	result TxResult
}

func (l *lostBlock) Error() string {
	return fmt.Sprintf("tx %d lost the block's db-transaction", l.index)
}

// encodeExecData writes the Data of every tx that succeeded (outs[i] set,
// result still CodeOK: block_atomic may have aborted it since): its
// statements' results and its effect digest, which exists only once the
// block's change records were read (Block.ChangeDigest, once per block).
func encodeExecData(results []TxResult, outs []*execData, effects map[int][]byte) {
	for i, out := range outs {
		if out == nil || results[i].Code != api.CodeOK {
			continue
		}
		if d, ok := effects[i]; ok {
			out.Effects = hex.EncodeToString(d)
		}
		results[i].Data = encodeJSON(out)
	}
}

// execute runs every tx of the block in its own savepoint, the i-th with
// the Env of tx i (whose index tags its change records). An error return
// means the backend itself failed (not a tx): the block cannot be applied.
// A tx that succeeded has its statements' results in outs and no Data yet
// (see encodeExecData).
func (e *Executor) execute(ctx context.Context, b BlockInfo, p *pendingBlock, txs [][]byte, forced map[int]TxResult) ([]TxResult, []*execData, error) {
	results := make([]TxResult, len(txs))
	outs := make([]*execData, len(txs))
	for i, raw := range txs {
		var h [32]byte
		copy(h[:], txn.Hash(raw))
		tx, rej := e.validate(raw, e.verified.take(h))
		if rej == nil {
			rej = e.consumeNonce(tx, p.replay, b.Time)
		}
		if rej == nil {
			if why := e.perms.admit(tx, p.grants); why != "" {
				rej = &Rejection{Code: api.CodeUnauthorized, Reason: why}
			}
		}
		if rej != nil {
			results[i] = rejectionResult(0, rej)
			continue
		}
		if r, ok := forced[i]; ok {
			results[i] = r
			continue
		}
		if e.ddlAlone() && (len(txs) > 1 || len(tx.Statements) > 1) && e.HasDDL(ctx, raw) {
			// A byzantine proposer's block (ours put such a tx alone).
			results[i] = execFailure(0, &backend.Error{Class: backend.ClassNotImplemented, SQLState: "0A000", Message: ddlAloneReason})
			continue
		}
		res, out, err := e.executeLimited(ctx, p, tx, sqlcheck.NewEnv(b.Time, b.Hash, i))
		var lost *lostBlock
		if errors.As(err, &lost) {
			lost.index = i
			return nil, nil, lost
		}
		if err != nil {
			return nil, nil, &TxError{Index: i, Hash: h[:], Err: err}
		}
		results[i], outs[i] = res, out
	}
	return results, outs, nil
}

// executeLimited is executeTx within the block's per-tx limit, if any.
func (e *Executor) executeLimited(ctx context.Context, p *pendingBlock, tx *txn.Tx, env sqlcheck.Env) (TxResult, *execData, error) {
	if p.txLimit <= 0 {
		return e.executeTx(ctx, p, tx, env)
	}
	ctx, cancel := context.WithTimeout(ctx, p.txLimit)
	defer cancel()
	return e.executeTx(ctx, p, tx, env)
}

// rejectionResult is the deterministic result of a rejected tx; statement
// is the 1-based failing statement, or 0 for the envelope.
func rejectionResult(statement int, rej *Rejection) TxResult {
	return TxResult{Code: rej.Code, Data: encodeJSON(api.FailureData{Statement: statement, Reason: rej.Reason}), Log: rej.Error()}
}

// executeTx runs one bc-transaction. Without wl-transaction groups it is
// one wl-transaction: all its statements or none. A batch envelope
// (txn.Tx.Groups) runs each wl-transaction in its own savepoint: a failing
// one is rolled back alone and reported in the batch's result data, and
// the bc-transaction itself succeeds. A tx that succeeded returns CodeOK
// without Data, and its statements' results.
func (e *Executor) executeTx(ctx context.Context, p *pendingBlock, tx *txn.Tx, env sqlcheck.Env) (TxResult, *execData, error) {
	if len(tx.Groups) == 0 {
		fail, rows, err := e.executeWL(ctx, p, tx, tx.Statements, 0, env)
		if err != nil {
			return TxResult{}, nil, err
		}
		if fail != nil {
			return fail.result(0), nil, nil
		}
		return TxResult{Code: api.CodeOK}, &execData{Results: rows}, nil
	}
	out := &execData{Results: []*backend.Rows{}, Batch: make([]wlData, len(tx.Groups))}
	var logs []string
	var first *wlFailure
	firstOff := 0
	for g := range tx.Groups {
		stmts, off := tx.WL(g)
		fail, rows, err := e.executeWL(ctx, p, tx, stmts, off, wlEnv(env, g))
		if err != nil {
			return TxResult{}, nil, fmt.Errorf("wl-transaction %d: %w", g+1, err)
		}
		if fail == nil {
			out.Batch[g] = wlData{Code: api.CodeOK, Results: rows}
			continue
		}
		f := fail.data
		out.Batch[g] = wlData{Code: fail.code, Failure: &f}
		if first == nil {
			first, firstOff = fail, off
		}
		if len(logs) < maxBatchLogs {
			logs = append(logs, fmt.Sprintf("wl-transaction %d: %s", g+1, fail.log))
		}
	}
	if first != nil && e.params.BlockAtomic {
		// The whole block is rolled back anyway: report the batch as
		// failed, naming its first failing statement.
		return first.result(firstOff), nil, nil
	}
	res := TxResult{Code: api.CodeOK}
	if len(logs) > 0 {
		res.Log = strings.Join(logs, "; ")
	}
	return res, out, nil
}

// maxBatchLogs bounds how many failed wl-transactions a batch's log names.
const maxBatchLogs = 16

// wlEnv is the environment of wl-transaction g of a batch: the tx's clock
// and change attribution, and a random seed of its own.
func wlEnv(env sqlcheck.Env, g int) sqlcheck.Env {
	if g == 0 {
		return env
	}
	h := sha256.New()
	h.Write([]byte("relchain/seed/wl/v1"))
	h.Write(env.Seed[:])
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(g))
	h.Write(n[:])
	copy(env.Seed[:], h.Sum(nil))
	return env
}

// wlFailure is why a wl-transaction was rolled back: its code, the
// deterministic failure data (statement numbered within the
// wl-transaction) and the backend's message for the log.
type wlFailure struct {
	code uint32
	data api.FailureData
	log  string
}

// result is the failure as a whole tx's result; off is the index of the
// wl-transaction's first statement in the tx.
func (f *wlFailure) result(off int) TxResult {
	d := f.data
	if d.Statement > 0 {
		d.Statement += off
	}
	log := f.log
	if off > 0 && d.Statement > 0 {
		log = fmt.Sprintf("statement %d (statement %d of its wl-transaction): %s", d.Statement, f.data.Statement, f.log)
	}
	return TxResult{Code: f.code, Data: encodeJSON(d), Log: log}
}

func rejectionFailure(statement int, rej *Rejection) *wlFailure {
	return &wlFailure{code: rej.Code, data: api.FailureData{Statement: statement, Reason: rej.Reason}, log: rej.Error()}
}

func execFailureOf(statement int, be *backend.Error) *wlFailure {
	return &wlFailure{
		code: api.CodeExecFailed,
		data: api.FailureData{Statement: statement, Class: string(be.Class), SQLState: be.SQLState},
		log:  fmt.Sprintf("statement %d failed: %s", statement, be.Error()),
	}
}

// executeWL runs one wl-transaction, the statements stmts of tx (the first
// being statement off+1 of tx), in its own savepoint: each statement is
// first analyzed by the backend on the block's state (the gate's verdict
// and the tables it writes) and authorized, then executed. System
// statements change the grants in a local overlay that joins the block's
// only if every statement succeeds. It returns the statements' results, or
// the failure after rolling back to the savepoint; an error means the
// backend itself failed.
func (e *Executor) executeWL(ctx context.Context, p *pendingBlock, tx *txn.Tx, stmts []txn.Statement, off int, env sqlcheck.Env) (*wlFailure, []*backend.Rows, error) {
	block := p.block
	if err := block.Savepoint(ctx, env); err != nil {
		return nil, nil, fmt.Errorf("savepoint: %w", err)
	}
	sender := string(tx.PubKey)
	txGrants := make(map[string]grantSet)
	results := make([]*backend.Rows, 0, len(stmts))
	fail := func(f *wlFailure) (*wlFailure, []*backend.Rows, error) {
		if rerr := block.RollbackTo(ctx); rerr != nil {
			return nil, nil, fmt.Errorf("roll back to savepoint: %w", rerr)
		}
		return f, nil, nil
	}
	for j, st := range stmts {
		if isSystem(st.SQL) {
			op, err := parseSystem(st, e.Backend().Dialect())
			if err != nil {
				return fail(rejectionFailure(j+1, &Rejection{Code: api.CodeSyntax, Reason: err.Error()}))
			}
			key := string(op.grantee)
			g := e.perms.grantsOf(key, txGrants, p.grants)
			if op.grant {
				g = g.with(op.table)
			} else {
				g = g.without(op.table)
			}
			txGrants[key] = g
			results = append(results, &backend.Rows{})
			continue
		}
		a, err := block.Analyze(ctx, st.SQL)
		if err != nil {
			rej := analysisRejection(j+1, err)
			if rej == nil {
				return nil, nil, fmt.Errorf("statement %d: analyze: %w", off+j+1, err)
			}
			if rej.Code == api.CodeExecFailed {
				return fail(execFailureOf(j+1, backend.AsError(err)))
			}
			return fail(rejectionFailure(j+1, rej))
		}
		if why := e.perms.authorize(sender, a, txGrants, p.grants); why != "" {
			return fail(rejectionFailure(j+1, &Rejection{Code: api.CodeUnauthorized, Reason: why}))
		}
		rows, err := block.Exec(ctx, st.SQL, argValues(st.Args))
		if err == nil {
			sanitizeRows(rows)
			results = append(results, rows)
			continue
		}
		be := backend.AsError(err)
		if be == nil {
			return nil, nil, fmt.Errorf("statement %d: %w", off+j+1, err)
		}
		if errors.Is(err, backend.ErrBlockLost) {
			// On the retry the whole bc-transaction is forced to fail
			// with this statement (numbered within the tx).
			return nil, nil, &lostBlock{result: execFailure(off+j+1, be)}
		}
		if be.Class == backend.ClassPermission {
			// The gate refused it at execution (SQLite re-judges a
			// statement whenever it is compiled): same code as Analyze.
			return fail(rejectionFailure(j+1, analysisRejection(j+1, be)))
		}
		return fail(execFailureOf(j+1, be))
	}
	if err := block.Release(ctx); err != nil {
		return nil, nil, fmt.Errorf("release savepoint: %w", err)
	}
	for k, g := range txGrants {
		p.grants[k] = g
	}
	return nil, results, nil
}

// execFailure is the result of a statement the backend failed: the class
// and SQLSTATE are deterministic, the message goes to the log.
func execFailure(statement int, be *backend.Error) TxResult {
	return execFailureOf(statement, be).result(0)
}

// consumeNonce checks tx's nonce against the committed window as changed by
// earlier txs of this block, and marks it executed. Every tx that passed
// the envelope checks consumes its nonce, whatever its statements do.
// chainTime is the block's consensus time (see ReplayWindow).
func (e *Executor) consumeNonce(tx *txn.Tx, replay map[string]replayState, chainTime time.Time) *Rejection {
	key := string(tx.PubKey)
	w, ok := replay[key]
	if !ok {
		e.mu.Lock()
		w = e.replay[key]
		e.mu.Unlock()
	}
	if why := w.check(tx.Nonce, chainTime); why != "" {
		return &Rejection{Code: api.CodeReplayed, Reason: why}
	}
	w.mark(tx.Nonce)
	replay[key] = w
	return nil
}

// saveSystem writes the replay windows and grants the block changed into
// its db-transaction.
func (e *Executor) saveSystem(ctx context.Context, p *pendingBlock) error {
	e.mu.Lock()
	p.systemSum = e.systemSum
	e.mu.Unlock()
	if len(p.replay) == 0 && len(p.grants) == 0 {
		return nil
	}
	kv := make(map[string][]byte, len(p.replay)+len(p.grants))
	for k, w := range p.replay {
		kv[replayKeyPrefix+k] = w.encode()
	}
	for k, g := range p.grants {
		if len(g) == 0 {
			kv[grantKeyPrefix+k] = nil
		} else {
			kv[grantKeyPrefix+k] = g.encode()
		}
	}
	if err := p.block.SaveSystem(ctx, kv); err != nil {
		return fmt.Errorf("save system state: %w", err)
	}
	e.mu.Lock()
	p.systemSum = updateSystemSum(p.systemSum, e.systemRaw, kv)
	e.mu.Unlock()
	p.system = kv
	return nil
}

// abortBlock implements block_atomic: it discards every write of the block
// (grant changes included) and marks the txs that succeeded as aborted. It
// leaves p with a fresh, empty db-transaction in which Commit will record
// the height and the consumed nonces.
func (e *Executor) abortBlock(ctx context.Context, p *pendingBlock, results []TxResult) error {
	if err := p.block.Rollback(ctx); err != nil {
		return fmt.Errorf("block_atomic: roll back block: %w", err)
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
	clear(p.grants)
	nb, err := e.Backend().Begin(ctx)
	if err != nil {
		return fmt.Errorf("block_atomic: begin: %w", err)
	}
	p.block = nb
	return nil
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
	e.chainTime = p.time
	e.stateDigest = p.stateDigest
	e.systemSum = p.systemSum
	for k, v := range p.system {
		if v == nil {
			delete(e.systemRaw, k)
		} else {
			e.systemRaw[k] = v
		}
	}
	for k, w := range p.replay {
		e.replay[k] = w
	}
	for k, g := range p.grants {
		if len(g) == 0 {
			delete(e.perms.grants, k)
		} else {
			e.perms.grants[k] = g
		}
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
