package pgdialect

import (
	"errors"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// PostgreSQL's planner folds the operands of AND, OR, CASE, COALESCE (and
// BETWEEN, an AND) in order and stops at a constant that decides the
// rest: an AND at a false operand, an OR at a true one, a CASE at a true
// condition (an arm under a false one is dropped), a COALESCE at a
// non-NULL constant. What comes after is never folded, so a constant
// there that fails to evaluate (1/0, CAST(1e10 AS int4)) raises no error.
// The translator follows that order for the constants it folds (noFold);
// foldWatch covers those it does not: an operand PostgreSQL may fold
// (no column, no subquery: an operator or function the translator leaves
// to run time, a parameter, which PostgreSQL's custom plan reads as a
// constant) decides whether what follows is folded, so a plan-time error
// deferred after it may or may not be PostgreSQL's answer, and the
// statement is refused rather than answered either way.
type foldWatch struct {
	t *translator
	// armed: an operand the translator left unfolded and PostgreSQL may
	// fold came before; clean: no plan-time error was deferred before it.
	armed, clean bool
	// stable, pgConsts: the translator's counts (volatility.go) when the
	// last operand was recorded.
	stable, pgConsts int
}

func (t *translator) newFoldWatch() foldWatch {
	return foldWatch{t: t, stable: t.stableLeft, pgConsts: t.pgConsts}
}

// operand records an operand n of the construct, translated; konst
// reports whether the translator folded it to a constant. An operand
// that holds a stable construct left to run time, under strict
// operators and functions only, and nothing PostgreSQL folds that the
// translator did not (no pgConst), is not folded by PostgreSQL either.
func (w *foldWatch) operand(n *pg_query.Node, konst bool) {
	stable := w.t.stableLeft != w.stable && w.t.pgConsts == w.pgConsts && strictTree(n)
	w.stable, w.pgConsts = w.t.stableLeft, w.t.pgConsts
	if !w.armed && !konst && !varying(n) && !stable {
		w.armed, w.clean = true, w.t.deferred == nil
	}
}

// strictTree reports whether n is built of constants, casts, operators
// (LIKE, IS [NOT] DISTINCT FROM), function calls and IS [NOT] NULL only:
// nodes PostgreSQL's planner folds only when every argument is a constant
// (no AND/OR, CASE, COALESCE, IN, BETWEEN, subscripts, which it
// simplifies around a constant operand).
func strictTree(n proto.Message) bool {
	switch x := n.(type) {
	case *pg_query.Node:
		if x.GetNode() == nil {
			return true
		}
	case *pg_query.A_Expr:
		switch x.GetKind() {
		case pg_query.A_Expr_Kind_AEXPR_OP, pg_query.A_Expr_Kind_AEXPR_LIKE, pg_query.A_Expr_Kind_AEXPR_ILIKE,
			pg_query.A_Expr_Kind_AEXPR_DISTINCT, pg_query.A_Expr_Kind_AEXPR_NOT_DISTINCT:
		default:
			return false
		}
	case *pg_query.A_Const, *pg_query.TypeCast, *pg_query.TypeName, *pg_query.FuncCall, *pg_query.NullTest,
		*pg_query.String, *pg_query.Integer, *pg_query.Float, *pg_query.Boolean:
	default:
		return false
	}
	return childrenAll(n, strictTree)
}

// check refuses the construct (what) when a plan-time error was deferred
// after an armed operand.
func (w *foldWatch) check(what string) error {
	if w.armed && w.clean && w.t.deferred != nil {
		msg := w.t.deferred.Error()
		var e *Error
		if errors.As(w.t.deferred, &e) {
			msg = e.Message
		}
		return refuse("%s with an operand PostgreSQL folds to a constant and this translator does not, before a constant that fails to evaluate (%s)", what, msg)
	}
	return nil
}

// varying reports whether the expression n refers to a column or holds a
// subquery: PostgreSQL's planner does not fold it to a constant.
func varying(n proto.Message) bool {
	switch n.(type) {
	case *pg_query.ColumnRef, *pg_query.SubLink:
		return true
	}
	return !childrenAll(n, func(c proto.Message) bool { return !varying(c) })
}

// isConstant reports whether a translated value is a constant PostgreSQL's
// planner sees as one: a folded constant, a literal, NULL.
func (v value) isConstant() bool {
	return v.isConst || v.lit != nil || v.num != "" || v.null
}

// volatileFuncs are functions whose value can change from row to row
// (PostgreSQL's volatile ones the translator knows of).
var volatileFuncs = map[string]bool{
	"random": true, "setseed": true, "nextval": true, "currval": true, "setval": true, "lastval": true,
	"clock_timestamp": true, "timeofday": true, "gen_random_uuid": true, "uuid_generate_v4": true,
}

// pseudoConstant reports whether n has the same value for every row of a
// query: no column, no subquery, no window function, no volatile
// function (nor one of relchain's, which the gate's rewrites call).
// Aggregates are the caller's to rule out (translator.sawAgg).
func pseudoConstant(n proto.Message) bool {
	switch x := n.(type) {
	case *pg_query.ColumnRef, *pg_query.SubLink:
		return false
	case *pg_query.FuncCall:
		names := x.GetFuncname()
		if x.GetOver() != nil || len(names) == 0 || len(names) > 1 && strNode(names[0]) == "relchain" ||
			volatileFuncs[strNode(names[len(names)-1])] {
			return false
		}
	}
	return childrenAll(n, pseudoConstant)
}

// childrenAll reports whether f holds for every message directly inside
// n (each element of a repeated field), stopping at the first that fails.
func childrenAll(n proto.Message, f func(proto.Message) bool) bool {
	ok := true
	n.ProtoReflect().Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.Message() == nil || fd.IsMap():
		case fd.IsList():
			for i := 0; i < v.List().Len() && ok; i++ {
				ok = f(v.List().Get(i).Message().Interface())
			}
		default:
			ok = f(v.Message().Interface())
		}
		return ok
	})
	return ok
}
