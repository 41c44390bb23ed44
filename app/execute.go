// Execution: one block's bc-transactions run in a single db-transaction,
// each in its savepoint, on the decided block (FinalizeBlock) or early on
// a proposal (Speculate).

package app

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/sqlcheck"
	"github.com/relchain/relchain/statedigest"
	"github.com/relchain/relchain/txn"
)

// BlockInfo is what the executor needs to know of a decided block besides
// its txs: its height, and the consensus time and hash from which each tx's
// deterministic environment (clock, random seed) is derived.
type BlockInfo struct {
	Height int64
	Time   time.Time
	Hash   []byte
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
	vals        valSet                 // validator powers this block changed (0: removed)
	valUpdates  []ValidatorUpdate      // for CometBFT, sorted by key (validatorEntries)
	// proto is the protocol state at the block's start (an upgrade due at
	// its height applied: protoActivated), upgrade what its txs did to
	// the scheduled upgrade (nil: nothing; protocol.go).
	proto          *protoState
	protoActivated bool
	upgrade        *upgradeOverlay
	digest         time.Duration // time seal took (for metrics only)
	txKeys         [][32]byte    // the txs' hashes (forgotten by the envelope cache at Commit)
	signers        [][]byte      // the txs' signers' public keys, by index (nil: rejected undecoded)
	rehearsal      bool          // a rehearsal's, rolled back: no tx ends in it (executeWL)
	authSealed     bool          // seal updated the authenticated state (version 4 on)
	authBase       []byte        // then the base of the AppHash (AppHashInputs.base)
	rootsRecorded  bool          // its history recorded the tables' roots (proof_history.go)
	// info and txs are the block as given, to run it again when its
	// COMMIT was lost with the connection (Commit).
	info BlockInfo
	txs  [][]byte
	// shadow is the block's shadow block (shadow.go; nil without a
	// shadow gate), ddl the DDL statements of its committed txs (mixed
	// networks: the system state's DDL log).
	shadow backend.Block
	// judges are the node's schema judges as the block began (shadow.go).
	judges []schemaJudge
	ddl    []txn.Statement
	// serial: run this block on one connection (an attempt on lanes was
	// abandoned; lanes.go); split: the conflict analysis split its txs;
	// onLanes: they ran on lanes; unanalysed: the analysis was skipped
	// (planBackoff).
	serial, split, onLanes, unanalysed bool
}

// laneOutcome is how the block ran (api.BlockTiming.Lanes): on lanes
// ("parallel"), serially after an abandoned attempt ("abandoned"), split
// but run serially by the adaptive choice ("declined"), not analysed
// ("unanalysed"), or "" (serially, not split or lanes off).
func (p *pendingBlock) laneOutcome() string {
	switch {
	case p.serial:
		return api.LanesAbandoned
	case p.onLanes:
		return api.LanesParallel
	case p.split:
		return api.LanesDeclined
	case p.unanalysed:
		return api.LanesUnanalysed
	}
	return ""
}

// PendingLanes is how the block executed last (FinalizeBlock or
// Speculate), not yet committed, ran: its laneOutcome ("" without one).
func (e *Executor) PendingLanes() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.pending == nil {
		return ""
	}
	return e.pending.laneOutcome()
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

