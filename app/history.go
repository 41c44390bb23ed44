// Row history and change data capture (issue 36, items 5 and 6): the
// write path. While the authenticated state applies a block it notes the
// block's row versions; seal hands them to the backend's history store
// (backend.HistoryBlock) in the block's db-transaction, before Commit.

package app

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/protocol"
	"github.com/relchain/relchain/statetree"
	"github.com/relchain/relchain/txn"
)

// HistoryConfig is this node's row history: node-local, never part of a
// block's outcome or AppHash.
type HistoryConfig struct {
	// Off keeps no history.
	Off bool
	// RetainBlocks keeps the versions of the last RetainBlocks blocks
	// only; 0 keeps every block.
	RetainBlocks int64
	// ProofHeights is how many committed states (blocks that changed
	// the authenticated state) Prove answers a named height in; 0 is
	// DefaultProofHeights.
	ProofHeights int
}

// DefaultProofHeights is HistoryConfig.ProofHeights' default.
const DefaultProofHeights = 100

// SetHistory sets this node's row history (from its configuration); the
// default keeps every block's versions.
func (e *Executor) SetHistory(c HistoryConfig) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.history = c
	e.trimSnapshots()
}

// historyConfig returns the node's history configuration.
func (e *Executor) historyConfig() HistoryConfig {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.history
}

// allKeys is above every key of a tree (the hi of a whole-tree Ascend).
var allKeys = bytes.Repeat([]byte{0xff}, statetree.MaxKeyLen+1)

// noteVersion notes the version of table's key that a block's change
// gives: had and old say whether the committed tree holds the key and its
// leaf, image is the row after the block (nil: none). A key absent before
// and after, or whose row is as it was, makes no version.
// leaf is image's leaf hash when image is not nil.
func (a *authState) noteVersion(table string, key []byte, had bool, old [32]byte, image []byte, leaf [32]byte, txs []int) {
	if a.noVersions {
		return
	}
	v := backend.RowVersion{Table: table, Key: bytes.Clone(key), Image: image, Txs: slices.Clone(txs)}
	switch {
	case image == nil && !had:
		return
	case image == nil:
		v.Op = backend.HistoryDelete
	case !had:
		v.Op = backend.HistoryInsert
	default:
		if leaf == old {
			return
		}
		v.Op = backend.HistoryUpdate
	}
	a.versions = append(a.versions, v)
}

// dropVersions forgets the versions noted for table: it leaves the
// authenticated state, and a table outside it has no history.
func (a *authState) dropVersions(table string) {
	a.versions = slices.DeleteFunc(a.versions, func(v backend.RowVersion) bool { return v.Table == table })
}

// sortVersions puts the block's versions in the order AppendHistory takes
// (table, then key).
func (a *authState) sortVersions() {
	slices.SortFunc(a.versions, func(x, y backend.RowVersion) int {
		if c := strings.Compare(x.Table, y.Table); c != 0 {
			return c
		}
		return bytes.Compare(x.Key, y.Key)
	})
}

// readChanged reads table whole inside the block (a rescan, a schema
// change) and notes the versions the rows read give against the
// committed tree: rows whose leaf differs, and keys no row holds any
// more. A state not loaded yet (the first block of version 4) notes
// none: the history starts after it; nor does a node that keeps no row
// history (noVersions).
func (a *authState) readChanged(ctx context.Context, cb backend.CanonicalBlock, table string) (*authTable, error) {
	if !a.loaded || a.noVersions {
		return readTable(ctx, cb.CanonicalTableRows, table, nil)
	}
	var prev statetree.Root
	hasPrev := false
	if t := a.tables[table]; t != nil && t.tree != nil {
		prev, hasPrev = t.root, true
	}
	var changed []backend.RowVersion
	nt, err := readTable(ctx, cb.CanonicalTableRows, table, func(key, image []byte, leaf [32]byte) {
		op := backend.HistoryInsert
		if hasPrev {
			old, had := prev.Get(key)
			if had && old == leaf {
				return
			}
			if had {
				op = backend.HistoryUpdate
			}
		}
		changed = append(changed, backend.RowVersion{Table: table, Key: bytes.Clone(key), Op: op, Image: bytes.Clone(image)})
	})
	if err != nil || nt.tree == nil {
		return nt, err // a table outside the authenticated state: no history
	}
	if hasPrev {
		prev.Ascend(nil, allKeys, func(key []byte, _ [32]byte) bool {
			if _, ok := nt.root.Get(key); !ok {
				changed = append(changed, backend.RowVersion{Table: table, Key: bytes.Clone(key), Op: backend.HistoryDelete})
			}
			return true
		})
	}
	a.dropVersions(table)
	a.versions = append(a.versions, changed...)
	return nt, nil
}

