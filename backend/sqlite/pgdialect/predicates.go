package pgdialect

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"
)

// like translates LIKE and ILIKE through pgruntime's pg_like: PostgreSQL's
// case-sensitive LIKE with backslash as escape, ILIKE folding ASCII only
// (collation and ctype C).
func (t *translator) like(op string, a *pg_query.A_Expr, sc *scope) (value, error) {
	if a.GetRexpr().GetFuncCall() != nil {
		return value{}, refuse("LIKE ... ESCAPE")
	}
	l, r, err := t.operands(a, sc)
	if err != nil {
		return value{}, err
	}
	if l.typ.Name == "bpchar" {
		l.typ = tText // bpchar's LIKE matches the padded value, as PostgreSQL's bpcharlike
	}
	if !l.untyped() && !isText(l.typ) || !r.untyped() && !isText(r.typ) {
		// No LIKE on the other types: PostgreSQL does not read the
		// pattern as one of them first.
		return value{}, pgError("42883", "operator does not exist: %s %s %s", label(l.typ), op, label(r.typ))
	}
	if l, r, err = t.unify(l, r); err != nil {
		return value{}, err
	}
	if !isText(l.typ) || !isText(r.typ) {
		return value{}, pgError("42883", "operator does not exist: %s %s %s", label(l.typ), op, label(r.typ))
	}
	ci := "0"
	if op == "~~*" || op == "!~~*" {
		ci = "1"
	}
	sql := "pg_like(" + l.sql + ", " + r.sql + ", " + ci + ")"
	if op == "!~~" || op == "!~~*" {
		sql = "(NOT " + sql + ")"
	}
	return value{sql: sql, typ: tBool, name: "?column?"}, nil
}

// inList translates x IN (a, b ...) and x NOT IN (...): each item
// compared as = would. As PostgreSQL's transformAExprIn, two items or more
// without a column make an array of the common type of x and them, and
// each item with a column is x = item resolved alone, where an untyped x
// takes that item's type: '…' IN (id, NULL, '…') with a uuid id compares
// x as text with the array and as uuid with id.
func (t *translator) inList(op string, a *pg_query.A_Expr, sc *scope) (value, error) {
	qual := t.inQual
	t.inQual = false
	l0, err := t.expr(a.GetLexpr(), sc)
	if err != nil {
		return value{}, err
	}
	nodes := a.GetRexpr().GetList().GetItems()
	vals, err := t.args(nodes, sc)
	if err != nil {
		return value{}, err
	}
	vars := make([]bool, len(nodes))
	for i, n := range nodes {
		vars[i] = ownVars(n, sc)
	}
	l, vals, err := t.inListTypes(l0, vars, vals)
	if err != nil {
		return value{}, err
	}
	if typ, err := commonType("IN", append([]value{l}, vals...)); err == nil && isNum(typ) {
		t.typeParams(append([]value{l}, vals...), typ) // placeholders take the list's common type
		if err := realInDoubleList(append([]value{l}, vals...)); err != nil {
			return value{}, err
		}
	}
	lefts, items, folds, err := t.inItems(l0, l, vars, vals)
	if err != nil {
		return value{}, err
	}
	if v, ok := foldIn(op == "<>", folds, len(items)); ok && (l.isConstant() || constantItems(vars) < 2) {
		// With a varying x and two constant items or more PostgreSQL
		// compares x with an array of them (x <> ALL (ARRAY[NULL,
		// NULL])), which its planner does not fold: x is computed.
		return v, nil
	}
	if qual && op == "<>" && nullInTurn(vars, vals) {
		// The AND of x <> NULL (NULL: false in a qual) and x <> each
		// other item: the planner folds it before any row is read.
		return constOf(int64(0), tBool, "?column?"), nil
	}
	return value{sql: inListSQL(op == "<>", lefts, items), typ: tBool, name: "?column?"}, nil
}

// floatArray reports whether PostgreSQL's array of an IN list's constant
// items (two or more) is of a float type where an item compared alone
// would not be: x is float4, or x is a number and an item is float8
// (the common type of x and the items is float8 then, and an int8 or a
// numeric goes through it: 9223372036854775805.75 IN (…,
// 9223372036854775807, 1e300::float8) is true, random
// 1796454530599725606/2094).
func floatArray(x value, consts []value) bool {
	return x.typ.Name == "float4" || isNum(x.typ) && hasType(consts, "float8")
}

