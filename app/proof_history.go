// Proofs of any height the row history holds (issue 36, item 5: each
// version provable against the AppHash of its block). Each block's
// history records the authenticated state's summary (State: version,
// base and AppHash; Roots: every authenticated table's root, kept when
// they changed). A proof at a height outside the window of states kept in
// memory rebuilds that height's state: the tables map from the recorded
// roots, checked against the recorded AppHash; the asked table's tree
// from the committed one, each key changed since set back to its image
// at that height (the Before of its first version after it), checked
// against the recorded root.

package app

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/rowcanon"
	"github.com/relchain/relchain/statetree"
)

// MaxRebuildVersions bounds the versions a rebuild of a past tree sets
// back: a height further back than that in a busy table is refused.
const MaxRebuildVersions = 1_000_000

// encodeHistoryState is a block's State record: version (u64
// big-endian), base (32 bytes), AppHash.
func encodeHistoryState(version uint64, base, appHash []byte) []byte {
	out := binary.BigEndian.AppendUint64(nil, version)
	out = append(out, base...)
	return append(out, appHash...)
}

// decodeHistoryState reverses encodeHistoryState.
func decodeHistoryState(b []byte) (version uint64, base, appHash []byte, err error) {
	if len(b) != 8+32+32 {
		return 0, nil, nil, fmt.Errorf("recorded state of %d bytes, want 72", len(b))
	}
	return binary.BigEndian.Uint64(b), b[8:40], b[40:], nil
}

// encodeRoots is a Roots record: for each authenticated table, by name,
// the name (u32 length, bytes) and its root hash.
func encodeRoots(roots map[string][32]byte) []byte {
	names := make([]string, 0, len(roots))
	for n := range roots {
		names = append(names, n)
	}
	slices.Sort(names)
	out := []byte{}
	for _, n := range names {
		out = binary.BigEndian.AppendUint32(out, uint32(len(n)))
		out = append(out, n...)
		h := roots[n]
		out = append(out, h[:]...)
	}
	return out
}

// decodeRoots reverses encodeRoots.
func decodeRoots(b []byte) (map[string][32]byte, error) {
	out := map[string][32]byte{}
	for len(b) > 0 {
		if len(b) < 4 || uint64(len(b)-4) < uint64(binary.BigEndian.Uint32(b))+32 {
			return nil, errors.New("recorded roots do not decode")
		}
		n := int(binary.BigEndian.Uint32(b))
		var h [32]byte
		copy(h[:], b[4+n:])
		out[string(b[4:4+n])] = h
		b = b[4+n+32:]
	}
	return out, nil
}

// historyStateOf is what block p's history records of the authenticated
// state: its State always, its Roots when the tables' roots changed or
// this process has recorded none yet (keptRoots false).
func (e *Executor) historyStateOf(p *pendingBlock, keptRoots bool) (state, roots []byte) {
	hashes := map[string][32]byte{}
	switch {
	case p.authSealed:
		state = encodeHistoryState(p.version(), p.authBase, p.appHash)
		if keptRoots && e.auth.hasCommitted && e.auth.root.Hash() == e.auth.committed.Hash() {
			return state, nil
		}
		for name, t := range e.auth.tables {
			if t.tree != nil {
				hashes[name] = t.root.Hash()
			}
		}
	case e.authSnap != nil: // an empty block: the committed state again
		state = encodeHistoryState(e.authSnap.version, e.authSnap.base, p.appHash)
		if keptRoots {
			return state, nil
		}
		for name, r := range e.authSnap.tables {
			hashes[name] = r.Hash()
		}
	default:
		return nil, nil
	}
	return state, encodeRoots(hashes)
}

// pastStates caches the last past states rebuilt, and lets one rebuild
// run at a time (each holds a copy of a table's tree): a proof waits for
// the slot as long as its context lets it.
type pastStates struct {
	once sync.Once
	slot chan struct{}
	kept []*authSnapshot // newest last, at most pastStatesKept; the slot's holder's
}

// acquire takes the slot, or fails when ctx ends first.
func (ps *pastStates) acquire(ctx context.Context) error {
	ps.once.Do(func() { ps.slot = make(chan struct{}, 1) })
	select {
	case ps.slot <- struct{}{}:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("proof at a past height: waiting for another proof's rebuild: %w", ctx.Err())
	}
}

func (ps *pastStates) release() { <-ps.slot }

const pastStatesKept = 4

// get is the kept state of table at height, if any.
func (ps *pastStates) get(height int64, table string) *authSnapshot {
	for _, s := range ps.kept {
		_, held := s.tables[table]
		_, known := s.hashes[table]
		if s.height == height && (held || !known) {
			return s
		}
	}
	return nil
}

// keep adds s, dropping the oldest beyond pastStatesKept.
func (ps *pastStates) keep(s *authSnapshot) {
	ps.kept = append(ps.kept, s)
	if len(ps.kept) > pastStatesKept {
		ps.kept = slices.Delete(ps.kept, 0, len(ps.kept)-pastStatesKept)
	}
}

// proveFromHistory answers req at req.Height from the state the history
// recorded there.
func (e *Executor) proveFromHistory(ctx context.Context, kr backend.CanonicalKeyReader, hr backend.HistoryReader, req api.ProofRequest) (api.ProofResponse, error) {
	if err := e.past.acquire(ctx); err != nil {
		return api.ProofResponse{}, err
	}
	defer e.past.release()
	snap := e.past.get(req.Height, req.Table)
	if snap == nil {
		var err error
		if snap, err = e.rebuildPast(ctx, hr, req.Height, req.Table); err != nil {
			return api.ProofResponse{}, err
		}
		e.past.keep(snap)
	}
	e.mu.Lock()
	_, held := e.authSnap.tables[req.Table]
	e.mu.Unlock()
	if !held {
		kr = noRows{} // dropped since (or out of the authenticated state): every image from the history
	}
	return snap.prove(ctx, kr, req, e.pastImage(hr, req.Height))
}

