package pgdialect

import (
	"strconv"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/relchain/relchain/backend/sqlite/pgdialect/internal/pgconv"
)

// expr translates an expression and infers its PostgreSQL type. A
// numeric or char(n) expression other than a column carries SQLite's
// RTRIM collation, as those columns do (Collation), so that every
// comparison, sort, grouping and DISTINCT SQLite makes of it ignores
// trailing spaces: char(n)'s padding, numeric's display scale. Any other
// expression whose SQL may carry a collation from inside carries BINARY
// (withCollation).
func (t *translator) expr(n *pg_query.Node, sc *scope) (value, error) {
	before := t.stableLeft
	v, err := t.exprNode(n, sc)
	if err == nil && !v.pgConst {
		// any node PostgreSQL's planner folds and the translator does
		// not (a CASE or COALESCE over such a value) is marked, so a
		// cast or assignment of it is refused (volatility.go)
		v = t.markUnfolded(n, v, before)
	}
	if err == nil && (n.GetColumnRef() == nil || v.typ.Name != "numeric" && v.typ.Name != "bpchar") {
		v.sql = withCollation(v) // a column's own SQL has no COLLATE: a merged USING column's may
	}
	return v, err
}

// withRtrim is v's SQLite text under COLLATE RTRIM when v is a non-NULL
// numeric or char(n) value.
func withRtrim(v value) string {
	if (v.typ.Name != "numeric" && v.typ.Name != "bpchar") || isNullConst(v) || strings.HasSuffix(v.sql, " COLLATE RTRIM)") {
		return v.sql
	}
	return "(" + v.sql + " COLLATE RTRIM)"
}

// withCollation is v's SQLite text under the collation of its PostgreSQL
// type: RTRIM for numeric and char(n) (withRtrim), BINARY (collation C)
// for every other type when the text may carry another one. SQLite gives
// a CASE, a function call or an operator the collation of the first
// operand that has an explicit COLLATE, however deep (a CASE's WHEN
// condition, any argument of NULLIF, COALESCE or substr), and a CAST the
// collation of the column it casts; so `CASE WHEN n = 1.5 THEN s END`, a
// varchar, would order, compare, group and DISTINCT under the numeric
// comparison's RTRIM ('a' = 'a '). An outer COLLATE wins over inner ones.
func withCollation(v value) string {
	if v.typ.Name == "numeric" || v.typ.Name == "bpchar" {
		return withRtrim(v)
	}
	if !collates(v.typ) || isNullConst(v) || v.lit != nil || v.param != 0 || collatedAs(v.sql, "BINARY") ||
		(!strings.Contains(v.sql, "COLLATE") && !strings.Contains(v.sql, "CAST(")) {
		return v.sql
	}
	return "(" + v.sql + " COLLATE BINARY)"
}

// collates reports whether SQLite compares values of type t by a
// collation: they are stored as TEXT (integers, floats, bool and bytea
// are not).
func collates(t Type) bool {
	switch t.Name {
	case "int2", "int4", "int8", "float4", "float8", "bool", "bytea":
		return false
	}
	return true
}

// collatedAs reports whether sql is `(… COLLATE coll)` as a whole: its
// first parenthesis closes at its end (quotes skipped).
func collatedAs(sql, coll string) bool {
	if !strings.HasPrefix(sql, "(") || !strings.HasSuffix(sql, " COLLATE "+coll+")") {
		return false
	}
	depth := 0
	var quote byte
	for i := 0; i < len(sql); i++ {
		c := sql[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0 // a doubled quote reopens at once: same result
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '(':
			depth++
		case c == ')':
			depth--
			if depth == 0 {
				return i == len(sql)-1
			}
		}
	}
	return false
}

func (t *translator) exprNode(n *pg_query.Node, sc *scope) (value, error) {
	switch e := n.GetNode().(type) {
	case *pg_query.Node_ColumnRef:
		return t.column(e.ColumnRef, sc)
	case *pg_query.Node_AConst:
		return constant(e.AConst)
	case *pg_query.Node_ParamRef:
		return t.paramRef(e.ParamRef)
	case *pg_query.Node_TypeCast:
		return t.typeCast(e.TypeCast, sc)
	case *pg_query.Node_AExpr:
		return t.aExpr(e.AExpr, sc)
	case *pg_query.Node_BoolExpr:
		return t.boolExpr(e.BoolExpr, sc)
	case *pg_query.Node_NullTest:
		return t.nullTest(e.NullTest, sc)
	case *pg_query.Node_BooleanTest:
		return t.booleanTest(e.BooleanTest, sc)
	case *pg_query.Node_FuncCall:
		return t.funcCall(e.FuncCall, sc)
	case *pg_query.Node_CaseExpr:
		return t.caseExpr(e.CaseExpr, sc)
	case *pg_query.Node_CoalesceExpr:
		return t.coalesce(e.CoalesceExpr, sc)
	case *pg_query.Node_MinMaxExpr:
		return t.minMax(e.MinMaxExpr, sc)
	case *pg_query.Node_SubLink:
		return t.subLink(e.SubLink, sc)
	case *pg_query.Node_AArrayExpr:
		return t.arrayExpr(e.AArrayExpr, sc)
	case *pg_query.Node_AIndirection:
		return t.indirection(e.AIndirection, sc)
	}
	return value{}, refuse("the expression %s", nodeName(n))
}

