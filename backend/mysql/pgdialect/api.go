package pgdialect

import "fmt"

// Version is the translation rules this package implements. 2: an ORDER
// BY inside count, sum, min and max (pggate's rewrite adds one to sum) is
// accepted and dropped (the aggregates are insensitive to input order).
// 3: every operand of a comparison, IN, BETWEEN, || and the bitwise
// operators is computed where PostgreSQL computes it (a failing one fails
// on both), and an outer join's inner columns are nullable (ORDER BY
// places their NULLs as PostgreSQL does).
const Version = 3

// Type is a PostgreSQL type as the dialect knows it: its pg_type.typname
// ("int4", "int8", "numeric", "text", "varchar", "bool", "float8", "bytea",
// "date", "timestamp", "timestamptz"; "unknown" for an untyped literal or
// NULL) and its type modifier as PostgreSQL reports it (-1 when none;
// varchar(n) is n+4; numeric(p,s) is (p<<16 | s)+4).
type Type struct {
	Name   string
	Typmod int32
}

// Column is one column of a table as the Catalog knows it.
type Column struct {
	Name    string
	Type    Type
	NotNull bool
	// Default: the column has a DEFAULT (an INSERT that leaves it out
	// stores that; one without gets an explicit NULL, so a NOT NULL
	// column fails with class 23 as on PostgreSQL).
	Default bool
	// MaxChars bounds a text column's values in characters (0: by its
	// type alone: varchar(n) n, text unbounded). A text in a PRIMARY
	// KEY is VARCHAR(768) on MariaDB; SchemaCatalog reads the bound.
	MaxChars int
}

// Catalog is the schema a translation reads: the declared PostgreSQL types
// of a table's columns (CREATE TABLE keeps each in the column's COMMENT;
// SchemaCatalog reads them back).
type Catalog interface {
	// Columns returns the columns of table (folded as PostgreSQL folds
	// unquoted names) in their order, and false when there is no such
	// table.
	Columns(table string) ([]Column, bool)
}

// ResultColumn is one column a statement returns.
type ResultColumn struct {
	Name string
	Type Type
}

// Translation is the MariaDB form of one PostgreSQL statement.
type Translation struct {
	// Statements are run in order on one connection, inside the
	// statement's savepoint; the last one's rows (and, when it returns
	// no rows, its rows affected) are the statement's result.
	Statements []string
	// Params is the PostgreSQL type of each placeholder $1..$n.
	Params []Type
	// Args gives, for each statement, the placeholder index (0-based:
	// $1 is 0) of each of its '?' in text order: a $n used twice binds
	// twice. The caller binds args[Args[s][k]] to the k-th '?' of
	// Statements[s].
	Args [][]int
	// Columns are the result columns of the last statement (SELECT,
	// RETURNING); nil when it returns no rows. The caller renders a
	// value by its PostgreSQL type (MariaDB returns bool as 0/1).
	Columns []ResultColumn
	// DDL reports that the statement changes the schema.
	DDL bool
	// Ordered: the statement is a top-level SELECT with ORDER BY.
	Ordered bool
	// CheckWarnings: the caller must fail the statement when MariaDB
	// leaves a warning (SHOW WARNINGS, level Warning or Error; Notes are
	// kept): 1365 is PostgreSQL's 22012, 1264, 1690 and 1916 its 22003, 1292
	// and 1366 its 22P02.
	CheckWarnings bool
	// schema is what a DDL statement does to the Catalog (Schema.Apply).
	schema schemaChange
}

// Error is a translation's refusal or a PostgreSQL error it reproduces at
// translation time: Code is the SQLSTATE PostgreSQL would report (0A000
// for a construct the dialect does not support, naming it).
type Error struct {
	Code    string
	Message string
}

func (e *Error) Error() string { return fmt.Sprintf("%s (SQLSTATE %s)", e.Message, e.Code) }

// WarningCode maps a MariaDB warning code left by a statement whose
// Translation has CheckWarnings to the SQLSTATE PostgreSQL reports for
// the same condition ("" for a warning the dialect does not expect,
// which the caller still fails, as XX000).
func WarningCode(code int) string {
	switch code {
	case 1365:
		return "22012"
	case 1264, 1690, 1916:
		return "22003"
	case 1292, 1366:
		return "22P02"
	}
	return ""
}

// Refusals lists the constructs the dialect refuses (0A000), for the
// documentation.
func Refusals() []string {
	return []string{
		"statements other than SELECT, INSERT, UPDATE, DELETE, CREATE TABLE, CREATE INDEX and DROP TABLE",
		"types other than int2, int4, int8, numeric(p, s), float8, text, varchar(n), bool, bytea, date, timestamp and timestamptz (char(n), bare numeric columns, serial, arrays, json, interval ...)",
		"table names with upper-case letters (MariaDB keeps them in lower case); columns of one table whose names differ only in case",
		"a PRIMARY KEY over text, bytea or varchar without a length, or of more than 3072 bytes (varchar(n) takes 4n): InnoDB's keys are bounded, PostgreSQL's are not",
		"ON CONFLICT, WITH (CTEs), window functions, set operations (UNION ...), DISTINCT ON, LATERAL, USING joins, subqueries other than scalar, EXISTS and IN (subquery)",
		"UPDATE ... RETURNING whose SET changes a column its WHERE reads, UPDATE ... FROM, DELETE ... USING",
		"UPDATE whose SET expression reads a column an earlier SET item assigns (MariaDB assigns left to right)",
		"functions other than count, sum, min, max, left, length/char_length, lower, upper, rtrim (one argument), substr, abs, and generate_series (integer constants, in FROM); substr with a negative constant length over a value that is not a constant",
		"numeric division unless by a power of ten up to 10000 cast at once to numeric(p, s); CASE/COALESCE/IN mixing numeric values of different display scales, or date, timestamp and timestamptz values",
		"casts from text other than of a literal; casts of float8 or timestamps to text; casts to varchar(n); ORDER BY text not bounded to 1024 characters, ORDER BY bytea",
		"parameters of type numeric, float8, date, timestamp, timestamptz; LIKE with a pattern other than a string literal or ending with the escape character; ILIKE",
		"float8 multiplication, division, negation and the input -0 (MariaDB never returns a negative zero); date/time arithmetic; arithmetic between an untyped literal and a non-number",
		"LIMIT/OFFSET other than constants without ORDER BY, or in a subquery referring to an enclosing query's columns",
		"GROUP BY with a column shown outside aggregates that is not itself grouped (PostgreSQL's functional dependency on a key)",
		"index and constraint names with upper-case letters (MariaDB's index names ignore case); a CREATE TABLE whose PRIMARY KEY's or UNIQUE constraint's default index name (t_pkey, t_a_key) another relation holds (PostgreSQL would choose t_pkey1: name the constraint); CREATE TABLE or CREATE INDEX IF NOT EXISTS over a name another kind of relation holds",
	}
}
