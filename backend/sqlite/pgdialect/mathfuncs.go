package pgdialect

import (
	"fmt"
)

// modFunc is mod(a, b) on integers: the % operator.
func modFunc(t *translator, args []value) (value, error) {
	if len(args) != 2 {
		return value{}, refuse("mod with %d arguments", len(args))
	}
	v, err := t.arithmetic("%", args[0], args[1])
	if err == nil && !isInt(v.typ) {
		return value{}, refuse("mod of %s", label(v.typ))
	}
	return v, err
}

// floatFunc is ceil, floor and round(x) on float8 (integers and untyped
// values become float8, as PostgreSQL picks the float8 variant; numeric
// is not supported): pg_float_fn, round halving to even as rint.
func floatFunc(name string) func(t *translator, args []value) (value, error) {
	return func(t *translator, args []value) (value, error) {
		if len(args) != 1 {
			return value{}, refuse("%s with %d arguments", name, len(args))
		}
		a := args[0]
		if isInt(a.typ) {
			return value{}, refuse("%s of an integer (numeric in PostgreSQL)", name)
		}
		if a.num != "" {
			return value{}, refuse("numeric values (%s of %s)", name, a.num)
		}
		sql, err := t.coerce(a, tFloat8, ctxImplicit)
		if err != nil || !(isFloat(a.typ) || a.untyped()) {
			return value{}, pgError("42883", "function %s(%s) does not exist", name, label(a.typ))
		}
		return value{sql: fmt.Sprintf("pg_float_fn('%s', %s)", name, sql), typ: tFloat8}, nil
	}
}

// leftRight is left(s, n) and right(s, n): the first (last) n
// characters, all but the last (first) -n for a negative n.
func leftRight(name string) func(t *translator, args []value) (value, error) {
	return func(t *translator, args []value) (value, error) {
		if len(args) != 2 {
			return value{}, refuse("%s with %d arguments", name, len(args))
		}
		s, err := t.textArgs(name, args[:1])
		if err != nil {
			return value{}, err
		}
		n, err := t.coerce(args[1], tInt4, ctxImplicit)
		if err != nil || !(isInt(args[1].typ) && intBits(args[1].typ) <= 32 || args[1].untyped()) {
			return value{}, pgError("42883", "function %s(text, %s) does not exist", name, label(args[1].typ))
		}
		return value{sql: fmt.Sprintf("pg_left_right(%s, %s, %d)", s[0], n, map[string]int{"left": 0, "right": 1}[name]), typ: tText}, nil
	}
}
