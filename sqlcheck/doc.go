// Package sqlcheck holds relchain's determinism and safety gate: the
// parser-based check every statement passes before it can enter a block
// (CheckTx) and again before it executes (FinalizeBlock). One implementation
// per SQL dialect lives in a subpackage (backend/postgres/pggate, backend/mysql/mysqlgate;
// the SQLite dialect is backend/sqlite's authorizer-based gate). Besides the verdict,
// a gate reports what an accepted statement does (Analysis: DDL or not,
// the tables it writes, whether it reads the clock or random numbers), and
// a dialect whose gate rewrites clock and random functions does so from
// the tx's Env.
//
// # Policy
//
// A checker is a pure function of the statement text: no database, no
// schema, no clock, no configuration. Every node runs the same relchain
// binary (hence the same parser) and reaches the same verdict with the same
// message, which the executor records as the tx's deterministic failure
// reason (code 7). Checkers walk their parse trees in a fixed order, so the
// first offending construct, and thus the message, is the same everywhere.
// The gate, its rewriting included, is consensus-relevant: changing it (or
// the pinned parser version) changes which txs succeed and what they write,
// and must be rolled out as a protocol upgrade.
//
// Checkers FAIL CLOSED. A statement passes only if
//   - the text holds exactly one statement that the parser accepts,
//   - its kind is on an allowlist (queries, DML, table/index/view DDL and,
//     for PostgreSQL, functions, procedures and triggers),
//   - every node type of its parse tree is one the checker knows to be
//     harmless (an unknown construct is rejected, naming it),
//   - every function it calls is on an allowlist of deterministic,
//     side-effect-free functions, and every type it names is on a type
//     allowlist,
//   - it touches no system catalog and none of relchain's own objects.
//
// Everything else is rejected with a message naming the construct: clocks
// and random numbers where they are not rewritten, node-local values
// (backend pid, version, sizes, transaction ids, system columns, object
// identifiers), order-dependence (LIMIT/OFFSET/FETCH without ORDER BY,
// DISTINCT ON without ORDER BY, order-sensitive aggregates without ORDER BY
// inside the call, TABLESAMPLE, window functions), locking clauses,
// transaction and session control, COPY, DO, LOAD, LISTEN/NOTIFY, LOCK,
// maintenance commands, prepared statements, cursors, EXPLAIN, roles,
// grants, databases, tablespaces, extensions and foreign data.
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
// # The text gates' contract
//
// A text gate (backend/postgres/pggate, backend/mysql/mysqlgate) judges a
// statement by its text alone and exports three functions, with one
// contract for every dialect:
//
//   - Check(sql string) error reports whether one statement text may run
//     on a relchain node of the dialect: nil to allow it, or an error
//     naming the offending construct (wrapping ErrUnparseable if the text
//     does not parse). It is a pure function of the text (verdicts are
//     cached by text, see VerdictCache), safe for concurrent use. It is
//     Analyze without the analysis.
//   - Analyze(sql string) (Analysis, error) is Check plus what an accepted
//     statement does (Analysis). The error is Check's. Verdicts are cached
//     by text; the returned Writes slice is the caller's own.
//   - Rewrite(sql string, env Env) (string, error) returns the text to
//     execute for a statement the gate accepts: the text itself unless its
//     Analysis says UsesEnv, and then a pure function of sql and env. For a
//     statement the gate rejects, Rewrite returns Check's error.
//
// Each gate documents only what its dialect adds; package
// sqlcheck/sqlchecktest holds the tests every gate runs against this
// contract, and Verdict the answer each caches.
//
// # Bounded work before any parser
//
// Every statement text, on every path that parses it (CheckTx, blocks,
// reads, Describe, rehearsals; with the gate on or off), first passes
// package sqlcheck/prescan: one linear lexical pass that refuses a text
// beyond relchain's bounds on size, tokens, nesting depth (parentheses,
// brackets, CASE, block keywords, operator chains, subqueries), literal
// nesting, identifier length and PostgreSQL's lexer work, naming the
// limit and the value. The bounds sit far below every parser's and
// engine's limit, so no cgo parser sees a text that can exhaust its stack
// and no node-local stack setting decides an outcome within them. They are
// consensus-relevant like the rest of the gate.
//
// # PostgreSQL: clock and random numbers (backend/postgres/pggate.Rewrite)
//
// In SELECT, INSERT, UPDATE, DELETE, MERGE and CALL (including their
// subqueries and CTEs), the clock functions now(), current_timestamp[(p)],
// transaction_timestamp(), statement_timestamp(), clock_timestamp(),
// localtimestamp[(p)], current_date, current_time[(p)] and localtime[(p)]
// (unqualified or pg_catalog., any case unless quoted) are accepted and
// Analysis.UsesEnv is set. The executor runs Rewrite's text instead, in
// which each call is a literal of Env.Time (the block's BFT time, UTC,
// microseconds, truncated) of the call's type and precision, e.g.
// '2026-11-22 07:21:43.123456+00'::timestamptz, '2026-11-22'::date,
// '07:21:43.123456'::time(3). All calls of a tx read the same instant, as
// now() does within a PostgreSQL transaction; clock_timestamp() no longer
// advances. Text literals that PostgreSQL resolves with the clock ('now',
// 'today', 'tomorrow', 'yesterday') and timeofday() stay rejected, as does
// age(x) with one argument (age(x, now()) is fine).
//
// random() is rewritten too, but only where each call site is evaluated
// exactly once, in an order the text fixes: the statement reads no table,
// view or CTE (no FROM clause anywhere), is no UPDATE, DELETE or MERGE, has
// no ON CONFLICT DO UPDATE, no set-returning function (generate_series,
// unnest, any user-defined function), no IN/ANY/ALL subquery, and random()
// is not in RETURNING. SELECT random() and INSERT ... VALUES (random(),
// random()) qualify. Elsewhere random() is rejected: evaluated once per
// row, its values would follow a scan order that can differ between nodes.
// The k-th call site (k = 0, 1, ... in the gate's walk order, which is the
// field order of pg_query's parse tree, depth first) becomes the float8
// literal of the top 53 bits of SHA-256("relchain/random/v1" | Env.Seed |
// k) times 2^-53. random(min, max), random_normal(), setseed() and the
// UUID and byte generators stay rejected.
//
// The rewritten text is PostgreSQL's own deparse of the statement's parse
// tree with the call nodes replaced; a statement whose deparse does not
// parse back to the identical tree is rejected, so what executes is exactly
// what the gate checked. Output columns keep their names: a select-list or
// RETURNING entry without AS that holds a rewritten call gets, as AS, the
// name PostgreSQL gives the original expression (SELECT now() still yields
// a column now); where that name cannot be told from the text the
// statement is rejected (name it with AS), and so is a clock or random
// call used directly as a FROM item. It is cached per text as a template, so Rewrite
// costs a few hundred nanoseconds, and nothing for a statement without
// clock or random calls.
//
// Clock and random calls stay rejected wherever they would be evaluated
// outside a rewritten statement: in DDL (column DEFAULT, CHECK, generated
// columns, index expressions and predicates, view bodies, CREATE TABLE AS,
// ALTER ... USING, trigger WHEN conditions, parameter defaults) and in
// function and procedure bodies. Pass the value as an argument instead.
//
// # PostgreSQL: order-independent aggregates
//
// sum and avg over float4/float8 round differently when their input comes
// in another order (1e16 + -1e16 + 1 is 1, 1e16 + 1 + -1e16 is 0), and a
// table's physical order differs between nodes (VACUUM, autovacuum, HOT
// pruning and free-space reuse run on each node's own schedule); the text
// of string_agg shows the order of the rows its ORDER BY leaves tied. The
// gate cannot tell types, so every call of sum, avg and string_agg (not
// DISTINCT, which sorts its input already) gets each of its sorted
// arguments appended to its ORDER BY unless the ORDER BY holds it already:
// sum(f) runs as sum(f ORDER BY f), sum(f ORDER BY g) as sum(f ORDER BY g,
// f), string_agg(s, ',' ORDER BY k) as string_agg(s, ',' ORDER BY k, s).
// Rows whose keys tie then carry equal arguments, so the aggregate sees
// the same sequence of values on every node. The statement is marked
// UsesEnv and executed as Rewrite returns it (deparsed, checked to parse
// back to the same tree); a SQL function body, string or BEGIN ATOMIC, is
// rewritten in the CREATE FUNCTION text the same way; in a PL/pgSQL body
// the ORDER BY must be written out (the body is stored as written), or the
// statement is refused. The cost is a sort of each group's input (n log n,
// deterministic). The other order-sensitive aggregates (array_agg,
// json[b]_agg, json[b]_object_agg) need ORDER BY inside the call, which
// fixes the order up to ties; variance, stddev, covar, corr and regr_* and
// window functions are not on the allowlist.
//
// # PostgreSQL: work bounds
//
// PostgreSQL has no deterministic instruction counter, and a timeout
// decides differently on each node (a timeout inside a decided block halts
// the node for good), so the gate refuses what it can see is unbounded by
// the text, and every bound below is a pure function of the text:
//
//   - Cartesian products. In each SELECT, UPDATE ... FROM, DELETE ... USING
//     and MERGE, the FROM items (relations, subqueries, functions, VALUES;
//     the written table counts for UPDATE/DELETE/MERGE) are connected by
//     the equalities among the AND-ed conjuncts of WHERE and JOIN ... ON
//     whose two sides are columns qualified by item names (a.x = b.y, also
//     under casts), and by USING/NATURAL when each side is connected
//     already. A FROM clause left in k groups counts k-1; summed over every
//     level of the statement (subqueries, CTEs, sublinks) the count may be
//     at most 1: one cross product of two is allowed (t a, u b), a third
//     unconnected relation anywhere is refused. OR, inequalities and
//     unqualified columns connect nothing (qualify join columns).
//   - generate_series: constant integer bounds, at most 1,000,000 rows for
//     the product of all calls of the statement.
//   - lpad, rpad: constant integer lengths adding up to at most 1,000,000
//     over the statement's calls; their sum times the generate_series rows
//     times the size factors below at most 2^28 (256 MiB): string_agg of a
//     million-character lpad over generate_series(1, 1000) is refused.
//   - Size multipliers. replace must have a string-constant replacement; its
//     factor is ceil(len(replacement)/len(pattern)) (len(replacement) if the
//     pattern is not constant; 1 if the replacement is not longer); encode
//     and translate count 4, to_json and to_jsonb 6 (\u00XX escapes),
//     json[b]_build_object/array 2, jsonb_pretty 64. The product of the factors of a statement's
//     calls may be at most 64. Nested replace(replace(lpad(...))) with
//     ten-fold replacements is refused; replace(s, '&', '&amp;') is not.
//
// Residual risks, which the app's deadline on the speculative execution
// of a proposal (a node-local limit that rejects the proposal, never a tx
// result) covers: an equality join on non-unique values (a.v = b.v with
// one value everywhere) is still quadratic, and chains of them polynomial;
// correlated subqueries multiply work without any join; a user-defined
// function's body has bounds of its own, and a call per row multiplies
// them by the rows; one allowed cross
// product of two large tables is quadratic; values can still grow through
// || of a value with itself across CTE levels, casts (bytea to text
// doubles, JSON escaping up to sixfold) and jsonb_pretty, bounded only by
// PostgreSQL's 1 GB value limit; a single statement's memory (sorts,
// hashes) is bounded by work_mem spilling to disk, not by the gate.
//
// # PostgreSQL: functions, procedures and triggers
//
// CREATE [OR REPLACE] FUNCTION and PROCEDURE are allowed (as DDL) in
// LANGUAGE sql or plpgsql, in schema public (unqualified or public.name,
// not starting with pg_). Options: IMMUTABLE/STABLE/VOLATILE, STRICT,
// CALLED ON NULL INPUT, COST, ROWS, SECURITY INVOKER, NOT LEAKPROOF,
// PARALLEL UNSAFE. Rejected: SECURITY DEFINER (the node's role is a
// superuser), SET, LEAKPROOF, PARALLEL SAFE/RESTRICTED (whether a parallel
// plan runs depends on each node), WINDOW, SUPPORT, TRANSFORM, every other
// language, and IMMUTABLE for a body that reads a table or calls a
// user-defined function (PostgreSQL may fold an immutable call at plan time
// into a cached plan, whose lifetime differs between nodes). Argument and
// return types come from the type allowlist, plus table row types named
// public.t, and trigger, void, record and SETOF/TABLE results. ALTER
// FUNCTION is rejected (use CREATE OR REPLACE); DROP FUNCTION, PROCEDURE
// and ROUTINE are allowed for public routines.
//
// Bodies pass the same gate as statement texts, without clock and random
// functions (rejected there, see above). A SQL body (a string, BEGIN ATOMIC
// or RETURN expr) is parsed and every statement checked. A SQL routine that
// returns one row (not SETOF, TABLE or void; a procedure with OUT or INOUT
// parameters) returns the first row of its last statement, so that
// statement must return at most one row as far as the text shows (no FROM,
// or aggregates without GROUP BY, and no set-returning or user-defined
// function in the select list; no UNION; no RETURNING) or have ORDER BY:
// write SELECT (SELECT x FROM t WHERE id = $1), RETURN expr, or ORDER BY
// ... LIMIT 1. A PL/pgSQL body is
// parsed by PostgreSQL's PL/pgSQL front end and walked fail-closed: every
// node type and every field must be known to the gate, and every embedded
// statement and expression is checked as a statement (an expression as
// SELECT expr, which is how PL/pgSQL runs it; an assignment's target and
// value separately). Declared variable types come from the type allowlist,
// record, t%ROWTYPE, public.t or x%TYPE. Allowed: assignments, IF, CASE,
// LOOP, WHILE, EXIT/CONTINUE, FOR over an integer range, FOR over a query
// with ORDER BY, FOREACH over an array, RETURN, RETURN NEXT, RETURN QUERY,
// RAISE (any level), PERFORM, CALL, SQL statements, SELECT ... INTO STRICT
// (or INTO with ORDER BY; DML ... RETURNING INTO), GET DIAGNOSTICS (all
// items but PG_ROUTINE_OID). Rejected: EXECUTE and every other dynamic SQL
// (FOR ... IN EXECUTE, RETURN QUERY EXECUTE), COMMIT and ROLLBACK, cursors
// (their row order is the scan's), ASSERT (whether it runs is each node's
// plpgsql.check_asserts), TG_RELID (an object identifier), SELECT ... INTO
// without STRICT or ORDER BY (it keeps the first of several rows), FOR over
// a query without ORDER BY, and exception handlers for anything but data
// exceptions (class 22), integrity violations (23) and PL/pgSQL's own
// errors (P0: RAISE, NO_DATA_FOUND, TOO_MANY_ROWS). WHEN OTHERS and the
// other classes are rejected because they also catch one node's own
// failures (out of memory, disk full, stack depth, cancellation, I/O and
// internal errors) and would turn them into a different committed outcome
// on that node only.
//
// User-defined functions are called only schema-qualified, as
// public.name(...), and procedures as CALL public.name(...): an unknown
// unqualified name could otherwise resolve to a built-in of pg_catalog
// outside the allowlist. CREATE [OR REPLACE] TRIGGER is allowed (DDL) for
// row and statement triggers, BEFORE, AFTER or INSTEAD OF, on INSERT,
// UPDATE, DELETE or TRUNCATE, with transition tables, executing a function
// named public.name(); its WHEN condition passes the gate without clock and
// random functions. Constraint triggers (deferred to the block's commit)
// and event triggers are rejected, and trigger names starting with relchain
// (its change capture) can be neither created, replaced nor dropped.
// DROP TRIGGER is allowed. What a routine or trigger writes is not listed
// in Analysis.Writes: it is its owner's (an admin's) decision.
//
// # PostgreSQL: deterministic work bounds
//
// PostgreSQL has no deterministic instruction counter, and a statement
// timeout decides differently on each node, so the work of a statement is
// bounded by its text where the gate can: WITH RECURSIVE is rejected
// (unbounded recursion cannot be bounded deterministically on PostgreSQL);
// generate_series takes constant integer bounds only, and the product of
// the spans of all generate_series calls of a statement is at most
// 1,000,000 rows; lpad and rpad take a constant length of at most
// 1,000,000; repeat is not allowed.
//
// # MySQL (backend/mysql/mysqlgate)
//
// The MySQL gate parses with Dolt's fork of the Vitess MySQL parser
// (github.com/dolthub/vitess, pinned) and walks the tree by reflection,
// every exported field of every node in declaration order: an unknown node
// type, or a known one holding a clause in a field the gate does not walk,
// is rejected by name. Its policy follows MySQL's list of statements unsafe
// for statement-based replication (LIMIT without ORDER BY, INSERT IGNORE,
// REPLACE and ON DUPLICATE KEY UPDATE from an unordered SELECT, SYSDATE,
// RAND, UUID, user and session functions, locks, SLEEP, @variables, SELECT
// INTO, LOAD DATA, ...) and refuses AUTO_INCREMENT for the reason given
// above for sequences, engines other than InnoDB, temporary tables,
// schema-qualified names, the system schemas and tables named relchain_*.
// Executable comments (/*! */, /*M! */), optimizer hints (/*+ */) and "--x"
// (a comment to the parser, code to MySQL) are refused lexically.
//
// The clock is not rewritten: NOW(), CURRENT_TIMESTAMP, CURDATE(),
// UTC_TIMESTAMP(), UNIX_TIMESTAMP() and the others read MySQL's session
// variable timestamp, which the MySQL backend sets to the block's BFT time
// before each bc-transaction, so they are accepted as they are, in DML and
// in DDL (DEFAULT CURRENT_TIMESTAMP, ON UPDATE CURRENT_TIMESTAMP) alike.
// SYSDATE() ignores it and is rejected; random numbers are rejected.
// Analysis.UsesEnv is therefore always false, and backend/mysql/mysqlgate.Rewrite
// returns accepted texts unchanged. See the package documentation for the
// full policy and for the session settings the backend must pin.
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
//     rows, SELECT ... INTO or FOR loops in PL/pgSQL ordered by non-unique
//     keys: PostgreSQL picks one of several valid answers. Only a
//     schema-aware check (is the ORDER BY key unique?) closes this.
//   - Order of side effects per row: row-level triggers on a multi-row
//     statement, and volatile user-defined functions called once per row,
//     run in the scan's order, which can differ between nodes. A body whose
//     effect depends on the order of earlier calls (counters, max(id)+1
//     keys, order-sensitive accumulation) can diverge. Routine owners must
//     write order-independent bodies.
//   - Float arithmetic in libm functions (power on float8) may differ across
//     C libraries; nodes should run the same build.
//   - Time zone names in literals depend on each node's tzdata version.
//   - Unbounded work that the text does not show: cartesian joins of large
//     tables (SELECT ... FROM a, b, c), repeated self-joins, and loops and
//     recursion in PL/pgSQL and SQL functions (a LOOP without EXIT, a
//     function calling itself). They are deterministic (every node stalls
//     or fails alike) but can stall the chain; only a deterministic work
//     counter (which PostgreSQL lacks) closes this. Deep recursion fails
//     with "stack depth limit exceeded" at a depth that depends on each
//     node's max_stack_depth, which nodes must therefore share.
//   - Schema public must hold only what the chain created: a function a
//     node operator installed there (CREATE EXTENSION pgcrypto into public,
//     say) would be callable as public.name(...) on that node only. The
//     backend should refuse a database whose public schema holds routines
//     or extensions it did not create.
//   - PL/pgSQL settings (plpgsql.variable_conflict, plpgsql.extra_errors)
//     and check_function_bodies change how bodies compile; nodes must share
//     them (the backend should pin them with the session settings).
package sqlcheck
