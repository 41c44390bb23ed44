package pgcatalog

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// opName is an operator's name without its pg_catalog qualifier
// (OPERATOR(pg_catalog.~)).
func opName(names []*pg_query.Node) (string, error) {
	switch len(names) {
	case 1:
		return names[0].GetString_().GetSval(), nil
	case 2:
		if names[0].GetString_().GetSval() == pgCatalog {
			return names[1].GetString_().GetSval(), nil
		}
	}
	return "", refuse("operators outside pg_catalog")
}

func (r *rewriter) aExpr(a *pg_query.A_Expr, sc *scope) (val, error) {
	switch a.GetKind() {
	case pg_query.A_Expr_Kind_AEXPR_OP:
		return r.operator(a, sc)
	case pg_query.A_Expr_Kind_AEXPR_OP_ANY, pg_query.A_Expr_Kind_AEXPR_OP_ALL:
		return r.anyAll(a, sc)
	case pg_query.A_Expr_Kind_AEXPR_DISTINCT, pg_query.A_Expr_Kind_AEXPR_NOT_DISTINCT:
		l, rt, err := r.operands(a, sc)
		if err != nil {
			return val{}, err
		}
		op := " IS NOT "
		if a.GetKind() == pg_query.A_Expr_Kind_AEXPR_NOT_DISTINCT {
			op = " IS "
		}
		return val{sql: "(" + l.sql + op + rt.sql + ")", typ: "bool"}, nil
	case pg_query.A_Expr_Kind_AEXPR_NULLIF:
		l, rt, err := r.operands(a, sc)
		if err != nil {
			return val{}, err
		}
		return val{sql: "nullif(" + l.sql + ", " + rt.sql + ")", typ: l.typ}, nil
	case pg_query.A_Expr_Kind_AEXPR_IN:
		return r.inList(a, sc)
	case pg_query.A_Expr_Kind_AEXPR_LIKE, pg_query.A_Expr_Kind_AEXPR_ILIKE:
		return r.like(a, sc)
	case pg_query.A_Expr_Kind_AEXPR_BETWEEN, pg_query.A_Expr_Kind_AEXPR_NOT_BETWEEN:
		return r.between(a, sc)
	}
	return val{}, refuse("the operator kind %s", a.GetKind())
}

// operands rewrites a binary operator's operands, typed by each other.
func (r *rewriter) operands(a *pg_query.A_Expr, sc *scope) (val, val, error) {
	l, err := r.expr(a.GetLexpr(), sc)
	if err != nil {
		return val{}, val{}, err
	}
	rt, err := r.expr(a.GetRexpr(), sc)
	if err != nil {
		return val{}, val{}, err
	}
	l, rt = r.unify(l, rt)
	return l, rt, nil
}

var comparisons = map[string]string{"=": "=", "<>": "<>", "!=": "<>", "<": "<", ">": ">", "<=": "<=", ">=": ">="}

func (r *rewriter) operator(a *pg_query.A_Expr, sc *scope) (val, error) {
	op, err := opName(a.GetName())
	if err != nil {
		return val{}, err
	}
	if a.GetLexpr() == nil {
		rt, err := r.expr(a.GetRexpr(), sc)
		if err != nil {
			return val{}, err
		}
		if op != "-" && op != "+" {
			return val{}, refuse("the prefix operator %s", op)
		}
		rt = r.coerce(rt, "int4")
		return val{sql: "(" + op + rt.sql + ")", typ: rt.typ}, nil
	}
	if a.GetLexpr().GetRowExpr() != nil || a.GetRexpr().GetRowExpr() != nil {
		return r.rowCompare(a.GetLexpr(), a.GetRexpr(), op, sc)
	}
	switch op {
	case "||":
		return r.concat(a, sc)
	case "~", "~*", "!~", "!~*", "~~", "!~~", "~~*", "!~~*":
		return r.patternOp(a, op, sc)
	}
	l, rt, err := r.operands(a, sc)
	if err != nil {
		return val{}, err
	}
	if isArray(l.typ) || isArray(rt.typ) || isVector(l.typ) || isVector(rt.typ) {
		return arrayCompare(l, rt, op)
	}
	if c, ok := comparisons[op]; ok {
		return val{sql: "(" + l.sql + " " + c + " " + rt.sql + ")", typ: "bool"}, nil
	}
	switch op {
	case "/", "%":
		if rt.sql == "0" {
			return val{}, pgErr("22012", "division by zero")
		}
		// The divisor appears once (nested divisions stay linear).
		div := "(SELECT CASE WHEN _d = 0 THEN " + raiseSQL("22012", "division by zero") + " ELSE _d END FROM (SELECT " +
			rt.sql + " AS _d))"
		return val{sql: "(" + l.sql + " " + op + " " + div + ")", typ: arithType(l.typ, rt.typ)}, nil
	case "+", "-", "*", "&", "|":
		return val{sql: "(" + l.sql + " " + op + " " + rt.sql + ")", typ: arithType(l.typ, rt.typ)}, nil
	}
	return val{}, refuse("the operator %s", op)
}

