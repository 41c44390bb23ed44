// Commit and system state: sealing an executed block (digests, AppHash,
// system state) and committing it with its (height, AppHash).

package app

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/protocol"
)

// seal digests the executed block: the change and state digests, the
// results' data, and the AppHash (with its inputs recorded in the block).
func (e *Executor) seal(ctx context.Context, p *pendingBlock, committed backend.State, results []TxResult, outs []*execData) error {
	changes, err := p.block.ChangeDigest(ctx)
	if err != nil {
		return fmt.Errorf("change digest: %w", err)
	}
	canonical := e.canonicalAt(p.version())
	if !canonical {
		encodeExecData(results, outs, changes.Effects)
	}
	tables, err := p.block.StateDigest(ctx)
	if err != nil {
		return fmt.Errorf("state digest: %w", err)
	}
	p.stateDigest = StateDigest(tables, &p.systemSum)
	p.appHash = committed.AppHash
	// An empty block changes nothing, unless this node's database
	// changed outside the chain: then its AppHash must differ.
	if len(results) > 0 || !bytes.Equal(p.stateDigest, e.committedStateDigest()) {
		in := AppHashInputs{Protocol: p.version(), Prev: committed.AppHash, Height: p.height, Changes: changes.Block, Canonical: canonical}
		if err := e.sealInputs(ctx, p, &in, results, outs); err != nil {
			return err
		}
		p.appHash = in.AppHash(p.stateDigest)
		if err := p.block.SaveSystem(ctx, map[string][]byte{apphashKey: in.encode()}); err != nil {
			return fmt.Errorf("record the AppHash inputs: %w", err)
		}
	}
	return e.appendHistory(ctx, p)
}