// inItems compares x with each item: l is x as the array of constant
// items reads it, l0 as written, which an item with a column compares
// with when x is an untyped literal (its copy of x takes the item's
// type). It returns each comparison's SQL sides and, when folding, its
// constant value.
func (t *translator) inItems(l0, l value, vars []bool, vals []value) (lefts, items []string, folds []value, err error) {
	arrayed := constantItems(vars) >= 2
	for i, r := range vals {
		if r.param != 0 {
			if known := t.params[r.param-1]; known.Name != "" {
				r.typ, r.param = known, 0
			}
		}
		x := l
		if vars[i] && l0.untyped() && l0.param == 0 {
			x = l0
		}
		if arrayed && !vars[i] && floatArray(x, constantVals(vars, vals)) && (r.num != "" || isInt(r.typ) || r.typ.Name == "numeric") {
			// Two constant items or more make an array of the common
			// type of x and them, and a numeric or an integer casts
			// implicitly to float4 (to float8 when a member is float8:
			// 1e-5 stays 1e-5 there; 2147483647 is 2147483648 as a
			// float4, random 7602/8252). Otherwise x = item is resolved
			// alone, real = numeric and real = int4 as float8 (random
			// 7101/5465).
			to := x.typ
			if hasType(constantVals(vars, vals), "float8") {
				to = Type{Name: "float8", Typmod: -1}
			}
			if r, err = t.coerceValue(r, to, ctxImplicit); err != nil {
				return nil, nil, nil, err
			}
		}
		ls, rs, err := t.paramCompared(x, r)
		if err != nil {
			return nil, nil, nil, err
		}
		lefts, items = append(lefts, ls), append(items, rs)
		if t.noFold == 0 {
			c, _ := t.compare("=", x, r)
			folds = append(folds, c)
		}
	}
	return lefts, items, folds, nil
}

// inListSQL is the IN list as SQL: one x IN (...) per form x takes
// (an integer x is compared with a float item as a float, an untyped x
// as each item's type), ORed; NOT IN is the negation, the AND of each
// group's NOT IN. Three-valued logic is that of x = a OR x = b ... in
// both engines.
func inListSQL(not bool, lefts, items []string) string {
	var order []string
	groups := map[string][]string{}
	for i, ls := range lefts {
		if _, ok := groups[ls]; !ok {
			order = append(order, ls)
		}
		groups[ls] = append(groups[ls], items[i])
	}
	kw, glue := " IN (", " OR "
	if not {
		kw, glue = " NOT IN (", " AND "
	}
	parts := make([]string, len(order))
	for i, ls := range order {
		parts[i] = ls + kw + join(groups[ls], ", ") + ")"
	}
	return "(" + join(parts, glue) + ")"
}

// inListTypes reads the untyped operands of x IN (...) as PostgreSQL's
// transformAExprIn does: when more than one item has no column (a Var),
// x and those items take their common type (select_common_type, an
// untyped x too), which the untyped ones are read as: '1.5' is numeric in
// i IN ('1.5', 0.5) and NULL IN ('x', 3.0) reads 'x' as numeric (22P02),
// where i = '1.5' alone reads it as i's integer type. Items with columns,
// and every item when there is no common type, are compared one by one
// (the comparison types an untyped item as the other side). A
// placeholder x is typed by the array comparison once and for all (the
// items with columns compare with it as that type).
func (t *translator) inListTypes(l value, vars []bool, vals []value) (value, []value, error) {
	group, idx := []value{l}, []int{}
	for i, own := range vars {
		if i < len(vals) && !own {
			group, idx = append(group, vals[i]), append(idx, i)
		}
	}
	if len(idx) < 2 {
		return l, vals, nil
	}
	typ, err := commonType("IN", group)
	if err != nil || isArray(typ) || isJSON(typ) {
		return l, vals, nil
	}
	read := func(v value) (value, error) {
		if v.untyped() && v.param == 0 {
			return t.retype(v, typ)
		}
		return v, nil
	}
	t.typeParams(group, typ) // coerced to the array's element type
	out := append([]value(nil), vals...)
	for _, i := range idx {
		if out[i], err = read(t.typedParam(out[i])); err != nil {
			return l, vals, err
		}
	}
	l, err = read(t.typedParam(l))
	return l, out, err
}

