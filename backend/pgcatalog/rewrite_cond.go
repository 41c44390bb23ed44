package pgcatalog

import (
	"strconv"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// branches rewrites the branches of CASE, COALESCE, GREATEST and LEAST
// and gives them one type: the first typed branch's (text if none).
func (r *rewriter) branches(nodes []*pg_query.Node, sc *scope) ([]val, string, error) {
	vs := make([]val, len(nodes))
	typ := unknownType
	for i, n := range nodes {
		v, err := r.expr(n, sc)
		if err != nil {
			return nil, "", err
		}
		typ = commonType(typ, v.typ)
		vs[i] = v
	}
	for i := range vs {
		vs[i] = r.coerce(vs[i], typ)
	}
	return vs, typ, nil
}

// bounds is the lower bound of arrays chosen among branches: 0 when every
// branch's is (NULL aside), mixed when some are.
func bounds(v val, vs []val) val {
	some, all := false, true
	for _, b := range vs {
		if b.sql == "NULL" {
			continue
		}
		some = some || b.lb0 || b.lbMixed
		all = all && b.lb0
	}
	v.lb0, v.lbMixed = some && all, some && !all
	return v
}

func (r *rewriter) caseExpr(c *pg_query.CaseExpr, sc *scope) (val, error) {
	// PostgreSQL resolves the type with ELSE first (ties go to it).
	var results []*pg_query.Node
	if c.GetDefresult() != nil {
		results = append(results, c.GetDefresult())
	}
	for _, w := range c.GetArgs() {
		results = append(results, w.GetCaseWhen().GetResult())
	}
	vs, typ, err := r.branches(results, sc)
	if err != nil {
		return val{}, err
	}
	if c.GetDefresult() != nil {
		vs = append(vs[1:], vs[0]) // WHEN results, then ELSE
	}
	var b strings.Builder
	b.WriteString("CASE")
	var arg val
	if c.GetArg() != nil {
		if arg, err = r.expr(c.GetArg(), sc); err != nil {
			return val{}, err
		}
		b.WriteString(" " + arg.sql)
	}
	for i, w := range c.GetArgs() {
		cond, err := r.expr(w.GetCaseWhen().GetExpr(), sc)
		if err != nil {
			return val{}, err
		}
		if c.GetArg() != nil {
			_, cond = r.unify(arg, cond)
		} else {
			cond = r.coerce(cond, "bool")
		}
		b.WriteString(" WHEN " + cond.sql + " THEN " + vs[i].sql)
	}
	if c.GetDefresult() != nil {
		b.WriteString(" ELSE " + vs[len(vs)-1].sql)
	}
	b.WriteString(" END")
	return bounds(val{sql: b.String(), typ: typ}, vs), nil
}

func (r *rewriter) coalesce(args []*pg_query.Node, sc *scope) (val, error) {
	vs, typ, err := r.branches(args, sc)
	if err != nil {
		return val{}, err
	}
	if len(vs) == 1 {
		return vs[0], nil
	}
	return bounds(val{sql: "coalesce(" + joinSQL(vs) + ")", typ: typ}, vs), nil
}

// minMax is GREATEST and LEAST, which ignore NULLs (SQLite's max(a, b)
// does not).
func (r *rewriter) minMax(m *pg_query.MinMaxExpr, sc *scope) (val, error) {
	vs, typ, err := r.branches(m.GetArgs(), sc)
	if err != nil {
		return val{}, err
	}
	agg := "min"
	if m.GetOp() == pg_query.MinMaxOp_IS_GREATEST {
		agg = "max"
	}
	var arms []string
	for _, v := range vs {
		arms = append(arms, "SELECT "+v.sql+" AS v")
	}
	return val{sql: "(SELECT " + agg + "(v) FROM (" + strings.Join(arms, " UNION ALL ") + "))", typ: typ}, nil
}

func joinSQL(vs []val) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = v.sql
	}
	return strings.Join(parts, ", ")
}

// subLink rewrites EXISTS, scalar, IN/ANY/ALL and ARRAY subqueries.
func (r *rewriter) subLink(s *pg_query.SubLink, sc *scope) (val, error) {
	sel := s.GetSubselect().GetSelectStmt()
	if sel == nil {
		return val{}, refuse("this subquery")
	}
	q, err := r.query(sel, sc)
	if err != nil {
		return val{}, err
	}
	switch s.GetSubLinkType() {
	case pg_query.SubLinkType_EXISTS_SUBLINK:
		return val{sql: "EXISTS (" + q.sql + ")", typ: "bool"}, nil
	case pg_query.SubLinkType_EXPR_SUBLINK:
		if len(q.cols) != 1 {
			return val{}, pgErr("42601", "subquery must return only one column")
		}
		// SQLite takes a scalar subquery's first row; PostgreSQL fails
		// on a second.
		return val{sql: "(SELECT CASE WHEN count(*) > 1 THEN " +
			raiseSQL("21000", "more than one row returned by a subquery used as an expression") +
			" ELSE min(c1) END FROM (SELECT c1 FROM (" + q.sql + ") LIMIT 2))", typ: q.cols[0].typ}, nil
	case pg_query.SubLinkType_ARRAY_SUBLINK:
		if len(q.cols) != 1 {
			return val{}, pgErr("42601", "subquery must return only one column")
		}
		return val{sql: "(SELECT json_group_array(" + colName(0) + ") FROM (" + q.sql + "))", typ: arrayOf(q.cols[0].typ)}, nil
	case pg_query.SubLinkType_ANY_SUBLINK, pg_query.SubLinkType_ALL_SUBLINK:
		return r.inSubquery(s, q, sc)
	}
	return val{}, refuse("the subquery kind %s", s.GetSubLinkType())
}