// sealInputs completes the AppHash inputs of block p: from version 4 on
// the authenticated state sealed (the tables map's root); from version 5
// on, the canonical parts instead of the engine's digests (canonical.go):
// effect digests of canonical rows in the results' data, the system sum
// and the sequences.
func (e *Executor) sealInputs(ctx context.Context, p *pendingBlock, in *AppHashInputs, results []TxResult, outs []*execData) error {
	if in.Protocol >= protocol.V4 {
		e.auth.noVersions = e.historyConfig().Off
		var err error
		if in.Tables, err = e.auth.seal(ctx, p.block); err != nil {
			return err
		}
		p.authSealed = true
	}
	if in.Canonical {
		encodeExecData(results, outs, canonicalEffects(e.auth.delta))
		var err error
		if in.Sequences, err = sequencesOf(ctx, p.block); err != nil {
			return fmt.Errorf("authenticated state: %w", err)
		}
		in.Changes, in.System = nil, p.systemSum
	}
	in.Results = ResultsHash(results)
	if p.authSealed {
		p.authBase = in.base(p.stateDigest)
		crashAt("authstate-sealed")
	}
	return nil
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

// saveSystem writes the replay windows, grants, validators and protocol
// state the block changed into its db-transaction.
func (e *Executor) saveSystem(ctx context.Context, p *pendingBlock) error {
	e.mu.Lock()
	p.systemSum = e.systemSum
	valKV := e.validatorEntries(p)
	e.mu.Unlock()
	var protoKV map[string][]byte
	if p.proto != nil {
		protoKV = e.blockProto(p).entries(p.protoActivated, p.upgrade != nil)
	}
	if len(p.replay) == 0 && len(p.grants) == 0 && len(valKV) == 0 && len(protoKV) == 0 && len(p.ddl) == 0 {
		return nil
	}
	kv := make(map[string][]byte, len(p.replay)+len(p.grants)+len(valKV)+len(protoKV)+len(p.ddl))
	saveDDLLog(p, kv)
	for k, v := range valKV {
		kv[k] = v
	}
	for k, v := range protoKV {
		kv[k] = v
	}
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

// validatorEntries returns the system entries of the validators the block
// changed (and, in the first block, of the genesis set InitChain gave),
// and sets p.valUpdates, sorted by key. A change that leaves a power as
// committed (a validator added and removed in one block) is dropped: it
// is no update for CometBFT, which refuses to remove an unknown validator.
// e.mu is held.
func (e *Executor) validatorEntries(p *pendingBlock) map[string][]byte {
	kv := make(map[string][]byte)
	if e.valsUnsaved {
		for k, v := range e.vals {
			kv[validatorKeyPrefix+k] = encodePower(v)
		}
	}
	p.valUpdates = nil
	for _, u := range p.vals.updates() {
		if e.vals[string(u.PubKey)] == u.Power {
			continue
		}
		p.valUpdates = append(p.valUpdates, u)
		if u.Power == 0 {
			kv[validatorKeyPrefix+string(u.PubKey)] = nil
		} else {
			kv[validatorKeyPrefix+string(u.PubKey)] = encodePower(u.Power)
		}
	}
	return kv
}

// ValidatorUpdates returns the validator changes of the pending block of
// height h (executed, not yet committed), sorted by key: FinalizeBlock's
// ValidatorUpdates.
func (e *Executor) ValidatorUpdates(h int64) []ValidatorUpdate {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.pending == nil || e.pending.height != h {
		return nil
	}
	return slices.Clone(e.pending.valUpdates)
}

// abortBlock implements block_atomic: it discards every write of the block
// (grant changes included) and marks the txs that succeeded as aborted. It
// leaves p with a fresh, empty db-transaction in which Commit will record
// the height and the consumed nonces.
func (e *Executor) abortBlock(ctx context.Context, p *pendingBlock, results []TxResult) error {
	if err := p.rollback(ctx); err != nil {
		return fmt.Errorf("block_atomic: roll back block: %w", err)
	}
	p.ddl = nil
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
	clear(p.vals)
	p.upgrade = nil // an upgrade due at this height still takes effect
	nb, err := e.Backend().Begin(ctx)
	if err != nil {
		return fmt.Errorf("block_atomic: begin: %w", err)
	}
	p.block = nb
	return e.beginShadow(ctx, p)
}

// ErrNothingToCommit is returned by Commit without a preceding FinalizeBlock.
var ErrNothingToCommit = errors.New("commit without a finalized block")

// Commit makes the pending block durable together with its height and
// AppHash, in one db-transaction.
//
// When the database is unavailable (backend.ErrDatabaseUnavailable) the
// COMMIT may or may not have been applied: after a backoff, on a fresh
// connection, the (height, AppHash) the database records decides
// (resolveCommit). The block committed: done. The database still records
// the block before: the block runs again from there, must give the same
// results and AppHash, and is committed again. Anything else is a broken
// invariant (ErrBrokenInvariant): the node stops.
func (e *Executor) Commit(ctx context.Context) (backend.State, error) {
	e.mu.Lock()
	p := e.pending
	e.mu.Unlock()
	if p == nil {
		return backend.State{}, ErrNothingToCommit
	}
	st := backend.State{Height: p.height, AppHash: p.appHash}
	// cur is the attempt whose COMMIT runs next, nil once one took
	// effect; p is then the attempt that committed.
	cur := p
	rerun := false // counted once per Commit (DatabaseStatus)
	err := e.untilAvailable(ctx, "commit block", p.height, func() error {
		if cur == nil {
			return nil
		}
		if err := cur.block.Commit(ctx, st); err != nil {
			return err
		}
		p, cur = cur, nil
		return nil
	}, func() error {
		if cur == nil {
			return nil
		}
		next, err := e.resolveCommit(ctx, cur, st)
		switch {
		case err != nil:
			return err
		case next == nil:
			p, cur = cur, nil
		default:
			cur = next
			if !rerun {
				rerun = true
				e.db.lostCommit(false)
			}
		}
		return nil
	})
	if err != nil {
		return backend.State{}, fmt.Errorf("commit block %d: %w", st.Height, err)
	}
	crashAt("block-committed")
	e.commitShadow(ctx, p, st)
	e.envelopes.forget(p.txKeys)
	e.mu.Lock()
	e.adoptCommitted(p, st)
	close(e.heightCh)
	e.heightCh = make(chan struct{})
	e.mu.Unlock()
	e.slot.releaseBlock()
	e.warmLanes()
	return st, nil
}

// adoptCommitted makes block p, committed as st, the executor's committed
// state. e.mu is held.
func (e *Executor) adoptCommitted(p *pendingBlock, st backend.State) {
	e.pending = nil
	e.committed = st
	e.chainTime = p.time
	e.stateDigest = p.stateDigest
	e.rootsKept = e.rootsKept || p.rootsRecorded
	if p.authSealed {
		e.auth.commit()
		e.authSnap = e.auth.snapshot(st.Height, p.version(), p.authBase)
		e.authSnaps = append(e.authSnaps, e.authSnap)
		e.trimSnapshots()
	} else {
		e.auth.rollback() // a discarded attempt's, if any
	}
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
	if e.valsUnsaved {
		e.valsKnown, e.valsUnsaved = true, false
	}
	e.vals = e.vals.with(p.vals)
	if p.proto != nil {
		e.proto = p.blockProtoHeld()
	}
}

// resolveCommit decides, after the connection was lost during the Commit
// of p (as st), what the database did with it, waiting for the lost
// session's db-transaction to end (backend.Backend.RecordedState). It
// returns nil when the COMMIT took effect; the block executed again (the
// new pending block), its results and AppHash checked against p's, when
// the database records the block before; an ErrBrokenInvariant
// otherwise.
func (e *Executor) resolveCommit(ctx context.Context, p *pendingBlock, st backend.State) (*pendingBlock, error) {
	rec, err := e.Backend().RecordedState(ctx)
	if err != nil {
		return nil, err
	}
	committed := e.State()
	switch {
	case rec.Height == st.Height && bytes.Equal(rec.AppHash, st.AppHash):
		e.db.logger.Info("the COMMIT whose acknowledgement was lost with the connection took effect", "height", st.Height)
		e.db.lostCommit(true)
		return nil, nil
	case rec.Height == committed.Height && bytes.Equal(rec.AppHash, committed.AppHash):
	default:
		return nil, fmt.Errorf("%w: after a lost connection during the COMMIT of block %d (AppHash %X), the database records height %d (AppHash %X), neither that block nor the committed one (height %d, AppHash %X): this node stops rather than apply a block twice or skip one; check the database with `relchain verify`",
			ErrBrokenInvariant, st.Height, st.AppHash, rec.Height, rec.AppHash, committed.Height, committed.AppHash)
	}
	// Not applied: run the block again from the committed state.
	results, appHash, err := e.execBlockHeld(ctx, p.info, p.txs, 0)
	if err != nil {
		return nil, err
	}
	if !bytes.Equal(appHash, p.appHash) || ResultsHash(results) != ResultsHash(p.results) {
		e.mu.Lock()
		q := e.pending
		e.pending = nil
		e.mu.Unlock()
		if q != nil {
			_ = q.rollback(context.WithoutCancel(ctx))
		}
		return nil, fmt.Errorf("%w: block %d run again after a lost COMMIT gives AppHash %X, the first run gave %X: this node cannot tell which is right (an execution that is not deterministic here, or a lost session that changed the database after it was read); it stops before committing either; check the database with `relchain verify`",
			ErrBrokenInvariant, st.Height, appHash, p.appHash)
	}
	e.mu.Lock()
	q := e.pending
	e.mu.Unlock()
	return q, nil
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
