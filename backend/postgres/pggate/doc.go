// Package pggate is the PostgreSQL dialect of relchain's determinism and
// safety gate (see package sqlcheck for the policy). Check parses a statement
// with PostgreSQL's own parser (libpg_query, through pg_query_go), walks
// every node of the parse tree in a fixed order and rejects anything that
// is not known to be deterministic and harmless. Analyze adds what an
// accepted statement does; Rewrite replaces its clock and random-number
// calls by the values of the tx's deterministic environment. Every text,
// statement or routine body, passes sqlcheck/prescan before libpg_query
// sees it (a stack overflow inside cgo is a SIGSEGV no recover catches).
//
// # Two policies: blocks and reads
//
// Every refusal is of one of two kinds. A determinism refusal exists only
// because every node must compute the same result from the same state:
// system columns (oid, ctid, xmin ...), the catalogs of pg_catalog and
// information_schema, volatile or node-local functions (format_type,
// pg_get_expr, pg_table_is_visible, gen_random_uuid ...), object
// identifier types (regclass), DISTINCT ON without ORDER BY, LIMIT
// without ORDER BY that no table key can order (see below),
// window functions, WITH RECURSIVE, cross joins and generate_series bounds
// (which a node-local timeout must not decide). The walker marks each with
// w.nondeterministic(err). Every other refusal is a safety refusal: files
// and programs (pg_read_file, lo_import, COPY), network (dblink), settings
// and roles (set_config, current_setting, SET), sleeping, advisory locks,
// signalling or reloading the server, writes and row locks, sequences,
// lpad/rpad and size-multiplying calls beyond their memory bounds,
// relchain's own schema, the catalogs that show the server's runtime
// state, configuration or secrets (pg_stat_*, pg_settings, pg_authid ...),
// and any construct or function the gate does not know (fail closed).
//
// Check and Analyze (blocks, CheckTx) enforce both kinds. CheckRead (the
// node's query path, whose results decide nothing) enforces the safety
// refusals only, with allowlists of its own (read.go: readFuncs,
// readSelfForms, readGuarded, infoSchemaFuncs, catalogRelations,
// infoSchemaViews; catalogs.go: catalogReplacements): the system relations
// and functions a read without a key may use are named, every other one is
// refused as "not on relchain's read allowlist", and none shows other roles
// or databases of a shared server, its settings, statistics or activity.
// The shared catalogs GUI tools read (pg_database, pg_roles,
// pg_auth_members, pg_settings, the table statistics views …) are replaced
// by the read path's own rows: this database under the name
// NetworkDatabase, the roles of this database without their settings, a
// few build-time settings, table names without numbers; pg_get_userbyid
// answers only for the owners of this database's objects, behind a guard
// the read text carries. It also hides relchain's own objects
// from introspection: each catalog relation or information_schema view
// that would list them is replaced, in the text the query path runs, by a
// subquery of its rows that are not relchain's, under the same alias
// (pg_namespace without schema relchain; pg_class, pg_attribute, pg_index,
// pg_trigger ... without relchain's relations and capture triggers).
// Functions given an object identifier (pg_get_indexdef, a regclass cast)
// can still name relchain's relations and show their definitions; the
// rows of relchain's tables stay unreadable.
//
// # Rewrites beyond the clock
//
// Some constructs are made deterministic instead of refused. A LIMIT,
// OFFSET or FETCH FIRST without ORDER BY over one table is ordered by the
// table's key (limit.go): the gate marks the statement (KeyOrdered) and the
// backend, which knows the schema at that point of the block, passes the
// key in to OrderLimits, keeping the gate pure. The session functions
// drivers call (current_schema(), current_database(), version(),
// current_user, pg_backend_pid() ...) are replaced by the network's values
// on both paths (session.go). Table storage parameters that cannot change
// a result (fillfactor, autovacuum_* ...) are allowed (storage.go).
package pggate
