package backend

import (
	"context"
	"errors"
)

// Row history and change data capture (issue 36, items 5 and 6).
//
// A node may keep every row version of the tables the authenticated
// state covers: the row's canonical image after each block that changed
// it, with the block's height, time and AppHash and the signed txs whose
// change records named the row. A version is the row as the block left
// it, the granularity at which the AppHash commits to state: two txs of
// one block that change the same row make one version naming both txs.
//
// The history is node-local: it enters no digest and no AppHash, each
// node chooses its retention, and a node restored from a snapshot or a
// checkpoint holds history from that height on only (HistoryStart says
// from where). It is written in the block's db-transaction
// (HistoryBlock.AppendHistory, before Commit), so a block's versions
// commit atomically with its rows and its (height, AppHash): after a
// kill -9 a block is either in the history whole, with its data, or in
// neither, and a block is never recorded twice (a block run again after a
// crash or a rolled-back attempt writes its versions again in a new
// db-transaction; the first one's never committed).
//
// History is kept in relchain's own storage, beside the system state:
// never a replicated table, never in a dump, a checkpoint or a snapshot,
// never readable or writable by a client's SQL.

// HistoryOp is what a version did to its row.
type HistoryOp byte

// The operations of a RowVersion.
const (
	HistoryInsert HistoryOp = 'I' // no row held the key before the block
	HistoryUpdate HistoryOp = 'U' // a row held the key before and after
	HistoryDelete HistoryOp = 'D' // no row holds the key after the block
)

// RowVersion is one row's state after a block that changed it.
type RowVersion struct {
	Height int64
	Table  string // the name CanonicalRows takes
	Key    []byte // rowcanon.EncodeKey of the primary key
	Op     HistoryOp
	// Image is the row after the block (rowcanon.EncodeRow); nil when
	// Op is HistoryDelete.
	Image []byte
	// Before is the row before the block: the previous version's Image.
	// Readers fill it (AppendHistory ignores it); BeforeKnown is false
	// when the previous version lies before the history's start (pruned,
	// or before a node restored from a snapshot began recording), and
	// for HistoryInsert, which has no row before.
	Before      []byte
	BeforeKnown bool
	// Txs are the indexes, in the block, of the txs whose change records
	// named the key, ascending (HistoryBlockInfo.Txs describes them).
	// Empty when no tx's records did (a rescanned table: TRUNCATE, DDL).
	Txs []int
}

// HistoryTx describes one tx of a block that changed rows.
type HistoryTx struct {
	Index  int    // its index in the block
	Hash   []byte // SHA-256 of the tx's bytes (CometBFT's tx hash)
	Signer []byte // the public key that signed it
}

// HistoryBlockInfo is what the history records of a block besides its
// versions.
type HistoryBlockInfo struct {
	Height       int64
	TimeUnixNano int64  // the block's consensus time
	AppHash      []byte // the AppHash after the block
	Txs          []HistoryTx
	// State and Roots are the application's record of its authenticated
	// state after the block, opaque to the backend: State for every
	// block (nil: none recorded), Roots when the caller asks them kept
	// (the tables' roots changed, or the first block it records since it
	// started; nil: as the newest kept before). Readers leave both nil:
	// HistoryReader.HistoryStateAt reads them.
	State []byte
	Roots []byte
}

// HistoryBlock is implemented by a Block of a backend that keeps row
// history (a HistoryReader).
type HistoryBlock interface {
	// AppendHistory records the block's versions (sorted by table, then
	// key; at most one per key) and info in the block's db-transaction;
	// it is called at most once per block, after StateDigest and before
	// Commit, also for a block that changed no row (then only info.Height
	// matters: it moves HistoryEnd). pruneBelow > 0 also deletes every
	// block and version below that height (retention; node-local, never
	// part of any digest). A failure is the node's (its database), never
	// the block's.
	AppendHistory(ctx context.Context, info HistoryBlockInfo, versions []RowVersion, pruneBelow int64) error
}

// HistoryReader is implemented by a backend that keeps row history. Each
// method reads one consistent snapshot of committed history.
type HistoryReader interface {
	// HistoryRange reports the heights the history holds: from start (the
	// oldest block recorded and not pruned; 0 when none is) to end (the
	// newest recorded).
	HistoryRange(ctx context.Context) (start, end int64, err error)
	// RowHistory returns the versions of table's key at heights >= from,
	// ascending by height, at most limit (1 to MaxHistoryRows).
	RowHistory(ctx context.Context, table string, key []byte, from int64, limit int) ([]RowVersion, error)
	// VersionAt returns the newest version of table's key at a height
	// <= height; ok is false when the history holds none.
	VersionAt(ctx context.Context, table string, key []byte, height int64) (v RowVersion, ok bool, err error)
	// HistoryChanges returns every version of the blocks at heights >=
	// from, in commit order (height, then table, then key), with each
	// block's info, at most limit versions (1 to MaxHistoryRows) but
	// never part of a block: a block with more versions than limit is
	// returned whole. Blocks that changed no row are left out.
	HistoryChanges(ctx context.Context, from int64, limit int) ([]HistoryBlockChanges, error)
	// TableHistory returns the versions of table at heights >= from in
	// commit order (height, then key), grouped by block with each
	// block's info, at most limit (1 to MaxHistoryRows); more is true
	// when the table has versions past them (the last block may then be
	// cut short).
	TableHistory(ctx context.Context, table string, from int64, limit int) (blocks []HistoryBlockChanges, more bool, err error)
	// HistoryStateAt returns the State recorded with block height and
	// the newest Roots kept at a height <= height (rootsHeight, 0 and nil
	// when none is). ok is false when no State of that block is held
	// (pruned, not recorded, or recorded without one).
	HistoryStateAt(ctx context.Context, height int64) (state, roots []byte, rootsHeight int64, ok bool, err error)
}

// HistoryBlockChanges is one block's part of HistoryChanges.
type HistoryBlockChanges struct {
	Info     HistoryBlockInfo
	Versions []RowVersion
}

// MaxHistoryRows bounds one read of RowHistory or HistoryChanges.
const MaxHistoryRows = 10_000

// ErrNoHistory is returned by a HistoryReader's methods on a node that
// keeps no history.
var ErrNoHistory = errors.New("this node keeps no row history")
