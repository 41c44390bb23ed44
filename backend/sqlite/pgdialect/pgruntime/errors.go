package pgruntime

import (
	"errors"
	"fmt"
	"regexp"

	"github.com/relchain/relchain/backend/sqlite/pgdialect/internal/pgconv"
)

// The message convention of the runtime's errors: a function of the
// runtime that fails sets SQLite's error message to
//
//	pg:<SQLSTATE>: <PostgreSQL's message>
//
// ("pg:22003: integer out of range"). SQLite reports it as the
// statement's error (ncruces prefixes "sqlite3: SQL logic error: "), and
// SQLState finds the code anywhere in the error's text.
const errorPrefix = "pg:"

// sqlStateMessage matches the convention in an error's text.
var sqlStateMessage = regexp.MustCompile(`pg:([0-9A-Z]{5}): `)

// SQLState returns the SQLSTATE a runtime function raised in err (from
// its text, wrapped or not) and true, or false when err carries none.
func SQLState(err error) (code string, ok bool) {
	if err == nil {
		return "", false
	}
	m := sqlStateMessage.FindStringSubmatch(err.Error())
	if m == nil {
		return "", false
	}
	return m[1], true
}

// Message returns the PostgreSQL message of a runtime error (the text
// after "pg:<SQLSTATE>: "), or err's text.
func Message(err error) string {
	s := err.Error()
	if loc := sqlStateMessage.FindStringIndex(s); loc != nil {
		return s[loc[1]:]
	}
	return s
}

// runtimeError is an error in the message convention.
func runtimeError(code, format string, args ...any) error {
	return fmt.Errorf("%s%s: %s", errorPrefix, code, fmt.Sprintf(format, args...))
}

// fromConv puts a conversion's error in the message convention.
func fromConv(err error) error {
	var ce *pgconv.Error
	if errors.As(err, &ce) {
		return runtimeError(ce.Code, "%s", ce.Message)
	}
	return err
}
