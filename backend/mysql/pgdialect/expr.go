package pgdialect

import (
	"math/big"
	"strconv"
	"unicode/utf8"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// val is a translated expression: its MariaDB text and PostgreSQL type.
// An untyped value (a string literal, NULL, a parameter no context typed
// yet) has type unknown and is typed by coerce.
type val struct {
	sql   string
	typ   Type
	str   *string // an untyped string literal's text
	null  bool    // the untyped NULL
	param int32   // an untyped parameter's number
	scale int     // numeric: every value's display scale, -1 when values differ
	// notNull: a column declared NOT NULL (ORDER BY needs no NULL key).
	notNull bool
	// mayFail: computing it can fail at run time (an overflow, a division
	// by zero, a cast out of range): MariaDB must compute it wherever
	// PostgreSQL does (evalAll).
	mayFail bool
	// pendingDiv: a numeric division by a power of ten up to 10000, whose
	// display scale PostgreSQL chooses by the values: only a cast or an
	// assignment to numeric(p, s) (or a CASE/COALESCE that reaches one)
	// may take it, MariaDB's quotient (4 more digits after the point,
	// div_precision_increment) being exact.
	pendingDiv bool
	// maxLen bounds a text value's length in characters (0: unbounded or
	// unknown); ORDER BY needs it (orderBy).
	maxLen int
	// nullConst: a NULL constant (typed): PostgreSQL folds a strict
	// operator or function over it to NULL at planning, never evaluating
	// the other operands (fold.go).
	nullConst bool
	// ival: an integer constant's value (PostgreSQL folds constant
	// integer arithmetic at planning, its errors included).
	ival *int64
	// nval: a numeric constant's exact value (fold.go folds constant
	// numeric + - * and casts as PostgreSQL's planner does).
	nval *big.Rat
}

func (v val) untyped() bool { return v.typ.Name == "unknown" }

// typed is a value of type typ.
func typed(sql string, typ Type) val {
	return val{sql: sql, typ: typ, scale: scaleOf(typ)}
}

// paramSQL is placeholder n as a value of type typ.
func paramSQL(n int32, typ Type) string {
	if isText(typ) {
		return "(CONVERT(" + marker(n) + " USING utf8mb4) COLLATE " + textCollation + ")"
	}
	return marker(n)
}

// coerce gives an untyped value the type to (a typed one is returned as
// it is).
func (t *translator) coerce(v val, to Type) (val, error) {
	if !v.untyped() {
		return v, nil
	}
	switch {
	case v.null:
		if to.Name == "unknown" {
			return v, nil
		}
		return val{sql: "NULL", typ: to, scale: scaleOf(to), nullConst: true}, nil
	case v.param > 0:
		if to.Name == "unknown" {
			to = tText
		}
		if err := t.param(v.param, to); err != nil {
			return v, err
		}
		return typed(paramSQL(v.param, t.params[v.param-1]), t.params[v.param-1]), nil
	case v.str != nil:
		if to.Name == "unknown" {
			to = tText
		}
		sql, typ, err := literalAs(*v.str, to, t.stored)
		if err != nil {
			return v, err
		}
		out := typed(sql, typ)
		if intRank(typ) > 0 {
			n, _ := strconv.ParseInt(sql, 10, 64)
			out = intConst(n, typ)
		}
		if typ.Name == "numeric" && typ.Typmod < 0 {
			out.scale = literalScale(*v.str)
		}
		if typ.Name == "numeric" {
			out.nval, _ = new(big.Rat).SetString(sql)
		}
		if isText(typ) {
			out.maxLen = max(utf8.RuneCountInString(*v.str), 1)
		}
		return out, nil
	}
	return v, refuse("an untyped expression")
}

// expr translates an expression whose value is used as it is.
func (t *translator) expr(n *pg_query.Node) (val, error) {
	v, err := t.exprAny(n)
	if err == nil && v.pendingDiv {
		return val{}, refuse("numeric division other than by a power of ten up to 10000 cast or stored at once as numeric(p, s) (PostgreSQL's result scale depends on the values)")
	}
	return v, err
}

// settled refuses a pending division reaching a place other than
// numeric(p, s).
func settled(v val, to Type) error {
	if _, _, ok := numericPS(to); v.pendingDiv && !ok {
		return refuse("numeric division other than by a power of ten up to 10000 cast or stored at once as numeric(p, s) (PostgreSQL's result scale depends on the values)")
	}
	return nil
}

// exprAny translates an expression, a pending division included. It
// is mayFail when a part of it can fail (canFail was called meanwhile).
func (t *translator) exprAny(n *pg_query.Node) (val, error) {
	before := t.fails
	v, err := t.exprNode(n)
	if err == nil && len(v.sql) > t.maxText {
		// An operand written twice at every level of a nesting (BETWEEN's
		// x, an operand computed first, IN's) doubles the text per level:
		// bounded here, at every level, before it grows further.
		return val{}, refuse("an expression whose translation exceeds %d bytes (%d times the statement's length and 64 KiB): an operand the translation writes twice, nested", t.maxText, textGrowth)
	}
	if t.fails != before {
		v.mayFail = true
	}
	if err == nil && t.unfoldedNumeric(n, v) {
		return val{}, refuse("a constant numeric expression PostgreSQL evaluates while planning (the dialect does not fold numeric constants)")
	}
	return v, err
}

// exprNode is exprAny without the check of constant numeric operations.
func (t *translator) exprNode(n *pg_query.Node) (val, error) {
	switch x := n.GetNode().(type) {
	case *pg_query.Node_AConst:
		return t.constant(x.AConst)
	case *pg_query.Node_ParamRef:
		num := x.ParamRef.GetNumber()
		if err := t.param(num, tUnknown); err != nil {
			return val{}, err
		}
		if p := t.params[num-1]; p.Name != "" {
			return typed(paramSQL(num, p), p), nil
		}
		return val{typ: tUnknown, param: num}, nil
	case *pg_query.Node_ColumnRef:
		return t.columnRef(x.ColumnRef)
	case *pg_query.Node_AExpr:
		return t.aExpr(x.AExpr)
	case *pg_query.Node_BoolExpr:
		return t.boolExpr(x.BoolExpr)
	case *pg_query.Node_NullTest:
		return t.nullTest(x.NullTest)
	case *pg_query.Node_BooleanTest:
		return t.booleanTest(x.BooleanTest)
	case *pg_query.Node_TypeCast:
		return t.typeCast(x.TypeCast)
	case *pg_query.Node_CaseExpr:
		return t.caseExpr(x.CaseExpr)
	case *pg_query.Node_CoalesceExpr:
		return t.coalesce(x.CoalesceExpr)
	case *pg_query.Node_FuncCall:
		return t.funcCall(x.FuncCall)
	case *pg_query.Node_SubLink:
		return t.subLink(x.SubLink)
	}
	return val{}, refuse("the expression %s", nodeName(n))
}

// constant translates a literal.
func (t *translator) constant(c *pg_query.A_Const) (val, error) {
	switch {
	case c.GetIsnull():
		return val{typ: tUnknown, null: true, sql: "NULL"}, nil
	case c.GetIval() != nil:
		return intConst(int64(c.GetIval().GetIval()), tInt4), nil
	case c.GetFval() != nil:
		s := c.GetFval().GetFval()
		if intRE.MatchString(s) {
			if n, err := strconv.ParseInt(s, 10, 64); err == nil {
				// PostgreSQL's make_const: an integer the lexer gave as
				// a float (-2147483648, negated by the grammar) is int4
				// when it fits there
				if n == int64(int32(n)) {
					return intConst(n, tInt4), nil
				}
				return intConst(n, tInt8), nil
			}
		}
		sql, typ, err := numericLiteral(s, tNumeric)
		if err != nil {
			return val{}, err
		}
		v := typed(sql, typ)
		v.scale = literalScale(s)
		v.nval, _ = new(big.Rat).SetString(sql)
		return v, nil
	case c.GetBoolval() != nil:
		if c.GetBoolval().GetBoolval() {
			return typed("TRUE", tBool), nil
		}
		return typed("FALSE", tBool), nil
	case c.GetSval() != nil:
		s := c.GetSval().GetSval()
		return val{typ: tUnknown, str: &s}, nil
	}
	return val{}, refuse("this kind of constant (bit strings)")
}

// boolExpr translates AND, OR, NOT.
func (t *translator) boolExpr(b *pg_query.BoolExpr) (val, error) {
	var parts []string
	decided := "" // AND with a FALSE constant is FALSE, OR with TRUE TRUE: PostgreSQL folds
	for _, a := range b.GetArgs() {
		v, err := t.expr(a)
		if err != nil {
			return val{}, err
		}
		if v, err = t.wantBool(v, "argument of "+b.GetBoolop().String()); err != nil {
			return val{}, err
		}
		if err := knownBool(a, v, "AND/OR"); err != nil && b.GetBoolop() != pg_query.BoolExprType_NOT_EXPR {
			return val{}, err
		}
		if (b.GetBoolop() == pg_query.BoolExprType_AND_EXPR && v.sql == "FALSE") || (b.GetBoolop() == pg_query.BoolExprType_OR_EXPR && v.sql == "TRUE") {
			decided = v.sql
		}
		parts = append(parts, v.sql)
	}
	if decided != "" {
		return typed(decided, tBool), nil
	}
	switch b.GetBoolop() {
	case pg_query.BoolExprType_NOT_EXPR:
		if parts[0] == "NULL" {
			return nullOf(tBool), nil
		}
		return typed("(NOT "+parts[0]+")", tBool), nil
	case pg_query.BoolExprType_AND_EXPR:
		return typed("("+join(parts, " AND ")+")", tBool), nil
	}
	return typed("("+join(parts, " OR ")+")", tBool), nil
}

// wantBool types v as bool or fails as PostgreSQL does (42804).
func (t *translator) wantBool(v val, what string) (val, error) {
	v, err := t.coerce(v, tBool)
	if err != nil {
		return v, err
	}
	if v.typ.Name != "bool" {
		return v, pgError("42804", "%s must be type boolean, not type %s", what, v.typ.Name)
	}
	return v, nil
}

// nullTest translates IS [NOT] NULL.
func (t *translator) nullTest(n *pg_query.NullTest) (val, error) {
	v, err := t.expr(n.GetArg())
	if err != nil {
		return val{}, err
	}
	if v, err = t.coerce(v, tText); err != nil {
		return val{}, err
	}
	if n.GetNulltesttype() == pg_query.NullTestType_IS_NOT_NULL {
		return typed("("+v.sql+" IS NOT NULL)", tBool), nil
	}
	return typed("("+v.sql+" IS NULL)", tBool), nil
}

// booleanTest translates IS [NOT] TRUE/FALSE/UNKNOWN.
func (t *translator) booleanTest(n *pg_query.BooleanTest) (val, error) {
	v, err := t.expr(n.GetArg())
	if err != nil {
		return val{}, err
	}
	if v, err = t.wantBool(v, "argument of IS TRUE"); err != nil {
		return val{}, err
	}
	op := map[pg_query.BoolTestType]string{
		pg_query.BoolTestType_IS_TRUE: "IS TRUE", pg_query.BoolTestType_IS_NOT_TRUE: "IS NOT TRUE",
		pg_query.BoolTestType_IS_FALSE: "IS FALSE", pg_query.BoolTestType_IS_NOT_FALSE: "IS NOT FALSE",
		pg_query.BoolTestType_IS_UNKNOWN: "IS NULL", pg_query.BoolTestType_IS_NOT_UNKNOWN: "IS NOT NULL",
	}[n.GetBooltesttype()]
	if op == "" {
		return val{}, refuse("this boolean test")
	}
	return typed("("+v.sql+" "+op+")", tBool), nil
}

// join joins parts with sep.
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

// common is the type PostgreSQL resolves values of a CASE, COALESCE, IN
// list or VALUES column to (42804 when they do not match); the values are
// coerced to it. Numeric values of different display scales are refused:
// MariaDB gives the result one scale.
func (t *translator) common(vs []val, what string) ([]val, Type, error) {
	res, err := commonType(vs, what)
	if err != nil {
		return nil, res, err
	}
	out := make([]val, len(vs))
	scale := -2
	for i, v := range vs {
		c, err := t.coerce(v, res)
		if err != nil {
			return nil, res, err
		}
		if res.Name == "numeric" && !v.null && !v.pendingDiv {
			if c.scale < 0 || (scale != -2 && scale != c.scale) {
				return nil, res, refuse("%s mixing numeric values of different display scales (MariaDB gives the result one scale)", what)
			}
			scale = c.scale
		}
		out[i] = c
	}
	if res.Name == "numeric" && res.Typmod >= 0 {
		// Different numeric(p,s) become numeric: PostgreSQL reports no
		// typmod unless all agree.
		for _, v := range out {
			if v.typ != res {
				res = tNumeric
			}
		}
	}
	return out, res, nil
}

// widerNumber is the type two numbers resolve to.
func widerNumber(a, b Type) Type {
	switch {
	case a.Name == "float8" || b.Name == "float8":
		return tFloat8
	case a.Name == "numeric" || b.Name == "numeric":
		if a == b {
			return a
		}
		return tNumeric
	case intRank(a) >= intRank(b):
		return Type{Name: a.Name, Typmod: -1}
	}
	return Type{Name: b.Name, Typmod: -1}
}

// caseExpr translates CASE.
func (t *translator) caseExpr(c *pg_query.CaseExpr) (val, error) {
	var subject val
	var err error
	if c.GetArg() != nil {
		if subject, err = t.expr(c.GetArg()); err != nil {
			return val{}, err
		}
	}
	var conds []string
	var results []val
	skip := false // a constant TRUE arm came: PostgreSQL drops the rest unfolded
	for _, w := range c.GetArgs() {
		cw := w.GetCaseWhen()
		cond, err := t.expr(cw.GetExpr())
		if err != nil {
			return val{}, err
		}
		if c.GetArg() != nil {
			cmp, err := t.compare("=", subject, cond)
			if err != nil {
				return val{}, err
			}
			cond = cmp
		} else if cond, err = t.wantBool(cond, "argument of CASE/WHEN"); err != nil {
			return val{}, err
		}
		if err := knownCond(freeNodes(false, c.GetArg(), cw.GetExpr()), cond, "CASE"); err != nil {
			return val{}, err
		}
		dropped := skip || cond.sql == "FALSE" || isNullConst(cond)
		if dropped {
			t.noFold++
		}
		r, err := t.exprAny(cw.GetResult())
		if dropped {
			t.noFold--
		}
		if err != nil {
			return val{}, err
		}
		skip = skip || cond.sql == "TRUE"
		conds = append(conds, cond.sql)
		results = append(results, r)
	}
	if skip {
		t.noFold++
		defer func() { t.noFold-- }()
	}
	if c.GetDefresult() != nil {
		r, err := t.exprAny(c.GetDefresult())
		if err != nil {
			return val{}, err
		}
		results = append(results, r)
	}
	rs, typ, err := t.caseCommon(results, c.GetDefresult() != nil)
	if err != nil {
		return val{}, err
	}
	if f, ok := foldCase(conds, rs, c.GetDefresult() != nil); ok {
		if isNullConst(f) {
			return nullOf(typ), nil
		}
		if f.ival != nil && intRank(typ) > 0 {
			return intConst(*f.ival, typ), nil
		}
	}
	sql := "(CASE"
	for i, cond := range conds {
		sql += " WHEN " + cond + " THEN " + rs[i].sql
	}
	if c.GetDefresult() != nil {
		sql += " ELSE " + rs[len(rs)-1].sql
	}
	out := typed(sql+" END)", typ)
	out.scale, out.pendingDiv, out.maxLen = commonScale(rs), anyPending(rs), commonLen(rs)
	return out, nil
}

// caseCommon is common over CASE's results, its ELSE first as
// PostgreSQL's transformCaseExpr orders them (varchar then text is
// varchar, text then varchar text).
func (t *translator) caseCommon(results []val, hasDefault bool) ([]val, Type, error) {
	if !hasDefault {
		return t.common(results, "CASE")
	}
	last := len(results) - 1
	rs, typ, err := t.common(append([]val{results[last]}, results[:last]...), "CASE")
	if err != nil {
		return nil, typ, err
	}
	return append(rs[1:], rs[0]), typ, nil
}

// foldCase is the arm PostgreSQL's planner reduces a CASE to when every
// condition before it is a constant (false or NULL dropped, TRUE taken);
// ok false when a condition is not constant.
func foldCase(conds []string, rs []val, hasDefault bool) (val, bool) {
	for i, c := range conds {
		switch c {
		case "FALSE", "NULL":
			continue
		case "TRUE":
			return rs[i], true
		}
		return val{}, false
	}
	if hasDefault {
		return rs[len(rs)-1], true
	}
	return val{sql: "NULL", nullConst: true}, true
}

// coalesce translates COALESCE.
func (t *translator) coalesce(c *pg_query.CoalesceExpr) (val, error) {
	vs, cut, err := t.coalesceArgs(c.GetArgs())
	if err != nil {
		return val{}, err
	}
	rs, typ, err := t.common(vs, "COALESCE")
	if err != nil {
		return val{}, err
	}
	// PostgreSQL drops NULL constants and everything after a non-NULL
	// constant.
	var parts []string
	var kept []val
	for _, r := range rs[:cut] {
		if isNullConst(r) {
			continue
		}
		if r.typ.Name != typ.Name && cut < len(rs) {
			// The dropped arguments chose the type: PostgreSQL
			// coerces the kept ones (2147483647 as float8).
			if r, err = t.castTo(r, typ); err != nil {
				return val{}, err
			}
		}
		parts, kept = append(parts, r.sql), append(kept, r)
	}
	switch {
	case len(kept) == 0:
		return nullOf(typ), nil
	case len(kept) == 1 && kept[0].ival != nil && intRank(typ) > 0:
		return intConst(*kept[0].ival, typ), nil
	}
	out := typed("COALESCE("+join(parts, ", ")+")", typ)
	out.scale, out.pendingDiv, out.maxLen = commonScale(rs), anyPending(rs), commonLen(rs)
	return out, nil
}

// coalesceArgs translates COALESCE's arguments; cut: those before it
// are kept. PostgreSQL's planner folds them in order and stops at the
// first non-NULL constant: the arguments after it are analysed (their
// types count) but never folded, their constant errors never raised.
func (t *translator) coalesceArgs(args []*pg_query.Node) ([]val, int, error) {
	var vs []val
	cut := len(args)
	for i, a := range args {
		dropped := i >= cut
		if dropped {
			t.noFold++
		}
		v, err := t.exprAny(a)
		if dropped {
			t.noFold--
		}
		if err != nil {
			return nil, 0, err
		}
		vs = append(vs, v)
		if dropped || !constNode(a) || isNullConst(v) {
			continue
		}
		if !nonNullConst(a) {
			return nil, 0, refuse("COALESCE over a constant expression the dialect does not evaluate (PostgreSQL's planner folds it)")
		}
		cut = i + 1
	}
	return vs, cut, nil
}

// commonScale is the one display scale of values common made agree.
func commonScale(vs []val) int {
	for _, v := range vs {
		if !v.null && v.typ.Name == "numeric" {
			return v.scale
		}
	}
	if len(vs) > 0 {
		return scaleOf(vs[0].typ)
	}
	return -1
}

// anyPending reports a pending division among vs.
func anyPending(vs []val) bool {
	for _, v := range vs {
		if v.pendingDiv {
			return true
		}
	}
	return false
}

// commonLen bounds the text values of vs (0: one is unbounded).
func commonLen(vs []val) int {
	n := 0
	for _, v := range vs {
		if v.null {
			continue
		}
		if v.maxLen == 0 {
			return 0
		}
		n = max(n, v.maxLen)
	}
	return n
}

// typeLen is the bound of a column's values by its type.
func typeLen(c Column) int {
	switch {
	case c.MaxChars > 0:
		return c.MaxChars
	case c.Type.Name == "varchar" && c.Type.Typmod >= 4:
		return int(c.Type.Typmod - 4)
	}
	return 0
}

// commonType is the type PostgreSQL's select_common_type resolves vs to
// (text when all are untyped).
func commonType(vs []val, what string) (Type, error) {
	res := tUnknown
	for _, v := range vs {
		if v.untyped() {
			continue
		}
		switch {
		case res.Name == "unknown":
			res = v.typ
		case isNumber(res) && isNumber(v.typ):
			res = widerNumber(res, v.typ)
		case isText(res) && isText(v.typ):
			// select_common_type: text is preferred; varchar stays
			// when first (text and varchar coerce both ways), its
			// typmod kept only when all agree.
			if res != v.typ {
				res = Type{Name: res.Name, Typmod: -1}
			}
		case isDateTime(res) && isDateTime(v.typ) && res.Name != v.typ.Name:
			return res, refuse("%s mixing date, timestamp and timestamptz values", what)
		case res.Name != v.typ.Name:
			return res, pgError("42804", "%s types %s and %s cannot be matched", what, res.Name, v.typ.Name)
		}
	}
	if res.Name == "unknown" {
		res = tText
	}
	return res, nil
}