// paramCompared is x = item for one item of an IN list. An untyped
// placeholder x is a fresh unknown Param in each comparison
// (transformAExprIn compares a copy of x with each item), so each
// comparison types it anew, and two different types are PostgreSQL's
// 42P08 ($1 IN ('1', c) with an integer c reads $1 as text, then as
// integer).
func (t *translator) paramCompared(l, r value) (string, string, error) {
	if l.param == 0 {
		return t.comparison("=", l, r)
	}
	before := t.params[l.param-1]
	t.params[l.param-1] = Type{}
	ls, rs, err := t.comparison("=", l, r)
	got := t.params[l.param-1]
	switch {
	case got.Name == "":
		t.params[l.param-1] = before
	case before.Name != "" && before.Name != got.Name:
		return "", "", pgError("42P08", "inconsistent types deduced for parameter $%d", l.param)
	}
	return ls, rs, err
}

// constantVals are the values of the items that are not varying.
func constantVals(vars []bool, vals []value) []value {
	var out []value
	for i, own := range vars {
		if i < len(vals) && !own {
			out = append(out, vals[i])
		}
	}
	return out
}

// constantItems counts the IN list's items without a column.
func constantItems(vars []bool) int {
	n := 0
	for _, own := range vars {
		if !own {
			n++
		}
	}
	return n
}

// nullInTurn reports whether an item PostgreSQL compares with x in turn
// is a NULL constant: an item with a column of the IN's level (a strict
// operator on NULL, c - NULL, folds to one: random 7604/21179), or the
// only item without one (transformAExprIn makes no array of one item).
// x <> NULL then folds to NULL, and the AND of the comparisons with it.
func nullInTurn(vars []bool, vals []value) bool {
	arrayed := constantItems(vars) >= 2
	for i, own := range vars {
		if i >= len(vals) || !own && arrayed {
			continue
		}
		if isNullConst(vals[i]) || vals[i].isConst && vals[i].konst == nil {
			return true
		}
	}
	return false
}

// realInDoubleList refuses an IN list whose members' common type is
// double precision (one is) although a real (float4) meets an integer or
// numeric member other than a numeric literal or a small integer constant: PostgreSQL compares every member as double precision (x IN
// (1e-5, CAST(… AS float8)) with a real x widens x, and 1e-5 stays
// 1e-5), where x = 1e-5 alone compares as real, the pairwise comparison
// the translation makes (the random differential run, seed 5).
func realInDoubleList(vals []value) error {
	real, double, other := false, false, false
	for _, v := range vals {
		switch {
		case v.typ.Name == "float4":
			real = true
		case v.typ.Name == "float8":
			double = true
		case v.num != "": // a numeric literal is cast to the common type (inList)
		case v.isConst && isInt(v.typ):
			// an integer constant a real holds exactly compares alike
			if n, ok := v.konst.(int64); !ok || n > 1<<24 || n < -(1<<24) {
				other = true
			}
		case !v.untyped():
			other = true
		}
	}
	if real && double && other {
		return refuse("IN lists mixing real with double precision and integer or numeric members")
	}
	return nil
}

// hasType reports whether one of vals has the type named name.
func hasType(vals []value, name string) bool {
	for _, v := range vals {
		if v.typ.Name == name {
			return true
		}
	}
	return false
}

// foldIn folds an IN list whose every comparison folded to a constant
// (PostgreSQL evaluates a constant ScalarArrayOpExpr while planning):
// true if one is true, else NULL if one is NULL, else false.
func foldIn(not bool, cmps []value, n int) (value, bool) {
	if len(cmps) != n || n == 0 {
		return value{}, false
	}
	res, null := int64(0), false
	for _, c := range cmps {
		if !c.isConst {
			return value{}, false
		}
		switch {
		case c.konst == nil:
			null = true
		case c.konst.(int64) == 1:
			res = 1
		}
	}
	switch {
	case res == 1:
	case null:
		return constOf(nil, tBool, "?column?"), true
	}
	if not {
		res = 1 - res
	}
	return constOf(res, tBool, "?column?"), true
}