// patternOp is a regular expression match (~ ~* !~ !~*) or LIKE written
// as its operator (~~ …): the pattern is text (name ~ text, as
// PostgreSQL's operators take it).
func (r *rewriter) patternOp(a *pg_query.A_Expr, op string, sc *scope) (val, error) {
	l, err := r.expr(a.GetLexpr(), sc)
	if err != nil {
		return val{}, err
	}
	rt, err := r.expr(a.GetRexpr(), sc)
	if err != nil {
		return val{}, err
	}
	l, rt = r.coerce(l, "text"), r.coerce(rt, "text")
	if strings.HasPrefix(op, "~~") || strings.HasPrefix(op, "!~~") {
		return r.likeOp(l, rt, op, "")
	}
	flags := "''"
	if strings.HasSuffix(op, "*") {
		flags = "'i'"
	}
	sql := "pgcat_regex(" + l.sql + ", " + rt.sql + ", " + flags + ")"
	if op[0] == '!' {
		sql = "(NOT " + sql + ")"
	}
	return val{sql: sql, typ: "bool"}, nil
}

// arithType is the type of integer arithmetic (the wider operand) or
// numeric.
func arithType(l, r string) string {
	if isInteger(l) && isInteger(r) {
		if l == "int8" || r == "int8" {
			return "int8"
		}
		if l == "int2" && r == "int2" {
			return "int2"
		}
		return "int4"
	}
	if l == "float8" || r == "float8" || l == "float4" || r == "float4" {
		return "float8"
	}
	return "numeric"
}

func (r *rewriter) like(a *pg_query.A_Expr, sc *scope) (val, error) {
	op, err := opName(a.GetName())
	if err != nil {
		return val{}, err
	}
	l, err := r.expr(a.GetLexpr(), sc)
	if err != nil {
		return val{}, err
	}
	pat, esc := a.GetRexpr(), ""
	if fc := pat.GetFuncCall(); fc != nil {
		if name, _ := funcName(fc); name == "like_escape" && len(fc.GetArgs()) == 2 {
			e, err := r.expr(fc.GetArgs()[1], sc)
			if err != nil {
				return val{}, err
			}
			esc, pat = r.coerce(e, "text").sql, fc.GetArgs()[0]
		}
	}
	rt, err := r.expr(pat, sc)
	if err != nil {
		return val{}, err
	}
	return r.likeOp(r.coerce(l, "text"), r.coerce(rt, "text"), op, esc)
}

// likeOp is LIKE (~~), NOT LIKE (!~~), ILIKE (~~*) and NOT ILIKE: the
// catalog database's LIKE is case-sensitive; PostgreSQL's escape is a
// backslash unless ESCAPE says otherwise.
func (r *rewriter) likeOp(l, rt val, op, esc string) (val, error) {
	if esc == "" {
		esc = `'\'`
	}
	ls, rs := l.sql, rt.sql
	if strings.HasSuffix(op, "*") {
		ls, rs = "lower("+ls+")", "lower("+rs+")"
	}
	not := ""
	if op[0] == '!' {
		not = "NOT "
	}
	return val{sql: "(" + ls + " " + not + "LIKE " + rs + " ESCAPE " + esc + ")", typ: "bool"}, nil
}

func (r *rewriter) inList(a *pg_query.A_Expr, sc *scope) (val, error) {
	op, err := opName(a.GetName())
	if err != nil {
		return val{}, err
	}
	if a.GetLexpr().GetRowExpr() != nil {
		return r.rowIn(a, op, sc)
	}
	l, err := r.expr(a.GetLexpr(), sc)
	if err != nil {
		return val{}, err
	}
	var items []string
	for _, n := range a.GetRexpr().GetList().GetItems() {
		v, err := r.expr(n, sc)
		if err != nil {
			return val{}, err
		}
		if l.typ == unknownType {
			l = r.coerce(l, v.typ)
		}
		v = r.coerce(v, l.typ)
		items = append(items, v.sql)
	}
	not := ""
	if op == "<>" {
		not = "NOT "
	}
	return val{sql: "(" + l.sql + " " + not + "IN (" + strings.Join(items, ", ") + "))", typ: "bool"}, nil
}

