package pgdialect

import (
	"math/big"
	"strconv"

	pg_query "github.com/pganalyze/pg_query_go/v6"
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

// scalarFuncs are the immutable functions the dialect takes: PostgreSQL's
// planner evaluates them over constants.
var scalarFuncs = map[string]bool{"abs": true, "left": true, "length": true, "char_length": true, "lower": true, "upper": true, "rtrim": true, "substr": true, "repeat": true}

// constNode: PostgreSQL's planner folds n to a constant (or fails
// folding it): no column, parameter, subquery or aggregate in it.
func constNode(n *pg_query.Node) bool { return freeNode(n, false) }

// varFree: n has no column (PostgreSQL's contain_vars_of_level(n, 0) is
// false), parameters allowed; a subquery counts as having columns.
func varFree(n *pg_query.Node) bool { return freeNode(n, true) }

// freeNode: n has no column, subquery or aggregate (no parameter unless
// params).
func freeNode(n *pg_query.Node, params bool) bool {
	constNodes := func(ns ...*pg_query.Node) bool { return freeNodes(params, ns...) }
	switch x := n.GetNode().(type) {
	case *pg_query.Node_AConst:
		return true
	case *pg_query.Node_ParamRef:
		return params
	case *pg_query.Node_TypeCast:
		return constNodes(x.TypeCast.GetArg())
	case *pg_query.Node_AExpr:
		return constNodes(x.AExpr.GetLexpr(), x.AExpr.GetRexpr())
	case *pg_query.Node_List:
		return constNodes(x.List.GetItems()...)
	case *pg_query.Node_FuncCall:
		name, err := funcName(x.FuncCall)
		return err == nil && scalarFuncs[name] && constNodes(x.FuncCall.GetArgs()...)
	case *pg_query.Node_CaseExpr:
		c := x.CaseExpr
		ok := constNodes(c.GetArg(), c.GetDefresult())
		for _, w := range c.GetArgs() {
			ok = ok && constNodes(w.GetCaseWhen().GetExpr(), w.GetCaseWhen().GetResult())
		}
		return ok
	case *pg_query.Node_CoalesceExpr:
		return constNodes(x.CoalesceExpr.GetArgs()...)
	case *pg_query.Node_BoolExpr:
		return constNodes(x.BoolExpr.GetArgs()...)
	case *pg_query.Node_NullTest:
		return constNodes(x.NullTest.GetArg())
	case *pg_query.Node_BooleanTest:
		return constNodes(x.BooleanTest.GetArg())
	}
	return false
}

// freeNodes: every non-nil node of ns is freeNode.
func freeNodes(params bool, ns ...*pg_query.Node) bool {
	for _, n := range ns {
		if n != nil && n.GetNode() != nil && !freeNode(n, params) {
			return false
		}
	}
	return true
}

// nonNullConst: n folds to a constant that is not NULL: non-NULL
// literals under casts, operators and the scalar functions, all strict
// and never NULL over non-NULL arguments (a folding error is raised
// either way).
func nonNullConst(n *pg_query.Node) bool {
	switch x := n.GetNode().(type) {
	case *pg_query.Node_AConst:
		return !x.AConst.GetIsnull()
	case *pg_query.Node_TypeCast:
		return nonNullConst(x.TypeCast.GetArg())
	case *pg_query.Node_AExpr:
		a := x.AExpr
		if a.GetKind() != pg_query.A_Expr_Kind_AEXPR_OP {
			return false
		}
		return (a.GetLexpr() == nil || nonNullConst(a.GetLexpr())) && nonNullConst(a.GetRexpr())
	case *pg_query.Node_FuncCall:
		name, err := funcName(x.FuncCall)
		if err != nil || !scalarFuncs[name] {
			return false
		}
		for _, a := range x.FuncCall.GetArgs() {
			if !nonNullConst(a) {
				return false
			}
		}
		return true
	}
	return false
}

// knownBool: PostgreSQL's planner folds a constant condition (n) to
// TRUE, FALSE or NULL and drops what it decides; the translation must
// know which (v.sql), else it refuses.
func knownBool(n *pg_query.Node, v val, what string) error {
	return knownCond(constNode(n), v, what)
}

// knownCond is knownBool of a condition that is constant or not.
func knownCond(isConst bool, v val, what string) error {
	if v.sql == "TRUE" || v.sql == "FALSE" || isNullConst(v) || !isConst {
		return nil
	}
	return refuse("%s over a constant condition the dialect does not evaluate (PostgreSQL's planner folds it)", what)
}

// foldCompare computes a comparison of integer constants as PostgreSQL's
// planner does (ok false: not both constants).
func (t *translator) foldCompare(op string, l, r val) (val, bool) {
	if l.ival == nil || r.ival == nil || t.noFold > 0 {
		return val{}, false
	}
	a, b := *l.ival, *r.ival
	res, ok := map[string]bool{"=": a == b, "<>": a != b, "!=": a != b, "<": a < b, ">": a > b, "<=": a <= b, ">=": a >= b}[op]
	if !ok {
		return val{}, false
	}
	if res {
		return typed("TRUE", tBool), true
	}
	return typed("FALSE", tBool), true
}
