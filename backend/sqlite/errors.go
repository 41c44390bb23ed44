package sqlite

import (
	"errors"
	"strings"

	sqlite3 "github.com/ncruces/go-sqlite3"

	"github.com/relchain/relchain/backend"
)

// classify turns a SQLite error into a *backend.Error when it is a failure
// of the statement (deterministic on every node running the same SQLite),
// or returns it unchanged when it is an infrastructure failure (I/O, disk
// full, corruption, out of memory, interrupt): those must stop the node,
// never become a tx result.
//
// The driver reports an error whose message is SQLite's standard text for
// its code as a bare (Extended)ErrorCode rather than a *sqlite3.Error: both
// are classified alike.
func classify(err error) error {
	code, ext, ok := sqliteCodes(err)
	if !ok {
		return err
	}
	msg := err.Error()
	mk := func(c backend.Class, state string) error {
		return &backend.Error{Class: c, SQLState: state, Message: msg}
	}
	switch ext {
	case sqlite3.CONSTRAINT_PRIMARYKEY, sqlite3.CONSTRAINT_UNIQUE, sqlite3.CONSTRAINT_ROWID:
		return mk(backend.ClassConstraint, "23505")
	case sqlite3.CONSTRAINT_NOTNULL:
		return mk(backend.ClassConstraint, "23502")
	case sqlite3.CONSTRAINT_FOREIGNKEY:
		return mk(backend.ClassConstraint, "23503")
	case sqlite3.CONSTRAINT_CHECK:
		return mk(backend.ClassConstraint, "23514")
	case sqlite3.CONSTRAINT_DATATYPE:
		return mk(backend.ClassData, "22000")
	}
	switch code {
	case sqlite3.CONSTRAINT:
		return mk(backend.ClassConstraint, "23000")
	case sqlite3.TOOBIG:
		return mk(backend.ClassResource, "54000")
	case sqlite3.MISMATCH:
		return mk(backend.ClassData, "22000")
	case sqlite3.RANGE:
		return mk(backend.ClassInvalid, "07001")
	case sqlite3.READONLY:
		return mk(backend.ClassPermission, "25006")
	case sqlite3.AUTH:
		return mk(backend.ClassPermission, "42501")
	case sqlite3.ERROR:
		return mk(classOfMessage(msg))
	}
	return err
}

// classOfMessage classifies SQLITE_ERROR by SQLite's own message, which is
// fixed text for a given SQLite version (and every node runs the version
// bundled in its binary).
func classOfMessage(msg string) (backend.Class, string) {
	switch {
	case strings.Contains(msg, gateMessage):
		// A rewritten function refused its arguments while running (a
		// 'localtime' modifier, say): the gate's refusal, found late.
		return backend.ClassPermission, "42501"
	case strings.Contains(msg, "syntax error"), strings.Contains(msg, "incomplete input"),
		strings.Contains(msg, "unrecognized token"):
		return backend.ClassSyntax, "42601"
	case strings.Contains(msg, "no such table"), strings.Contains(msg, "no such view"):
		return backend.ClassUndefined, "42P01"
	case strings.Contains(msg, "no such column"):
		return backend.ClassUndefined, "42703"
	case strings.Contains(msg, "no such function"), strings.Contains(msg, "wrong number of arguments to function"):
		return backend.ClassUndefined, "42883"
	case strings.Contains(msg, "no such index"), strings.Contains(msg, "no such trigger"):
		return backend.ClassUndefined, "42704"
	case strings.Contains(msg, "already exists"):
		return backend.ClassDuplicate, "42P07"
	case strings.Contains(msg, "integer overflow"):
		return backend.ClassData, "22003"
	case strings.Contains(msg, "not authorized"):
		return backend.ClassPermission, "42501"
	}
	return backend.ClassOther, "HY000"
}

// isSchemaError reports errors that depend on the schema rather than on the
// text: a statement failing this way at CheckTx may still succeed in a
// block after an earlier tx created what it needs.
func isSchemaError(err error) bool {
	e := backend.AsError(err)
	return e != nil && e.Class != backend.ClassSyntax && e.Class != backend.ClassInvalid
}

// sqliteCodes returns the SQLite result codes err carries, if any.
func sqliteCodes(err error) (sqlite3.ErrorCode, sqlite3.ExtendedErrorCode, bool) {
	var se *sqlite3.Error
	var xc sqlite3.ExtendedErrorCode
	var ec sqlite3.ErrorCode
	switch {
	case errors.As(err, &se):
		return se.Code(), se.ExtendedCode(), true
	case errors.As(err, &xc):
		return xc.Code(), xc, true
	case errors.As(err, &ec):
		return ec, ec.ExtendedCode(), true
	}
	return 0, 0, false
}
