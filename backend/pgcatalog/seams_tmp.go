package pgcatalog

import (
	"context"
	"errors"

	sqlite3 "github.com/ncruces/go-sqlite3"
)

// Skeleton seams: rewrite.go (rewrite, run, Wants) replaces these.

func rewrite(string) (*rewritten, error) { return nil, &Error{Code: "0A000", Message: "not built yet"} }

func run(context.Context, *sqlite3.Conn, *rewritten, []any) (*Result, error) {
	return nil, errors.New("not built yet")
}

// Wants reports whether sql is a catalog query this package answers: one
// SELECT that names at least one catalog relation (Relations) or calls a
// catalog function (Functions but the generic ones), and names no other
// relation and no other function than Functions.
func Wants(string) bool { return false }
