package backend

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/relchain/relchain/sqlcheck"
)

// State is what relchain records about the chain inside the database, in the
// same db-transaction as the block's writes: the last committed height and
// the AppHash after it. A fresh database has Height 0 and an empty AppHash.
type State struct {
	Height  int64
	AppHash []byte
}

// Backend is one validator's database.
//
// Concurrency: exactly one Block is open at a time (the executor is the only
// writer). Query and the Gate's methods may run concurrently with each
// other and with an open Block; they never see the open Block's writes.
//
// Determinism: everything a Block returns (rows, rows affected, error
// classes) must be the same on every node that applies the same statements
// to the same state with the same backend kind. Session settings that affect
// results (time zone, date style, float output, collation, parallelism) are
// pinned by the implementation.
type Backend interface {
	// Dialect names the SQL dialect: "sqlite", "postgres" or "mysql".
	Dialect() string

	// LoadState returns the last committed State.
	LoadState(ctx context.Context) (State, error)

	// RecordedState returns the State the database records, read on the
	// writer's own session (connected again if it was lost) after every
	// db-transaction that wrote it has ended, including one of a writer
	// session lost while its COMMIT was under way. After a Commit that
	// failed with ErrDatabaseUnavailable it tells whether that COMMIT took
	// effect. It fails with ErrBlockOpen while a Block is open, and with
	// ErrDatabaseUnavailable while the database cannot be reached.
	RecordedState(ctx context.Context) (State, error)

	// Begin opens the block's db-transaction. It fails if a Block is open,
	// and with an *OutOfBandChange (ErrOutOfBandChange) if the change table
	// holds records no block made: every block consumes its own before
	// Commit, so they were written outside the chain.
	Begin(ctx context.Context) (Block, error)

	// Query runs one read-only statement in a read-only db-transaction on
	// committed state and returns its rows and the height they reflect.
	// Rows.Types holds each column's type (types.go).
	Query(ctx context.Context, sql string, args []any) (*Rows, int64, error)

	// Describer describes a statement's parameters and columns without
	// executing it (types.go).
	Describer

	// Gate is the backend's determinism and safety gate (see Gate).
	Gate() Gate

	// Capabilities says what the layers above need to know about the
	// database (see Capabilities).
	Capabilities() Capabilities

	// LoadSystem returns relchain's system state as committed: opaque values
	// owned by the executor (replay windows, grants), by key.
	LoadSystem(ctx context.Context) (map[string][]byte, error)

	// StateReader reads the committed state digest and recomputes it.
	StateReader

	// Close releases every resource. An open Block is rolled back.
	Close() error
}

// LatestReader is implemented by a backend that can run a read on its
// latest committed state in one snapshot without reading the height in
// that snapshot (PostgreSQL: one statement outside an explicit
// db-transaction), which saves a read its db-transaction's round trips.
// The caller takes the height from the executor instead: a block's data is
// visible before the executor records the block's height, so that height
// is a lower bound of the state the read sees. QueryLatest applies Query's
// gate, limits and row order; only the height is missing.
type LatestReader interface {
	QueryLatest(ctx context.Context, sql string, args []any) (*Rows, error)
}

