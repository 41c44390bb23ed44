package pgdialect

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// updateFrom translates UPDATE ... FROM (VALUES ...) AS alias, which
// SQLite has too (TPC-C's NewOrder updates its lines' stock rows so). When
// several rows of the FROM clause match a target row, PostgreSQL and
// SQLite each use one of them, unpredictably; over a VALUES list SQLite's
// choice follows the list's order, the same on every node. Over a table,
// a subquery or a join it would follow the physical row order, so those
// are refused, as SQLite's own gate refuses them (backend/sqlite, order.go).
// It returns the FROM clause's SQLite text and the scope of SET and WHERE:
// the target, then the VALUES list's relation.
func (t *translator) updateFrom(u *pg_query.UpdateStmt, sc *scope) (string, *scope, error) {
	from := u.GetFromClause()
	if len(from) == 0 {
		return "", sc, nil
	}
	if len(from) > 1 || !isValuesItem(from[0]) {
		return "", nil, refuse("UPDATE ... FROM other than one VALUES list (FROM (VALUES ...) AS v): which matching row SQLite uses would depend on the physical row order")
	}
	if len(u.GetReturningList()) > 0 {
		return "", nil, refuse("RETURNING in UPDATE ... FROM")
	}
	r := from[0].GetRangeSubselect()
	a := r.GetAlias()
	switch {
	case a == nil:
		return "", nil, pgError("42601", "subquery in FROM must have an alias")
	case len(a.GetColnames()) > 0:
		return "", nil, refuse("column names on UPDATE ... FROM's VALUES list (AS v(a, b)): write v.column1, v.column2 ...")
	case a.GetAliasname() == sc.rels[0].alias:
		return "", nil, pgError("42712", "table name %q specified more than once", a.GetAliasname())
	}
	// SQLite's gate takes FROM (VALUES ...) alone, written so: the rows
	// are not wrapped in a SELECT, and SQLite names the columns column1 ...
	// as PostgreSQL does.
	cols, rows, err := t.valuesRows(r.GetSubquery().GetSelectStmt(), &scope{})
	if err != nil {
		return "", nil, err
	}
	values := rel{alias: a.GetAliasname(), cols: cols}
	return " FROM (VALUES " + rows + ") AS " + quoteIdent(values.alias), &scope{rels: []rel{sc.rels[0], values}}, nil
}

// isValuesItem reports whether a FROM item is a VALUES list in
// parentheses (not LATERAL).
func isValuesItem(n *pg_query.Node) bool {
	r := n.GetRangeSubselect()
	if r == nil || r.GetLateral() {
		return false
	}
	s := r.GetSubquery().GetSelectStmt()
	return s != nil && len(s.GetValuesLists()) > 0 && s.GetWithClause() == nil
}