func (t *translator) between(a *pg_query.A_Expr, sc *scope) (value, error) {
	cond := t.inCond
	t.inCond = false
	bounds := a.GetRexpr().GetList().GetItems()
	if len(bounds) != 2 {
		return value{}, refuse("this BETWEEN form")
	}
	x, err := t.expr(a.GetLexpr(), sc)
	if err != nil {
		return value{}, err
	}
	if err := checkRepeated(x.sql, "a BETWEEN operand"); err != nil {
		return value{}, err
	}
	var parts [2]string
	saved := t.noFold
	defer func() { t.noFold = saved }()
	watch := t.newFoldWatch()
	for i, n := range bounds {
		if i == 1 && parts[0] == "0" {
			// x >= a is false: PostgreSQL's AND (NOT BETWEEN's OR of
			// x < a) is decided and does not fold x <= b.
			t.noFold++
		}
		b, err := t.expr(n, sc)
		if err != nil {
			return value{}, err
		}
		op := ">="
		if i == 1 {
			op = "<="
			x = t.typedParam(x)
		}
		c, err := t.compare(op, x, b)
		if err != nil {
			return value{}, err
		}
		parts[i] = c.sql
		if i == 0 {
			_, _, konst := boolConst(c.sql)
			watch.operand(a.GetLexpr(), konst || varying(n)) // x >= a varies with x or a
		}
	}
	t.noFold = saved
	if err := watch.check("BETWEEN"); err != nil {
		return value{}, err
	}
	// PostgreSQL's parse analysis makes BETWEEN an AND of the two
	// comparisons (NOT BETWEEN an OR of their negations), which its
	// planner folds like any AND: x BETWEEN 32767 AND 10 with a constant
	// x is false, and a CASE arm under it is dropped unevaluated.
	v, _ := foldBool(true, parts[:])
	if !cond {
		if v, err = foldBoolValue(true, parts[:]); err != nil {
			return value{}, err
		}
	}
	if a.GetKind() != pg_query.A_Expr_Kind_AEXPR_NOT_BETWEEN {
		return v, nil
	}
	if b, null, ok := boolConst(v.sql); ok {
		if null {
			return constOf(nil, tBool, "?column?"), nil
		}
		return constOf(1-b, tBool, "?column?"), nil
	}
	return value{sql: "(NOT " + v.sql + ")", typ: tBool, name: "?column?"}, nil
}

// typedParam is v, a placeholder, with the type a context gave it since
// it was translated: PostgreSQL's parse analysis types a placeholder at
// its first use, and BETWEEN uses its operand twice ($1 BETWEEN $2 AND 7
// is $1 >= $2, which makes $1 text, then text <= integer: 42883).
func (t *translator) typedParam(v value) value {
	if v.param != 0 {
		if known := t.params[v.param-1]; known.Name != "" {
			v.typ, v.param = known, 0
		}
	}
	return v
}

// distinct translates IS [NOT] DISTINCT FROM as SQLite's IS NOT / IS.
func (t *translator) distinct(a *pg_query.A_Expr, sc *scope) (value, error) {
	l, r, err := t.operands(a, sc)
	if err != nil {
		return value{}, err
	}
	// PostgreSQL reads x IS [NOT] DISTINCT FROM NULL (the NULL literal, on
	// either side) as x IS [NOT] NULL: x is not compared, so a placeholder
	// there takes no type from it (42P18 when nothing else types it).
	if l.null && !r.null {
		l, r = r, l
	}
	if r.null {
		test := &pg_query.NullTest{Nulltesttype: pg_query.NullTestType_IS_NOT_NULL}
		if a.GetKind() == pg_query.A_Expr_Kind_AEXPR_NOT_DISTINCT {
			test.Nulltesttype = pg_query.NullTestType_IS_NULL
		}
		return t.nullTestOf(l, test), nil
	}
	ls, rs, err := t.comparison("=", l, r)
	if err != nil {
		return value{}, err
	}
	op := " IS NOT "
	if a.GetKind() == pg_query.A_Expr_Kind_AEXPR_NOT_DISTINCT {
		op = " IS "
	}
	return value{sql: "(" + ls + op + rs + ")", typ: tBool, name: "?column?"}, nil
}