// Block is the single db-transaction in which one block executes.
//
// The executor wraps every bc-transaction in Savepoint / Release, or
// RollbackTo on failure. Exec runs exactly one statement. ChangeDigest
// returns the digest of every row changed since Begin (in a canonical
// order, excluding changes rolled back to a savepoint), and of each tx's
// own changes, and resets it.
// Commit writes State in the same db-transaction as the data and makes
// both durable before it returns; after a crash either both or neither are
// present.
//
// DDL on MySQL: MySQL and MariaDB commit the open transaction before a DDL
// statement and the DDL itself at once, so a block cannot roll DDL back. On
// the "mysql" dialect a DDL statement is accepted only before every other
// change of its block (earlier statements of the block may only read or
// fail); after a change, Exec refuses it with an *Error of
// ClassNotImplemented. Inside a bc-transaction's savepoint, the DDL must
// be the tx's only statement: a DDL after another statement of the tx, and
// any statement after it, fail the same way. A bc-transaction with DDL
// must therefore be one statement, alone in its block (the executor's
// proposer keeps it so). Rollback and
// RollbackTo do not undo a DDL statement that ran; the backend's recovery
// record makes a replay of the same block (after a crash, or a rolled-back
// block run again) skip a DDL that already took effect and report the same
// result. The other dialects roll DDL back with the block.
//
// A statement that fails deterministically may still cost the backend the
// whole db-transaction (SQLite rolls back the transaction when it
// interrupts a writing statement at the work limit): Exec then returns an
// error that wraps both ErrBlockLost and the statement's *Error, and the
// Block only accepts Rollback. The executor re-runs the block with that
// statement's tx recorded as failed.
type Block interface {
	// Savepoint opens a bc-transaction's savepoint; its statements see env
	// (clock and random functions, where the dialect rewrites them), and
	// the rows they change are attributed to tx env.Tx (Changes.Effects)
	// until Release or RollbackTo. The attribution costs no extra round
	// trip to the database.
	Savepoint(ctx context.Context, env sqlcheck.Env) error
	// Release ends the bc-transaction's savepoint, keeping its changes.
	// An error wrapping ErrDeferredViolation is the tx's failure (its
	// *Error), not the backend's: the savepoint stays open for RollbackTo.
	Release(ctx context.Context) error
	RollbackTo(ctx context.Context) error
	Exec(ctx context.Context, sql string, args []any) (*Rows, error)
	// ChangeDigest consumes every change record captured since Begin (or
	// the previous ChangeDigest), in one read, and digests them: see
	// Changes. The executor calls it before every Commit: records a block
	// commits unconsumed stop the next Begin (ErrOutOfBandChange).
	ChangeDigest(ctx context.Context) (Changes, error)
	// StateDigest folds every change ChangeDigest consumed in this block
	// into the stored per-table sums (package statedigest), in the block's
	// db-transaction, and returns the state digest after the block: a
	// digest of every row of every replicated table. A block that changed
	// the schema recomputes the sums by a full scan. Call it once, after
	// the block's last ChangeDigest and before Commit.
	StateDigest(ctx context.Context) ([]byte, error)
	// SaveSystem upserts system state in the block's db-transaction
	// (outside the change digest and savepoints); a nil value deletes the
	// key. Keys are written in sorted order.
	SaveSystem(ctx context.Context, kv map[string][]byte) error
	Commit(ctx context.Context, s State) error
	Rollback(ctx context.Context) error
}

// BlockReader is implemented by a Block that can run a read inside its
// open db-transaction under the read policy: a rehearsal's probe (see
// api.RehearsePath), a catalog read of an interactive transaction that
// must see the transaction's own schema changes. Only rehearsals use it;
// a block consensus runs never does.
type BlockReader interface {
	// ReadInBlock runs sql, one read-only query, as Backend.Query would
	// judge and run it (the read gate, its catalog filtering, the query
	// path's row, size and time limits, its row order), but inside the
	// open db-transaction, after its statements: it sees their changes.
	// Whatever it does is undone before it returns (it runs in a
	// savepoint rolled back at once), and a failure of the read leaves
	// the db-transaction usable. Rows.Types is filled as Query fills it.
	ReadInBlock(ctx context.Context, sql string, args []any) (*Rows, error)
}

// ErrBlockReadUnsupported is ReadInBlock's error from a wrapper Block
// whose inner Block is no BlockReader (its database cannot run a read
// inside the block's db-transaction under the read policy).
var ErrBlockReadUnsupported = errors.New("this backend cannot run a read inside a block's db-transaction")

// Changes is what Block.ChangeDigest returns.
type Changes struct {
	// Block is the digest of every change record consumed, in the
	// backend's canonical order and encoding: the change digest that
	// enters the AppHash.
	Block []byte
	// Effects maps a tx's index in the block (sqlcheck.Env.Tx, as given to
	// Savepoint) to the SHA-256 of that tx's own change records, in the
	// same canonical order and encoding as Block. Only txs that left at
	// least one record are present: records rolled back to a savepoint are
	// gone, and records written outside every savepoint (before the first,
	// between Release and the next Savepoint, or out of band by another
	// session or process) enter Block but no tx's digest.
	Effects map[int][]byte
}

// Rows is the result of one statement: the columns and rows it returned
// (SELECT, RETURNING) and the rows it affected (INSERT, UPDATE, DELETE).
// Values are nil, int64, float64, string, []byte or bool.
//
// Types, one per column (types.go), is filled by Query only: a Block's
// Exec leaves it nil, because a block's results enter the AppHash and
// their JSON must not change with how a backend learns types. Typmods
// likewise (Query only, and only where the database reports them): one
// PostgreSQL type modifier per column, -1 where there is none.
type Rows struct {
	Columns      []string `json:"columns,omitempty"`
	Types        []string `json:"types,omitempty"`
	Typmods      []int32  `json:"typmods,omitempty"`
	Rows         [][]any  `json:"rows,omitempty"`
	RowsAffected int64    `json:"rows_affected"`
	// Unordered: the statement fixes no order of its rows (not a
	// top-level SELECT with ORDER BY): each engine returns them in an
	// order of its own, which protocol version 5 replaces with a
	// canonical one (the executor's). Not part of the result's JSON.
	Unordered bool `json:"-"`
}

// ErrBlockLost is wrapped (with the statement's *Error) by an Exec failure
// that also rolled back the block's whole db-transaction.
var ErrBlockLost = errors.New("the backend rolled back the block's db-transaction")

