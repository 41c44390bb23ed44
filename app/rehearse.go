// Rehearsal: an interactive transaction's statements run as the next
// block would run them, on committed state, and are rolled back.

package app

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"time"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/sqlcheck"
	"github.com/relchain/relchain/txn"
)

// AuthenticateRehearsal decodes a signed rehearsal request
// (api.RehearsePath) and checks, in this order, its encoding, its chain
// id, its signature and the freshness of its height against the committed
// height (api.RehearsalWindow, api.RehearsalAhead). A refusal carries the
// api code the request is answered with; nothing has run.
func (e *Executor) AuthenticateRehearsal(data []byte) (*txn.Rehearsal, *Rejection) {
	r, err := txn.DecodeRehearsal(data)
	if err != nil {
		return nil, &Rejection{Code: api.CodeQueryBadInput, Reason: err.Error()}
	}
	if r.ChainID != e.chainID {
		return nil, &Rejection{Code: api.CodeWrongChain, Reason: fmt.Sprintf("rehearsal is for chain %q, this is chain %q", r.ChainID, e.chainID)}
	}
	if err := r.Verify(); err != nil {
		return nil, &Rejection{Code: api.CodeBadSignature, Reason: err.Error()}
	}
	h := e.State().Height
	if r.Height < h-api.RehearsalWindow || r.Height > h+api.RehearsalAhead {
		return nil, &Rejection{Code: api.CodeStaleRequest, Reason: fmt.Sprintf("rehearsal signed at height %d; this node is at height %d and accepts %d to %d: sign it again with a recent height", r.Height, h, max(h-api.RehearsalWindow, 0), h+api.RehearsalAhead)}
	}
	return r, nil
}

// Rehearse runs stmts as one bc-transaction of sender would run at the
// start of the next block (gate, permissions, the backend's bounds), in
// the backend's block db-transaction on committed state, and rolls
// everything back: nothing is written, no change is captured. It returns
// every statement's results with the observation a client that saw them
// puts in its envelope, or the failure a block would report. Clock and
// random functions read the last block's time and a fixed seed: their
// values differ in the block, so such statements are observed by their
// counts only (txn.ObserveCounts).
//
// Rehearse trusts sender: its callers authenticate it first
// (AuthenticateRehearsal for a request from the network).
//
// A rehearsal holds the block db-transaction only while it runs and
// yields it to consensus at once (see blockSlot); it fails with
// ErrRehearsalBusy when it could not get it before ctx ends. It never
// waits for a lock longer than RehearsalLockWait (ErrRehearsalLockWait),
// and one with DDL runs RehearsalSchemaHold at most (ErrRehearsalBusy):
// its exclusive locks stall the table's readers while it holds them.
func (e *Executor) Rehearse(ctx context.Context, sender ed25519.PublicKey, stmts []txn.Statement) (api.RehearseResponse, error) {
	return e.RehearseProbe(ctx, sender, stmts, nil)
}

// RehearseProbe is Rehearse with a probe (nil: none): when every
// statement succeeded, probe runs after them in the same db-transaction
// under the read policy (backend.BlockReader: the read gate, not the
// block gate; the query path's limits), so it sees their schema changes
// and writes; its outcome is the response's Probe, and it is rolled back
// with the rest. A backend that cannot run it answers api.CodeUnknownPath
// in the Probe. The probe is never part of a bc-transaction: nothing of
// it is observed or committed.
func (e *Executor) RehearseProbe(ctx context.Context, sender ed25519.PublicKey, stmts []txn.Statement, probe *txn.Statement) (api.RehearseResponse, error) {
	if why := e.rehearsable(ctx, stmts); why != nil {
		return rehearsalFailure(0, why), nil
	}
	if e.changesSchema(ctx, stmts) {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, RehearsalSchemaHold, errSchemaHold)
		defer cancel()
	}
	for {
		resp, err := e.rehearseOnce(ctx, sender, stmts, probe)
		if !errors.Is(err, errPreempted) {
			return resp, err
		}
		// A block took the slot: run again on its state, if time allows.
		if ctx.Err() != nil {
			return api.RehearseResponse{}, fmt.Errorf("%w (%v)", ErrRehearsalBusy, context.Cause(ctx))
		}
	}
}

// errPreempted is rehearseOnce's error when consensus took the slot.
var errPreempted = errors.New("rehearsal preempted by a block")

