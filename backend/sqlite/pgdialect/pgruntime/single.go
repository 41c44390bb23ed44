package pgruntime

import (
	sqlite3 "github.com/ncruces/go-sqlite3"
)

// single is the aggregate pg_single(x): the one value of a scalar
// subquery, NULL for no row, PostgreSQL's error 21000 for more than one
// (SQLite would return the first row).
type single struct {
	rows int
	v    any
}

func newSingle() sqlite3.AggregateFunction { return &single{} }

func (s *single) Step(ctx sqlite3.Context, arg ...sqlite3.Value) {
	s.rows++
	if s.rows == 1 {
		s.v = goValue(arg[0])
	}
}

func (s *single) Value(ctx sqlite3.Context) {
	if s.rows > 1 {
		ctx.ResultError(runtimeError("21000", "more than one row returned by a subquery used as an expression"))
		return
	}
	result(ctx, s.v, nil)
}

// registerAggregates installs the runtime's aggregates.
func registerAggregates(c *sqlite3.Conn) error {
	return c.CreateWindowFunction("pg_single", 1, pure, newSingle)
}
