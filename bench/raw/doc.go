// Package raw is the benchmark's baseline: a standalone database of the
// same backend and configuration as the chain's (SQLite in WAL mode with
// synchronous=FULL; PostgreSQL with synchronous_commit on and relchain's
// pinned session settings), with no chain in front of it. It executes the
// same wl-transactions as the chain, grouped the same way: one
// db-transaction per bc-transaction (sync, pseudo-sync) or per block
// (async), each wl-transaction in its own savepoint when a db-transaction
// holds several, as the paper measured its overhead.
package raw
