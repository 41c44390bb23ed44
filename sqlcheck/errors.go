package sqlcheck

import "errors"

// ErrUnparseable is wrapped by a checker's error when the text is not one
// statement its dialect can parse, as opposed to a statement it refuses.
// The executor reports the former as a syntax error (code 6).
var ErrUnparseable = errors.New("cannot parse the statement")
