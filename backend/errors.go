package backend

import (
	"errors"
	"fmt"
)

// Class is a stable, backend-independent category of a statement failure.
// Classes are part of the deterministic tx result; the backend's own message
// is not (it may differ between versions and locales) and goes to the log.
type Class string

// Failure classes, modelled on SQLSTATE classes so that PostgreSQL maps
// directly and SQLite and MySQL map their own codes onto them.
const (
	ClassSyntax         Class = "syntax"          // 42601: cannot be parsed
	ClassInvalid        Class = "invalid"         // not exactly one statement, empty, bad arguments
	ClassUndefined      Class = "undefined"       // 42P01, 42703, 42883: missing table, column, function
	ClassDuplicate      Class = "duplicate"       // 42P07...: object already exists
	ClassConstraint     Class = "constraint"      // 23xxx: unique, foreign key, check, not null
	ClassData           Class = "data"            // 22xxx: overflow, division by zero, bad cast
	ClassPermission     Class = "permission"      // 42501, read-only violations
	ClassResource       Class = "resource"        // 53xxx, 54xxx: too big, too complex
	ClassNotImplemented Class = "not_implemented" // 0A000
	ClassOther          Class = "other"           // anything else the backend reported
)

// Error is a statement failure reported by a backend. Class and SQLState are
// deterministic; Message is the backend's text and is not.
type Error struct {
	Class    Class
	SQLState string // five-character SQLSTATE (PostgreSQL's own, or mapped)
	Message  string
}

func (e *Error) Error() string {
	if e.SQLState != "" {
		return fmt.Sprintf("%s (%s): %s", e.Class, e.SQLState, e.Message)
	}
	return fmt.Sprintf("%s: %s", e.Class, e.Message)
}

// AsError returns the *Error in err's chain, or nil.
func AsError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return nil
}

// ClassOfSQLState maps a SQLSTATE to a Class.
func ClassOfSQLState(state string) Class {
	switch {
	case state == "42601":
		return ClassSyntax
	case state == "42P01", state == "42703", state == "42883", state == "42704", state == "3F000", state == "42P02":
		return ClassUndefined
	case state == "42P07", state == "42701", state == "42710", state == "42723", state == "42P06":
		return ClassDuplicate
	case state == "42501", state == "25006":
		return ClassPermission
	case state == "0A000":
		return ClassNotImplemented
	case len(state) >= 2 && state[:2] == "23":
		return ClassConstraint
	case len(state) >= 2 && state[:2] == "22":
		return ClassData
	case len(state) >= 2 && (state[:2] == "53" || state[:2] == "54"):
		return ClassResource
	case len(state) >= 2 && state[:2] == "42":
		return ClassInvalid
	}
	return ClassOther
}