// pendingDigest is how long the pending block's digests took (0 without
// one): a local measurement for metrics, never part of a block.
func (e *Executor) pendingDigest() time.Duration {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.pending == nil {
		return 0
	}
	return e.pending.digest
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
//
// When the database is unavailable (backend.ErrDatabaseUnavailable: a lost
// connection, a restarting server) the attempt is discarded and the block
// runs again from the committed state on a fresh connection, after a
// backoff, for as long as the database stays unavailable (dbfault.go).
// Every attempt starts from the same committed state with the same txs,
// so its results and AppHash are those a first attempt gives.
func (e *Executor) execBlock(ctx context.Context, b BlockInfo, txs [][]byte, txLimit time.Duration) ([]TxResult, []byte, error) {
	e.slot.holdForBlock()
	var results []TxResult
	var appHash []byte
	err := e.untilAvailable(ctx, "execute block", b.Height, func() error {
		var err error
		results, appHash, err = e.execBlockHeld(ctx, b, txs, txLimit)
		return err
	}, func() error { return e.checkRecorded(ctx, b.Height) })
	if err != nil {
		// A failed attempt leaves no block open.
		e.slot.releaseBlock()
	}
	return results, appHash, err
}

// execBlockHeld is execBlock with the block slot held.
func (e *Executor) execBlockHeld(ctx context.Context, b BlockInfo, txs [][]byte, txLimit time.Duration) ([]TxResult, []byte, error) {
	height := b.Height
	undo := context.WithoutCancel(ctx)
	e.mu.Lock()
	committed := e.committed
	pending := e.pending
	e.pending = nil
	e.mu.Unlock()
	if pending != nil {
		if err := pending.rollback(undo); err != nil {
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
	serial := false             // a parallel attempt was abandoned (lanes.go)
	var abandoned time.Duration // how long that attempt took
	for {
		blk, err := e.Backend().Begin(ctx)
		if err != nil {
			return nil, nil, fmt.Errorf("finalize block %d: begin: %w", height, err)
		}
		p := &pendingBlock{height: height, hash: b.Hash, time: b.Time, txLimit: txLimit, block: blk, replay: make(map[string]replayState), grants: make(map[string]grantSet), vals: make(valSet),
			info: b, txs: txs, serial: serial}
		if err := e.beginProto(p); err != nil {
			_ = p.rollback(undo)
			return nil, nil, fmt.Errorf("finalize block %d: %w", height, err)
		}
		if err := e.beginShadow(ctx, p); err != nil {
			_ = p.rollback(undo)
			return nil, nil, fmt.Errorf("finalize block %d: %w", height, err)
		}
		started := time.Now()
		results, outs, err := e.execute(ctx, b, p, txs, forced)
		var lost *lostBlock
		if errors.As(err, &lost) {
			_ = p.rollback(undo)
			forced[lost.index] = lost.result
			continue
		}
		if err == nil {
			err = e.finishBlock(ctx, p, committed, results, outs)
		}
		if p.abandoned(err) {
			_ = p.rollback(undo)
			e.lanesAbandoned(height, err)
			serial, abandoned = true, time.Since(started)
			continue
		}
		if err != nil {
			_ = p.rollback(undo)
			return nil, nil, fmt.Errorf("finalize block %d: %w", height, err)
		}
		e.recordLaneChoice(p, serial, len(txs), abandoned+time.Since(started))
		p.results = results
		e.mu.Lock()
		e.pending = p
		e.mu.Unlock()
		return results, p.appHash, nil
	}
}

// finishBlock is what follows a block's txs: block_atomic's rollback if
// one failed, the system state, the digests and the AppHash (seal).
func (e *Executor) finishBlock(ctx context.Context, p *pendingBlock, committed backend.State, results []TxResult, outs []*execData) error {
	if e.params.BlockAtomic && anyFailed(results) {
		if err := e.abortBlock(ctx, p, results); err != nil {
			return err
		}
	}
	if err := e.saveSystem(ctx, p); err != nil {
		return err
	}
	sealStart := time.Now()
	err := e.seal(ctx, p, committed, results, outs)
	p.digest = time.Since(sealStart)
	return err
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

// execute runs every tx of the block in its own savepoint, the i-th with
// the Env of tx i (whose index tags its change records). An error return
// means the backend itself failed (not a tx): the block cannot be applied.
// A tx that succeeded has its statements' results in outs and no Data yet
// (see encodeExecData).
func (e *Executor) execute(ctx context.Context, b BlockInfo, p *pendingBlock, txs [][]byte, forced map[int]TxResult) ([]TxResult, []*execData, error) {
	defer e.verifyAhead(txs)()
	v := e.newVerdicts(txs)
	plan, err := e.planLanes(ctx, p, v, forced)
	if err != nil {
		return nil, nil, err
	}
	if plan != nil {
		p.split = true
		if !e.opts.adaptiveLanes || e.laneChoice.useLanes(len(txs)) {
			return e.executeLanes(ctx, b, p, txs, v, plan)
		}
		e.laneStats.declined.Add(1) // serially: measured faster here
	}
	results := make([]TxResult, len(txs))
	outs := make([]*execData, len(txs))
	for i, raw := range txs {
		h := key(raw)
		tx, rej := e.admitTx(p, v, i, b.Time)
		if rej != nil {
			results[i] = rejectionResult(0, rej)
			continue
		}
		if r, ok := forced[i]; ok {
			results[i] = r
			continue
		}
		if e.ddlAlone() && (len(txs) > 1 || len(tx.Statements) > 1) {
			ddl, err := e.hasDDL(ctx, raw)
			if err != nil {
				return nil, nil, &TxError{Index: i, Hash: h[:], Err: err}
			}
			if ddl {
				// A byzantine proposer's block (ours put such a tx alone).
				results[i] = execFailure(0, &backend.Error{Class: backend.ClassNotImplemented, SQLState: "0A000", Message: ddlAloneReason})
				continue
			}
		}
		env := sqlcheck.NewEnv(b.Time, b.Hash, i)
		env.Protocol = p.version()
		res, out, err := e.executeLimited(ctx, p, tx, env)
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

// admitTx is tx i's admission in its block, in block order: its
// envelope's verdict, its nonce (consumed in p's replay windows) and the
// sender's grants as the block's earlier txs left them. It records the
// tx's key and signer in p.
func (e *Executor) admitTx(p *pendingBlock, v *verdicts, i int, chainTime time.Time) (*txn.Tx, *Rejection) {
	p.txKeys = append(p.txKeys, key(v.txs[i]))
	tx, rej := v.of(i)
	p.signers = append(p.signers, signerOf(tx))
	if rej == nil {
		rej = e.consumeNonce(tx, p.replay, chainTime)
	}
	if rej == nil {
		if why := e.perms.admit(tx, p.grants); why != "" {
			rej = &Rejection{Code: api.CodeUnauthorized, Reason: why}
		}
	}
	return tx, rej
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
		fail = e.agreed(fail)
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
		fail = e.agreed(fail)
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
	// own is the engine's own class and SQLSTATE where data records only
	// the SQLSTATE's class (agreed); nil otherwise.
	own *api.ExecInfo
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
	r := TxResult{Code: f.code, Data: encodeJSON(d), Log: log}
	if f.own != nil {
		r.Info = encodeJSON(f.own)
	}
	return r
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
	if p.shadow != nil {
		if err := p.shadow.Savepoint(ctx, env); err != nil {
			return nil, nil, fmt.Errorf("shadow gate: savepoint: %w", err)
		}
	}
	w := &wlState{grants: make(map[string]grantSet), vals: make(valSet), results: make([]*backend.Rows, 0, len(stmts))}
	fail := func(f *wlFailure) (*wlFailure, []*backend.Rows, error) {
		if rerr := block.RollbackTo(ctx); rerr != nil {
			return nil, nil, fmt.Errorf("roll back to savepoint: %w", rerr)
		}
		if p.shadow != nil {
			if rerr := p.shadow.RollbackTo(ctx); rerr != nil {
				return nil, nil, fmt.Errorf("shadow gate: roll back to savepoint: %w", rerr)
			}
		}
		return f, nil, nil
	}
	for j, st := range stmts {
		f, err := e.runStatement(ctx, p, tx, w, j, off, st, env)
		if err != nil {
			return nil, nil, err
		}
		if f != nil {
			return fail(f)
		}
	}
	if w.lastDDL > 0 {
		f, err := canonicalSchema(ctx, block, w.lastDDL, w.leftOut)
		if err != nil {
			return nil, nil, err
		}
		if f != nil {
			return fail(f)
		}
	}
	f, rehearsed, err := releaseWL(ctx, p)
	switch {
	case err != nil:
		return nil, nil, err
	case f != nil:
		return fail(f)
	case rehearsed:
		return nil, w.results, nil
	}
	for k, g := range w.grants {
		p.grants[k] = g
	}
	for k, v := range w.vals {
		p.vals[k] = v
	}
	if w.up.set {
		p.upgrade = &w.up
	}
	p.ddl = append(p.ddl, w.ddl...)
	return nil, w.results, nil
}

// wlState is what a wl-transaction gathers while its statements run: its
// overlays of the block's grants, validators and upgrade (joined if it
// succeeds), its results, and for version 5 its last DDL statement
// (1-based) and the tables without canonical form before its first.
type wlState struct {
	grants  map[string]grantSet
	vals    valSet
	up      upgradeOverlay
	results []*backend.Rows
	lastDDL int
	leftOut map[string]error
	ddl     []txn.Statement // its DDL statements, for a mixed network's DDL log
}

// runStatement runs statement j of a wl-transaction (statement off+j+1 of
// tx) in its savepoint: its failure, or nil with its result appended to
// w; an error when the backend itself failed.
func (e *Executor) runStatement(ctx context.Context, p *pendingBlock, tx *txn.Tx, w *wlState, j, off int, st txn.Statement, env sqlcheck.Env) (*wlFailure, error) {
	if isSystem(st.SQL) {
		if rej := e.systemStatement(p, st, w.grants, w.vals, &w.up); rej != nil {
			return rejectionFailure(j+1, rej), nil
		}
		w.results = append(w.results, &backend.Rows{})
		return nil, nil
	}
	f, ddl, err := e.judge(ctx, p, string(tx.PubKey), j, off, st, w.grants)
	if err != nil || f != nil {
		return f, err
	}
	canonical := e.canonicalAt(env.Protocol) // a rehearsal's: the next block's
	if ddl && canonical {
		if w.lastDDL == 0 {
			if w.leftOut, err = schemaLeftOut(ctx, p.block); err != nil {
				return nil, err
			}
		}
		w.lastDDL = j + 1
	}
	err = p.shadowJudge(ctx, st, ddl, env)
	var rows *backend.Rows
	if err == nil {
		rows, err = p.block.Exec(ctx, st.SQL, argValues(st.Args))
	}
	if err == nil && ddl && e.params.Mixed() {
		w.ddl = append(w.ddl, st)
	}
	if err == nil {
		sanitizeRows(rows)
		rows.Types = nil // read-path only: committed results keep their JSON (backend.Rows)
		if canonical {
			canonicalOrder(rows)
		}
		if f := conflictFailure(j+1, expectation(tx, off+j), rows); f != nil {
			return f, nil
		}
		w.results = append(w.results, rows)
		return nil, nil
	}
	be := backend.AsError(err)
	if be == nil {
		return nil, fmt.Errorf("statement %d: %w", off+j+1, err)
	}
	if errors.Is(err, backend.ErrBlockLost) {
		// On the retry the whole bc-transaction is forced to fail
		// with this statement (numbered within the tx).
		return nil, &lostBlock{result: e.agreed(execFailureOf(off+j+1, be)).result(0)}
	}
	if be.Class == backend.ClassPermission {
		// The gate refused it at execution (SQLite re-judges a
		// statement whenever it is compiled): same code as Analyze.
		return rejectionFailure(j+1, analysisRejection(j+1, be)), nil
	}
	return execFailureOf(j+1, be), nil
}

// releaseWL ends a wl-transaction's savepoint. A constraint deferred to
// the end of the transaction and still violated
// (backend.ErrDeferredViolation) fails the tx as a whole, as PostgreSQL's
// COMMIT fails (no statement of it is to blame); in a rehearsal, which
// runs a transaction so far (the gateway rehearses each statement with
// the ones before it), it is no failure: rehearsed is true, the tx's
// overlays are not joined and the rehearsal's Rollback ends the savepoint
// with everything else. An error is the backend's.
func releaseWL(ctx context.Context, p *pendingBlock) (f *wlFailure, rehearsed bool, err error) {
	err = p.block.Release(ctx)
	if err == nil {
		if p.shadow != nil {
			if err := p.shadow.Release(ctx); err != nil {
				return nil, false, fmt.Errorf("shadow gate: release savepoint: %w", err)
			}
		}
		return nil, false, nil
	}
	be := backend.AsError(err)
	switch {
	case be == nil || !errors.Is(err, backend.ErrDeferredViolation):
		return nil, false, fmt.Errorf("release savepoint: %w", err)
	case p.rehearsal:
		return nil, true, nil
	}
	return &wlFailure{code: api.CodeExecFailed,
		data: api.FailureData{Class: string(be.Class), SQLState: be.SQLState},
		log:  "at the end of the transaction: " + be.Error()}, false, nil
}

// judge is the verdict on statement j (0-based; statement off+j+1 of the
// tx) of a wl-transaction before it runs in the block: the gate's on the
// block's state, its number of arguments, the sender's permission. It
// returns the failure, nil to run the statement, or an error when the
// backend itself failed.
func (e *Executor) judge(ctx context.Context, p *pendingBlock, sender string, j, off int, st txn.Statement, txGrants map[string]grantSet) (f *wlFailure, ddl bool, err error) {
	if p.shadow != nil {
		// The translating engines' verdict first, as they reach it.
		if _, f, err := e.analyze(ctx, e.shadow.Gate(), p.shadow, j, off, st); f != nil || err != nil {
			return f, false, err
		}
	}
	a, f, err := e.analyze(ctx, e.gate(), p.block, j, off, st)
	if f != nil || err != nil {
		return f, false, err
	}
	if rej := argsRejection(j+1, a, st); rej != nil {
		return rejectionFailure(j+1, rej), false, nil
	}
	if why := e.perms.authorize(sender, a, txGrants, p.grants); why != "" {
		return rejectionFailure(j+1, &Rejection{Code: api.CodeUnauthorized, Reason: why}), false, nil
	}
	if a.DDL && e.slot.held.Load() {
		// A block's DDL (consensus holds the slot; a rehearsal runs only
		// while it does not): see readGate.
		e.slot.reads.preemptReads()
	}
	return nil, a.DDL, nil
}

// analyze is gate g's analysis of statement j (statement off+j+1 of its
// tx) in block blk: its failure when g refuses it, or when a network over
// several engines cannot run it on every engine (BeyondPostgres); an
// error when the backend itself failed.
func (e *Executor) analyze(ctx context.Context, g backend.Gate, blk backend.Block, j, off int, st txn.Statement) (sqlcheck.Analysis, *wlFailure, error) {
	a, err := g.AnalyzeInBlock(ctx, blk, st.SQL)
	if err == nil && a.BeyondPostgres && e.params.Mixed() {
		return a, rejectionFailure(j+1, &Rejection{Code: api.CodeForbidden, Reason: beyondPostgres}), nil
	}
	if err == nil {
		return a, nil, nil
	}
	rej := analysisRejection(j+1, err)
	switch {
	case rej == nil:
		return a, nil, fmt.Errorf("statement %d: analyze: %w", off+j+1, err)
	case rej.Code == api.CodeExecFailed:
		return a, execFailureOf(j+1, backend.AsError(err)), nil
	}
	return a, rejectionFailure(j+1, rej), nil
}

// systemStatement executes a system statement of a tx in a block: its
// change goes into the tx's overlays (txGrants, txVals), which join the
// block's if the whole wl-transaction succeeds.
func (e *Executor) systemStatement(p *pendingBlock, st txn.Statement, txGrants map[string]grantSet, txVals valSet, txUp *upgradeOverlay) *Rejection {
	if isUpgradeStmt(st.SQL) {
		return e.checkUpgrade(p, st, txUp)
	}
	if isValidatorStmt(st.SQL) {
		if why := e.checkValidator(st, p.vals, txVals); why != "" {
			return &Rejection{Code: api.CodeValidatorRefused, Reason: why}
		}
		return nil
	}
	op, err := parseSystem(st, e.gate())
	if err != nil {
		return &Rejection{Code: api.CodeSyntax, Reason: err.Error()}
	}
	key := string(op.grantee)
	g := e.perms.grantsOf(key, txGrants, p.grants)
	if op.grant {
		g = g.with(op.table)
	} else {
		g = g.without(op.table)
	}
	txGrants[key] = g
	return nil
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

func anyFailed(rs []TxResult) bool {
	for _, r := range rs {
		if r.Code != api.CodeOK {
			return true
		}
	}
	return false
}

// expectation is the client's observation of statement i of tx, or nil.
func expectation(tx *txn.Tx, i int) txn.Observation {
	if i < len(tx.Expect) {
		return tx.Expect[i]
	}
	return nil
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

// agreed is f as the validators of a network over several engines agree
// on it: a failure the engine reported (a SQLSTATE) records only its
// SQLSTATE's class ("22P02" becomes "22000", the failure class always the
// one of "22000", whatever class the engine named), since two engines failing one statement alike may still name
// the condition differently within a class (PostgreSQL's 22P02, MariaDB's
// "incorrect value" 22000, or 42883 against 42725), and Data enters the
// AppHash. What the differential suite checks, and every validator must
// give alike, is the class. The engine's own code stays in the result's
// Info and log, and a rehearsal reports it. Elsewhere f is unchanged.
func (e *Executor) agreed(f *wlFailure) *wlFailure {
	if f == nil || !e.params.Mixed() || len(f.data.SQLState) != 5 {
		return f
	}
	generic := f.data.SQLState[:2] + "000"
	class := string(backend.ClassOfSQLState(generic))
	if generic == f.data.SQLState && class == f.data.Class {
		return f
	}
	g := *f
	g.own = &api.ExecInfo{SQLState: f.data.SQLState, Class: f.data.Class}
	g.data.SQLState, g.data.Class = generic, class
	return &g
}