// constant translates a literal: integers are int4 or int8 as PostgreSQL
// types them, strings stay untyped until their context types them.
func constant(c *pg_query.A_Const) (value, error) {
	if c.GetIsnull() {
		return value{sql: "NULL", typ: tUnknown, name: "?column?", null: true}, nil
	}
	switch v := c.GetVal().(type) {
	case *pg_query.A_Const_Ival:
		return constOf(int64(v.Ival.GetIval()), tInt4, "?column?"), nil
	case *pg_query.A_Const_Fval:
		s := v.Fval.GetFval()
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			typ := tInt8
			if int64(int32(i)) == i {
				typ = tInt4
			}
			return constOf(i, typ, "?column?"), nil
		}
		n, err := pgconv.ParseNumeric(s)
		if err != nil {
			return value{}, convError(err)
		}
		out := constOf(pgconv.EncodeNumeric(n), tNumeric, "?column?")
		out.num = s
		return out, nil
	case *pg_query.A_Const_Sval:
		s := v.Sval.GetSval()
		return value{sql: quoteString(s), typ: tUnknown, lit: &s, name: "?column?"}, nil
	case *pg_query.A_Const_Boolval:
		b := int64(0)
		if v.Boolval.GetBoolval() {
			b = 1
		}
		return constOf(b, tBool, "?column?"), nil
	}
	return value{}, refuse("bit-string literals")
}

func (t *translator) paramRef(p *pg_query.ParamRef) (value, error) {
	if t.inDDL {
		return value{}, pgError("42P02", "there is no parameter $%d", p.GetNumber())
	}
	if err := t.param(p.GetNumber(), tUnknown); err != nil {
		return value{}, err
	}
	v := value{sql: "?" + strconv.Itoa(int(p.GetNumber())), typ: tUnknown, param: p.GetNumber(), name: "?column?"}
	if known := t.params[p.GetNumber()-1]; known.Name != "" {
		v.typ, v.param = known, 0
	}
	return v, nil
}

// typeCast translates x::type and CAST(x AS type).
func (t *translator) typeCast(c *pg_query.TypeCast, sc *scope) (value, error) {
	if v, ok, err := emptyArrayCast(c); ok {
		return v, err
	}
	to, err := typeFromName(c.GetTypeName())
	if err != nil {
		return value{}, err
	}
	v, err := t.expr(c.GetArg(), sc)
	if err != nil {
		return value{}, err
	}
	out, err := t.coerceValue(v, to, ctxExplicit)
	if err != nil {
		return value{}, err
	}
	out.name, out.weak = v.name, false
	if v.name == "?column?" || v.weak || v.lit != nil || v.null {
		out.name, out.weak = castName(to), true
	}
	return out, nil
}

// castName is the column name PostgreSQL gives a cast of a constant: the
// type's name as its grammar knows it.
func castName(t Type) string {
	if isArray(t) {
		t = elemOf(t) // text[] is named text
	}
	switch t.Name {
	case "varchar":
		return "varchar"
	case "bool":
		return "bool"
	case "timestamptz":
		return "timestamptz"
	}
	return t.Name
}

// boolExpr translates AND, OR and NOT; operands must be boolean.
func (t *translator) boolExpr(b *pg_query.BoolExpr, sc *scope) (value, error) {
	qual := t.inQual && b.GetBoolop() != pg_query.BoolExprType_NOT_EXPR
	cond := t.inCond && b.GetBoolop() != pg_query.BoolExprType_NOT_EXPR
	t.inQual, t.inCond = false, false
	var parts []string
	absorbing := map[pg_query.BoolExprType]string{pg_query.BoolExprType_AND_EXPR: "0", pg_query.BoolExprType_OR_EXPR: "1"}[b.GetBoolop()]
	saved := t.noFold
	defer func() { t.noFold = saved }()
	w := t.newFoldWatch()
	for _, a := range b.GetArgs() {
		t.inQual, t.inCond = qual && qualNode(a), cond && condNode(a)
		s, err := t.condition(a, sc, "AND/OR/NOT")
		if err != nil {
			return value{}, err
		}
		parts = append(parts, s)
		// PostgreSQL folds an AND's operands up to its first false one
		// (an OR's up to its first true one): the rest is not folded.
		if s == absorbing {
			t.noFold++
		}
		_, _, konst := boolConst(s)
		w.operand(a, konst)
	}
	t.noFold = saved
	if qual {
		nullIsFalse(parts)
	}
	switch b.GetBoolop() {
	case pg_query.BoolExprType_AND_EXPR, pg_query.BoolExprType_OR_EXPR:
		if err := w.check("AND/OR"); err != nil {
			return value{}, err
		}
		and := b.GetBoolop() == pg_query.BoolExprType_AND_EXPR
		if cond {
			v, _ := foldBool(and, parts)
			return v, nil
		}
		return foldBoolValue(and, parts)
	}
	if v, null, ok := boolConst(parts[0]); ok {
		if null {
			return constOf(nil, tBool, "?column?"), nil
		}
		return constOf(1-v, tBool, "?column?"), nil
	}
	return value{sql: "(NOT " + parts[0] + ")", typ: tBool, name: "?column?"}, nil
}

