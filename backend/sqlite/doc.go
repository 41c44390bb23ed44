// Package sqlite is relchain's embedded default backend: one SQLite database
// file per node, in WAL mode, durable at every block commit
// (synchronous=FULL), driven through github.com/ncruces/go-sqlite3's
// low-level API (cgo-free; every node runs the exact SQLite it bundles).
//
// One connection executes blocks, under the determinism and safety gate
// (SQLite's authorizer), with clock and random functions rewritten to read
// the tx's environment and every statement bounded by a deterministic work
// limit; a small pool of read-only connections answers queries and CheckTx's
// Analyze on committed state. Row changes of replicated tables are captured
// by triggers relchain installs, and hashed at the end of each block. See
// ../DESIGN.md for why.
package sqlite
