// Package sqlite is relchain's embedded default backend: one SQLite database
// file per node, in WAL mode, durable at every block commit
// (synchronous=FULL), driven through github.com/ncruces/go-sqlite3's
// low-level API (cgo-free; every node runs the exact SQLite it bundles).
//
// One connection executes blocks, under the determinism and safety gate
// (SQLite's authorizer; its policy is the table policies in gate.go, one
// entry per authorizer action code), with clock and random functions
// rewritten to read the tx's environment and every statement bounded by a
// deterministic work limit; a small pool of read-only connections answers
// queries and the gate's verdicts (Gate.Analyze) on committed state. Row
// changes of replicated tables are captured from SQLite's pre-update hook
// and hashed at the end of each block. See DESIGN.md here ("Change
// capture") and ../DESIGN.md for why.
//
// Every connection runs under SQLite's length limit (MaxValueBytes) and a
// hard heap limit. On the writer, functions that do work proportional to
// their arguments' or result's size (printf, replace, hex, ...) charge it
// to the statement's deterministic work limit; sum, total and avg are
// exact, independent of row order; the gate refuses order-sensitive forms
// (LIMIT without ORDER BY, group_concat without ORDER BY, the rowid of a
// table without INTEGER PRIMARY KEY). A done context interrupts a block
// statement as a node fault; SQLite running out of memory is a node fault,
// never a panic. Queries run under node-local bounds: a timeout, a work
// limit, row and byte caps. See DESIGN.md in this directory.
package sqlite