// ErrDeferredViolation is wrapped (with the tx's *Error, SQLSTATE 23503)
// by Release when a constraint the dialect checks at the end of a
// transaction is violated (PostgreSQL's DEFERRABLE INITIALLY DEFERRED
// foreign keys on SQLite storage). The savepoint is still open: the tx
// fails as PostgreSQL's COMMIT fails, and the executor rolls back to it.
// A function of the tx's statements, the same on every node.
var ErrDeferredViolation = errors.New("a constraint deferred to the end of the transaction is violated")

// ErrBlockOpen is returned by Begin when a Block is already open.
var ErrBlockOpen = errors.New("a block db-transaction is already open")

// ErrOutOfBandChange is wrapped by Begin's error when the database holds
// change records that no block made: something wrote the node's database
// outside relchain (another connection or process, with relchain's capture
// triggers active). The block does not start, so nothing of the change
// enters a digest; the node stops. Restoring a checkpoint (relchain
// recover) or rebuilding the database from the chain repairs it.
var ErrOutOfBandChange = errors.New("the database was changed outside the chain")

// OutOfBandChange is Begin's error for ErrOutOfBandChange: the change
// records it found, by table.
type OutOfBandChange struct {
	// Tables holds, in byte order of the table name, each table with
	// change records ("" is a schema change record without a table).
	Tables []TableChanges
	// More is set when only the first tables were counted.
	More bool
	// Scanned is set when the tables were found by comparing their rows
	// with the stored state digest (no change records): Rows is then 0.
	Scanned bool
}

// TableChanges is the number of change records of one table.
type TableChanges struct {
	Table string
	Rows  int64
}

// MaxOutOfBandTables is how many tables an OutOfBandChange lists.
const MaxOutOfBandTables = 20

// ChangeCountRows is what ReadOutOfBand needs of a driver's result rows
// (pgx.Rows and *sql.Rows both have it).
type ChangeCountRows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}

// ReadOutOfBand turns the rows of a query of (table, change record count),
// ordered by table and limited to MaxOutOfBandTables+1, into an
// *OutOfBandChange, or nil when there are none. The caller closes rows.
func ReadOutOfBand(rows ChangeCountRows) error {
	oob := &OutOfBandChange{}
	for rows.Next() {
		var t TableChanges
		if err := rows.Scan(&t.Table, &t.Rows); err != nil {
			return fmt.Errorf("read change records: %w", err)
		}
		if len(oob.Tables) == MaxOutOfBandTables {
			oob.More = true
			break
		}
		oob.Tables = append(oob.Tables, t)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read change records: %w", err)
	}
	if len(oob.Tables) == 0 {
		return nil
	}
	return oob
}

func (e *OutOfBandChange) Error() string {
	if e.Scanned {
		return e.scannedError()
	}
	var b strings.Builder
	var total int64
	for i, t := range e.Tables {
		if i > 0 {
			b.WriteString(", ")
		}
		name := t.Table
		if name == "" {
			name = "(schema)"
		}
		fmt.Fprintf(&b, "%s (%d)", name, t.Rows)
		total += t.Rows
	}
	if e.More {
		b.WriteString(", and more tables")
	}
	return fmt.Sprintf("%v: %d change record(s) that no block made, in %s; another connection or process wrote the node's database; relchain will not digest them and this node stops: restore a checkpoint with `relchain recover` (or rebuild the database from the chain), and check the database with `relchain verify`",
		ErrOutOfBandChange, total, b.String())
}

// scannedError is Error for tables found by a scan: each is named with
// "(rows changed)" where a count of records would be.
func (e *OutOfBandChange) scannedError() string {
	var b strings.Builder
	for i, t := range e.Tables {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s (rows changed)", t.Table)
	}
	if e.More {
		b.WriteString(", and more tables")
	}
	return fmt.Sprintf("%v: rows that no block wrote, in %s (their tables differ from the state the last block committed); another connection or process wrote the node's database; relchain will not digest them and this node stops: restore a checkpoint with `relchain recover` (or rebuild the database from the chain), and check the database with `relchain verify`",
		ErrOutOfBandChange, b.String())
}

// Unwrap makes errors.Is(err, ErrOutOfBandChange) hold.
func (e *OutOfBandChange) Unwrap() error { return ErrOutOfBandChange }

// CommitDigested ends blk outside consensus (a database copied or rebuilt
// by relchain itself): it runs ChangeDigest and StateDigest, so that no
// change record outlives the block and the stored sums cover its rows,
// and commits it as st.
func CommitDigested(ctx context.Context, blk Block, st State) error {
	if _, err := blk.ChangeDigest(ctx); err != nil {
		return fmt.Errorf("change digest: %w", err)
	}
	if _, err := blk.StateDigest(ctx); err != nil {
		return fmt.Errorf("state digest: %w", err)
	}
	if err := blk.Commit(ctx, st); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}
