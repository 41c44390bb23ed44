package backend

import (
	"context"
	"errors"
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
// writer). Query and CheckSyntax may run concurrently with each other and
// with an open Block; they never see the open Block's writes.
//
// Determinism: everything a Block returns (rows, rows affected, error
// classes) must be the same on every node that applies the same statements
// to the same state with the same backend kind. Session settings that affect
// results (time zone, date style, float output, collation, parallelism) are
// pinned by the implementation.
type Backend interface {
	// Dialect names the SQL dialect: "sqlite", "postgres", later "mysql".
	Dialect() string

	// LoadState returns the last committed State.
	LoadState(ctx context.Context) (State, error)

	// Begin opens the block's db-transaction. It fails if a Block is open.
	Begin(ctx context.Context) (Block, error)

	// Query runs one read-only statement in a read-only db-transaction on
	// committed state and returns its rows and the height they reflect.
	Query(ctx context.Context, sql string, args []any) (*Rows, int64, error)

	// CheckSyntax reports whether sql is exactly one statement the backend
	// can parse, without executing it. Errors that depend on the schema (a
	// missing table, say) are not syntax errors: a tx earlier in the same
	// block may create the table. It returns an *Error with ClassSyntax, or
	// ClassInvalid for multiple statements or empty text.
	CheckSyntax(ctx context.Context, sql string) error

	// LoadReplayWindows returns every client key's replay-protection state
	// as committed (opaque bytes owned by the executor), keyed by public key.
	LoadReplayWindows(ctx context.Context) (map[string][]byte, error)

	// Close releases every resource. An open Block is rolled back.
	Close() error
}

// Block is the single db-transaction in which one block executes.
//
// The executor wraps every bc-transaction in Savepoint / Release, or
// RollbackTo on failure. Exec runs exactly one statement. ChangeDigest
// returns the digest of every row changed since Begin (in a canonical
// order, excluding changes rolled back to a savepoint) and resets it.
// Commit writes State in the same db-transaction as the data and makes
// both durable before it returns; after a crash either both or neither are
// present.
type Block interface {
	Savepoint(ctx context.Context) error
	Release(ctx context.Context) error
	RollbackTo(ctx context.Context) error
	Exec(ctx context.Context, sql string, args []any) (*Rows, error)
	ChangeDigest(ctx context.Context) ([]byte, error)
	// SaveReplayWindows upserts replay-protection states in the block's
	// db-transaction (outside the change digest and savepoints).
	SaveReplayWindows(ctx context.Context, windows map[string][]byte) error
	Commit(ctx context.Context, s State) error
	Rollback(ctx context.Context) error
}

// Rows is the result of one statement: the columns and rows it returned
// (SELECT, RETURNING) and the rows it affected (INSERT, UPDATE, DELETE).
// Values are nil, int64, float64, string, []byte or bool.
type Rows struct {
	Columns      []string `json:"columns,omitempty"`
	Rows         [][]any  `json:"rows,omitempty"`
	RowsAffected int64    `json:"rows_affected"`
}

// ErrBlockOpen is returned by Begin when a Block is already open.
var ErrBlockOpen = errors.New("a block db-transaction is already open")
