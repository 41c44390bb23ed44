package pgcatalog

import (
	"fmt"
	"regexp"
)

// The catalog functions' errors follow pgruntime's convention: the
// message SQLite reports is "pg:<SQLSTATE>: <PostgreSQL's message>".
var sqlStateMessage = regexp.MustCompile(`pg:([0-9A-Z]{5}): `)

// pgError is an error in that convention.
func pgError(code, format string, args ...any) error {
	return fmt.Errorf("pg:%s: %s", code, fmt.Sprintf(format, args...))
}

// sqlState returns the SQLSTATE and PostgreSQL message a catalog
// function raised in err (found anywhere in its text), and true; false
// when err carries none.
func sqlState(err error) (code, msg string, ok bool) {
	if err == nil {
		return "", "", false
	}
	s := err.Error()
	loc := sqlStateMessage.FindStringSubmatchIndex(s)
	if loc == nil {
		return "", "", false
	}
	return s[loc[2]:loc[3]], s[loc[1]:], true
}
