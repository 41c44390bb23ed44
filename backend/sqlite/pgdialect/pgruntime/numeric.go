package pgruntime

import (
	sqlite3 "github.com/ncruces/go-sqlite3"

	"github.com/relchain/relchain/backend/sqlite/pgdialect/internal/pgconv"
)

// numericArg reads a numeric argument: the stored form
// (pgconv.EncodeNumeric) or an integer.
func numericArg(v sqlite3.Value) (pgconv.Numeric, error) {
	switch v.Type() {
	case sqlite3.INTEGER:
		return pgconv.NumericFromInt(v.Int64()), nil
	case sqlite3.TEXT:
		n, err := pgconv.DecodeNumeric(v.Text())
		if err != nil {
			return pgconv.Numeric{}, runtimeError("XX000", "%s", err.Error())
		}
		return n, nil
	}
	return pgconv.Numeric{}, runtimeError("XX000", "a numeric operator on a value of storage class %v", v.Type())
}

// numOp is pg_num_op(op, a, b): PostgreSQL's numeric operator op
// (+ - * / %).
func numOp(ctx sqlite3.Context, args ...sqlite3.Value) {
	if anyNull(args) {
		ctx.ResultNull()
		return
	}
	a, err := numericArg(args[1])
	var b pgconv.Numeric
	if err == nil {
		b, err = numericArg(args[2])
	}
	if err == nil {
		a, err = pgconv.NumericOp(args[0].RawText()[0], a, b)
	}
	numResult(ctx, a, err)
}

// numFn is pg_num_fn(name, x, places): neg, abs, round, trunc, ceil,
// floor of a numeric.
func numFn(ctx sqlite3.Context, args ...sqlite3.Value) {
	if anyNull(args) {
		ctx.ResultNull()
		return
	}
	x, err := numericArg(args[1])
	if err == nil {
		x, err = pgconv.NumericFn(args[0].Text(), x, args[2].Int64())
	}
	numResult(ctx, x, err)
}

func numResult(ctx sqlite3.Context, n pgconv.Numeric, err error) {
	if err != nil {
		ctx.ResultError(fromConv(err))
		return
	}
	ctx.ResultText(pgconv.EncodeNumeric(n))
}

// numAgg is the aggregates pg_num_sum(x) and pg_num_avg(x) over integers
// or numerics: exact sums, NULL for no non-NULL input; avg is the sum
// divided by the count with numeric division's scale, as PostgreSQL's
// numeric_avg and int8_avg. As window functions they have an inverse step
// (a frame whose start moves): the sum's display scale is then the largest
// of the values in the frame, as PostgreSQL's moving numeric aggregates
// keep it (they restart when the last value of that scale leaves).
type numAgg struct {
	avg    bool
	n      int64
	sum    pgconv.Numeric
	scales map[int32]int64 // the values in the frame by display scale
	err    error
}

func (a *numAgg) Step(ctx sqlite3.Context, arg ...sqlite3.Value) { a.add(arg[0], '+') }

// Inverse removes the oldest value of the frame.
func (a *numAgg) Inverse(ctx sqlite3.Context, arg ...sqlite3.Value) { a.add(arg[0], '-') }

func (a *numAgg) add(v sqlite3.Value, op byte) {
	if v.Type() == sqlite3.NULL || a.err != nil {
		return
	}
	x, err := numericArg(v)
	if err != nil {
		a.err = err
		return
	}
	if a.scales == nil {
		a.scales = map[int32]int64{}
	}
	step := int64(1)
	if op == '-' {
		step = -1
	}
	a.scales[x.Scale] += step
	a.n += step
	a.sum, a.err = pgconv.NumericOp(op, a.sum, x)
}

func (a *numAgg) Value(ctx sqlite3.Context) {
	scale := int32(0)
	for s, k := range a.scales {
		if k > 0 {
			scale = max(scale, s) // a maximum: the map's order does not matter
		}
	}
	a.sum.Scale = scale // exact: no value in the frame has more digits
	switch {
	case a.err != nil:
		ctx.ResultError(fromConv(a.err))
	case a.n == 0:
		ctx.ResultNull()
	case a.avg:
		r, err := pgconv.NumericOp('/', a.sum, pgconv.NumericFromInt(a.n))
		numResult(ctx, r, err)
	default:
		numResult(ctx, a.sum, nil)
	}
}

func registerNumericAggregates(c *sqlite3.Conn) error {
	if err := c.CreateWindowFunction("pg_num_sum", 1, pure, func() sqlite3.AggregateFunction { return &numAgg{} }); err != nil {
		return err
	}
	return c.CreateWindowFunction("pg_num_avg", 1, pure, func() sqlite3.AggregateFunction { return &numAgg{avg: true} })
}
