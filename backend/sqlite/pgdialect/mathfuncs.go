package pgdialect

import (
	"fmt"
	"math"
)

// modFunc is mod(a, b) on integers and numeric: the % operator.
func modFunc(t *translator, args []value) (value, error) {
	if len(args) != 2 {
		return value{}, refuse("mod with %d arguments", len(args))
	}
	v, err := t.arithmetic("%", args[0], args[1])
	if err == nil && !isInt(v.typ) && v.typ.Name != "numeric" {
		return value{}, refuse("mod of %s", label(v.typ))
	}
	return v, err
}

// floatFunc is ceil, floor, round(x[, n]) and trunc(x[, n]): on
// numeric and integers (which PostgreSQL converts to numeric) the
// numeric functions; on float8 and untyped values pg_float_fn, round
// halving to even as rint (trunc of a float and round(float, n) are
// refused or 42883).
func floatFunc(name string) func(t *translator, args []value) (value, error) {
	return func(t *translator, args []value) (value, error) {
		if len(args) < 1 || len(args) > 2 || len(args) == 2 && name != "round" && name != "trunc" {
			return value{}, refuse("%s with %d arguments", name, len(args))
		}
		a := args[0]
		// One argument: an integer is float8, PostgreSQL's preferred
		// numeric type; round(x, n) and trunc(x, n) exist for numeric only.
		if a.typ.Name == "numeric" || len(args) == 2 && (isInt(a.typ) || a.untyped()) {
			if a.untyped() {
				var err error
				if a, err = t.retype(a, tNumeric); err != nil {
					return value{}, err
				}
			}
			n, err := t.numericArg(name, a)
			if err != nil {
				return value{}, err
			}
			var places *value
			if len(args) == 2 {
				places = &args[1]
			}
			return t.numericFn(name, n, places)
		}
		if len(args) == 2 {
			return value{}, pgError("42883", "function %s(%s, %s) does not exist", name, label(a.typ), label(args[1].typ))
		}
		if name == "trunc" {
			return value{}, refuse("trunc of %s", label(a.typ))
		}
		if !isNum(a.typ) && !a.untyped() {
			return value{}, pgError("42883", "function %s(%s) does not exist", name, label(a.typ))
		}
		// An untyped argument is float8 (the preferred type of the
		// candidates): round('x') is float8's 22P02.
		c, err := t.coerceValue(a, tFloat8, ctxImplicit)
		if err != nil {
			return value{}, err
		}
		if v, ok := foldFloatFn(name, c); ok {
			return v, nil
		}
		return value{sql: fmt.Sprintf("pg_float_fn('%s', %s)", name, c.sql), typ: tFloat8}, nil
	}
}

// foldFloatFn is ceil, floor or round of a float8 constant, which
// PostgreSQL's planner folds (UPDATE … SET real_col =
// round(CAST('1e300' AS float8)) WHERE false is 22003 while planning;
// random seed 3000; 1e-5 / floor(CAST('0.1' AS float8)) is 22012 while
// planning, random seed 62 case 923; 1 / ceil(CAST('-0.5' AS float8))
// is 22012 while planning too: -0 and the infinities fold, rendered as
// SQLite reads them back, (-0.0) and 9e999).
func foldFloatFn(name string, c value) (value, bool) {
	f, ok := c.konst.(float64)
	if !c.isConst || !ok {
		return value{}, false
	}
	switch name {
	case "ceil":
		f = math.Ceil(f)
	case "floor":
		f = math.Floor(f)
	case "round":
		f = math.RoundToEven(f)
	default:
		return value{}, false
	}
	if math.IsNaN(f) {
		return value{}, false
	}
	return constOf(f, tFloat8, name), true
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
		if err != nil && args[1].untyped() {
			return value{}, err // the literal read as integer: 22P02, 22003
		}
		if err != nil || !(isInt(args[1].typ) && intBits(args[1].typ) <= 32 || args[1].untyped()) {
			return value{}, pgError("42883", "function %s(text, %s) does not exist", name, label(args[1].typ))
		}
		if v, ok := t.foldLeftRight(name, args); ok {
			return v, nil
		}
		return value{sql: fmt.Sprintf("pg_left_right(%s, %s, %d)", s[0], n, map[string]int{"left": 0, "right": 1}[name]), typ: tText}, nil
	}
}
