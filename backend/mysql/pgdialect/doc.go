// Package pgdialect translates PostgreSQL's SQL into MariaDB's for a
// network over several database engines that speaks PostgreSQL's SQL
// everywhere. It is the foundation of that translation: a deliberately
// small subset (DESIGN.md here lists the type mapping, the semantics chosen
// and what is refused, and why). backend/mysql runs it under the option
// mysql.WithPostgresDialect.
//
// Translate takes a statement PostgreSQL's gate (backend/postgres/pggate)
// has already accepted and rewritten, parses it with PostgreSQL's own
// parser (libpg_query, through sqlcheck/pgparse), infers the PostgreSQL
// type of every expression from the declared types a Catalog holds, and
// either deparses MariaDB text that gives PostgreSQL's result (rows, types,
// rows affected, error class) or refuses the statement with an *Error
// naming the construct (SQLSTATE 0A000). Never a silently different answer.
//
// The translation is part of consensus: every validator must turn the same
// statement, on the same schema, into the same MariaDB statements. Version
// numbers the rules; any change to what Translate returns for an accepted
// statement, or to which statements it accepts, is a new version.
//
// The MariaDB text assumes the connection settings of backend/mysql
// (mysql.SQLMode, time_zone '+00:00', character set utf8mb4) plus what
// the caller must do: report rows matched, not changed (the driver's
// CLIENT_FOUND_ROWS, as PostgreSQL counts), set max_sort_length to 4096
// (MariaDB sorts strings by that many first bytes; ORDER BY takes text of
// at most 1024 characters), and fail a statement that leaves a warning
// when its Translation says so (CheckWarnings): MariaDB only warns where
// PostgreSQL fails (division by zero outside an INSERT's or UPDATE's
// values, an out-of-range cast in a SELECT).
package pgdialect
