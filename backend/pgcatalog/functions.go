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

// registerFunctions registers every Function SQLite lacks on db, as
// closures over m.
func registerFunctions(db *sqlite3.Conn, m *model) error {
	var all []scalar
	for _, group := range [][]scalar{describeFuncs(m), sessionFuncs(m), textFuncs(), arrayFuncs(), regFuncs(m)} {
		all = append(all, group...)
	}
	for _, f := range all {
		if err := db.CreateFunction(f.name, f.nArg, sqlite3.DETERMINISTIC, adapt(f.name, f.fn)); err != nil {
			return fmt.Errorf("register %s: %w", f.name, err)
		}
	}
	return registerAggregates(db)
}

// variadicArity is the argument counts PostgreSQL's overloads of a
// function registered with any count (nArg -1) take: [min, max].
var variadicArity = map[string][2]int{
	"array_to_string": {2, 3}, "btrim": {1, 2}, "current_setting": {1, 2}, "greatest": {1, 100}, "least": {1, 100},
	"obj_description": {1, 2}, "pg_get_constraintdef": {1, 2}, "pg_get_expr": {2, 3}, "pg_get_functiondef": {1, 1},
	"pg_get_indexdef": {1, 3}, "pg_get_partkeydef": {1, 1}, "pg_get_ruledef": {1, 2},
	"pg_get_statisticsobjdef_columns": {1, 1}, "pg_get_triggerdef": {1, 2}, "pg_get_viewdef": {1, 2},
	"pg_has_role": {2, 3}, "regexp_replace": {3, 4}, "string_to_array": {2, 3}, "substr": {2, 3}, "substring": {2, 3},
}

// adapt turns a goFunc into SQLite's scalar function: a call with an
// argument count no overload of PostgreSQL's takes is 42883, as there;
// a failure inside f is an error of the query, never a crash of the node.
func adapt(name string, f goFunc) sqlite3.ScalarFunction {
	arity, variadic := variadicArity[name]
	return func(ctx sqlite3.Context, args ...sqlite3.Value) {
		if variadic && (len(args) < arity[0] || len(args) > arity[1]) {
			ctx.ResultError(pgError("42883", "function %s with %d arguments does not exist", name, len(args)))
			return
		}
		defer func() {
			if r := recover(); r != nil {
				ctx.ResultError(pgError("XX000", "the emulated catalog's function %s failed on its arguments", name))
			}
		}()
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
