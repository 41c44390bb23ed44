// The authenticated state (issue 36, protocol version 4): a statetree per
// replicated table, keyed by its canonical primary key, and the tables
// map over their roots, whose root the AppHash commits to.

package app

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/protocol"
	"github.com/relchain/relchain/rowcanon"
	"github.com/relchain/relchain/statetree"
)

// authState is the executor's authenticated state. It lives in memory and
// is derived from the database alone: every node holding the same rows
// holds the same trees, whatever order they were built or updated in (a
// crit-bit trie is history independent). So it needs no storage of its
// own and cannot disagree with the data after a crash: a node that starts
// rebuilds it from its tables and checks the result against the AppHash
// its database records (loadAuthState).
//
// Which tables it holds: every replicated table whose rows have canonical
// form (backend.CanonicalReader): a primary key, column types rowcanon
// encodes, and every stored value inside its kind's domain. Any other table
// is left out of the tables map, so a proof of its absence from the map
// tells a client that the table's rows are not authenticated (the state
// digest still covers them). Whether a table is in is a function of the
// rows alone: a table left out for one of its values is read whole again
// whenever a block changes it, and comes back once every value has a form.
// A backend whose storage has no canonical rows (the sqlite dialect)
// authenticates no table: the map is empty.
//
// A block's changes are applied to the trees when it is sealed, before it
// commits; a block that does not commit (a speculative one discarded, an
// attempt run again after a database fault) is undone at the start of the
// next (rollback), so the trees always start a block at the committed
// state.
type authState struct {
	loaded bool
	tables map[string]*authTable // every replicated table, by canonical name
	m      *statetree.Tables     // the tables map over the authenticated ones
	root   statetree.TablesRoot  // the map as the last sealed block left it
	undo   []func()              // what restores the committed state, newest last
	// committed is the map's root after the last committed block (the
	// AppHash's), once hasCommitted: a block of version 4 or later
	// committed, or the state was loaded from such a block's database.
	committed    statetree.TablesRoot
	hasCommitted bool
	// versions are the row versions of the sealed block (history.go),
	// dropped with it when it does not commit; none are noted while
	// noVersions (the node keeps no row history).
	versions   []backend.RowVersion
	noVersions bool
	// delta is the sealed block's delta, nil when the block read the
	// tables whole (a schema change) or has no canonical rows: the
	// source of version 5's effect digests (canonicalEffects).
	delta *backend.CanonicalDelta
}

// authTable is one replicated table's part of the authenticated state.
type authTable struct {
	tree *statetree.Tree // nil: not authenticated (why says why)
	why  error           // a backend.NotCanonical error, when tree is nil
	// root is the tree's snapshot as the last sealed block left it;
	// committed the one of the last committed block.
	root, committed statetree.Root
}

func newAuthState() *authState { return &authState{} }

// seal brings the state up to date with the block blk executed (its
// change records consumed by ChangeDigest) and returns the tables map's
// root after it. It first undoes a sealed block that did not commit.
func (a *authState) seal(ctx context.Context, blk backend.Block) ([32]byte, error) {
	a.rollback()
	a.delta = nil
	defer a.sortVersions()
	cb, ok := blk.(backend.CanonicalBlock)
	if !ok {
		return a.unsupported(), nil
	}
	if !a.loaded {
		return a.rebuild(ctx, cb)
	}
	d, err := cb.CanonicalDelta(ctx)
	switch {
	case errors.Is(err, errors.ErrUnsupported):
		return a.unsupported(), nil
	case err != nil:
		return [32]byte{}, fmt.Errorf("authenticated state: %w", err)
	case d.SchemaChanged:
		return a.rebuild(ctx, cb)
	}
	a.delta = &d
	root := a.root
	a.undo = append(a.undo, func() { a.root = root })
	for _, td := range d.Tables {
		if err := a.applyTable(ctx, cb, td); err != nil {
			return [32]byte{}, err
		}
	}
	a.root = a.m.Commit()
	return a.root.Hash(), nil
}

// unsupported is seal on storage without canonical rows: an empty map.
func (a *authState) unsupported() [32]byte {
	a.save()
	a.loaded, a.tables, a.m = true, map[string]*authTable{}, statetree.NewTables()
	a.root = a.m.Commit()
	return a.root.Hash()
}

// save records an undo that restores the whole state as it is now.
func (a *authState) save() {
	loaded, tables, m, root := a.loaded, a.tables, a.m, a.root
	a.undo = append(a.undo, func() { a.loaded, a.tables, a.m, a.root = loaded, tables, m, root })
}

// rebuild reads every replicated table whole inside the block's
// db-transaction and replaces the state with the trees read.
func (a *authState) rebuild(ctx context.Context, cb backend.CanonicalBlock) ([32]byte, error) {
	names, err := cb.CanonicalTables(ctx)
	if errors.Is(err, errors.ErrUnsupported) {
		return a.unsupported(), nil
	}
	if err != nil {
		return [32]byte{}, fmt.Errorf("authenticated state: list the tables: %w", err)
	}
	tables := make(map[string]*authTable, len(names))
	m := statetree.NewTables()
	for _, name := range names {
		t, err := a.readChanged(ctx, cb, name)
		if err != nil {
			return [32]byte{}, err
		}
		tables[name] = t
		if err := t.enter(m, name); err != nil {
			return [32]byte{}, err
		}
	}
	a.noteDropped(tables)
	a.save()
	a.loaded, a.tables, a.m = true, tables, m
	a.root = a.m.Commit()
	return a.root.Hash(), nil
}