// inSubquery is `x IN (subquery)`, `x op ANY (subquery)` and
// `x op ALL (subquery)`.
func (r *rewriter) inSubquery(s *pg_query.SubLink, q *selectOut, sc *scope) (val, error) {
	if s.GetTestexpr().GetRowExpr() != nil {
		return r.rowInSubquery(s, q, sc)
	}
	if len(q.cols) != 1 {
		return val{}, pgErr("42601", "subquery has too many columns")
	}
	op := "="
	if len(s.GetOperName()) > 0 {
		var err error
		if op, err = opName(s.GetOperName()); err != nil {
			return val{}, err
		}
	}
	c, ok := comparisons[op]
	if !ok {
		return val{}, refuse("%s ANY/ALL (subquery)", op)
	}
	l, err := r.expr(s.GetTestexpr(), sc)
	if err != nil {
		return val{}, err
	}
	l = r.coerce(l, q.cols[0].typ)
	any := s.GetSubLinkType() == pg_query.SubLinkType_ANY_SUBLINK
	switch {
	case any && c == "=":
		return val{sql: "(" + l.sql + " IN (" + q.sql + "))", typ: "bool"}, nil
	case !any && c == "<>":
		return val{sql: "(" + l.sql + " NOT IN (" + q.sql + "))", typ: "bool"}, nil
	case any:
		return val{sql: "EXISTS (SELECT 1 FROM (" + q.sql + ") AS _s WHERE " + l.sql + " " + c + " _s.c1)", typ: "bool"}, nil
	}
	return val{sql: "NOT EXISTS (SELECT 1 FROM (" + q.sql + ") AS _s WHERE NOT (" + l.sql + " " + c + " _s.c1))", typ: "bool"}, nil
}

// arrayExpr is ARRAY[…]: a JSON array.
func (r *rewriter) arrayExpr(elems []*pg_query.Node, sc *scope) (val, error) {
	vs, typ, err := r.branches(elems, sc)
	if err != nil {
		return val{}, err
	}
	if isArray(typ) {
		return val{}, refuse("multidimensional arrays")
	}
	return val{sql: "json_array(" + joinSQL(vs) + ")", typ: arrayOf(typ)}, nil
}

// indirection is arr[i] (1-based; int2vector and oidvector 0-based).
func (r *rewriter) indirection(a *pg_query.A_Indirection, sc *scope) (val, error) {
	v, err := r.expr(a.GetArg(), sc)
	if err != nil {
		return val{}, err
	}
	for _, ind := range a.GetIndirection() {
		if f := ind.GetString_(); f != nil && v.fields != nil {
			found := false
			for _, fc := range v.fields {
				if fc.name == f.GetSval() {
					v, found = val{sql: fc.sql, typ: fc.typ}, true
					break
				}
			}
			if !found {
				return val{}, pgErr("42703", "column %q not found in data type record", f.GetSval())
			}
			continue
		}
		idx := ind.GetAIndices()
		if idx == nil || idx.GetIsSlice() {
			return val{}, refuse("field selection and array slices")
		}
		if !isArray(v.typ) && !isVector(v.typ) {
			return val{}, pgErr("42804", "cannot subscript type %s because it does not support subscripting", v.typ)
		}
		i, err := r.expr(idx.GetUidx(), sc)
		if err != nil {
			return val{}, err
		}
		i = r.coerce(i, "int4")
		if v.lbMixed {
			return val{}, refuse("subscripts of an array whose lower bound varies by row")
		}
		base := 1
		if isVector(v.typ) || v.lb0 {
			base = 0
		}
		if k, err := strconv.Atoi(i.sql); err == nil && k >= base {
			v = val{sql: "json_extract(" + v.sql + ", '$[" + strconv.Itoa(k-base) + "]')", typ: elemType(v.typ)}
			continue
		}
		v = val{sql: "(SELECT _e.value FROM json_each(" + v.sql + ") AS _e WHERE _e.key = " + i.sql + " - " +
			strconv.Itoa(base) + ")", typ: elemType(v.typ)}
	}
	return v, nil
}

// rowInSubquery is (a, b) [NOT] IN (SELECT x, y …) (= ANY, <> ALL).
func (r *rewriter) rowInSubquery(s *pg_query.SubLink, q *selectOut, sc *scope) (val, error) {
	op := "="
	if len(s.GetOperName()) > 0 {
		var err error
		if op, err = opName(s.GetOperName()); err != nil {
			return val{}, err
		}
	}
	any := s.GetSubLinkType() == pg_query.SubLinkType_ANY_SUBLINK
	if !(any && op == "=") && !(!any && (op == "<>" || op == "!=")) {
		return val{}, refuse("row %s ANY/ALL (subquery)", op)
	}
	l, err := r.rows(s.GetTestexpr(), sc)
	if err != nil {
		return val{}, err
	}
	if len(l) != len(q.cols) {
		return val{}, pgErr("42601", "subquery has too %s columns", map[bool]string{true: "many", false: "few"}[len(q.cols) > len(l)])
	}
	for i := range l {
		l[i] = r.coerce(l[i], q.cols[i].typ)
	}
	not := ""
	if !any {
		not = "NOT "
	}
	return val{sql: "((" + joinSQL(l) + ") " + not + "IN (" + q.sql + "))", typ: "bool"}, nil
}
