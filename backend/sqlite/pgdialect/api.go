package pgdialect

import "fmt"

// Version is the translation rules this binary implements. A network's
// genesis records the version it runs (app.Params.SQLDialectVersion).
const Version = 1

// Type is a PostgreSQL type as the postgres dialect knows it: its
// pg_type.typname ("int4", "int8", "text", "varchar", "bool", "float8",
// "bytea", "timestamptz", "date" ...; "unknown" for an untyped literal or
// NULL; arrays are named as pg_type names them, "_int4") and its type
// modifier as PostgreSQL reports it (-1 when none; varchar(n) is n+4).
type Type struct {
	Name   string
	Typmod int32
}

// Column is one column of a table as the Catalog knows it.
type Column struct {
	Name    string
	Type    Type
	NotNull bool
}

// Catalog is the schema a translation reads: the declared PostgreSQL types
// of a table's columns. Implementations read SQLite's schema (the declared
// types CREATE TABLE kept) on the connection that will run the statement,
// so a table created earlier in the same block is seen.
type Catalog interface {
	// Columns returns the columns of table (as the statement names it,
	// folded as PostgreSQL folds unquoted names) in their order, and
	// false when there is no such table.
	Columns(table string) ([]Column, bool)
}

// ResultColumn is one column a statement returns.
type ResultColumn struct {
	Name string
	Type Type
}

// Translation is the SQLite form of one PostgreSQL statement.
type Translation struct {
	// Statements are run in order on one connection, inside the
	// statement's savepoint; the last one's rows and rows affected are
	// the statement's result (DROP TABLE a, b is two statements).
	Statements []string
	// Params is the PostgreSQL type of each placeholder $1..$n.
	Params []Type
	// Columns are the result columns of the last statement (SELECT,
	// RETURNING); nil when it returns no rows.
	Columns []ResultColumn
	// DDL reports that the statement changes the schema.
	DDL bool
	// Ordered: the statement is a top-level SELECT with ORDER BY (a
	// LIMIT the gate ordered by key counts), so its rows come in the
	// statement's order; any other result's order is the engine's
	// (backend.Rows.Unordered), as PostgreSQL storage judges it.
	Ordered bool
}

// Error is a translation's refusal or a PostgreSQL error it reproduces at
// translation time: Code is the SQLSTATE PostgreSQL would report
// (0A000 for a construct the dialect does not support, naming it), Message
// the text.
type Error struct {
	Code    string
	Message string
}

func (e *Error) Error() string { return fmt.Sprintf("%s (SQLSTATE %s)", e.Message, e.Code) }