func (e *Executor) rehearseOnce(ctx context.Context, sender ed25519.PublicKey, stmts []txn.Statement, probe *txn.Statement) (api.RehearseResponse, error) {
	rctx, release, err := e.slot.holdForRehearsal(ctx)
	if err != nil {
		return api.RehearseResponse{}, err
	}
	defer release()
	e.mu.Lock()
	committed, chainTime := e.committed, e.chainTime
	e.mu.Unlock()
	p, done, err := e.beginRehearsal(ctx, rctx, committed.Height+1, chainTime)
	if err != nil {
		return api.RehearseResponse{}, err
	}
	defer done()
	blk := p.block
	tx := &txn.Tx{PubKey: sender, Statements: stmts}
	resp := api.RehearseResponse{Height: committed.Height}
	if why := e.perms.admit(tx); why != "" {
		return rehearsalFailure(committed.Height, &Rejection{Code: api.CodeUnauthorized, Reason: why}), nil
	}
	env := sqlcheck.NewEnv(chainTime, nil, 0)
	env.Protocol = e.NextVersion() // a tx of the next block runs by its rules
	fail, rows, err := e.executeWL(rctx, p, tx, stmts, 0, env)
	var lost *lostBlock
	switch {
	case errors.As(err, &lost):
		resp.Code, resp.Log = lost.result.Code, lost.result.Log
		return resp, nil
	case errors.Is(err, backend.ErrLockWait):
		return api.RehearseResponse{}, fmt.Errorf("%w: %w", ErrRehearsalLockWait, err)
	case err != nil && ctx.Err() != nil:
		return api.RehearseResponse{}, fmt.Errorf("%w (%v: %v)", ErrRehearsalBusy, context.Cause(ctx), err)
	case err != nil && rctx.Err() != nil:
		return api.RehearseResponse{}, errPreempted
	case err != nil:
		return api.RehearseResponse{}, fmt.Errorf("rehearse: %w", err)
	case fail != nil:
		d := fail.data
		resp.Code, resp.Failure, resp.Log = fail.code, &d, fail.log
		return resp, nil
	}
	resp.Statements = make([]api.RehearsedStatement, len(rows))
	for i, r := range rows {
		resp.Statements[i] = api.RehearsedStatement{
			Columns: r.Columns, Rows: r.Rows, RowsAffected: r.RowsAffected,
			Observation: Observe(e.observeMode(ctx, stmts[i].SQL), r),
		}
	}
	if probe != nil {
		p, err := e.runProbe(rctx, blk, probe)
		switch {
		case err != nil && ctx.Err() != nil:
			return api.RehearseResponse{}, fmt.Errorf("%w (%v: %v)", ErrRehearsalBusy, context.Cause(ctx), err)
		case err != nil && rctx.Err() != nil:
			return api.RehearseResponse{}, errPreempted
		case err != nil:
			return api.RehearseResponse{}, fmt.Errorf("rehearse: probe: %w", err)
		}
		resp.Probe = p
	}
	return resp, nil
}

// beginRehearsal begins a rehearsal of a tx of block height at chain time
// t: its db-transaction (lock waits bounded where the backend can) and,
// on a PostgreSQL validator of a network over several engines, its shadow
// gate's block, so that what the block will refuse is refused at the
// statement, not at COMMIT. done rolls both back. rctx is the rehearsal's
// context (a block preempts it), ctx the caller's.
func (e *Executor) beginRehearsal(ctx, rctx context.Context, height int64, t time.Time) (p *pendingBlock, done func(), err error) {
	blk, err := e.Backend().Begin(rctx)
	if err != nil && rctx.Err() != nil {
		return nil, nil, errPreempted
	}
	if err != nil {
		return nil, nil, fmt.Errorf("rehearse: begin: %w", err)
	}
	p = &pendingBlock{height: height, time: t, block: blk, replay: make(map[string]replayState), grants: make(map[string]grantSet), vals: make(valSet), rehearsal: true}
	// Only a bounded Block replaces p.block: done must always find the
	// open db-transaction (a block that preempts the rehearsal cancels
	// rctx, and the bound's SET fails).
	done = func() {
		if p.shadow != nil {
			_ = p.shadow.Rollback(context.WithoutCancel(ctx))
		}
		_ = p.block.Rollback(context.WithoutCancel(ctx))
	}
	if lb, ok := blk.(backend.LockWaitBounder); ok {
		bounded, err := lb.BoundLockWaits(rctx, RehearsalLockWait)
		if err != nil {
			done()
			if rctx.Err() != nil {
				return nil, nil, errPreempted
			}
			return nil, nil, fmt.Errorf("rehearse: %w", err)
		}
		p.block = bounded
	}
	if err := e.beginShadow(rctx, p); err != nil {
		done()
		if rctx.Err() != nil {
			return nil, nil, errPreempted
		}
		return nil, nil, fmt.Errorf("rehearse: %w", err)
	}
	return p, done, nil
}

