package pgdialect

import (
	"math/big"
	"slices"
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

// foldCompare computes a comparison of integer or numeric constants as PostgreSQL's
// planner does (ok false: not both constants).
func (t *translator) foldCompare(op string, l, r val) (val, bool) {
	x, y := ratOf(l), ratOf(r)
	if x == nil || y == nil || t.noFold > 0 {
		return val{}, false
	}
	c := x.Cmp(y)
	res, ok := map[string]bool{"=": c == 0, "<>": c != 0, "!=": c != 0, "<": c < 0, ">": c > 0, "<=": c <= 0, ">=": c >= 0}[op]
	if !ok {
		return val{}, false
	}
	if res {
		return typed("TRUE", tBool), true
	}
	return typed("FALSE", tBool), true
}

// unfoldedNumeric: n is an operator, cast or function over constants one
// of which is numeric (or float8), which PostgreSQL's planner evaluates
// (eval_const_expressions: its errors raised even when no row reaches
// it, its value a constant the rest folds over) and the translation, v,
// does not hold evaluated (an integer, NULL or boolean constant). Columns
// and parameters are not constants; a CASE arm PostgreSQL drops is not
// evaluated.
func (t *translator) unfoldedNumeric(n *pg_query.Node, v val) bool {
	if t.noFold > 0 || v.ival != nil || v.nval != nil || isNullConst(v) || v.untyped() || v.sql == "TRUE" || v.sql == "FALSE" {
		return false
	}
	var operands []*pg_query.Node
	switch x := n.GetNode().(type) {
	case *pg_query.Node_AExpr:
		operands = []*pg_query.Node{x.AExpr.GetLexpr(), x.AExpr.GetRexpr()}
	case *pg_query.Node_TypeCast:
		operands = []*pg_query.Node{x.TypeCast.GetArg()}
	case *pg_query.Node_FuncCall:
		operands = x.FuncCall.GetArgs()
	default:
		return false
	}
	return constNode(n) && slices.ContainsFunc(operands, numericNode)
}

// numericNode: n (nil allowed) has a numeric or float8 value in it: a
// literal with a fraction or an exponent, or a cast to numeric or float8.
func numericNode(n *pg_query.Node) bool {
	switch x := n.GetNode().(type) {
	case *pg_query.Node_AConst:
		f := x.AConst.GetFval()
		if f == nil {
			return false
		}
		_, err := strconv.ParseInt(f.GetFval(), 10, 64)
		return !intRE.MatchString(f.GetFval()) || err != nil
	case *pg_query.Node_TypeCast:
		to, err := typeOf(x.TypeCast.GetTypeName())
		return err == nil && (to.Name == "numeric" || to.Name == "float8") || numericNode(x.TypeCast.GetArg())
	case *pg_query.Node_AExpr:
		return numericNode(x.AExpr.GetLexpr()) || numericNode(x.AExpr.GetRexpr())
	case *pg_query.Node_List:
		return slices.ContainsFunc(x.List.GetItems(), numericNode)
	case *pg_query.Node_FuncCall:
		return slices.ContainsFunc(x.FuncCall.GetArgs(), numericNode)
	case *pg_query.Node_CoalesceExpr:
		return slices.ContainsFunc(x.CoalesceExpr.GetArgs(), numericNode)
	case *pg_query.Node_CaseExpr:
		c := x.CaseExpr
		found := numericNode(c.GetArg()) || numericNode(c.GetDefresult())
		for _, w := range c.GetArgs() {
			found = found || numericNode(w.GetCaseWhen().GetResult())
		}
		return found
	}
	return false
}

// ratOf is an integer or numeric constant's exact value (nil: not one).
func ratOf(v val) *big.Rat {
	switch {
	case v.ival != nil && intRank(v.typ) > 0:
		return new(big.Rat).SetInt64(*v.ival)
	case v.nval != nil && v.typ.Name == "numeric":
		return v.nval
	}
	return nil
}

// roundRat rounds x to s digits after the point, half away from zero
// (PostgreSQL's numeric rounding, MariaDB's DECIMAL's too).
func roundRat(x *big.Rat, s int) *big.Rat {
	pow := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(s)), nil)
	num := new(big.Int).Mul(new(big.Int).Abs(x.Num()), pow)
	q, rem := new(big.Int).QuoRem(num, x.Denom(), new(big.Int))
	if rem.Lsh(rem, 1).Cmp(x.Denom()) >= 0 {
		q.Add(q, big.NewInt(1))
	}
	if x.Sign() < 0 {
		q.Neg(q)
	}
	return new(big.Rat).SetFrac(q, pow)
}