// rowsFunc reads a table's canonical rows (CanonicalTableRows of a block,
// CanonicalRows of committed state).
type rowsFunc func(ctx context.Context, table string, fn func(key, image []byte) error) error

// readTable builds table's tree from every row rows reads; a table whose
// rows have no canonical form comes back unauthenticated, with why.
// changed, when not nil, is told every row read with its leaf.
func readTable(ctx context.Context, rows rowsFunc, table string, changed func(key, image []byte, leaf [32]byte)) (*authTable, error) {
	tree := statetree.New()
	err := rows(ctx, table, func(key, image []byte) error {
		leaf := rowcanon.LeafHash(image)
		if changed != nil {
			changed(key, image, leaf)
		}
		return tree.Set(key, leaf)
	})
	switch {
	case leftOut(err):
		return &authTable{why: err}, nil
	case err != nil:
		return nil, fmt.Errorf("authenticated state: read table %s: %w", table, err)
	}
	root := tree.Commit()
	return &authTable{tree: tree, root: root}, nil
}

// leftOut reports whether err is the rows' own reason for a table to be
// left out of the map, the same on every node holding those rows: no
// canonical form (backend.NotCanonical), or a key the trees do not take
// (longer than statetree.MaxKeyLen: any client can write a long text
// key, and it must never halt a block).
func leftOut(err error) bool {
	return backend.NotCanonical(err) || errors.Is(err, statetree.ErrKeyTooLong) || errors.Is(err, statetree.ErrEmptyKey) || errors.Is(err, statetree.ErrKeyPrefix)
}

// enter records t in the tables map m: its root if it is authenticated,
// nothing if not.
func (t *authTable) enter(m *statetree.Tables, name string) error {
	if t.tree == nil {
		_, err := m.Delete(name)
		return err
	}
	return m.Set(name, t.root.Hash())
}

// applyTable applies one table's part of a block's delta.
func (a *authState) applyTable(ctx context.Context, cb backend.CanonicalBlock, td backend.CanonicalTableDelta) error {
	t := a.tables[td.Table]
	switch {
	case td.Err != nil && !backend.NotCanonical(td.Err):
		return fmt.Errorf("authenticated state: table %s: %w", td.Table, td.Err)
	case td.Err != nil && !errors.Is(td.Err, backend.ErrValueNotCanonical):
		a.dropVersions(td.Table)
		return a.replaceTable(td.Table, &authTable{why: td.Err}) // its schema
	case td.Rescan || t == nil || t.tree == nil || td.Err != nil:
		// A value without form may be a key written and deleted in the
		// block (a change record names it, no row holds it): only the
		// rows after the block say whether the table is out, as they
		// say on a node that restarts.
		nt, err := a.readChanged(ctx, cb, td.Table)
		if err != nil {
			return err
		}
		return a.replaceTable(td.Table, nt)
	}
	restoreMap := a.mapUndo(td.Table)
	for _, c := range td.Rows {
		err := a.setRow(td.Table, t, c)
		switch {
		case leftOut(err):
			// The rows set so far are undone with the block if it does
			// not commit; if it does, the table is left out whole.
			a.dropVersions(td.Table)
			return a.replaceTable(td.Table, &authTable{why: err})
		case err != nil:
			return fmt.Errorf("authenticated state: table %s: %w", td.Table, err)
		}
	}
	old := t.root
	a.undo = append(a.undo, func() { t.root = old }, restoreMap)
	t.root = t.tree.Commit()
	return t.enter(a.m, td.Table)
}

// replaceTable puts nt in table name's place, undoably.
func (a *authState) replaceTable(name string, nt *authTable) error {
	old, had := a.tables[name]
	restoreMap := a.mapUndo(name)
	a.undo = append(a.undo, func() {
		if had {
			a.tables[name] = old
		} else {
			delete(a.tables, name)
		}
	}, restoreMap)
	a.tables[name] = nt
	return nt.enter(a.m, name)
}

// mapUndo returns what restores table name's entry in the map as it is
// now.
func (a *authState) mapUndo(name string) func() {
	t := a.tables[name]
	if t == nil || t.tree == nil {
		return func() { _, _ = a.m.Delete(name) }
	}
	h := t.root.Hash()
	return func() { _ = a.m.Set(name, h) }
}

