// Package postgres implements backend.Backend on PostgreSQL with pgx.
//
// One dedicated connection executes blocks; a pool of read-only connections
// answers Query. Open creates the node's database if needed (UTF8,
// collation C), checks it, and installs relchain's schema: the meta table
// holding the committed State, and trigger-based change capture (as in
// chainifyDB) from which ChangeDigest computes the digest of a block's row
// changes. The role must be a superuser, because change capture is attached
// to new tables by an event trigger.
//
// Every connection pins the session settings that affect results (time
// zone, date and float output, parallelism, ...); statements run without any
// client-side statement cache. Every block runs under SET CONSTRAINTS ALL
// IMMEDIATE, so a deferrable constraint fails its tx, never the block's
// COMMIT. The writer has no statement timeout: a block's statements are
// bounded by the gate (sqlcheck/postgres) and by the context the caller
// passes (a deadlined Exec returns an error wrapping ctx.Err() and cancels
// the statement on the server). relchain's own statements name rows as
// alias.* and built-in functions as pg_catalog.name, so no user table,
// column or function can capture them. See backend/DESIGN.md for why.
package postgres
