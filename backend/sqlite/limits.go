package sqlite

import (
	"fmt"

	sqlite3 "github.com/ncruces/go-sqlite3"
)

// MaxValueBytes is SQLITE_LIMIT_LENGTH on every connection: the largest
// string or BLOB (and table row) SQLite builds or reads, in bytes. A
// function or operator whose result would be longer (printf with a huge
// width, replace, zeroblob, concatenation, ...) fails with SQLITE_TOOBIG
// before it allocates more, identically on every node: a tx result
// (ClassResource, SQLSTATE 54000), never an out-of-memory fault.
//
// 16 MiB is 16 times the largest tx the genesis allows (max_tx_bytes is
// 1 MiB), so every value a tx can carry, and its hex encoding, fits with
// room to spare should that parameter grow. A stored value longer than the
// limit could no longer be read: the limit may only ever grow, and only at
// a fixed height, like the bundled SQLite itself.
const MaxValueBytes = 16 << 20

// heapLimit is SQLite's hard heap limit per connection (each connection is
// its own WebAssembly instance, with its own heap): past it an allocation
// fails with SQLITE_NOMEM instead of growing the instance's memory until
// the process runs out. How much a statement allocates depends on the
// node's page cache and history, so running out is a node-local fault,
// never a tx result (see classify and recoverOOM).
const heapLimit = 1 << 30

// MaxExprDepth is SQLITE_LIMIT_EXPR_DEPTH on every connection: the
// deepest expression tree SQLite parses. SQLite's own default (1,000)
// assumes a C stack; the WebAssembly build's is smaller, and generating
// the code of an AND/OR chain used as a value (SELECT (a = 1 OR a = 2 OR
// ...)) overflowed it from about 497 operands, whatever the operands:
// the module's memory was corrupted and the process panicked, on a read
// as in a block. The relchain gate's pre-scan bounds every other kind of
// nesting to 128 but not AND/OR chains (ORMs' long WHERE clauses), so
// SQLite's limit is what stops them: a deeper statement fails at prepare
// (SQLITE_ERROR "Expression tree is too large"), identically on every
// node. 400 keeps a fifth of the stack in reserve.
const MaxExprDepth = 400

// limitConn sets the limits every connection runs under.
func limitConn(c *sqlite3.Conn) {
	c.Limit(sqlite3.LIMIT_LENGTH, MaxValueBytes)
	c.Limit(sqlite3.LIMIT_EXPR_DEPTH, MaxExprDepth)
	c.HardHeapLimit(heapLimit)
}

// oomMessage is the driver's text for SQLITE_NOMEM, which it panics with
// (from Step, Reset, Close and its allocations) instead of returning it.
const oomMessage = "sqlite3: out of memory"

// errOutOfMemory is what a call returns when SQLite ran out of memory: a
// node-local fault, deliberately not a *backend.Error.
var errOutOfMemory = fmt.Errorf("sqlite ran out of memory on this node (node-local fault, not a tx result)")

// recoverOOM turns the driver's out-of-memory panic into an error in *err;
// any other panic goes on. Use as: defer recoverOOM(&err).
func recoverOOM(err *error) {
	r := recover()
	if r == nil {
		return
	}
	if e, ok := r.(error); ok && e.Error() == oomMessage {
		*err = fmt.Errorf("%w: %w", errOutOfMemory, e)
		return
	}
	panic(r)
}

// closeQuietly runs close (a Stmt's or Conn's), turning the driver's
// out-of-memory panic (it reports the last run's NOMEM again) into an error.
func closeQuietly(close func() error) (err error) {
	defer recoverOOM(&err)
	return close()
}
