// Package pgdialect translates PostgreSQL's SQL into SQLite's for a network
// whose SQL dialect is "postgres" on SQLite storage (genesis app_state
// sql_dialect; see app.Params). DESIGN.md here holds the type mapping, the
// semantics chosen and what is refused, and why.
//
// The translation is part of consensus: every validator must turn the same
// statement text, on the same schema, into the same SQLite statements with
// the same result types. Version numbers the rules; a network records the
// version it runs in its genesis, and a binary refuses to start on a
// version it does not implement. Any change to what Translate returns for
// an accepted statement, or to which statements it accepts, is a new
// version.
//
// Translate takes a statement PostgreSQL's gate (backend/postgres/pggate)
// has already accepted and rewritten (the tx's clock and random values in
// place), parses it with PostgreSQL's own parser (libpg_query), infers the
// PostgreSQL type of every expression from the declared types the Catalog
// holds, and either deparses SQLite text that gives PostgreSQL's result
// (rows, types, rows affected, error class) or refuses the statement with
// an *Error naming the construct (SQLSTATE 0A000). Never a silently
// different answer.
//
// Declared column types live in SQLite's own schema: a CREATE TABLE keeps
// each column's canonical PostgreSQL type name as SQLite's declared type
// (int4, varchar(20), timestamptz ...), chosen so SQLite's affinity rules
// give the right storage class, and the Catalog reads them back.
//
// Where SQLite's operators differ from PostgreSQL's (division by zero,
// integer overflow, LIKE's case, assignment casts), the SQLite text calls
// functions the runtime package (backend/sqlite/pgdialect/pgruntime)
// registers on every connection.
package pgdialect
