package pgruntime

import (
	sqlite3 "github.com/ncruces/go-sqlite3"
)

// raise is pg_raise(code, message, x): it fails with PostgreSQL's
// SQLSTATE code and message whatever x is. A translation's checks call it
// for each offending row (ALTER TABLE's checks of existing rows); x is a
// value of the row, so that SQLite cannot evaluate the call once as a
// constant before it has read a row.
func raise(ctx sqlite3.Context, args ...sqlite3.Value) {
	ctx.ResultError(runtimeError(args[0].Text(), "%s", args[1].Text()))
}
