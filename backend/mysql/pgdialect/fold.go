package pgdialect

import (
	"math/big"
	"strconv"
)

// PostgreSQL evaluates constant subexpressions at planning
// (eval_const_expressions): a strict operator or function with a NULL
// constant argument is NULL without evaluating the others, and constant
// integer arithmetic is computed, its errors (22003, 22012) raised even
// when no row would reach it (a CASE arm whose condition is a constant
// false is not folded). MariaDB evaluates what rows reach: the
// translation folds alike.

// intConst is an integer constant of type typ.
func intConst(n int64, typ Type) val {
	v := typed(strconv.FormatInt(n, 10), typ)
	v.ival = &n
	return v
}

// isNullConst: v is a NULL constant, untyped or typed.
func isNullConst(v val) bool { return v.null || v.nullConst }

// nullOf is the NULL constant of type typ.
func nullOf(typ Type) val {
	return val{sql: "NULL", typ: typ, scale: scaleOf(typ), nullConst: true}
}

// anyNull reports a NULL constant among vs.
func anyNull(vs ...val) bool {
	for _, v := range vs {
		if isNullConst(v) {
			return true
		}
	}
	return false
}

// foldInt computes l op r over integer constants of result type typ as
// PostgreSQL's planner does (ok false: not both constants, or folding is
// off in a CASE arm PostgreSQL drops).
func (t *translator) foldInt(op string, l, r val, typ Type) (val, bool, error) {
	if l.ival == nil || r.ival == nil || t.noFold > 0 {
		return val{}, false, nil
	}
	a, b := big.NewInt(*l.ival), big.NewInt(*r.ival)
	var z big.Int
	switch op {
	case "+":
		z.Add(a, b)
	case "-":
		z.Sub(a, b)
	case "*":
		z.Mul(a, b)
	case "/", "%":
		if b.Sign() == 0 {
			return t.planError(pgError("22012", "division by zero"), typ), true, nil
		}
		if op == "/" {
			z.Quo(a, b)
		} else {
			z.Rem(a, b)
		}
	default:
		return val{}, false, nil
	}
	lo, hi := intRange(typ.Name)
	if !z.IsInt64() || z.Int64() < lo || z.Int64() > hi {
		return t.planError(pgError("22003", "%s out of range", map[string]string{"int2": "smallint", "int4": "integer", "int8": "bigint"}[typ.Name]), typ), true, nil
	}
	return intConst(z.Int64(), typ), true, nil
}

// planError records an error PostgreSQL raises at planning, after every
// error of parse analysis (which the walk returns at once): Translate
// reports it when the walk ends without one. The value stands for the
// failed constant.
func (t *translator) planError(err error, typ Type) val {
	if t.deferred == nil {
		t.deferred = err
	}
	return intConst(0, typ)
}