// noteDropped notes a delete of every row of the authenticated tables a
// rebuild no longer finds (dropped, renamed away).
func (a *authState) noteDropped(now map[string]*authTable) {
	if !a.loaded || a.noVersions {
		return
	}
	for name, t := range a.tables {
		if _, ok := now[name]; ok || t.tree == nil {
			continue
		}
		t.root.Ascend(nil, allKeys, func(key []byte, _ [32]byte) bool {
			a.versions = append(a.versions, backend.RowVersion{Table: name, Key: bytes.Clone(key), Op: backend.HistoryDelete})
			return true
		})
	}
}

// appendHistory records block p's row versions in its db-transaction
// (backend.HistoryBlock), with its height, time, AppHash and the txs the
// versions name, and prunes below the node's retention. It runs after
// the AppHash is known and changes nothing of the block's outcome; a
// failure is the database's, handled as every failure of seal.
func (e *Executor) appendHistory(ctx context.Context, p *pendingBlock) error {
	if p.version() < protocol.V4 {
		return nil
	}
	hb, ok := p.block.(backend.HistoryBlock)
	conf := e.historyConfig()
	if !ok || conf.Off {
		return nil
	}
	var versions []backend.RowVersion
	if p.authSealed {
		versions = e.auth.versions
	}
	info := backend.HistoryBlockInfo{Height: p.height, TimeUnixNano: p.time.UnixNano(), AppHash: p.appHash, Txs: p.historyTxs(versions)}
	e.mu.Lock()
	info.State, info.Roots = e.historyStateOf(p, e.rootsKept)
	e.mu.Unlock()
	p.rootsRecorded = info.Roots != nil
	var pruneBelow int64
	if conf.RetainBlocks > 0 {
		pruneBelow = max(p.height-conf.RetainBlocks+1, 0)
	}
	if err := hb.AppendHistory(ctx, info, versions, pruneBelow); err != nil {
		return fmt.Errorf("record the row history of block %d: %w", p.height, err)
	}
	return nil
}

// historyTxs describes the txs the versions name: index, hash (SHA-256
// of the tx's bytes) and signer.
func (p *pendingBlock) historyTxs(versions []backend.RowVersion) []backend.HistoryTx {
	named := map[int]bool{}
	for _, v := range versions {
		for _, i := range v.Txs {
			named[i] = true
		}
	}
	txs := make([]backend.HistoryTx, 0, len(named))
	for i := range named {
		if i < 0 || i >= len(p.txKeys) {
			continue
		}
		h := p.txKeys[i]
		tx := backend.HistoryTx{Index: i, Hash: bytes.Clone(h[:])}
		if i < len(p.signers) {
			tx.Signer = bytes.Clone(p.signers[i])
		}
		txs = append(txs, tx)
	}
	slices.SortFunc(txs, func(x, y backend.HistoryTx) int { return x.Index - y.Index })
	return txs
}

// signerOf is a decoded tx's signer, nil for none.
func signerOf(tx *txn.Tx) []byte {
	if tx == nil {
		return nil
	}
	return tx.PubKey
}

// snapList is the list of committed states holding s, if any.
func snapList(s *authSnapshot) []*authSnapshot {
	if s == nil {
		return nil
	}
	return []*authSnapshot{s}
}

// trimSnapshots keeps the last ProofHeights committed states. e.mu is
// held.
func (e *Executor) trimSnapshots() {
	n := e.history.ProofHeights
	if n <= 0 {
		n = DefaultProofHeights
	}
	if len(e.authSnaps) > n {
		e.authSnaps = slices.Delete(e.authSnaps, 0, len(e.authSnaps)-n)
	}
}