// noRows reads no row of any table: a proof's images then all come from
// the history.
type noRows struct{}

func (noRows) CanonicalRowsByKey(_ context.Context, _ string, keys [][]byte) ([][]byte, int64, error) {
	return make([][]byte, len(keys)), 0, nil
}

// rebuildPast is the state after block height with table's tree.
func (e *Executor) rebuildPast(ctx context.Context, hr backend.HistoryReader, height int64, table string) (*authSnapshot, error) {
	stateRec, rootsRec, rootsAt, ok, err := hr.HistoryStateAt(ctx, height)
	if err != nil {
		return nil, fmt.Errorf("proof at height %d: %w", height, err)
	}
	if !ok || rootsAt == 0 { // the roots, not their record, tell: a state of no authenticated table records them empty
		start, end, _ := hr.HistoryRange(ctx)
		return nil, fmt.Errorf("%w: proof request for height %d: this node's history holds no state of that block (it holds heights %d to %d; states are recorded from this release on)", ErrHeightUnavailable, height, start, end)
	}
	version, base, appHash, err := decodeHistoryState(stateRec)
	if err != nil {
		return nil, fmt.Errorf("proof at height %d: %w", height, err)
	}
	hashes, err := decodeRoots(rootsRec)
	if err != nil {
		return nil, fmt.Errorf("proof at height %d: %w", height, err)
	}
	m := statetree.NewTables()
	for name, h := range hashes {
		if err := m.Set(name, h); err != nil {
			return nil, fmt.Errorf("proof at height %d: %w", height, err)
		}
	}
	snap := &authSnapshot{height: height, version: version, base: base, mapRoot: m.Commit(), tables: map[string]statetree.Root{}, hashes: hashes}
	if got := api.AuthenticatedAppHash(version, base, snap.mapRoot.Hash()); !bytes.Equal(got, appHash) {
		return nil, fmt.Errorf("proof at height %d: the recorded roots give AppHash %X, the block's is %X: this node's history is inconsistent", height, got, appHash)
	}
	want, ok := hashes[table]
	if !ok {
		return snap, nil // the table was not authenticated then: its absence is proved
	}
	root, err := e.pastTree(ctx, hr, height, table)
	if err != nil {
		return nil, err
	}
	if root.Hash() != want {
		return nil, fmt.Errorf("proof at height %d: table %s rebuilt from the history has root %X, the recorded one is %X: this node's history is inconsistent", height, table, root.Hash(), want)
	}
	snap.tables[table] = root
	return snap, nil
}

// pastTree is table's tree after block height: the committed tree (none
// when the table is not authenticated now) with every key changed after
// height set back to its image then.
func (e *Executor) pastTree(ctx context.Context, hr backend.HistoryReader, height int64, table string) (statetree.Root, error) {
	e.mu.Lock()
	now, held := statetree.Root{}, false
	if e.authSnap != nil {
		now, held = e.authSnap.tables[table]
	}
	e.mu.Unlock()
	t := statetree.New()
	if held {
		var err error
		n := 0
		now.Ascend(nil, allKeys, func(key []byte, leaf [32]byte) bool {
			if n++; n%4096 == 0 {
				err = ctx.Err()
			}
			if err == nil {
				err = t.Set(key, leaf)
			}
			return err == nil
		})
		if err != nil {
			return statetree.Root{}, fmt.Errorf("proof at height %d: copy the tree of %s: %w", height, table, err)
		}
	}
	if err := undoSince(ctx, hr, t, height, table); err != nil {
		return statetree.Root{}, err
	}
	return t.Commit(), nil
}

// undoSince sets each key of table changed after height back to its
// image then, from the first of its versions after height. It reads the
// history in whole blocks (HistoryChanges never cuts one), every table's,
// at most MaxRebuildVersions of them.
func undoSince(ctx context.Context, hr backend.HistoryReader, t *statetree.Tree, height int64, table string) error {
	seen := map[string]bool{}
	for from, n := height+1, 0; ; {
		blocks, err := hr.HistoryChanges(ctx, from, backend.MaxHistoryRows)
		if err != nil {
			return fmt.Errorf("proof at height %d: %w", height, err)
		}
		if len(blocks) == 0 {
			return nil
		}
		for _, b := range blocks {
			if n += len(b.Versions); n > MaxRebuildVersions {
				return fmt.Errorf("%w: proof request for height %d: more than %d rows changed since; ask a later height", ErrHeightUnavailable, height, MaxRebuildVersions)
			}
			for _, v := range b.Versions {
				if v.Table != table || seen[string(v.Key)] {
					continue
				}
				seen[string(v.Key)] = true
				if err := undoVersion(t, v, height, table); err != nil {
					return err
				}
			}
			from = b.Info.Height + 1
		}
	}
}

// undoVersion sets v's key back to its image before v (v is its key's
// first version after height).
func undoVersion(t *statetree.Tree, v backend.RowVersion, height int64, table string) error {
	var err error
	switch {
	case v.Op == backend.HistoryInsert || (v.BeforeKnown && v.Before == nil):
		_, err = t.Delete(v.Key)
	case v.BeforeKnown:
		err = t.Set(v.Key, rowcanon.LeafHash(v.Before))
	default:
		return fmt.Errorf("%w: proof request for height %d: the version of row %x of %s before height %d is not in this node's history", ErrHeightUnavailable, height, v.Key, table, v.Height)
	}
	return err
}