func (r *rewriter) between(a *pg_query.A_Expr, sc *scope) (val, error) {
	l, err := r.expr(a.GetLexpr(), sc)
	if err != nil {
		return val{}, err
	}
	bounds := a.GetRexpr().GetList().GetItems()
	if len(bounds) != 2 {
		return val{}, refuse("this BETWEEN")
	}
	var bs [2]string
	for i, n := range bounds {
		v, err := r.expr(n, sc)
		if err != nil {
			return val{}, err
		}
		l, v = r.unify(l, v)
		bs[i] = v.sql
	}
	not := ""
	if a.GetKind() == pg_query.A_Expr_Kind_AEXPR_NOT_BETWEEN {
		not = "NOT "
	}
	return val{sql: "(" + l.sql + " " + not + "BETWEEN " + bs[0] + " AND " + bs[1] + ")", typ: "bool"}, nil
}

// anyAll is `x op ANY (array)` and `x op ALL (array)` over json_each.
func (r *rewriter) anyAll(a *pg_query.A_Expr, sc *scope) (val, error) {
	op, err := opName(a.GetName())
	if err != nil {
		return val{}, err
	}
	c, ok := comparisons[op]
	if !ok {
		return val{}, refuse("%s ANY/ALL", op)
	}
	l, err := r.expr(a.GetLexpr(), sc)
	if err != nil {
		return val{}, err
	}
	arr, err := r.expr(a.GetRexpr(), sc)
	if err != nil {
		return val{}, err
	}
	if arr.typ == unknownType {
		et := l.typ
		if et == unknownType {
			et = "text"
		}
		arr = r.coerce(arr, arrayOf(et))
	}
	if !isArray(arr.typ) && !isVector(arr.typ) {
		return val{}, pgErr("42809", "op ANY/ALL (array) requires array on right side")
	}
	l = r.coerce(l, elemType(arr.typ))
	return anyAllOver(l.sql, c, arr.sql, a.GetKind() == pg_query.A_Expr_Kind_AEXPR_OP_ANY), nil
}

// anyAllOver is `x op ANY (array)` (any true) or ALL (all true) with
// PostgreSQL's NULLs: NULL when no comparison decides and one is NULL,
// false (ANY) or true (ALL) over an empty array, NULL over a NULL one.
func anyAllOver(x, op, arr string, any bool) val {
	decide, decided, otherwise := "max(_c) = 1", "1", "0"
	if !any {
		decide, decided, otherwise = "min(_c) = 0", "0", "1"
	}
	return val{sql: "CASE WHEN " + arr + " IS NULL THEN NULL ELSE (SELECT CASE WHEN " + decide + " THEN " + decided +
		" WHEN count(*) > count(_c) THEN NULL ELSE " + otherwise + " END FROM (SELECT " + x + " " + op +
		" _e.value AS _c FROM json_each(" + arr + ") AS _e)) END", typ: "bool"}
}

func (r *rewriter) boolOp(b *pg_query.BoolExpr, sc *scope) (val, error) {
	var parts []string
	for _, n := range b.GetArgs() {
		v, err := r.expr(n, sc)
		if err != nil {
			return val{}, err
		}
		v = r.coerce(v, "bool")
		parts = append(parts, v.sql)
	}
	switch b.GetBoolop() {
	case pg_query.BoolExprType_AND_EXPR:
		return val{sql: "(" + strings.Join(parts, " AND ") + ")", typ: "bool"}, nil
	case pg_query.BoolExprType_OR_EXPR:
		return val{sql: "(" + strings.Join(parts, " OR ") + ")", typ: "bool"}, nil
	}
	return val{sql: "(NOT " + parts[0] + ")", typ: "bool"}, nil
}

func (r *rewriter) nullTest(t *pg_query.NullTest, sc *scope) (val, error) {
	v, err := r.expr(t.GetArg(), sc)
	if err != nil {
		return val{}, err
	}
	if t.GetNulltesttype() == pg_query.NullTestType_IS_NOT_NULL {
		return val{sql: "(" + v.sql + " IS NOT NULL)", typ: "bool"}, nil
	}
	return val{sql: "(" + v.sql + " IS NULL)", typ: "bool"}, nil
}

func (r *rewriter) booleanTest(t *pg_query.BooleanTest, sc *scope) (val, error) {
	v, err := r.expr(t.GetArg(), sc)
	if err != nil {
		return val{}, err
	}
	v = r.coerce(v, "bool")
	test := map[pg_query.BoolTestType]string{
		pg_query.BoolTestType_IS_TRUE: " IS 1", pg_query.BoolTestType_IS_NOT_TRUE: " IS NOT 1",
		pg_query.BoolTestType_IS_FALSE: " IS 0", pg_query.BoolTestType_IS_NOT_FALSE: " IS NOT 0",
		pg_query.BoolTestType_IS_UNKNOWN: " IS NULL", pg_query.BoolTestType_IS_NOT_UNKNOWN: " IS NOT NULL",
	}[t.GetBooltesttype()]
	return val{sql: "(" + v.sql + test + ")", typ: "bool"}, nil
}

