// Package sqlcheck holds relchain's determinism and safety gate: the
// parser-based check every statement passes before it can enter a block
// (CheckTx) and again before it executes (FinalizeBlock). One implementation
// per SQL dialect lives in a subpackage (sqlcheck/postgres; the SQLite
// dialect is backend/sqlite's authorizer-based gate).
//
// # Policy
//
// A checker is a pure function of the statement text: no database, no
// schema, no clock, no configuration. Every node runs the same relchain
// binary (hence the same parser) and reaches the same verdict with the same
// message, which the executor records as the tx's deterministic failure
// reason (code 7). Checkers walk their parse trees in a fixed order, so the
// first offending construct, and thus the message, is the same everywhere.
//
// Checkers FAIL CLOSED. A statement passes only if
//   - the text holds exactly one statement that the parser accepts,
//   - its kind is on an allowlist (queries, DML, and table/index/view DDL),
//   - every node type of its parse tree is one the checker knows to be
//     harmless (an unknown construct is rejected, naming it),
//   - every function it calls is on an allowlist of deterministic,
//     side-effect-free functions, and every type it names is on a type
//     allowlist,
//   - it touches no system catalog and none of relchain's own objects.
//
// Everything else is rejected with a message naming the construct: clocks
// and random numbers, node-local values (backend pid, version, sizes,
// transaction ids, system columns), order-dependence (LIMIT/OFFSET/FETCH
// without ORDER BY, DISTINCT ON without ORDER BY, order-sensitive
// aggregates without ORDER BY inside the call, TABLESAMPLE, window
// functions), locking clauses, transaction and session control, COPY, DO,
// LOAD, LISTEN/NOTIFY, LOCK, maintenance commands, prepared statements,
// cursors, EXPLAIN, roles, grants, databases, tablespaces, extensions and
// foreign data.
//
// Sequences (SERIAL, IDENTITY, nextval, CREATE SEQUENCE) are rejected. They
// would be deterministic as long as every node executed exactly the same
// statements: relchain executes only inside blocks, in block order, and a
// rolled-back savepoint leaves a sequence advanced on every node alike. But
// a sequence is not transactional: a node that crashes in the middle of a
// block rolls back the block's db-transaction and replays the block on
// restart, and its sequences then advance a second time on that node only.
// Its later ids differ from everyone else's and its AppHash diverges.
// Clients should supply keys (or derive them deterministically, e.g.
// max(id)+1 under the block's serial execution).
//
// Rewriting is future work: now()/current_timestamp could be rewritten to
// the block's consensus time and random() to a generator seeded by (block
// hash, tx index), deterministically on every node. Until then they are
// rejected.
//
// # Residual risks (not closed by a text-level check)
//
//   - Data-dependent conversions: a text value 'now'/'today' stored in a
//     column or bound as a parameter and then converted to a date/time type
//     reads the node's clock. Literals in the statement text are checked;
//     bound parameters and stored data are not (the executor could reject
//     such parameter values).
//   - ORDER BY on non-unique keys before LIMIT, string_agg/array_agg
//     ordered by non-unique keys, UPDATE ... FROM with several matching
//     rows: PostgreSQL picks one of several valid answers. Only a schema-aware
//     check (is the ORDER BY key unique?) closes this.
//   - Float arithmetic in libm functions (power on float8) may differ across
//     C libraries; nodes should run the same build.
//   - Time zone names in literals depend on each node's tzdata version.
//   - Unbounded work: recursive CTEs, cartesian joins, large lpad/repeat
//     allocations. They are deterministic (every node stalls or fails alike)
//     but a deterministic work bound (issue 3, item 4) is still to be done;
//     generate_series is allowed only with constant integer bounds.
package sqlcheck
