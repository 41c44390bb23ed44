package pgcatalog

import (
	"strconv"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// query rewrites a SELECT (plain, set operation or VALUES) in the scope
// of the enclosing query (nil at the top).
func (r *rewriter) query(s *pg_query.SelectStmt, outer *scope) (*selectOut, error) {
	if s.GetIntoClause() != nil || len(s.GetLockingClause()) > 0 {
		return nil, refuse("SELECT INTO and FOR UPDATE/SHARE")
	}
	sc := &scope{parent: outer, top: outer == nil}
	with, err := r.with(s.GetWithClause(), sc)
	if err != nil {
		return nil, err
	}
	var q *selectOut
	switch {
	case s.GetOp() != pg_query.SetOperation_SETOP_NONE:
		q, err = r.setOp(s, sc)
	case len(s.GetValuesLists()) > 0:
		q, err = r.values(s, sc)
	default:
		q, err = r.plain(s, sc)
	}
	if err != nil {
		return nil, err
	}
	q.sql = with + q.sql
	if len(q.sql) > maxRewrite {
		return nil, errTooComplex
	}
	return q, nil
}

// with rewrites a WITH clause into sc's WITH queries and SQLite's text.
func (r *rewriter) with(w *pg_query.WithClause, sc *scope) (string, error) {
	if w == nil {
		return "", nil
	}
	sc.ctes = map[string]cteDef{}
	var parts []string
	for _, n := range w.GetCtes() {
		c := n.GetCommonTableExpr()
		sel := c.GetCtequery().GetSelectStmt()
		if sel == nil || c.GetSearchClause() != nil || c.GetCycleClause() != nil {
			return "", refuse("WITH queries other than SELECT, SEARCH and CYCLE")
		}
		sqlName := r.newAlias()
		if w.GetRecursive() && sel.GetOp() != pg_query.SetOperation_SETOP_NONE {
			// The recursive reference's columns are the first arm's.
			first, err := r.query(sel.GetLarg(), sc)
			if err != nil {
				return "", err
			}
			sc.ctes[c.GetCtename()] = cteDef{cols: cteCols(c, first.cols), sql: sqlName}
		}
		q, err := r.query(sel, sc)
		if err != nil {
			return "", err
		}
		sc.ctes[c.GetCtename()] = cteDef{cols: cteCols(c, q.cols), sql: sqlName}
		parts = append(parts, sqlName+" AS ("+q.sql+")")
	}
	kw := "WITH "
	if w.GetRecursive() {
		kw = "WITH RECURSIVE "
	}
	return kw + strings.Join(parts, ", ") + " ", nil
}

// cteCols are a WITH query's columns, renamed by its column list.
func cteCols(c *pg_query.CommonTableExpr, cols []col) []col {
	out := append([]col(nil), cols...)
	for i, n := range c.GetAliascolnames() {
		if i < len(out) {
			out[i].name = n.GetString_().GetSval()
		}
	}
	return out
}

// setOp rewrites UNION, INTERSECT and EXCEPT [ALL].
func (r *rewriter) setOp(s *pg_query.SelectStmt, sc *scope) (*selectOut, error) {
	l, err := r.arm(s.GetLarg(), sc, false)
	if err != nil {
		return nil, err
	}
	rt, err := r.arm(s.GetRarg(), sc, true)
	if err != nil {
		return nil, err
	}
	if len(l.cols) != len(rt.cols) {
		return nil, pgErr("42601", "each %s query must have the same number of columns", setOpName(s.GetOp()))
	}
	op := setOpName(s.GetOp())
	if s.GetAll() {
		op += " ALL"
	}
	q := &selectOut{sql: l.sql + " " + op + " " + rt.sql, cols: append([]col(nil), l.cols...)}
	for i := range q.cols {
		q.cols[i].typ = commonType(q.cols[i].typ, rt.cols[i].typ)
	}
	return r.orderLimit(s, q, nil, nil)
}

func setOpName(op pg_query.SetOperation) string {
	switch op {
	case pg_query.SetOperation_SETOP_INTERSECT:
		return "INTERSECT"
	case pg_query.SetOperation_SETOP_EXCEPT:
		return "EXCEPT"
	}
	return "UNION"
}

// arm rewrites a set operation's arm; SQLite's arms take no ORDER BY,
// LIMIT or WITH, and group from the left: such an arm is a subquery.
func (r *rewriter) arm(s *pg_query.SelectStmt, sc *scope, right bool) (*selectOut, error) {
	q, err := r.query(s, sc)
	if err != nil {
		return nil, err
	}
	if len(s.GetSortClause()) > 0 || s.GetLimitCount() != nil || s.GetLimitOffset() != nil ||
		s.GetWithClause() != nil || len(s.GetValuesLists()) > 0 ||
		right && s.GetOp() != pg_query.SetOperation_SETOP_NONE {
		q.sql = "SELECT * FROM (" + q.sql + ")"
	}
	return q, nil
}

// values rewrites a VALUES list.
func (r *rewriter) values(s *pg_query.SelectStmt, sc *scope) (*selectOut, error) {
	var rows []string
	var q selectOut
	for i, l := range s.GetValuesLists() {
		items := l.GetList().GetItems()
		if i > 0 && len(items) != len(q.cols) {
			return nil, pgErr("42601", "VALUES lists must all be the same length")
		}
		var vals []string
		for j, it := range items {
			v, err := r.expr(it, sc)
			if err != nil {
				return nil, err
			}
			if i == 0 {
				q.cols = append(q.cols, col{name: "column" + strconv.Itoa(j+1), typ: v.typ})
			} else {
				q.cols[j].typ = commonType(q.cols[j].typ, v.typ)
			}
			vals = append(vals, v.sql)
		}
		rows = append(rows, "("+strings.Join(vals, ", ")+")")
	}
	var names []string
	for i := range q.cols {
		names = append(names, "column"+strconv.Itoa(i+1)+" AS "+colName(i))
	}
	q.sql = "SELECT " + strings.Join(names, ", ") + " FROM (VALUES " + strings.Join(rows, ", ") + ")"
	return r.orderLimit(s, &q, nil, nil)
}

// plain rewrites a SELECT … FROM … WHERE … GROUP BY … HAVING ….
func (r *rewriter) plain(s *pg_query.SelectStmt, sc *scope) (*selectOut, error) {
	from, err := r.fromList(s.GetFromClause(), sc)
	if err != nil {
		return nil, err
	}
	sc.windowClause = s.GetWindowClause()
	srf, err := r.targetSRFs(s.GetTargetList(), sc)
	if err != nil {
		return nil, err
	}
	if srf != "" && (len(s.GetGroupClause()) > 0 || s.GetHavingClause() != nil) {
		return nil, refuse("set-returning functions in a grouped select list")
	}
	switch {
	case srf != "" && from != "":
		from += ", " + srf
	case srf != "":
		from = srf
	}
	targets, cols, err := r.targets(s.GetTargetList(), sc)
	if err != nil {
		return nil, err
	}
	var b strings.Builder // the clauses after the select list
	if from != "" {
		b.WriteString(" FROM " + from)
	}
	if w := s.GetWhereClause(); w != nil {
		v, err := r.boolExpr(w, sc, "WHERE")
		if err != nil {
			return nil, err
		}
		b.WriteString(" WHERE " + v)
	}
	if err := r.groupBy(s, sc, targets, cols, &b); err != nil {
		return nil, err
	}
	if s.GetGroupDistinct() {
		return nil, refuse("GROUP BY DISTINCT")
	}
	dc := s.GetDistinctClause()
	if len(dc) > 1 || len(dc) == 1 && dc[0].GetNode() != nil {
		return r.distinctOn(s, sc, targets, cols, b.String())
	}
	distinct := ""
	if len(dc) == 1 {
		distinct = "DISTINCT "
	}
	q := &selectOut{sql: "SELECT " + distinct + strings.Join(targets, ", ") + b.String(), cols: cols}
	return r.orderLimit(s, q, sc, targets)
}

// distinctOn is SELECT DISTINCT ON (keys) … ORDER BY …: the first row of
// each group of keys in that order, numbered by row_number() over the
// groups; the outer query keeps the first and sorts by the same keys.
func (r *rewriter) distinctOn(s *pg_query.SelectStmt, sc *scope, targets []string, cols []col, rest string) (*selectOut, error) {
	var on []string
	for _, n := range s.GetDistinctClause() {
		e, err := r.selectKey(n, sc, targets, cols)
		if err != nil {
			return nil, err
		}
		on = append(on, e)
	}
	var keys, outer, hidden []string
	for i, n := range s.GetSortClause() {
		sb := n.GetSortBy()
		if sb.GetUseOp() != nil {
			return nil, refuse("ORDER BY … USING")
		}
		e, err := r.selectKey(sb.GetNode(), sc, targets, cols)
		if err != nil {
			return nil, err
		}
		name := "_o" + strconv.Itoa(i+1)
		keys = append(keys, e+sortDirection(sb))
		hidden = append(hidden, e+" AS "+name)
		outer = append(outer, name+sortDirection(sb))
	}
	window := "row_number() OVER (PARTITION BY " + strings.Join(on, ", ")
	if len(keys) > 0 {
		window += " ORDER BY " + strings.Join(keys, ", ")
	}
	inner := "SELECT " + strings.Join(append(append(append([]string(nil), targets...), hidden...), window+") AS _rn"), ", ") + rest
	names := make([]string, len(cols))
	for i := range cols {
		names[i] = colName(i)
	}
	sql := "SELECT " + strings.Join(names, ", ") + " FROM (" + inner + ") WHERE _rn = 1"
	if len(outer) > 0 {
		sql += " ORDER BY " + strings.Join(outer, ", ")
	}
	return r.limit(s, &selectOut{sql: sql, cols: cols}, sc)
}

// selectKey rewrites a DISTINCT ON or ORDER BY key of a plain SELECT: an
// ordinal or an output column's name is that output's expression.
func (r *rewriter) selectKey(n *pg_query.Node, sc *scope, targets []string, cols []col) (string, error) {
	if i, ok := ordinal(n); ok {
		if i < 1 || i > len(cols) {
			return "", pgErr("42P10", "position %d is not in select list", i)
		}
		return strings.TrimSuffix(targets[i-1], " AS "+colName(i-1)), nil
	}
	if name, ok := bareName(n); ok {
		for i, c := range cols {
			if c.name == name {
				return strings.TrimSuffix(targets[i], " AS "+colName(i)), nil
			}
		}
	}
	v, err := r.expr(n, sc)
	if err != nil {
		return "", err
	}
	return v.sql, nil
}

// boolExpr rewrites a condition (WHERE, HAVING, ON).
func (r *rewriter) boolExpr(n *pg_query.Node, sc *scope, clause string) (string, error) {
	v, err := r.expr(n, sc)
	if err != nil {
		return "", err
	}
	v = r.coerce(v, "bool")
	if v.typ != "bool" && v.typ != unknownType {
		return "", pgErr("42804", "argument of %s must be type boolean, not type %s", clause, v.typ)
	}
	return v.sql, nil
}

// groupBy writes GROUP BY and HAVING; a GROUP BY item may name an output
// column by position or name (PostgreSQL's rule: an input column first).
func (r *rewriter) groupBy(s *pg_query.SelectStmt, sc *scope, targets []string, cols []col, b *strings.Builder) error {
	var items []string
	for _, g := range s.GetGroupClause() {
		if g.GetGroupingSet() != nil {
			return refuse("GROUPING SETS, ROLLUP and CUBE")
		}
		if e, ok := r.outputRef(g, sc, targets, cols); ok {
			items = append(items, e)
			continue
		}
		v, err := r.expr(g, sc)
		if err != nil {
			return err
		}
		items = append(items, v.sql)
	}
	if len(items) > 0 {
		b.WriteString(" GROUP BY " + strings.Join(items, ", "))
	}
	if h := s.GetHavingClause(); h != nil {
		v, err := r.boolExpr(h, sc, "HAVING")
		if err != nil {
			return err
		}
		b.WriteString(" HAVING " + v)
	}
	return nil
}

// outputRef resolves a GROUP BY item that is an ordinal or the name of
// an output column (and no input column) to the output's expression.
func (r *rewriter) outputRef(n *pg_query.Node, sc *scope, targets []string, cols []col) (string, bool) {
	if i, ok := ordinal(n); ok && i >= 1 && i <= len(targets) {
		return strings.TrimSuffix(targets[i-1], " AS "+colName(i-1)), true
	}
	name, ok := bareName(n)
	if !ok {
		return "", false
	}
	if _, err := sc.column([]string{name}); err == nil {
		return "", false
	}
	for i, c := range cols {
		if c.name == name {
			return strings.TrimSuffix(targets[i], " AS "+colName(i)), true
		}
	}
	return "", false
}

// ordinal is an integer constant's value.
func ordinal(n *pg_query.Node) (int, bool) {
	if c := n.GetAConst(); c != nil && c.GetIval() != nil {
		return int(c.GetIval().GetIval()), true
	}
	return 0, false
}

// bareName is an unqualified column reference's name.
func bareName(n *pg_query.Node) (string, bool) {
	f := n.GetColumnRef().GetFields()
	if len(f) != 1 || f[0].GetString_() == nil {
		return "", false
	}
	return f[0].GetString_().GetSval(), true
}