// concat is ||: text concatenation (an untyped operand is text), or
// the concatenation of two arrays.
func (r *rewriter) concat(a *pg_query.A_Expr, sc *scope) (val, error) {
	l, err := r.expr(a.GetLexpr(), sc)
	if err != nil {
		return val{}, err
	}
	rt, err := r.expr(a.GetRexpr(), sc)
	if err != nil {
		return val{}, err
	}
	if !isArray(l.typ) && !isArray(rt.typ) {
		l, rt = r.coerce(l, "text"), r.coerce(rt, "text")
		return val{sql: "(" + textOf(l) + " || " + textOf(rt) + ")", typ: "text"}, nil
	}
	if !isArray(l.typ) || !isArray(rt.typ) {
		l, rt = r.unify(l, rt)
	}
	if !isArray(l.typ) || !isArray(rt.typ) {
		return val{}, refuse("|| of an array and an element")
	}
	return val{sql: "CASE WHEN " + l.sql + " IS NOT NULL OR " + rt.sql + " IS NOT NULL THEN (SELECT json_group_array(v) FROM (SELECT 0 AS s, key AS k, value AS v FROM json_each(" + l.sql +
		") UNION ALL SELECT 1, key, value FROM json_each(" + rt.sql + ") ORDER BY s, k)) END", typ: l.typ}, nil
}

// textOf is a value's text for ||: a boolean as PostgreSQL shows it, a
// reg* value by name.
func textOf(v val) string {
	if t, err := toText(v, "text"); err == nil {
		return t.sql
	}
	return v.sql
}

// arrayCompare is = and <> of two arrays (their JSON compared).
func arrayCompare(l, rt val, op string) (val, error) {
	c := comparisons[op]
	if c != "=" && c != "<>" {
		return val{}, refuse("the operator %s on arrays", op)
	}
	return val{sql: "(json(" + l.sql + ") " + c + " json(" + rt.sql + "))", typ: "bool"}, nil
}

// raiseSQL is an expression that fails the statement with PostgreSQL's
// error: SQLite reports the bad JSON path, whose text is the runtime
// functions' convention ("pg:<SQLSTATE>: message", sqliteError).
func raiseSQL(code, msg string) string {
	return "json_extract('{}', " + quote("pg:"+code+": "+msg) + ")"
}

// rows rewrites a row constructor's fields ((a, b)); n is the field count
// it must have (0 any).
func (r *rewriter) rows(n *pg_query.Node, sc *scope) ([]val, error) {
	row := n.GetRowExpr()
	if row == nil {
		return nil, refuse("comparisons of a row with %s", nodeName(n))
	}
	vs := make([]val, len(row.GetArgs()))
	for i, f := range row.GetArgs() {
		v, err := r.expr(f, sc)
		if err != nil {
			return nil, err
		}
		vs[i] = v
	}
	return vs, nil
}

// rowCompare is (a, b) op (c, d), as SQLite's row values compare.
func (r *rewriter) rowCompare(ln, rn *pg_query.Node, op string, sc *scope) (val, error) {
	c, ok := comparisons[op]
	if !ok {
		return val{}, refuse("the row operator %s", op)
	}
	l, err := r.rows(ln, sc)
	if err != nil {
		return val{}, err
	}
	rt, err := r.rows(rn, sc)
	if err != nil {
		return val{}, err
	}
	if len(l) != len(rt) {
		return val{}, pgErr("42601", "unequal number of entries in row expressions")
	}
	for i := range l {
		l[i], rt[i] = r.unify(l[i], rt[i])
	}
	return val{sql: "((" + joinSQL(l) + ") " + c + " (" + joinSQL(rt) + "))", typ: "bool"}, nil
}

// rowIn is (a, b) [NOT] IN ((1, 2), (3, 4)), over SQLite's VALUES.
func (r *rewriter) rowIn(a *pg_query.A_Expr, op string, sc *scope) (val, error) {
	l, err := r.rows(a.GetLexpr(), sc)
	if err != nil {
		return val{}, err
	}
	var rows []string
	for _, n := range a.GetRexpr().GetList().GetItems() {
		rt, err := r.rows(n, sc)
		if err != nil {
			return val{}, err
		}
		if len(rt) != len(l) {
			return val{}, pgErr("42601", "unequal number of entries in row expressions")
		}
		for i := range l {
			l[i], rt[i] = r.unify(l[i], rt[i])
		}
		rows = append(rows, "("+joinSQL(rt)+")")
	}
	not := ""
	if op == "<>" {
		not = "NOT "
	}
	return val{sql: "((" + joinSQL(l) + ") " + not + "IN (VALUES " + strings.Join(rows, ", ") + "))", typ: "bool"}, nil
}
