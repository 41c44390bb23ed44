// Package mysql is the MySQL dialect of relchain's determinism and safety
// gate (see package sqlcheck for the policy shared by all dialects). Check
// parses a statement with the Vitess MySQL parser (Dolt's maintained fork,
// github.com/dolthub/vitess, at a pinned version: changing it is a protocol
// upgrade), walks every node of the parse tree in a fixed order and rejects
// anything that is not known to be deterministic and harmless. Analyze adds
// what an accepted statement does. Rewrite returns accepted texts
// unchanged.
//
// # Clock
//
// NOW(), CURRENT_TIMESTAMP[(p)], LOCALTIME, LOCALTIMESTAMP, CURRENT_DATE,
// CURDATE(), CURRENT_TIME, CURTIME(), UTC_TIMESTAMP(), UTC_DATE(),
// UTC_TIME() and UNIX_TIMESTAMP() are accepted as they are, in every
// statement kind and in column DEFAULT and ON UPDATE clauses: the MySQL
// backend sets the session variable timestamp to the block's BFT time
// before each bc-transaction, and all of them then return that instant.
// SYSDATE() ignores the session timestamp and is rejected. So
// Analysis.UsesEnv is always false and Rewrite(sql, env) returns sql for an
// accepted statement (Check's error otherwise).
//
// # Text
//
// The text must hold exactly one statement ("SELECT 1;" is one; "SELECT 1;
// SELECT 2" is refused with PostgreSQL's message, and so is an empty text).
// Parse errors, and panics of the parser, wrap sqlcheck.ErrUnparseable; so
// do statements MySQL knows but the parser does not (XA, HANDLER, DO, LOAD
// XML, INSERT DELAYED, OPTIMIZE/REPAIR/CHECK TABLE, CREATE FUNCTION, FOR
// SHARE, ...), which are refused either way. Executable comments (/*! ...
// */, /*!50700 ... */, MariaDB's /*M! ... */) and optimizer hints (/*+ ...
// */) are refused anywhere in the text, even inside string literals (the
// check is lexical and fails closed): MySQL runs what they hold. A "--"
// comment must be followed by a space or control character, as MySQL
// requires: the parser takes "--x" for a comment, MySQL for two minus signs
// followed by code.
//
// # Statements
//
// Allowed: SELECT (UNION, INTERSECT, EXCEPT, non-recursive WITH, derived and
// LATERAL tables, subqueries), INSERT and REPLACE (VALUES, SET, SELECT, ON
// DUPLICATE KEY UPDATE, IGNORE), UPDATE and DELETE (single- and
// multi-table), and as DDL: CREATE TABLE (and LIKE), ALTER TABLE (add, drop,
// modify and change columns, defaults, NOT NULL, keys, indexes, foreign keys
// and checks), DROP TABLE, CREATE/DROP INDEX, CREATE [OR REPLACE]/DROP VIEW
// and TRUNCATE. Analysis.DDL is set for DDL; Analysis.Writes lists the
// tables a statement inserts into, updates, deletes from or truncates,
// lower-cased, sorted, without duplicates. For a multi-table UPDATE these
// are the tables its SET clause names through aliases or qualifiers (all
// joined tables for an unqualified column); a SET column qualified with
// anything but a base table of the UPDATE, an unqualified one in an UPDATE
// joining a derived table, and a DELETE target that is not a table or
// alias of its FROM clause are refused, so that Writes never understates
// what MySQL writes.
//
// Refused: transaction control (BEGIN, START TRANSACTION, COMMIT, ROLLBACK,
// SAVEPOINT, XA), SET (SET GLOBAL and PERSIST with their own message), LOCK
// and UNLOCK TABLES, LOAD DATA/XML, HANDLER, SHOW, DESCRIBE, EXPLAIN, USE,
// CREATE/DROP DATABASE and SCHEMA, maintenance (ANALYZE, OPTIMIZE, REPAIR,
// CHECK TABLE, FLUSH, PURGE), KILL, PREPARE/EXECUTE/DEALLOCATE, CALL, DO,
// accounts, roles and privileges, replication control, compound
// statements, stored procedures and functions, events, and triggers (the
// backend owns the triggers of replicated tables: its change capture).
//
// # Constructs
//
// The walk visits every exported field of every node, in declaration
// order, so the first offence and its message are the same on every node.
// Each node type must be known to the gate, with the fields it walks; any
// other field must be empty (a clause the parser records where the gate
// does not look is refused, naming it), and an ALTER TABLE piece that
// records nothing (the parser drops most table options, ENGINE among them)
// is refused. Following MySQL's list of statements unsafe for
// statement-based replication, the gate refuses:
//
//   - LIMIT without ORDER BY in any SELECT (subqueries, views and
//     INSERT ... SELECT included), UPDATE and DELETE;
//   - INSERT IGNORE ... SELECT, REPLACE ... SELECT and INSERT ... SELECT
//     ... ON DUPLICATE KEY UPDATE without ORDER BY in the SELECT;
//   - GROUP_CONCAT without ORDER BY inside the call, JSON_ARRAYAGG,
//     JSON_OBJECTAGG, window functions and WITH RECURSIVE;
//   - SYSDATE, RAND, UUID, UUID_SHORT, RANDOM_BYTES, USER, CURRENT_USER,
//     SESSION_USER, SYSTEM_USER, CURRENT_ROLE, CONNECTION_ID, VERSION,
//     DATABASE, SCHEMA, FOUND_ROWS, ROW_COUNT, LAST_INSERT_ID, GET_LOCK and
//     the other user-level lock functions, SLEEP, BENCHMARK,
//     MASTER_POS_WAIT, LOAD_FILE; every function not on the allowlist in
//     policy.go (arithmetic, string, conditional, hash, date, JSON
//     functions and COUNT/SUM/AVG/MIN/MAX), stored functions (db.f(),
//     f()), CONVERT ... USING and MATCH ... AGAINST; CAST and CONVERT only
//     to allowlisted types;
//   - user variables (@x) and system variables (@@x), SELECT ... INTO
//     (OUTFILE, DUMPFILE, variables), SQL_CALC_FOUND_ROWS, SQL_CACHE;
//   - locking reads (FOR UPDATE, LOCK IN SHARE MODE), index hints and
//     partition selection;
//   - AUTO_INCREMENT (column attribute, SERIAL, table option): it is not
//     transactional, so a node that crashes mid-block and replays the block
//     advances its counter twice and its later keys diverge (the same
//     reasoning as PostgreSQL's sequences, see package sqlcheck);
//   - ENGINE other than InnoDB, TEMPORARY tables, partitioning, table
//     options other than ENGINE, CHARACTER SET, COLLATE and COMMENT, CREATE
//     TABLE ... SELECT, FULLTEXT and SPATIAL indexes, DEFINER and SQL
//     SECURITY on views, RENAME TABLE, ALTER TABLE ... RENAME;
//   - column types outside INT family, DECIMAL/NUMERIC,
//     CHAR/VARCHAR/TEXT family, BINARY/VARBINARY/BLOB family, DATE,
//     DATETIME, TIMESTAMP, BOOLEAN, JSON, ENUM and SET (defaults, ON UPDATE,
//     CHECK and generated-column expressions pass the function check);
//   - what the bounds below refuse;
//   - schema-qualified names (db.t: each node has its own database name),
//     the system schemas (information_schema, mysql, performance_schema,
//     sys) and every table whose name starts with relchain_ (any case): the
//     backend's own.
//
// # Bounds
//
// What a statement may ask of the server is bounded by rules on the text
// alone, so that every node refuses the same statements (a tx result):
//
//   - Sequence tables: names of the form seq_<a>_to_<b>[_step_<c>] (any
//     case) are refused wherever a table is named: MariaDB's SEQUENCE
//     engine makes them exist in every database, with as many rows as the
//     name asks (seq_1_to_100000000000). ENGINE= anything but InnoDB is
//     refused (above), so no other engine's virtual tables can be made.
//   - Joins: in each FROM clause (of a SELECT, subqueries, derived
//     tables, CTEs, views and INSERT ... SELECT included, and of a
//     multi-table UPDATE or DELETE), relations joined by equality
//     conditions between qualified columns of two relations form a group:
//     ON a.x = b.y (a top-level AND term), USING (...) or NATURAL (joining
//     the right side to the left side's nearest relation), or a top-level
//     AND term a.x = b.y of WHERE. Every group after the first that holds
//     a table, view or non-constant derived table is a cross join, and a
//     statement may hold one cross join in all its FROM clauses together
//     (so nesting two-table derived tables does not escape the rule).
//     Groups of constant derived tables ((SELECT 0 UNION ALL SELECT 1 ...)
//     AS d, FROM DUAL) multiply the statement's constant rows, at most
//     10,000,000 (the bench workloads generate series that way). A 24-way
//     self-join of a 3-row table (3^24 rows) is refused; TPC-C's, SmallBank's
//     and YCSB's statements pass.
//   - Size multipliers: the count of REPEAT and the length of LPAD and
//     RPAD must be an integer literal of at most 4096 (not an expression,
//     a column or a placeholder), and REPEAT, LPAD, RPAD, REPLACE and HEX
//     may not appear inside one another's arguments (nesting multiplies:
//     HEX(HEX(...)) doubles at each level). SPACE, INSERT(), WEIGHT_STRING,
//     TO_BASE64 and the like are not on the allowlist. Every other
//     function's result is at most proportional to its arguments.
//   - Floating point: FLOAT, DOUBLE, REAL columns, CAST/CONVERT to them,
//     approximate literals (1e3, 2.5E-3: DOUBLE in MySQL; 2.5 is an exact
//     DECIMAL), the DOUBLE-valued functions (SQRT, POW, EXP, LN, LOG, the
//     trigonometric ones) and JSON values (JSON_* functions, -> and ->>)
//     inside SUM or AVG are refused: SUM and AVG of floating-point values
//     depend on the order rows are added in, which differs between nodes
//     (a plan chosen from node-local statistics, a table rebuilt by
//     maintenance), and MySQL has no ORDER BY inside SUM. With them gone,
//     SUM and AVG add exact values (integers, DECIMAL), whose sum does not
//     depend on order. GROUP_CONCAT needs ORDER BY inside the call; window
//     functions, JSON_ARRAYAGG and JSON_OBJECTAGG are refused.
//   - Recursion: WITH RECURSIVE is refused.
//
// # What the backend must pin
//
// The verdicts assume the session settings the backend fixes on every node:
// the session timestamp (above), time_zone, an sql_mode with
// ONLY_FULL_GROUP_BY and STRICT_TRANS_TABLES and without ANSI_QUOTES,
// NO_BACKSLASH_ESCAPES and PIPES_AS_CONCAT (the gate tokenizes as default
// MySQL does), character_set_*/collation_connection, group_concat_max_len,
// default_storage_engine=InnoDB, explicit_defaults_for_timestamp, and one
// MySQL version across the network.
//
// # Residual risks
//
//   - ORDER BY on non-unique keys before LIMIT or in GROUP_CONCAT, and
//     multi-table UPDATE/DELETE with several matching rows: MySQL picks one
//     of several valid answers. Only a schema-aware check closes this.
//   - INSERT ... ON DUPLICATE KEY UPDATE on a table with several unique
//     keys (MariaDB flags it unsafe).
//   - Implicit conversions to DOUBLE the text does not show: SUM or AVG
//     of a character column, or of a string or temporal expression
//     (SUM('1.5'), SUM(COALESCE(a, '0'))), adds DOUBLE values in row
//     order (the gate does not know column types; only a schema-aware
//     check closes this). A tx argument passed as a float64 becomes a
//     literal the driver prints (an exact DECIMAL unless its exponent is
//     large).
//   - Table names: Writes are lower-cased, but with lower_case_table_names=0
//     MySQL tells t and T apart.
//   - DDL commits implicitly in MySQL; how it fits the block's transaction
//     is the backend's business.
//   - Writes names the view an INSERT, UPDATE or DELETE goes through, not
//     its base table, and not the tables foreign-key actions (ON DELETE
//     CASCADE ...) change: views and foreign keys are DDL, an admin's
//     decision.
//   - The parser is not MySQL's. Where it reads a text differently from
//     MySQL, the gate checks something else than what runs. The cases
//     found are closed ("--x" comments, NUL bytes, DELETE QUICK read as a
//     table named quick, SESSION_USER without parentheses read as a column,
//     ALTER TABLE clauses parsed but not recorded), and MySQL syntax the
//     parser lacks is refused as unparseable; others may remain.
//   - Work the text cannot bound: a cross join of two large tables, joins
//     on non-unique columns, derived tables or CTEs that each double a
//     value, values grown over many blocks (each is capped at
//     max_allowed_packet, 1 GiB, by the server: a larger result is NULL).
//     Deterministic; the app's node-local deadline on ProcessProposal
//     rejects such a block instead of stalling the chain.
package mysqlgate
