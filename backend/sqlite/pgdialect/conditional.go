package pgdialect

import (
	"strconv"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

func itoa(i int) string { return strconv.Itoa(i) }

// datetimeRank orders the date and time types by PostgreSQL's implicit
// casts: date to timestamp to timestamptz.
var datetimeRank = map[string]int{"date": 1, "timestamp": 2, "timestamptz": 3}

// commonType resolves the result type of CASE, COALESCE and set
// operations as PostgreSQL does for the supported types: untyped values
// take the others' type (all untyped: text), integers widen, integers and
// floats meet in float8; other mixtures are an error (42804).
func commonType(what string, vals []value) (Type, error) {
	res := tUnknown
	for _, v := range vals {
		switch {
		case v.untyped():
		case res.Name == "unknown":
			res = v.typ
		case res == v.typ:
		case isNum(res) && isNum(v.typ):
			res = commonNum(res, v.typ)
		case stringType(res) && stringType(v.typ):
			// Between text, varchar and char both directions are
			// implicit casts: the first type stays (varchar ∪ text is
			// varchar, char ∪ text char, text ∪ char text), typmods that
			// differ are lost.
			if res.Typmod != v.typ.Typmod {
				res = Type{Name: res.Name, Typmod: -1}
			}
		case datetimeRank[res.Name] > 0 && datetimeRank[v.typ.Name] > 0:
			if datetimeRank[v.typ.Name] > datetimeRank[res.Name] {
				res = v.typ
			}
		default:
			return Type{}, pgError("42804", "%s types %s and %s cannot be matched", what, label(res), label(v.typ))
		}
	}
	if res.Name == "unknown" {
		return tText, nil
	}
	for _, v := range vals {
		if v.untyped() && res.Typmod != -1 {
			// select_common_typmod: a typmod is kept only when every
			// input has it, and an untyped literal or NULL read as the
			// type has none (COALESCE(numeric(8,2) column, '1') is 1, not
			// 1.00; with a char(3) column 'x' is not padded).
			return Type{Name: res.Name, Typmod: -1}, nil
		}
	}
	return res, nil
}

// commonNum is select_common_type of two number types: an integer or
// numeric converts to real implicitly and real to neither, so real with
// them is real (COALESCE(real, numeric) is real, where real + numeric is
// double precision); otherwise the wider type, as arithmetic's.
func commonNum(a, b Type) Type {
	if (a.Name == "float4" && b.Name != "float8") || (b.Name == "float4" && a.Name != "float8") {
		return Type{Name: "float4", Typmod: -1}
	}
	return widerNum(a, b)
}

// stringType: text, varchar and char(n), PostgreSQL's string category.
func stringType(t Type) bool { return isText(t) || t.Name == "bpchar" }

// coerceAll converts vals to typ (implicitly).
func (t *translator) coerceAll(vals []value, typ Type) ([]string, error) {
	var out []string
	for _, v := range vals {
		s, err := t.coerce(v, typ, ctxImplicit)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

func (t *translator) caseExpr(c *pg_query.CaseExpr, sc *scope) (value, error) {
	var subject value
	var err error
	if c.GetArg() != nil {
		if subject, err = t.expr(c.GetArg(), sc); err != nil {
			return value{}, err
		}
	}
	var conds []string
	var results []value
	outer := t.noFold
	dead := outer // > outer once an arm folded to true: the rest is dropped
	defer func() { t.noFold = outer }()
	watch := t.newFoldWatch()
	for _, w := range c.GetArgs() {
		cw := w.GetCaseWhen()
		cond, err := t.whenCondition(subject, c.GetArg() != nil, cw.GetExpr(), sc)
		if err != nil {
			return value{}, err
		}
		_, _, konst := boolConst(cond)
		if c.GetArg() != nil && !konst && varying(c.GetArg()) {
			konst = true // compares a varying subject: not folded
		}
		watch.operand(cw.GetExpr(), konst)
		// PostgreSQL drops an arm whose condition folds to false or NULL
		// (its result is never folded) and every arm after one that
		// folds to true.
		t.noFold = dead
		if cond == "0" || cond == "NULL" {
			t.noFold++
		}
		r, err := t.expr(cw.GetResult(), sc)
		if err != nil {
			return value{}, err
		}
		if cond == "1" {
			dead++
		}
		conds, results = append(conds, cond), append(results, r)
	}
	t.noFold = dead
	def := value{sql: "NULL", typ: tUnknown, null: true}
	if c.GetDefresult() != nil {
		if def, err = t.expr(c.GetDefresult(), sc); err != nil {
			return value{}, err
		}
	}
	if err := watch.check("CASE"); err != nil {
		return value{}, err
	}
	// PostgreSQL resolves a CASE's type with its ELSE first.
	typ, err := commonType("CASE", append([]value{def}, results...))
	if err != nil {
		return value{}, err
	}
	t.noFold = outer
	if err := t.readLiterals(append(results, def), typ); err != nil {
		return value{}, err
	}
	t.typeParams(append(results, def), typ)
	v, err := t.caseValue(conds, results, def, typ)
	// PostgreSQL names a CASE after its ELSE result when that has a
	// strong name (a column, a function), with its strength; else "case",
	// which an outer cast renames.
	v.name, v.weak = "case", true
	if def.name != "" && def.name != "?column?" && !def.weak {
		v.name, v.weak = def.name, false
	}
	return v, err
}

// readLiterals reads the untyped string literals among vals as typ, for
// their errors: PostgreSQL's parse analysis converts a literal to the
// type its context resolves (the input function runs then), so CASE
// WHEN true THEN 7 ELSE 'x' END is 22P02 although the planner drops the
// ELSE before anything runs.
func (t *translator) readLiterals(vals []value, typ Type) error {
	for _, v := range vals {
		if v.lit == nil || !v.untyped() {
			continue
		}
		if _, err := t.retype(v, typ); err != nil {
			return err
		}
	}
	return nil
}

// caseValue assembles a CASE as PostgreSQL's planner leaves it: arms
// whose condition is constant false or NULL dropped, an arm whose
// condition is constant true ending it (its result the ELSE), and a CASE
// left with no arm reduced to its ELSE.
func (t *translator) caseValue(conds []string, results []value, def value, typ Type) (value, error) {
	sql := ""
	for i, cond := range conds {
		if v, null, ok := boolConst(cond); ok && (null || v == 0) {
			continue
		}
		if cond == "1" {
			def = results[i]
			break
		}
		out, err := t.coerce(results[i], typ, ctxImplicit)
		if err != nil {
			return value{}, err
		}
		sql += " WHEN " + cond + " THEN " + out
	}
	els, err := t.coerceValue(def, typ, ctxImplicit)
	if err != nil || sql == "" {
		return els, err
	}
	return value{sql: "CASE" + sql + " ELSE " + els.sql + " END", typ: typ}, nil
}

// whenCondition is a WHEN's test: a condition, or subject = expr in the
// simple CASE form.
func (t *translator) whenCondition(subject value, simple bool, n *pg_query.Node, sc *scope) (string, error) {
	if !simple {
		return t.condition(n, sc, "CASE/WHEN")
	}
	v, err := t.expr(n, sc)
	if err != nil {
		return "", err
	}
	c, err := t.compare("=", subject, v)
	return c.sql, err
}

func (t *translator) coalesce(c *pg_query.CoalesceExpr, sc *scope) (value, error) {
	var vals []value
	saved := t.noFold
	defer func() { t.noFold = saved }()
	watch := t.newFoldWatch()
	for _, n := range c.GetArgs() {
		v, err := t.expr(n, sc)
		if err != nil {
			return value{}, err
		}
		// PostgreSQL does not fold the arguments after a non-NULL constant.
		if v.isConst && v.konst != nil || v.lit != nil || v.num != "" {
			t.noFold++
		}
		watch.operand(n, v.isConstant())
		vals = append(vals, v)
	}
	t.noFold = saved
	if err := watch.check("COALESCE"); err != nil {
		return value{}, err
	}
	typ, err := commonType("COALESCE", vals)
	if err != nil {
		return value{}, err
	}
	outs, err := t.coerceAll(vals, typ)
	if err != nil {
		return value{}, err
	}
	t.typeParams(vals, typ)
	// PostgreSQL drops NULL constants from a COALESCE and folds it to its
	// first argument when that is a constant (COALESCE(NULL, 7) is 7).
	first := 0
	for first < len(vals)-1 && (vals[first].null || vals[first].isConst && vals[first].konst == nil) {
		first++
	}
	if len(outs) == 1 || (len(vals) > 0 && (vals[first].isConst && vals[first].konst != nil || vals[first].lit != nil || vals[first].num != "")) {
		v, err := t.coerceValue(vals[first], typ, ctxImplicit)
		v.name = "coalesce"
		return v, err
	}
	return value{sql: "coalesce(" + join(outs, ", ") + ")", typ: typ, name: "coalesce"}, nil
}

// subLink translates scalar, EXISTS, IN and NOT IN subqueries.
func (t *translator) subLink(s *pg_query.SubLink, sc *scope) (value, error) {
	if t.inDDL {
		return value{}, pgError("0A000", "cannot use subquery in check constraint")
	}
	if t.inReturning {
		return value{}, refuse("subqueries in RETURNING")
	}
	q, err := t.subquery(s.GetSubselect(), sc)
	if err != nil {
		return value{}, err
	}
	switch s.GetSubLinkType() {
	case pg_query.SubLinkType_EXISTS_SUBLINK:
		return value{sql: "EXISTS (" + q.sql + ")", typ: tBool, name: "exists"}, nil
	case pg_query.SubLinkType_EXPR_SUBLINK:
		if len(q.cols) != 1 {
			return value{}, pgError("42601", "subquery must return only one column")
		}
		return value{sql: "(SELECT pg_single(q." + quoteIdent(q.cols[0].Name) + ") FROM (" + q.sql + ") AS q)", typ: q.cols[0].Type, name: q.cols[0].Name}, nil
	case pg_query.SubLinkType_ANY_SUBLINK:
		return t.inSubquery(s, q, sc)
	}
	return value{}, refuse("the subquery form %s", s.GetSubLinkType())
}

func (t *translator) inSubquery(s *pg_query.SubLink, q query, sc *scope) (value, error) {
	if len(s.GetOperName()) > 0 && strNode(s.GetOperName()[0]) != "=" {
		return value{}, refuse("ANY/ALL with an operator other than =")
	}
	if len(q.cols) != 1 {
		return value{}, pgError("42601", "subquery has too many columns")
	}
	l, err := t.expr(s.GetTestexpr(), sc)
	if err != nil {
		return value{}, err
	}
	col := value{sql: "x", typ: q.cols[0].Type}
	ls, rs, err := t.comparison("=", l, col)
	if err != nil {
		return value{}, err
	}
	if col.typ.Name == "jsonb" {
		return jsonbInSubquery(ls, q), nil
	}
	if rs != "x" && rs != withRtrim(col) {
		return value{}, refuse("IN (subquery) across integer and float or numeric")
	}
	// PostgreSQL does not evaluate the left side against an empty
	// subquery (SQLite would, and could fail there).
	return value{sql: "(CASE WHEN EXISTS (" + q.sql + ") THEN (" + ls + " IN (" + q.sql + ")) ELSE 0 END)", typ: tBool, name: "?column?"}, nil
}

// minMax translates GREATEST and LEAST, which ignore NULLs (NULL only
// when every argument is): SQLite's max(a, b) is NULL when any is, so
// each argument is taken as coalesce(it, the others...), which is never
// beyond the answer.
func (t *translator) minMax(m *pg_query.MinMaxExpr, sc *scope) (value, error) {
	name, fn := "greatest", "max"
	if m.GetOp() != pg_query.MinMaxOp_IS_GREATEST {
		name, fn = "least", "min"
	}
	vals, err := t.args(m.GetArgs(), sc)
	if err != nil {
		return value{}, err
	}
	typ, err := commonType(strings.ToUpper(name), vals)
	if err != nil {
		return value{}, err
	}
	if isArray(typ) {
		return value{}, refuse("%s of arrays (array order)", name)
	}
	outs, err := t.coerceAll(vals, typ)
	if err != nil {
		return value{}, err
	}
	if v, ok := t.foldMinMax(name, vals, typ); ok {
		return v, nil
	}
	if typ.Name == "json" {
		// After the arguments are read as json: GREATEST('x', j) is
		// json's 22P02, as in PostgreSQL's parse analysis.
		return value{}, pgError("42883", "could not identify a comparison function for type json")
	}
	if err := noJSONBKey(typ, name); err != nil {
		return value{}, err
	}
	if len(outs) == 1 {
		return value{sql: outs[0], typ: typ, name: name}, nil
	}
	var terms []string
	for i := range outs {
		order := append([]string{outs[i]}, append(append([]string{}, outs[:i]...), outs[i+1:]...)...)
		// numeric and char(n) compare under RTRIM (1.0 = 1.00, 'a' =
		// 'a '), as their operators do, not as their stored texts.
		terms = append(terms, withRtrim(value{sql: "coalesce(" + join(order, ", ") + ")", typ: typ}))
	}
	if fn == "min" {
		// Of equal values (1.0 and 1.00, 'a' and 'a ' in char(n))
		// PostgreSQL returns the first; SQLite's max(...) keeps the first,
		// its min(...) the last, so min reads the arguments backwards.
		for i, j := 0, len(terms)-1; i < j; i, j = i+1, j-1 {
			terms[i], terms[j] = terms[j], terms[i]
		}
	}
	return value{sql: fn + "(" + join(terms, ", ") + ")", typ: typ, name: name}, nil
}

// foldMinMax is GREATEST or LEAST of constants, which PostgreSQL's
// planner folds (so a cast of it errs while planning, whatever the WHERE
// says): the first of the greatest (least) values, NULLs ignored.
func (t *translator) foldMinMax(name string, vals []value, typ Type) (value, bool) {
	if t.noFold != 0 || isJSON(typ) || isArray(typ) {
		return value{}, false
	}
	best := nullOf(typ)
	best.isConst = true
	for _, v := range vals {
		if zoneDependent(v.typ, typ) {
			return value{}, false // stable: PostgreSQL does not fold it
		}
		cv, err := t.coerceValue(v, typ, ctxImplicit)
		if err != nil || !cv.isConst {
			return value{}, false
		}
		if cv.konst == nil {
			continue
		}
		if best.konst == nil {
			best = cv
			continue
		}
		c, ok := compareConsts(rtrimmed(best.konst, typ), rtrimmed(cv.konst, typ))
		if !ok {
			return value{}, false
		}
		if (name == "greatest" && c < 0) || (name == "least" && c > 0) {
			best = cv
		}
	}
	best.name, best.weak = name, false
	return best, true
}

// rtrimmed is a constant as its type compares it: numeric's stored key
// and char(n)'s text without the trailing blanks RTRIM ignores.
func rtrimmed(k any, typ Type) any {
	if s, ok := k.(string); ok && (typ.Name == "numeric" || typ.Name == "bpchar") {
		return strings.TrimRight(s, " ")
	}
	return k
}

// typeParams gives bare placeholders among vals type typ (parse analysis
// types them all, even where planning drops the expression).
func (t *translator) typeParams(vals []value, typ Type) {
	for _, v := range vals {
		if v.param != 0 {
			t.param(v.param, typ)
		}
	}
}
