package pgruntime

import (
	"fmt"

	sqlite3 "github.com/ncruces/go-sqlite3"
)

// pure is the flags of every runtime function: a function of its
// arguments only, harmless in a schema (DEFAULT, index, view).
const pure = sqlite3.DETERMINISTIC | sqlite3.INNOCUOUS

// functions are the runtime functions by name and argument count.
var functions = []struct {
	name string
	args int
	fn   sqlite3.ScalarFunction
}{
	{"pg_int_add", 3, intOp('+')},
	{"pg_int_sub", 3, intOp('-')},
	{"pg_int_mul", 3, intOp('*')},
	{"pg_int_div", 3, intOp('/')},
	{"pg_int_mod", 3, intOp('%')},
	{"pg_int_abs", 2, intAbs},
	{"pg_float_add", 3, floatOp('+')},
	{"pg_float_sub", 3, floatOp('-')},
	{"pg_float_mul", 3, floatOp('*')},
	{"pg_float_div", 3, floatOp('/')},
	{"pg_cast", 4, convert(false)},
	{"pg_assign", 4, convert(true)},
	{"pg_like", 3, like},
	{"pg_lower", 1, asciiCase(false)},
	{"pg_upper", 1, asciiCase(true)},
	{"pg_substr", 4, substr},
	{"pg_limit", 2, limit},
	{"pg_series_step", 1, seriesStep},
	{"pg_date_add", 2, dateAdd},
	{"pg_date_diff", 2, dateDiff},
	{"pg_seq_next", 5, seqNext},
	{"pg_date_trunc", 3, dateTrunc},
	{"pg_float_fn", 2, floatFn},
	{"pg_left_right", 3, leftRight},
	{"pg_num_op", 3, numOp},
	{"pg_num_fn", 3, numFn},
	{"pg_raise", 3, raise},
}

// Register installs the runtime functions translations call on c. Call
// it once per connection, before any translated statement runs there.
func Register(c *sqlite3.Conn) error {
	for _, f := range functions {
		if err := c.CreateFunction(f.name, f.args, pure, guarded(f.name, f.fn)); err != nil {
			return fmt.Errorf("register %s: %w", f.name, err)
		}
	}
	if err := registerAggregates(c); err != nil {
		return fmt.Errorf("register pg_single: %w", err)
	}
	if err := registerNumericAggregates(c); err != nil {
		return fmt.Errorf("register pg_num_sum, pg_num_avg: %w", err)
	}
	if err := registerArrays(c); err != nil {
		return fmt.Errorf("register the array functions: %w", err)
	}
	if err := registerJSON(c); err != nil {
		return fmt.Errorf("register the json functions: %w", err)
	}
	return nil
}

// guarded is fn failing with XX000 instead of panicking: the arguments
// are any client's values, and a panic would take the node down. (The
// same arguments panic alike on every node: the error is deterministic.)
func guarded(name string, fn sqlite3.ScalarFunction) sqlite3.ScalarFunction {
	return func(ctx sqlite3.Context, args ...sqlite3.Value) {
		defer func() {
			if r := recover(); r != nil {
				ctx.ResultError(runtimeError("XX000", "internal error in %s: %v", name, r))
			}
		}()
		fn(ctx, args...)
	}
}

// goValue is an SQLite value as Go's nil, int64, float64, string or
// []byte.
func goValue(v sqlite3.Value) any {
	switch v.Type() {
	case sqlite3.INTEGER:
		return v.Int64()
	case sqlite3.FLOAT:
		return v.Float()
	case sqlite3.TEXT:
		return v.Text()
	case sqlite3.BLOB:
		return v.Blob(nil)
	}
	return nil
}

// result sets a Go value (nil, int64, float64, string, []byte) as the
// function's result.
func result(ctx sqlite3.Context, v any, err error) {
	if err != nil {
		ctx.ResultError(fromConv(err))
		return
	}
	switch x := v.(type) {
	case nil:
		ctx.ResultNull()
	case int64:
		ctx.ResultInt64(x)
	case float64:
		ctx.ResultFloat(x)
	case string:
		ctx.ResultText(x)
	case []byte:
		ctx.ResultBlob(x)
	default:
		ctx.ResultError(fmt.Errorf("pgruntime: result of type %T", v))
	}
}

func anyNull(args []sqlite3.Value) bool {
	for _, a := range args {
		if a.Type() == sqlite3.NULL {
			return true
		}
	}
	return false
}
