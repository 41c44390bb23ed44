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
// client-side statement cache. See backend/DESIGN.md for why.
package postgres
