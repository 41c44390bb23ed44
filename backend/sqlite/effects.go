package sqlite

import (
	"fmt"

	"github.com/relchain/relchain/backend"
)

// Attributing change records to txs (backend.Changes.Effects).
//
// The capture triggers stay plain SQL (no application function, no column
// the sqlite3 shell could not fill), so that a write made out of band with
// the shell is still captured. Instead, the writer remembers where each
// tx's records start: relchain_changes is a rowid table without
// AUTOINCREMENT written only by the block's writer, so its records get
// increasing rowids in capture order, and a record belongs to the last tx
// whose savepoint opened below its rowid. Savepoint reads max(rowid) (one
// b-tree seek, in process); a rollback to the savepoint deletes the tx's
// records, and the next tx starts at the same rowid and takes their place.
// Records found at Begin (out of band) lie below the first tx's start and
// belong to none; so do records a statement outside every savepoint
// writes (never so in the executor: Exec then marks where they start).

// txStart is where a tx's records start: every record with a rowid above
// after, up to the next txStart, is tx's (backend.NoTx: none's).
type txStart struct {
	after int64
	tx    int
}

// startTx notes that records from now on belong to tx. The caller holds
// wmu.
func (b *Backend) startTx(tx int) error {
	after, err := b.lastChange()
	if err != nil {
		return err
	}
	if n := len(b.txStarts); n > 0 && b.txStarts[n-1].after == after {
		// The previous tx (or stretch) left no records: replace it.
		b.txStarts[n-1].tx = tx
		if n > 1 && b.txStarts[n-2].tx == tx {
			b.txStarts = b.txStarts[:n-1]
		}
		return nil
	}
	if len(b.txStarts) == 0 && tx == backend.NoTx {
		return nil
	}
	b.txStarts = append(b.txStarts, txStart{after: after, tx: tx})
	return nil
}

// outsideTx is called before a statement runs: outside every savepoint,
// its records belong to no tx. The caller holds wmu.
func (b *Backend) outsideTx() error {
	if b.txOpen || len(b.txStarts) == 0 || b.txStarts[len(b.txStarts)-1].tx == backend.NoTx {
		return nil
	}
	return b.startTx(backend.NoTx)
}

// lastChange returns the largest rowid of relchain_changes (0 when empty).
func (b *Backend) lastChange() (int64, error) {
	b.internal = true
	defer func() { b.internal = false }()
	if b.lastChangeStmt == nil {
		st, _, err := b.w.Prepare("SELECT coalesce(max(rowid), 0) FROM " + changesTable)
		if err != nil {
			return 0, fmt.Errorf("read change records: %w", err)
		}
		b.lastChangeStmt = st
	}
	st := b.lastChangeStmt
	var last int64
	if st.Step() {
		last = st.ColumnInt64(0)
	}
	err := st.Err()
	if rerr := st.Reset(); err == nil {
		err = rerr
	}
	if err != nil {
		return 0, fmt.Errorf("read change records: %w", err)
	}
	return last, nil
}

// closeLastChange closes the cached statement; the caller holds wmu.
func (b *Backend) closeLastChange() error {
	if b.lastChangeStmt == nil {
		return nil
	}
	st := b.lastChangeStmt
	b.lastChangeStmt = nil
	return st.Close()
}

// txOf walks txStarts along records in rowid order.
type txOf struct {
	starts []txStart
	i      int // index of the start covering the last record, or -1
}

func newTxOf(starts []txStart) *txOf { return &txOf{starts: starts, i: -1} }

// tx returns the tx of the record with this rowid; rowids must come in
// increasing order.
func (w *txOf) tx(rowid int64) int {
	for w.i+1 < len(w.starts) && w.starts[w.i+1].after < rowid {
		w.i++
	}
	if w.i < 0 {
		return backend.NoTx
	}
	return w.starts[w.i].tx
}
