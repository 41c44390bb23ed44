package pgcatalog

import (
	"strconv"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// val is a rewritten expression: its SQLite text and PostgreSQL type.
// An untyped string literal keeps its text (lit) and a bare parameter
// its number (param), so that the context can type them (coerce).
type val struct {
	sql, typ string
	lit      *string
	param    int32
	fields   []col // a composite's fields (_pg_expandarray's x and n)
	mod      int32 // a column's type modifier (0 none)
	lb0      bool  // an array whose lower bound is 0 (a vector cast to an array)
	lbMixed  bool  // an array whose lower bound is 0 in some rows and 1 in others
}

// maxRewrite bounds the SQLite text of one expression or query: some
// rewritings repeat an operand (a NULL test and its use), so nesting them
// could grow the text exponentially within prescan's depth.
const maxRewrite = 8 << 20

// errTooComplex is the refusal of a text whose rewriting outgrows
// maxRewrite, as prescan's "statement too complex".
var errTooComplex = pgErr("54001", "statement too complex: its rewriting exceeds %d bytes", maxRewrite)

// expr rewrites an expression in scope sc.
func (r *rewriter) expr(n *pg_query.Node, sc *scope) (val, error) {
	v, err := r.exprNode(n, sc)
	if err == nil && len(v.sql) > maxRewrite {
		return val{}, errTooComplex
	}
	return v, err
}

func (r *rewriter) exprNode(n *pg_query.Node, sc *scope) (val, error) {
	switch x := n.GetNode().(type) {
	case *pg_query.Node_ColumnRef:
		return r.columnRef(x.ColumnRef, sc)
	case *pg_query.Node_AConst:
		return constLit(x.AConst)
	case *pg_query.Node_ParamRef:
		return r.paramRef(x.ParamRef.GetNumber())
	case *pg_query.Node_TypeCast:
		return r.typeCast(x.TypeCast, sc)
	case *pg_query.Node_AExpr:
		return r.aExpr(x.AExpr, sc)
	case *pg_query.Node_BoolExpr:
		return r.boolOp(x.BoolExpr, sc)
	case *pg_query.Node_NullTest:
		return r.nullTest(x.NullTest, sc)
	case *pg_query.Node_BooleanTest:
		return r.booleanTest(x.BooleanTest, sc)
	case *pg_query.Node_CaseExpr:
		return r.caseExpr(x.CaseExpr, sc)
	case *pg_query.Node_CoalesceExpr:
		return r.coalesce(x.CoalesceExpr.GetArgs(), sc)
	case *pg_query.Node_MinMaxExpr:
		return r.minMax(x.MinMaxExpr, sc)
	case *pg_query.Node_SubLink:
		return r.subLink(x.SubLink, sc)
	case *pg_query.Node_AArrayExpr:
		return r.arrayExpr(x.AArrayExpr.GetElements(), sc)
	case *pg_query.Node_AIndirection:
		return r.indirection(x.AIndirection, sc)
	case *pg_query.Node_CollateClause:
		// The catalog's text compares bytewise, as PostgreSQL's "C".
		return r.expr(x.CollateClause.GetArg(), sc)
	case *pg_query.Node_SqlvalueFunction:
		return r.sqlValueFunction(x.SqlvalueFunction)
	case *pg_query.Node_FuncCall:
		return r.funcCall(x.FuncCall, sc)
	}
	return val{}, refuse("the expression %s", nodeName(n))
}

func (r *rewriter) columnRef(c *pg_query.ColumnRef, sc *scope) (val, error) {
	var names []string
	for _, f := range c.GetFields() {
		if f.GetString_() == nil {
			return val{}, refuse("%s in this place", nodeName(f))
		}
		names = append(names, f.GetString_().GetSval())
	}
	if sc == nil {
		return val{}, pgErr("42703", "column %q does not exist", strings.Join(names, "."))
	}
	cl, err := sc.column(names)
	if err != nil {
		return val{}, err
	}
	return val{sql: cl.sql, typ: cl.typ, fields: cl.fields, mod: cl.mod, lb0: cl.lb0, lbMixed: cl.lbMixed}, nil
}

// constLit rewrites a literal: integers int4 (int8, numeric when larger),
// booleans 1/0, strings untyped.
func constLit(c *pg_query.A_Const) (val, error) {
	switch {
	case c.GetIsnull():
		return val{sql: "NULL", typ: unknownType}, nil
	case c.GetIval() != nil:
		return val{sql: strconv.FormatInt(int64(c.GetIval().GetIval()), 10), typ: "int4"}, nil
	case c.GetFval() != nil:
		f := c.GetFval().GetFval()
		if _, err := strconv.ParseInt(f, 10, 64); err == nil {
			return val{sql: f, typ: "int8"}, nil
		}
		if _, err := strconv.ParseFloat(f, 64); err != nil {
			return val{}, refuse("the numeric literal %s", f)
		}
		return val{sql: f, typ: "numeric"}, nil
	case c.GetBoolval() != nil:
		if c.GetBoolval().GetBoolval() {
			return val{sql: "1", typ: "bool"}, nil
		}
		return val{sql: "0", typ: "bool"}, nil
	case c.GetSval() != nil:
		s := c.GetSval().GetSval()
		return val{sql: quote(s), typ: unknownType, lit: &s}, nil
	}
	return val{}, refuse("bit-string literals")
}

func (r *rewriter) paramRef(n int32) (val, error) {
	if n < 1 || n > 65535 {
		return val{}, pgErr("42P02", "there is no parameter $%d", n)
	}
	if n > r.nparam {
		r.nparam = n
	}
	t := r.params[n]
	if t == "" {
		t = unknownType
	}
	return r.paramVal(n, t), nil
}

// paramVal is parameter n read as type t: run binds integers and arrays
// (JSON) converted from the client's text; a reg* parameter's text is a
// name, read by pgcat_<type>_in.
func (r *rewriter) paramVal(n int32, t string) val {
	sql := "?" + strconv.Itoa(int(n))
	if isReg(t) {
		sql = "pgcat_" + regTypes[t] + "_in(" + sql + ")"
	}
	return val{sql: sql, typ: t, param: n}
}

// coerce gives an untyped literal or parameter the type t, as
// PostgreSQL's resolution of unknown does; a typed value is unchanged.
func (r *rewriter) coerce(v val, t string) val {
	if v.typ != unknownType || t == unknownType || t == "" {
		return v
	}
	if v.param != 0 {
		if t == "varchar" {
			t = "text" // varchar compares with text's operators
		}
		r.params[v.param] = t
		return r.paramVal(v.param, t)
	}
	if v.lit == nil {
		return val{sql: v.sql, typ: t} // NULL
	}
	out, err := literalAs(*v.lit, t)
	if err != nil {
		// Left for the statement to fail as PostgreSQL would when it is
		// run: a literal that does not read as t.
		panic(err)
	}
	return out
}

// unify coerces two operands of a binary operator to each other's type.
func (r *rewriter) unify(l, rt val) (val, val) {
	switch {
	case l.typ == unknownType && rt.typ != unknownType:
		l = r.coerce(l, rt.typ)
	case rt.typ == unknownType && l.typ != unknownType:
		rt = r.coerce(rt, l.typ)
	case l.typ == unknownType && rt.typ == unknownType:
		l, rt = r.coerce(l, "text"), r.coerce(rt, "text")
	}
	return l, rt
}

// svfName is the name of an SQL value function (CURRENT_USER …).
func svfName(op pg_query.SQLValueFunctionOp) string {
	switch op {
	case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_USER:
		return "current_user"
	case pg_query.SQLValueFunctionOp_SVFOP_SESSION_USER:
		return "session_user"
	case pg_query.SQLValueFunctionOp_SVFOP_USER:
		return "user"
	case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_ROLE:
		return "current_role"
	case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_SCHEMA:
		return "current_schema"
	case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_CATALOG:
		return "current_catalog"
	}
	return ""
}

func (r *rewriter) sqlValueFunction(f *pg_query.SQLValueFunction) (val, error) {
	name := svfName(f.GetOp())
	switch name {
	case "":
		return val{}, refuse("CURRENT_DATE, CURRENT_TIME, CURRENT_TIMESTAMP, LOCALTIME and LOCALTIMESTAMP")
	case "current_catalog":
		return val{sql: "current_database()", typ: "name"}, nil
	}
	return val{sql: name + "()", typ: "name"}, nil
}