// condition translates an expression that must be boolean (WHERE, ON,
// HAVING, AND's operands), as PostgreSQL requires (42804).
func (t *translator) condition(n *pg_query.Node, sc *scope, where string) (string, error) {
	switch where {
	case "WHERE", "JOIN/ON", "HAVING":
		t.inQual, t.inCond = qualNode(n), condNode(n)
	case "CHECK", "CASE/WHEN", "FILTER":
		// SQLite evaluates these as jumps too (sqlite3ExprIfTrue/False).
		t.inCond = condNode(n)
	}
	v, err := t.expr(n, sc)
	t.inQual, t.inCond = false, false
	if err != nil {
		return "", err
	}
	if v.untyped() {
		return t.coerce(v, tBool, ctxImplicit)
	}
	if v.typ.Name != "bool" {
		return "", pgError("42804", "argument of %s must be type boolean, not type %s", where, label(v.typ))
	}
	return v.sql, nil
}

// qualNode reports whether n continues a condition's AND/OR tree, which
// PostgreSQL's planner reads as a qual (canonicalize_qual's
// find_duplicate_ors): there a NULL constant is false, so an AND with one
// is false and an OR drops it, and nothing else in that AND runs
// (WHERE (a / 0 > 1) AND NULL returns no row and no 22012). An IN list
// is one too: x NOT IN (NULL, y) is the AND of x <> NULL and x <> y.
func qualNode(n *pg_query.Node) bool {
	if b := n.GetBoolExpr(); b != nil {
		return b.GetBoolop() != pg_query.BoolExprType_NOT_EXPR
	}
	a := n.GetAExpr()
	return a != nil && a.GetKind() == pg_query.A_Expr_Kind_AEXPR_IN
}

// condNode reports whether n is an AND, OR or BETWEEN, whose translation
// depends on whether it is evaluated as a condition (translator.inCond).
func condNode(n *pg_query.Node) bool {
	if b := n.GetBoolExpr(); b != nil {
		return b.GetBoolop() != pg_query.BoolExprType_NOT_EXPR
	}
	a := n.GetAExpr()
	return a != nil && (a.GetKind() == pg_query.A_Expr_Kind_AEXPR_BETWEEN || a.GetKind() == pg_query.A_Expr_Kind_AEXPR_NOT_BETWEEN)
}

// nullIsFalse makes the NULL constants among a qual's AND/OR operands
// false (qualNode).
func nullIsFalse(parts []string) {
	for i, p := range parts {
		if _, null, ok := boolConst(p); ok && null {
			parts[i] = "0"
		}
	}
}

func (t *translator) nullTest(n *pg_query.NullTest, sc *scope) (value, error) {
	v, err := t.expr(n.GetArg(), sc)
	if err != nil {
		return value{}, err
	}
	return t.nullTestOf(v, n), nil
}

// nullTestOf is v IS [NOT] NULL (n's test), folded when v is a
// constant, as PostgreSQL's planner folds it.
func (t *translator) nullTestOf(v value, n *pg_query.NullTest) value {
	isNull := n.GetNulltesttype() == pg_query.NullTestType_IS_NULL
	switch {
	case v.null || v.isConst && v.konst == nil:
		return constOf(map[bool]int64{true: 1, false: 0}[isNull], tBool, "?column?")
	case v.isConstant():
		return constOf(map[bool]int64{true: 0, false: 1}[isNull], tBool, "?column?")
	}
	op := " IS NULL)"
	if !isNull {
		op = " IS NOT NULL)"
	}
	return value{sql: "(" + v.sql + op, typ: tBool, name: "?column?"}
}

var booleanTests = map[pg_query.BoolTestType]string{
	pg_query.BoolTestType_IS_TRUE: " IS TRUE)", pg_query.BoolTestType_IS_NOT_TRUE: " IS NOT TRUE)",
	pg_query.BoolTestType_IS_FALSE: " IS FALSE)", pg_query.BoolTestType_IS_NOT_FALSE: " IS NOT FALSE)",
	pg_query.BoolTestType_IS_UNKNOWN: " IS NULL)", pg_query.BoolTestType_IS_NOT_UNKNOWN: " IS NOT NULL)",
}

func (t *translator) booleanTest(b *pg_query.BooleanTest, sc *scope) (value, error) {
	s, err := t.condition(b.GetArg(), sc, "IS TRUE")
	if err != nil {
		return value{}, err
	}
	return value{sql: "(" + s + booleanTests[b.GetBooltesttype()], typ: tBool, name: "?column?"}, nil
}

func join(parts []string, sep string) string {
	out := ""
	for i, p := range parts {
		if i > 0 {
			out += sep
		}
		out += p
	}
	return out
}
