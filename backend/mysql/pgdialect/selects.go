package pgdialect

import (
	"regexp"
	"strconv"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// topSelect translates a statement SELECT. One without FROM reads a
// one-row derived table: MariaDB keeps the diagnostics (SHOW WARNINGS) of
// the statement before a statement that reads no table, so the caller's
// warning check would see that statement's warnings.
func (t *translator) topSelect(s *pg_query.SelectStmt) error {
	t.oneRow = len(s.GetFromClause()) == 0
	sql, cols, err := t.selectSQL(s, nil)
	if err != nil {
		return err
	}
	t.out.Statements = []string{sql}
	t.out.Columns = cols
	t.out.Ordered = len(s.GetSortClause()) > 0
	t.out.CheckWarnings = true
	return nil
}

// selectSQL translates a SELECT (its scope inside the current one);
// extra are select-list items appended (an INSERT's explicit NULLs).
func (t *translator) selectSQL(s *pg_query.SelectStmt, extra []string) (string, []ResultColumn, error) {
	switch {
	case s.GetOp() != pg_query.SetOperation_SETOP_NONE:
		return "", nil, refuse("set operations (UNION, INTERSECT, EXCEPT)")
	case s.GetWithClause() != nil:
		return "", nil, refuse("WITH (common table expressions)")
	case len(s.GetValuesLists()) > 0:
		return "", nil, refuse("VALUES other than in FROM or INSERT")
	case len(s.GetWindowClause()) > 0, len(s.GetLockingClause()) > 0, s.GetIntoClause() != nil:
		return "", nil, refuse("WINDOW, FOR UPDATE/SHARE and SELECT INTO")
	case len(s.GetDistinctClause()) > 1 || (len(s.GetDistinctClause()) == 1 && s.GetDistinctClause()[0].GetNode() != nil):
		return "", nil, refuse("DISTINCT ON")
	}
	insertTypes := t.insertTypes
	t.insertTypes = nil
	t.push()
	defer t.pop()
	savedAgg := t.sawAgg
	t.sawAgg = false
	defer func() { t.sawAgg = savedAgg }()
	b := &strings.Builder{}
	b.WriteString("SELECT ")
	if len(s.GetDistinctClause()) == 1 {
		b.WriteString("DISTINCT ")
	}
	refMark := len(t.refScopes)
	from, err := t.fromList(s.GetFromClause())
	if err != nil {
		return "", nil, err
	}
	if t.oneRow {
		t.oneRow, from = false, "(SELECT 1) AS "+quoteIdent("relchain_one")
	}
	// PostgreSQL analyses the select list before WHERE (the first error
	// is the first it meets); GROUP BY's columns are known from the start
	grouped, err := t.groupKeys(s.GetGroupClause())
	if err != nil {
		return "", nil, err
	}
	t.scope.grouped = grouped
	targets, cols, err := t.targets(s.GetTargetList(), insertTypes)
	t.scope.grouped = nil
	if err != nil {
		return "", nil, err
	}
	where, err := t.condition(s.GetWhereClause(), "WHERE")
	if err != nil {
		return "", nil, err
	}
	group, err := t.groupBy(s.GetGroupClause())
	if err != nil {
		return "", nil, err
	}
	having, err := t.condition(s.GetHavingClause(), "HAVING")
	if err != nil {
		return "", nil, err
	}
	order, err := t.orderBy(s.GetSortClause(), cols, targets)
	if err != nil {
		return "", nil, err
	}
	if isExprLimit(s.GetLimitCount()) || isExprLimit(s.GetLimitOffset()) {
		if len(s.GetDistinctClause()) > 0 || len(extra) > 0 {
			return "", nil, refuse("LIMIT/OFFSET expressions with DISTINCT")
		}
		sql, err := t.paged(s, targets, from+where+group+having, order, t.refScopes[refMark:])
		return sql, cols, err
	}
	limit, err := t.limit(s)
	if err != nil {
		return "", nil, err
	}
	items := make([]string, 0, len(targets)+len(extra))
	for i, v := range targets {
		items = append(items, v.sql+" AS "+quoteIdent(cols[i].Name))
	}
	items = append(items, extra...)
	b.WriteString(join(items, ", "))
	if from != "" {
		b.WriteString(" FROM " + from)
	}
	b.WriteString(where + group + having + order + limit)
	if len(targets) > 0 {
		t.lastScale = targets[0].scale
	}
	return b.String(), cols, nil
}

// condition translates a WHERE or HAVING condition (" WHERE x"; "" when
// absent).
func (t *translator) condition(n *pg_query.Node, what string) (string, error) {
	if n == nil {
		return "", nil
	}
	saw := t.sawAgg
	t.sawAgg = false
	v, err := t.expr(n)
	if err != nil {
		return "", err
	}
	if t.sawAgg && what != "HAVING" {
		return "", pgError("42803", "aggregate functions are not allowed in %s", what)
	}
	t.sawAgg = t.sawAgg || saw
	if v, err = t.wantBool(v, "argument of "+what); err != nil {
		return "", err
	}
	return " " + what + " " + v.sql, nil
}

// groupBy translates GROUP BY column references and turns on the check of
// columns outside aggregates.
func (t *translator) groupBy(items []*pg_query.Node) (string, error) {
	if len(items) == 0 {
		return "", nil
	}
	grouped, err := t.groupKeys(items)
	if err != nil {
		return "", err
	}
	var parts []string
	for _, it := range items {
		v, err := t.expr(it)
		if err != nil {
			return "", err
		}
		parts = append(parts, v.sql)
	}
	t.scope.grouped = grouped
	return " GROUP BY " + join(parts, ", "), nil
}

// groupKeys are the column references ("rel.col") GROUP BY items name,
// nil without GROUP BY.
func (t *translator) groupKeys(items []*pg_query.Node) (map[string]bool, error) {
	if len(items) == 0 {
		return nil, nil
	}
	grouped := map[string]bool{}
	for _, it := range items {
		key, ok := t.columnKey(it)
		if !ok {
			return nil, refuse("GROUP BY items other than columns of the FROM items")
		}
		grouped[key] = true
	}
	return grouped, nil
}

// targets translates the select list, naming each column as PostgreSQL
// does.
// An INSERT ... SELECT's untyped items take the target columns' types
// (into), as PostgreSQL resolves them.
func (t *translator) targets(list []*pg_query.Node, into []Type) ([]val, []ResultColumn, error) {
	var vs []val
	var cols []ResultColumn
	for _, n := range list {
		rt := n.GetResTarget()
		if cr := rt.GetVal().GetColumnRef(); cr != nil && cr.GetFields()[len(cr.GetFields())-1].GetAStar() != nil {
			sv, sc, err := t.star(cr)
			if err != nil {
				return nil, nil, err
			}
			vs, cols = append(vs, sv...), append(cols, sc...)
			continue
		}
		v, err := t.exprAny(rt.GetVal())
		if err != nil {
			return nil, nil, err
		}
		want := tText
		if len(vs) < len(into) {
			want = into[len(vs)]
		}
		if err := settled(v, want); err != nil {
			return nil, nil, err
		}
		if v, err = t.coerce(v, want); err != nil {
			return nil, nil, err
		}
		name := rt.GetName()
		if name == "" {
			name = colName(rt.GetVal())
		}
		vs = append(vs, v)
		cols = append(cols, ResultColumn{Name: name, Type: v.typ})
	}
	return vs, cols, nil
}

// star expands * and rel.*.
func (t *translator) star(cr *pg_query.ColumnRef) ([]val, []ResultColumn, error) {
	rn := ""
	if f := cr.GetFields(); len(f) == 2 {
		rn = strNode(f[0])
	}
	var vs []val
	var cols []ResultColumn
	found := false
	for _, r := range t.scope.rels {
		if rn != "" && r.name != rn {
			continue
		}
		found = true
		for _, c := range r.cols {
			v, err := t.columnRef(&pg_query.ColumnRef{Fields: []*pg_query.Node{pg_query.MakeStrNode(r.name), pg_query.MakeStrNode(c.Name)}})
			if err != nil {
				return nil, nil, err
			}
			vs = append(vs, v)
			cols = append(cols, ResultColumn{Name: c.Name, Type: c.Type})
		}
	}
	if !found {
		return nil, nil, pgError("42P01", "missing FROM-clause entry for table %q", rn)
	}
	return vs, cols, nil
}

// colName is the name PostgreSQL gives an unnamed select-list item
// (FigureColname).
func colName(n *pg_query.Node) string {
	name, _ := figureColname(n)
	return name
}

// figureColname is PostgreSQL's FigureColnameInternal: a name and its
// strength (2 a column or function name, 1 a type or keyword name, 0
// none: "?column?").
func figureColname(n *pg_query.Node) (string, int) {
	switch x := n.GetNode().(type) {
	case *pg_query.Node_ColumnRef:
		f := x.ColumnRef.GetFields()
		if name := strNode(f[len(f)-1]); name != "" {
			return name, 2
		}
	case *pg_query.Node_FuncCall:
		f := x.FuncCall.GetFuncname()
		return strNode(f[len(f)-1]), 2
	case *pg_query.Node_TypeCast:
		if name, s := figureColname(x.TypeCast.GetArg()); s > 1 {
			return name, s
		}
		names := x.TypeCast.GetTypeName().GetNames()
		if len(names) > 0 {
			return strNode(names[len(names)-1]), 1
		}
	case *pg_query.Node_CaseExpr:
		if d := x.CaseExpr.GetDefresult(); d != nil {
			if name, s := figureColname(d); s > 1 {
				return name, s
			}
		}
		return "case", 1
	case *pg_query.Node_CoalesceExpr:
		return "coalesce", 2
	case *pg_query.Node_SubLink:
		return sublinkName(x.SubLink)
	}
	return "?column?", 0
}

// sublinkName is a subquery's column name (FigureColnameInternal).
func sublinkName(s *pg_query.SubLink) (string, int) {
	switch s.GetSubLinkType() {
	case pg_query.SubLinkType_EXISTS_SUBLINK:
		return "exists", 2
	case pg_query.SubLinkType_EXPR_SUBLINK:
		if tl := s.GetSubselect().GetSelectStmt().GetTargetList(); len(tl) > 0 {
			if rt := tl[0].GetResTarget(); rt.GetName() != "" {
				return rt.GetName(), 2
			}
			return figureColname(tl[0].GetResTarget().GetVal())
		}
	}
	return "?column?", 0
}

// sortChars bounds the text values ORDER BY sorts: the caller sets
// max_sort_length to 4096 bytes, 4 per character at most.
const sortChars = 1024

// orderBy translates ORDER BY with PostgreSQL's NULL order: NULLS LAST
// ascending, NULLS FIRST descending (MariaDB puts NULLs first ascending),
// by an explicit key (x IS NULL) unless x is a NOT NULL column.
func (t *translator) orderBy(items []*pg_query.Node, cols []ResultColumn, targets []val) (string, error) {
	var parts []string
	for _, it := range items {
		sb := it.GetSortBy()
		v, err := t.sortKey(sb.GetNode(), cols, targets)
		if err != nil {
			return "", err
		}
		if v, err = t.coerce(v, tText); err != nil {
			return "", err
		}
		if v.typ.Name == "bytea" {
			return "", refuse("ORDER BY bytea")
		}
		if isText(v.typ) && (v.maxLen == 0 || v.maxLen > sortChars) {
			return "", refuse("ORDER BY text not bounded to %d characters (MariaDB sorts by the first max_sort_length bytes only: varchar(n) columns and expressions over them are bounded)", sortChars)
		}
		if sb.GetSortbyDir() == pg_query.SortByDir_SORTBY_USING {
			return "", refuse("ORDER BY ... USING")
		}
		if constantKey(v.sql) {
			// orders nothing; MariaDB would read a number there as a
			// position (ORDER BY -1: "unknown column")
			continue
		}
		desc := sb.GetSortbyDir() == pg_query.SortByDir_SORTBY_DESC
		nullsFirst := desc
		switch sb.GetSortbyNulls() {
		case pg_query.SortByNulls_SORTBY_NULLS_FIRST:
			nullsFirst = true
		case pg_query.SortByNulls_SORTBY_NULLS_LAST:
			nullsFirst = false
		}
		dir := ""
		if desc {
			dir = " DESC"
		}
		if !v.notNull && nullsFirst == desc {
			// MariaDB's default is the opposite of the wanted place.
			if nullsFirst {
				parts = append(parts, "("+v.sql+" IS NULL) DESC")
			} else {
				parts = append(parts, "("+v.sql+" IS NULL)")
			}
		}
		parts = append(parts, v.sql+dir)
	}
	if len(parts) == 0 {
		return "", nil
	}
	return " ORDER BY " + join(parts, ", "), nil
}

// constantKeyRE matches a translated sort key that is a number, a boolean
// or NULL.
var constantKeyRE = regexp.MustCompile(`^\(*(NULL|TRUE|FALSE|-?[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?)\)*$`)

// constantKey: sql, a sort key's MariaDB text, is a constant number, boolean or
// NULL, which orders no rows.
func constantKey(sql string) bool { return constantKeyRE.MatchString(sql) }

// sortKey resolves an ORDER BY item: an output column's position or name,
// else an expression over the FROM items.
func (t *translator) sortKey(n *pg_query.Node, cols []ResultColumn, targets []val) (val, error) {
	if c := n.GetAConst(); c != nil && c.GetIval() != nil {
		i := int(c.GetIval().GetIval())
		if i < 1 || i > len(targets) {
			return val{}, pgError("42P10", "ORDER BY position %d is not in select list", i)
		}
		return targets[i-1], nil
	}
	if cr := n.GetColumnRef(); cr != nil && len(cr.GetFields()) == 1 {
		name := strNode(cr.GetFields()[0])
		match := -1
		for i, c := range cols {
			if c.Name == name {
				// PostgreSQL: ambiguous unless the items are equal
				// expressions (findTargetlistEntrySQL92's equal()), which
				// a cast MariaDB's text drops (id, id::int8) is not.
				if match >= 0 && (targets[i].sql != targets[match].sql || targets[i].typ != targets[match].typ) {
					return val{}, pgError("42702", "ORDER BY %q is ambiguous", name)
				}
				match = i
			}
		}
		if match >= 0 {
			return targets[match], nil
		}
	}
	return t.expr(n)
}

// limit translates constant LIMIT and OFFSET (others are paged's).
func (t *translator) limit(s *pg_query.SelectStmt) (string, error) {
	if s.GetLimitOption() == pg_query.LimitOption_LIMIT_OPTION_WITH_TIES {
		return "", refuse("FETCH ... WITH TIES")
	}
	lim, err := t.limitValue(s.GetLimitCount(), "LIMIT")
	if err != nil {
		return "", err
	}
	off, err := t.limitValue(s.GetLimitOffset(), "OFFSET")
	if err != nil {
		return "", err
	}
	switch {
	case lim == "" && off == "":
		return "", nil
	case lim == "":
		lim = "18446744073709551615"
	}
	out := " LIMIT " + lim
	if off != "" {
		out += " OFFSET " + off
	}
	return out, nil
}

// limitValue is one LIMIT or OFFSET value.
func (t *translator) limitValue(n *pg_query.Node, what string) (string, error) {
	if n == nil {
		return "", nil
	}
	if c := n.GetAConst(); c != nil && c.GetIval() != nil {
		if v := c.GetIval().GetIval(); v < 0 {
			code := "2201W"
			if what == "OFFSET" {
				code = "2201X"
			}
			return "", pgError(code, "%s must not be negative", what)
		} else {
			return strconv.Itoa(int(v)), nil
		}
	}
	return "", refuse("%s other than a constant", what)
}

// isExprLimit: a LIMIT or OFFSET value other than a constant: an
// expression or a parameter (MariaDB reads a negative placeholder value
// as a huge unsigned one, and fails a NULL one, where PostgreSQL fails
// and takes no limit).
func isExprLimit(n *pg_query.Node) bool {
	return n != nil && n.GetAConst() == nil
}

// paged translates a SELECT whose LIMIT or OFFSET is an expression or a
// parameter (MariaDB takes only constants and placeholders there, and a
// placeholder's negative value silently): the rows are
// numbered in the ORDER BY's order and those after the offset kept. The
// expressions see the enclosing query, as PostgreSQL's; the numbered
// query, a derived table, must not refer to an enclosing query's columns
// (MariaDB's derived tables do not see them). A negative value fails with
// class 22 as PostgreSQL's 2201W/2201X; NULL is no limit, no offset.
func (t *translator) paged(s *pg_query.SelectStmt, targets []val, body, order string, refs []*scope) (string, error) {
	if order == "" {
		return "", refuse("LIMIT/OFFSET expressions without ORDER BY")
	}
	for _, sc := range refs {
		for a := t.scope.parent; a != nil; a = a.parent {
			if sc == a {
				return "", refuse("LIMIT/OFFSET expressions in a subquery referring to an enclosing query's columns")
			}
		}
	}
	inner := t.scope
	t.scope = inner.parent
	off, err := t.pageValue(s.GetLimitOffset(), "OFFSET")
	if err != nil {
		t.scope = inner
		return "", err
	}
	lim, err := t.pageValue(s.GetLimitCount(), "LIMIT")
	t.scope = inner
	if err != nil {
		return "", err
	}
	var items, outer []string
	for i, v := range targets {
		c := quoteIdent("relchain_c" + strconv.Itoa(i+1))
		items = append(items, v.sql+" AS "+c)
		outer = append(outer, c)
	}
	rn := quoteIdent("relchain_rn")
	sql := "SELECT " + join(items, ", ") + ", ROW_NUMBER() OVER (" + strings.TrimPrefix(order, " ") + ") AS " + rn
	if body != "" && !strings.HasPrefix(body, " ") {
		sql += " FROM " + body
	} else {
		sql += body
	}
	cond := rn + " > " + off
	if lim != "" {
		cond += " AND (" + lim + " IS NULL OR " + rn + " <= " + off + " + " + lim + ")"
	}
	return "SELECT " + join(outer, ", ") + " FROM (" + sql + ") AS " + quoteIdent("relchain_o") + " WHERE " + cond + " ORDER BY " + rn, nil
}

// pageValue is a LIMIT or OFFSET value of paged: an integer, checked
// not negative ("0" when absent; OFFSET NULL is 0).
func (t *translator) pageValue(n *pg_query.Node, what string) (string, error) {
	if n == nil {
		if what == "OFFSET" {
			return "0", nil
		}
		return "", nil
	}
	v, err := t.expr(n)
	if err != nil {
		return "", err
	}
	if v, err = t.coerce(v, tInt8); err != nil {
		return "", err
	}
	if intRank(v.typ) == 0 {
		return "", refuse("a %s of type %s", what, v.typ.Name)
	}
	checked := "(CASE WHEN " + v.sql + " < 0 THEN 9223372036854775807 + ABS(" + v.sql + ") ELSE " + v.sql + " END)"
	if what == "OFFSET" {
		return "COALESCE(" + checked + ", 0)", nil
	}
	return checked, nil
}
