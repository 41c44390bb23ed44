// Package pggate is the PostgreSQL dialect of relchain's determinism and
// safety gate (see package sqlcheck for the policy). Check parses a statement
// with PostgreSQL's own parser (libpg_query, through pg_query_go), walks
// every node of the parse tree in a fixed order and rejects anything that
// is not known to be deterministic and harmless. Analyze adds what an
// accepted statement does; Rewrite replaces its clock and random-number
// calls by the values of the tx's deterministic environment.
package pggate
