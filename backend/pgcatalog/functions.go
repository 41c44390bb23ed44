package pgcatalog

import (
	"fmt"

	sqlite3 "github.com/ncruces/go-sqlite3"
)

// goFunc is a catalog function over its arguments: its result is nil,
// bool, int64, float64 or string.
type goFunc func(args []sqlite3.Value) (any, error)

// scalar is one scalar function's registration: nArg -1 takes any count.
type scalar struct {
	name string
	nArg int
	fn   goFunc
}

// builtinNames are Functions that SQLite itself provides with
// PostgreSQL's meaning for catalog queries; they are not registered.
var builtinNames = map[string]bool{"lower": true, "upper": true, "length": true, "replace": true,
	"ltrim": true, "rtrim": true, "concat": true, "concat_ws": true, "coalesce": true, "nullif": true,
	"count": true, "max": true, "min": true, "sum": true, "abs": true, "row_number": true}

// registerFunctions registers every Function SQLite lacks on db, as
// closures over m.
func registerFunctions(db *sqlite3.Conn, m *model) error {
	var all []scalar
	for _, group := range [][]scalar{describeFuncs(m), sessionFuncs(m), textFuncs(), arrayFuncs(), regFuncs(m)} {
		all = append(all, group...)
	}
	for _, f := range all {
		if err := db.CreateFunction(f.name, f.nArg, sqlite3.DETERMINISTIC, adapt(f.fn)); err != nil {
			return fmt.Errorf("register %s: %w", f.name, err)
		}
	}
	return registerAggregates(db)
}

// adapt turns a goFunc into SQLite's scalar function.
func adapt(f goFunc) sqlite3.ScalarFunction {
	return func(ctx sqlite3.Context, args ...sqlite3.Value) {
		v, err := f(args)
		if err != nil {
			ctx.ResultError(err)
			return
		}
		setResult(ctx, v)
	}
}

// setResult sets a Go value as a function's result.
func setResult(ctx sqlite3.Context, v any) {
	switch x := v.(type) {
	case nil:
		ctx.ResultNull()
	case bool:
		ctx.ResultBool(x)
	case int:
		ctx.ResultInt64(int64(x))
	case int64:
		ctx.ResultInt64(x)
	case float64:
		ctx.ResultFloat(x)
	case string:
		ctx.ResultText(x)
	default:
		ctx.ResultError(fmt.Errorf("pgcatalog: result of type %T", v))
	}
}

// strict makes f return NULL when any argument is NULL.
func strict(f goFunc) goFunc {
	return func(args []sqlite3.Value) (any, error) {
		for _, a := range args {
			if a.Type() == sqlite3.NULL {
				return nil, nil
			}
		}
		return f(args)
	}
}

// constant is a function of no interest in its arguments.
func constant(v any) goFunc {
	return func([]sqlite3.Value) (any, error) { return v, nil }
}

// value is an SQLite value as Go's nil, int64, float64 or string.
func value(v sqlite3.Value) any {
	switch v.Type() {
	case sqlite3.INTEGER:
		return v.Int64()
	case sqlite3.FLOAT:
		return v.Float()
	case sqlite3.NULL:
		return nil
	}
	return v.Text()
}

// arg returns args[i], or a NULL-typed zero Value when absent.
func argInt(args []sqlite3.Value, i int, def int64) int64 {
	if i >= len(args) || args[i].Type() == sqlite3.NULL {
		return def
	}
	return args[i].Int64()
}