// setRow applies one changed key to t's tree, undoably: the undo restores
// the value the tree held, which is the committed snapshot's (a block's
// delta names each key once). It notes the key's row version
// (noteVersion).
func (a *authState) setRow(table string, t *authTable, c backend.CanonicalChange) error {
	if c.Image == nil && statetree.CheckKey(c.Key) != nil {
		// No row holds it, and the tree cannot: a long key written and
		// deleted in the block, or named by a change rolled back.
		return nil
	}
	var leaf, old [32]byte
	var had bool
	var err error
	if c.Image == nil {
		old, had, err = t.tree.Remove(c.Key)
	} else {
		leaf = rowcanon.LeafHash(c.Image)
		old, had, err = t.tree.Put(c.Key, leaf)
	}
	if err != nil {
		return err
	}
	a.noteVersion(table, c.Key, had, old, c.Image, leaf, c.Txs)
	key := c.Key
	a.undo = append(a.undo, func() {
		if had {
			_ = t.tree.Set(key, old)
		} else {
			_, _ = t.tree.Delete(key)
		}
	})
	return nil
}

// rollback undoes a sealed block that did not commit, newest change
// first.
func (a *authState) rollback() {
	for i := len(a.undo) - 1; i >= 0; i-- {
		a.undo[i]()
	}
	a.undo, a.versions = nil, nil
}

// commit makes the sealed block's state the committed one.
func (a *authState) commit() {
	a.undo = nil
	a.committed, a.hasCommitted = a.root, a.loaded
	for _, t := range a.tables {
		t.committed = t.root
	}
}

// loadAuthState builds the authenticated state of be's committed rows (a
// node starting, a restored database installed) when the last committed
// block is of version 4 or later, and checks it against the AppHash the
// database records: with the stored inputs of that AppHash and the state
// digest (stateDigest) it must give the AppHash again. A database whose
// rows do not (changed outside the chain) still starts, as it did before
// version 4, so that the chain's divergence checks name the block and the
// automatic recovery can run; mismatch (wrapping ErrStateMismatch) says
// so, the node logs it, and no proof is served (the snapshot is nil).
// Before version 4 it returns an unloaded state, built by the first block
// of version 4 (seal).
func loadAuthState(ctx context.Context, be backend.Backend, st backend.State, system map[string][]byte, stateDigest []byte) (a *authState, snap *authSnapshot, mismatch, err error) {
	a = newAuthState()
	raw, ok := system[apphashKey]
	if st.Height == 0 || !ok {
		return a, nil, nil, nil
	}
	in, err := decodeAppHashInputs(raw)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("authenticated state: %w", err)
	}
	if in.Protocol < protocol.V4 {
		return a, nil, nil, nil
	}
	if err := a.load(ctx, be); err != nil {
		return nil, nil, nil, err
	}
	in.Tables = a.committed.Hash()
	if in.Canonical {
		if in.Sequences, err = sequencesOf(ctx, be); err != nil {
			return nil, nil, nil, fmt.Errorf("authenticated state: %w", err)
		}
		in.System = SystemSum(system)
	}
	if got := in.AppHash(stateDigest); !bytes.Equal(got, st.AppHash) {
		return a, nil, fmt.Errorf("%w: the authenticated state rebuilt from its rows (tables map root %X) gives AppHash %X, it records %X at height %d: its rows were changed outside the chain; its next block will diverge", ErrStateMismatch, in.Tables, got, st.AppHash, st.Height), nil
	}
	return a, a.snapshot(st.Height, in.Protocol, in.base(stateDigest)), nil, nil
}

// StartCheck is the outcome of the check of the authenticated state
// against the recorded AppHash when the executor was made (nil: it
// holds, or there was nothing to check): an error wrapping
// ErrStateMismatch for a database changed outside the chain.
func (e *Executor) StartCheck() error { return e.startCheck }

// load builds the state from be's committed rows, as committed.
func (a *authState) load(ctx context.Context, be backend.Backend) error {
	a.loaded, a.tables, a.m = true, map[string]*authTable{}, statetree.NewTables()
	cr, ok := be.(backend.CanonicalReader)
	if ok {
		names, err := cr.CanonicalTables(ctx)
		switch {
		case errors.Is(err, errors.ErrUnsupported):
		case err != nil:
			return fmt.Errorf("authenticated state: list the tables: %w", err)
		}
		for _, name := range names {
			t, err := readTable(ctx, cr.CanonicalRows, name, nil)
			if err != nil {
				return err
			}
			a.tables[name] = t
			if err := t.enter(a.m, name); err != nil {
				return err
			}
		}
	}
	a.root = a.m.Commit()
	a.commit()
	return nil
}

// AuthenticatedRoot rebuilds the root of the tables map of be's committed
// rows (the authenticated state of version 4), for checking a database
// against its AppHash (AppHashOf).
func AuthenticatedRoot(ctx context.Context, be backend.Backend) ([32]byte, error) {
	a := newAuthState()
	if err := a.load(ctx, be); err != nil {
		return [32]byte{}, err
	}
	return a.committed.Hash(), nil
}

// TablesRoot returns the root of the tables map after the last committed
// block and that block's height; ok is false before a block of version 4
// or later committed (nothing is authenticated yet).
func (e *Executor) TablesRoot() (root [32]byte, height int64, ok bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.auth == nil || !e.auth.hasCommitted {
		return root, e.committed.Height, false
	}
	return e.auth.committed.Hash(), e.committed.Height, true
}
