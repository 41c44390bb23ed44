package difftest

import (
	"errors"
	"strings"

	sqlite3 "github.com/ncruces/go-sqlite3"

	"github.com/relchain/relchain/backend/sqlite/pgdialect"
)

// liteSQLState is the SQLSTATE of an error of the SQLite side: a
// translation's *pgdialect.Error carries its own; SQLite's constraint
// errors map to PostgreSQL's integrity classes; anything else is
// "SQLITE", which no PostgreSQL error matches, so a SQLite error that
// PostgreSQL does not raise is reported.
func liteSQLState(err error) string {
	var pe *pgdialect.Error
	if errors.As(err, &pe) {
		return pe.Code
	}
	if code := runtimeSQLState(err); code != "" {
		return code
	}
	var se *sqlite3.Error
	if !errors.As(err, &se) {
		return "SQLITE"
	}
	switch se.ExtendedCode() {
	case sqlite3.CONSTRAINT_UNIQUE, sqlite3.CONSTRAINT_PRIMARYKEY:
		return "23505"
	case sqlite3.CONSTRAINT_NOTNULL:
		return "23502"
	case sqlite3.CONSTRAINT_CHECK:
		return "23514"
	case sqlite3.CONSTRAINT_FOREIGNKEY:
		return "23503"
	}
	if se.Code() == sqlite3.CONSTRAINT && strings.Contains(se.Error(), "FOREIGN KEY constraint failed") {
		return "23503" // an ON DELETE RESTRICT action (backend/sqlite restrictError)
	}
	return "SQLITE"
}
