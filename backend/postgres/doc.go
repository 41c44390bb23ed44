// Package postgres implements backend.Backend on PostgreSQL with pgx.
//
// One dedicated connection executes blocks; a pool of read-only connections
// answers Query. Each connects as its own least-privilege role: the writer
// <db>_writer owns the database and its objects, the reader <db>_reader may
// only SELECT them; neither is a superuser or a member of any role, and Open
// refuses roles with more power unless WithUnsafeSuperuser (package pgsetup
// creates the roles and prints the SQL for operators). Open creates the
// node's database if the role may (UTF8, collation C), checks it, and
// installs relchain's schema: the meta table holding the committed State,
// and trigger-based change capture (as in chainifyDB) from which
// ChangeDigest computes the digest of a block's row changes. A block attaches
// capture to the tables its DDL statements create itself, right after each
// one (relchain.after_ddl), so no event trigger, and no superuser, is needed.
//
// Reads pass the same gate as blocks and must be one read-only query; they
// are bounded by a statement timeout, work_mem, the reader's temp_file_limit
// and a limit on the rows and bytes returned (WithQueryLimits).
//
// Every connection pins the session settings that affect results (time
// zone, date and float output, parallelism, ...). The writer prepares a
// block statement on its second sighting and empties that cache at every
// schema change, and plans every statement generically
// (plan_cache_mode = force_generic_plan), so a statement's outcome never
// depends on this node's history (stmtcache.go). Every block runs under SET CONSTRAINTS ALL
// IMMEDIATE, and from protocol version 3 each tx defers its INITIALLY
// DEFERRED constraints and checks them before its release (deferred.go),
// so a deferrable constraint fails its tx, never the block's COMMIT. The writer has no statement timeout: a block's statements are
// bounded by the gate (backend/postgres/pggate) and by the context the caller
// passes (a deadlined Exec returns an error wrapping ctx.Err() and cancels
// the statement on the server). relchain's own statements name rows as
// alias.* and built-in functions as pg_catalog.name, so no user table,
// column or function can capture them. See backend/DESIGN.md and DESIGN.md
// here for why.
package postgres