func (t *translator) nullif(a *pg_query.A_Expr, sc *scope) (value, error) {
	l, r, err := t.operands(a, sc)
	if err != nil {
		return value{}, err
	}
	// The operator first: NULLIF('x', json) is 42883, not json's 22P02.
	if _, err := t.compare("=", l, r); err != nil {
		return value{}, err
	}
	if l.untyped() && !r.untyped() {
		if l, err = t.retype(l, r.typ); err != nil {
			return value{}, err
		}
	}
	ll, rr, err := t.unify(l, r)
	if err != nil {
		return value{}, err
	}
	if ll.typ.Name == "jsonb" {
		return jsonbNullif(ll, rr), nil
	}
	// numeric beside another number meets it as = does (numeric with an
	// integer, float8 with a float), and NULLIF returns the left operand
	// so converted: NULLIF(numeric, float8) is float8. A real stays real:
	// = has real-with-double operators (float48eq), so NULLIF(real,
	// numeric) compares at double precision and returns the real, whose
	// value the double holds exactly.
	real := ll.typ.Name == "float4"
	if ll, rr, err = t.mixedSides(ll, rr); err != nil {
		return value{}, err
	}
	typ := nullifType(ll.typ, rr.typ)
	if real {
		typ = Type{Name: "float4", Typmod: -1}
	}
	if typ.Name == l.typ.Name && typ.Typmod < 0 {
		// The comparison reads numeric(10,3) as numeric, a coercion
		// that changes nothing, and NULLIF's typmod is its first
		// operand's (exprTypmod of a NullIfExpr): numeric(10,3) is
		// shown (random 7603/713).
		typ.Typmod = l.typ.Typmod
	}
	ls, rs, _ := comparable(ll, rr)
	if ls != ll.sql && ls != withRtrim(ll) {
		// The comparison converts the first operand (an integer to a
		// float, a date to a timestamp ...), which NULLIF returns as it is.
		return value{}, refuse("NULLIF comparing %s with %s", label(ll.typ), label(rr.typ))
	}
	if v, ok := foldNullif(ll, rr, t.noFold == 0); ok {
		v.typ = typ
		return v, nil
	}
	return value{sql: "NULLIF(" + ls + ", " + rs + ")", typ: typ, name: "nullif"}, nil
}

// nullifType is NULLIF's result type: its first operand's as the =
// operator PostgreSQL resolves reads it. varchar has no = of its own, so
// a varchar is compared (and returned) as text, or as char beside char.
func nullifType(l, r Type) Type {
	switch {
	case l.Name != "varchar":
		return l
	case r.Name == "bpchar":
		return Type{Name: "bpchar", Typmod: -1}
	}
	return tText
}

// ownVars reports whether an IN list's item has a column of the IN's own
// query level, as PostgreSQL's transformAExprIn asks
// (contain_vars_of_level(item, 0)), or a subquery (taken as having one):
// a column of an enclosing query is a parameter of this level, so
// t0.c3 IN ('…', t0.c1) inside a subquery of t0's query makes an array
// of the common type of all three (random 7602/1711).
func ownVars(n proto.Message, sc *scope) bool {
	switch x := n.(type) {
	case *pg_query.ColumnRef:
		return resolvesHere(x, sc)
	case *pg_query.SubLink:
		return true
	}
	return !childrenAll(n, func(c proto.Message) bool { return !ownVars(c, sc) })
}

// resolvesHere reports whether ref is a column of sc's own relations
// (an ambiguous or unknown one counts: its error comes from translating
// it).
func resolvesHere(ref *pg_query.ColumnRef, sc *scope) bool {
	if sc == nil {
		return true
	}
	var parts []string
	for _, f := range ref.GetFields() {
		if f.GetAStar() != nil {
			return true
		}
		parts = append(parts, strNode(f))
	}
	_, found, err := sc.lookup(parts)
	if found || err != nil {
		return true
	}
	for s := sc.parent; s != nil; s = s.parent {
		if _, found, _ := s.lookup(parts); found {
			return false
		}
	}
	return true
}