// runProbe runs a rehearsal's probe in blk (see RehearseProbe). A refusal
// or failure of the read is the probe's outcome; an error is the node's.
func (e *Executor) runProbe(ctx context.Context, blk backend.Block, probe *txn.Statement) (*api.ProbeResult, error) {
	br, ok := blk.(backend.BlockReader)
	var rows *backend.Rows
	err := backend.ErrBlockReadUnsupported
	if ok {
		rows, err = br.ReadInBlock(ctx, probe.SQL, argValues(probe.Args))
	}
	if errors.Is(err, backend.ErrBlockReadUnsupported) {
		return &api.ProbeResult{Code: api.CodeUnknownPath, Log: fmt.Sprintf("%v: this node's %s database runs no rehearsal probe", backend.ErrBlockReadUnsupported, e.Backend().Dialect())}, nil
	}
	if be := backend.AsError(err); be != nil {
		return &api.ProbeResult{Code: api.CodeQueryFailed, Log: be.Error(), Failure: &api.FailureData{Class: string(be.Class), SQLState: be.SQLState}}, nil
	}
	if err != nil {
		return nil, err
	}
	sanitizeRows(rows)
	return &api.ProbeResult{Code: api.CodeOK, Columns: rows.Columns, Types: rows.Types, Typmods: rows.Typmods, Rows: rows.Rows}, nil
}

// Bounds on the locks a rehearsal takes (see app/DESIGN.md, rehearsal
// lock bounds). A rehearsal runs on the writer's session, and its DDL
// takes exclusive locks that every read of the table then waits for.
const (
	// RehearsalLockWait bounds each lock wait of a rehearsal (PostgreSQL
	// lock_timeout): while a statement waits for a lock a read holds,
	// every later read of that table queues behind it, so a rehearsal
	// gives up at once rather than stall the table's readers.
	RehearsalLockWait = 100 * time.Millisecond
	// RehearsalSchemaHold bounds a whole rehearsal that changes the schema:
	// the exclusive lock it takes is held until it rolls back.
	RehearsalSchemaHold = time.Second
)

// ErrRehearsalLockWait is Rehearse's error (wrapping ErrRehearsalBusy)
// when a statement gave up waiting for a lock another session holds.
var ErrRehearsalLockWait = fmt.Errorf("%w: a statement waited more than %s for a lock another session (a read, a checkpoint) holds", ErrRehearsalBusy, RehearsalLockWait)

// errSchemaHold is the cause of a rehearsal that changes the schema and
// ran past RehearsalSchemaHold.
var errSchemaHold = fmt.Errorf("a rehearsal that changes the schema holds its exclusive locks %s at most", RehearsalSchemaHold)

// changesSchema reports whether a statement of stmts is DDL.
func (e *Executor) changesSchema(ctx context.Context, stmts []txn.Statement) bool {
	for _, st := range stmts {
		if isSystem(st.SQL) {
			continue
		}
		if a, err := e.gate().Analyze(ctx, st.SQL); err == nil && a.DDL {
			return true
		}
	}
	return false
}

// rehearsable refuses what a rehearsal must not run: DDL where the
// database commits it at once (it would write outside a block).
func (e *Executor) rehearsable(ctx context.Context, stmts []txn.Statement) *Rejection {
	for i, st := range stmts {
		if e.namesHistory(st.SQL) {
			return &Rejection{Code: api.CodeExecFailed, Reason: fmt.Sprintf("statement %d reads relchain_history(...): the row history is this node's, read outside a transaction; a transaction's statements run in a block, where it does not exist", i+1)}
		}
	}
	if e.Backend().Capabilities().TransactionalDDL {
		return nil
	}
	for i, st := range stmts {
		if isSystem(st.SQL) {
			continue
		}
		if a, err := e.gate().Analyze(ctx, st.SQL); err == nil && a.DDL {
			return &Rejection{Code: api.CodeExecFailed, Reason: fmt.Sprintf("statement %d is DDL: on this database DDL commits at once, so it cannot run inside an interactive transaction; run it on its own", i+1)}
		}
	}
	return nil
}

// observeMode is how a client's observation of sql is compared in the
// block: by counts when its values depend on the block's clock or seed.
func (e *Executor) observeMode(ctx context.Context, sql string) txn.ObserveMode {
	if isSystem(sql) {
		return txn.ObserveAll
	}
	if a, err := e.gate().Analyze(ctx, sql); err == nil && a.UsesEnv {
		return txn.ObserveCounts
	}
	return txn.ObserveAll
}

func rehearsalFailure(height int64, rej *Rejection) api.RehearseResponse {
	return api.RehearseResponse{Height: height, Code: rej.Code, Failure: &api.FailureData{Reason: rej.Reason}, Log: rej.Error()}
}