// intDigits is the number of digits before the point of x.
func intDigits(x *big.Rat) int {
	n := new(big.Int).Quo(new(big.Int).Abs(x.Num()), x.Denom())
	if n.Sign() == 0 {
		return 0
	}
	return len(n.String())
}

// foldIntCast is the cast of a rounded numeric constant x to the
// integer type to, as PostgreSQL's planner computes it.
func (t *translator) foldIntCast(x *big.Rat, to Type) val {
	n := x.Num()
	lo, hi := intRange(to.Name)
	if !n.IsInt64() || n.Int64() < lo || n.Int64() > hi {
		return t.planError(pgError("22003", "%s out of range", map[string]string{"int2": "smallint", "int4": "integer", "int8": "bigint"}[to.Name]), to)
	}
	return intConst(n.Int64(), to)
}

// foldNumericCast gives out, the cast of v to numeric[(p, s)], v's value
// rounded as PostgreSQL's planner computes it (numeric field overflow
// raised at planning).
func (t *translator) foldNumericCast(v, out val) val {
	x := ratOf(v)
	if x == nil {
		return out
	}
	if p, s, ok := numericPS(out.typ); ok {
		x = roundRat(x, int(s))
		if intDigits(x) > int(p-s) {
			if t.noFold > 0 {
				return out
			}
			return t.planError(pgError("22003", "numeric field overflow"), out.typ)
		}
		out.sql = "CAST(" + x.FloatString(int(s)) + " AS " + castSQL(out.typ) + ")"
	}
	out.nval = x
	return out
}

// foldNumeric gives out, numeric l op r (+ - *), the value PostgreSQL's
// planner computes when both are constants.
func foldNumeric(op string, l, r, out val) (val, error) {
	a, b := ratOf(l), ratOf(r)
	if a == nil || b == nil {
		return out, nil
	}
	z := new(big.Rat)
	switch op {
	case "+":
		z.Add(a, b)
	case "-":
		z.Sub(a, b)
	case "*":
		z.Mul(a, b)
	default:
		return out, nil
	}
	if intDigits(z)+max(out.scale, 0) > 65 {
		return val{}, refuse("numeric values of more than 65 digits or 30 after the point")
	}
	out.nval = z
	return out, nil
}

// divScale is the scale of PostgreSQL's quotient x / d (select_div_scale:
// 16 significant digits at least, and the dividend's display scale
// xscale), d a power of ten up to 10000.
func divScale(x *big.Rat, xscale int, d int64) int {
	w1, f1 := nbaseLead(x)
	w2, f2 := nbaseLead(new(big.Rat).SetInt64(d))
	qweight := w1 - w2
	if f1 <= f2 {
		qweight--
	}
	return max(16-qweight*4, xscale, 0)
}

// nbaseLead is the weight and value of x's first nonzero base-10000
// digit, as PostgreSQL's numeric stores it (0, 0 for zero).
func nbaseLead(x *big.Rat) (weight int, digit int64) {
	a := new(big.Rat).Abs(x)
	if a.Sign() == 0 {
		return 0, 0
	}
	base := big.NewRat(10000, 1)
	for a.Cmp(base) >= 0 {
		a.Quo(a, base)
		weight++
	}
	for a.Cmp(big.NewRat(1, 1)) < 0 {
		a.Mul(a, base)
		weight--
	}
	n := new(big.Int).Quo(a.Num(), a.Denom())
	return weight, n.Int64()
}
