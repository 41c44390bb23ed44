package pgdialect

import (
	"fmt"
	"strconv"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// fromList translates FROM's items (comma-separated: a cross join).
func (t *translator) fromList(items []*pg_query.Node) (string, error) {
	var parts []string
	for _, it := range items {
		s, err := t.fromItem(it)
		if err != nil {
			return "", err
		}
		parts = append(parts, s)
	}
	return join(parts, " CROSS JOIN "), nil
}

// fromItem translates one FROM item and puts it in scope.
func (t *translator) fromItem(n *pg_query.Node) (string, error) {
	switch x := n.GetNode().(type) {
	case *pg_query.Node_RangeVar:
		return t.table(x.RangeVar)
	case *pg_query.Node_JoinExpr:
		return t.joinExpr(x.JoinExpr)
	case *pg_query.Node_RangeSubselect:
		return t.derived(x.RangeSubselect)
	case *pg_query.Node_RangeFunction:
		return t.rangeFunction(x.RangeFunction)
	}
	return "", refuse("the FROM item %s", nodeName(n))
}

// tableColumns looks a table up in the catalog.
func (t *translator) tableColumns(rv *pg_query.RangeVar) ([]Column, error) {
	if s := rv.GetSchemaname(); s != "" && s != "public" {
		return nil, refuse("tables of the schema %s", s)
	}
	if rv.GetCatalogname() != "" {
		return nil, refuse("database-qualified table names")
	}
	cols, ok := t.cat.Columns(rv.GetRelname())
	if !ok {
		return nil, pgError("42P01", "relation %q does not exist", rv.GetRelname())
	}
	return cols, nil
}

// table translates a table reference.
func (t *translator) table(rv *pg_query.RangeVar) (string, error) {
	if !rv.GetInh() {
		return "", refuse("ONLY")
	}
	cols, err := t.tableColumns(rv)
	if err != nil {
		return "", err
	}
	name := rv.GetRelname()
	sql := quoteIdent(name)
	if a := rv.GetAlias(); a != nil {
		if len(a.GetColnames()) > 0 {
			return "", refuse("column aliases of a table")
		}
		name = a.GetAliasname()
		sql += " AS " + quoteIdent(name)
	}
	return sql, t.add(rel{name: name, cols: cols})
}

// joinExpr translates [INNER|LEFT|RIGHT|CROSS] JOIN ... ON.
func (t *translator) joinExpr(j *pg_query.JoinExpr) (string, error) {
	if j.GetIsNatural() || len(j.GetUsingClause()) > 0 || j.GetAlias() != nil {
		return "", refuse("NATURAL joins, USING and aliased joins")
	}
	first := len(t.scope.rels)
	l, err := t.fromItem(j.GetLarg())
	if err != nil {
		return "", err
	}
	mid := len(t.scope.rels)
	r, err := t.fromItem(j.GetRarg())
	if err != nil {
		return "", err
	}
	kind := map[pg_query.JoinType]string{
		pg_query.JoinType_JOIN_INNER: "JOIN", pg_query.JoinType_JOIN_LEFT: "LEFT JOIN", pg_query.JoinType_JOIN_RIGHT: "RIGHT JOIN",
	}[j.GetJointype()]
	switch kind {
	case "":
		return "", refuse("FULL joins")
	case "LEFT JOIN":
		t.scope.nullable(mid, len(t.scope.rels))
	case "RIGHT JOIN":
		t.scope.nullable(first, mid)
	}
	if j.GetQuals() == nil {
		return "(" + l + " CROSS JOIN " + r + ")", nil
	}
	on, err := t.condition(j.GetQuals(), "ON")
	if err != nil {
		return "", err
	}
	return "(" + l + " " + kind + " " + r + on + ")", nil
}

// derived translates a subquery or VALUES in FROM, naming its columns as
// PostgreSQL does (MariaDB names a VALUES column after its first value).
func (t *translator) derived(rs *pg_query.RangeSubselect) (string, error) {
	if rs.GetLateral() {
		return "", refuse("LATERAL")
	}
	a := rs.GetAlias()
	if a == nil {
		return "", refuse("a subquery in FROM without an alias")
	}
	sel := rs.GetSubquery().GetSelectStmt()
	if sel == nil {
		return "", refuse("this subquery in FROM")
	}
	outer := t.scope
	t.scope = &scope{parent: outer.parent} // no LATERAL: the query's own FROM items are not visible
	var sql string
	var cols []ResultColumn
	var err error
	if len(sel.GetValuesLists()) > 0 {
		sql, cols, err = t.values(sel.GetValuesLists())
	} else {
		sql, cols, err = t.selectSQL(sel, nil)
	}
	t.scope = outer
	if err != nil {
		return "", err
	}
	names := a.GetColnames()
	if len(names) > len(cols) {
		return "", pgError("42P10", "table %q has %d columns available but %d columns specified", a.GetAliasname(), len(cols), len(names))
	}
	var rcols []Column
	var items []string
	seen := map[string]bool{}
	for i, c := range cols {
		name := c.Name
		if i < len(names) {
			name = strNode(names[i])
		}
		if seen[name] {
			return "", refuse("a subquery in FROM with two columns named %s", name)
		}
		seen[name] = true
		rcols = append(rcols, Column{Name: name, Type: c.Type})
		items = append(items, quoteIdent(name))
	}
	if len(names) > 0 {
		// Rename through an outer SELECT (the subquery's own aliases are
		// its PostgreSQL names).
		var outer []string
		for i, c := range cols {
			outer = append(outer, quoteIdent(c.Name)+" AS "+items[i])
		}
		sql = "SELECT " + join(outer, ", ") + " FROM (" + sql + ") AS " + quoteIdent("relchain_v")
	}
	alias := quoteIdent(a.GetAliasname())
	return "(" + sql + ") AS " + alias, t.add(rel{name: a.GetAliasname(), cols: rcols})
}

// values translates VALUES rows as SELECT ... UNION ALL SELECT ..., with
// PostgreSQL's column names column1, column2 ... and types resolved per
// column.
func (t *translator) values(rows []*pg_query.Node) (string, []ResultColumn, error) {
	var grid [][]val
	for _, r := range rows {
		var row []val
		for _, it := range r.GetList().GetItems() {
			v, err := t.expr(it)
			if err != nil {
				return "", nil, err
			}
			row = append(row, v)
		}
		if len(grid) > 0 && len(row) != len(grid[0]) {
			return "", nil, pgError("42601", "VALUES lists must all be the same length")
		}
		grid = append(grid, row)
	}
	var cols []ResultColumn
	for c := range grid[0] {
		col := make([]val, len(grid))
		for r := range grid {
			col[r] = grid[r][c]
		}
		vs, typ, err := t.common(col, "VALUES")
		if err != nil {
			return "", nil, err
		}
		for r := range grid {
			grid[r][c] = vs[r]
		}
		cols = append(cols, ResultColumn{Name: fmt.Sprintf("column%d", c+1), Type: typ})
	}
	var selects []string
	for _, row := range grid {
		var items []string
		for c, v := range row {
			items = append(items, v.sql+" AS "+quoteIdent(cols[c].Name))
		}
		selects = append(selects, "SELECT "+join(items, ", "))
	}
	return join(selects, " UNION ALL "), cols, nil
}

// rangeFunction translates generate_series(lo, hi) over integer
// constants in FROM, as a cross join of digit tables cut at hi (MariaDB
// has no generate_series, and a recursive CTE stops at
// max_recursive_iterations).
func (t *translator) rangeFunction(rf *pg_query.RangeFunction) (string, error) {
	if rf.GetLateral() || rf.GetOrdinality() || rf.GetIsRowsfrom() || len(rf.GetFunctions()) != 1 {
		return "", refuse("this function in FROM")
	}
	f := rf.GetFunctions()[0].GetList().GetItems()[0].GetFuncCall()
	if f == nil {
		return "", refuse("this function in FROM")
	}
	name, err := funcName(f)
	if err != nil {
		return "", err
	}
	args := f.GetArgs()
	if name != "generate_series" || len(args) != 2 || args[0].GetAConst().GetIval() == nil || args[1].GetAConst().GetIval() == nil {
		return "", refuse("functions in FROM other than generate_series(lo, hi) of integer constants")
	}
	lo, hi := int64(args[0].GetAConst().GetIval().GetIval()), int64(args[1].GetAConst().GetIval().GetIval())
	if hi-lo >= 10_000_000 {
		return "", refuse("generate_series of more than 10000000 rows")
	}
	alias, col := "generate_series", "generate_series"
	if a := rf.GetAlias(); a != nil {
		alias, col = a.GetAliasname(), a.GetAliasname()
		if cn := a.GetColnames(); len(cn) == 1 {
			col = strNode(cn[0])
		} else if len(cn) > 1 {
			return "", refuse("generate_series with more than one column alias")
		}
	}
	x, from := strconv.FormatInt(lo, 10), ""
	const digits = "(SELECT 0 AS d UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4 UNION ALL SELECT 5 UNION ALL SELECT 6 UNION ALL SELECT 7 UNION ALL SELECT 8 UNION ALL SELECT 9)"
	for k, mul := 0, int64(1); k == 0 || mul <= hi-lo; k, mul = k+1, mul*10 {
		x += fmt.Sprintf(" + %d * d%d.d", mul, k)
		if k > 0 {
			from += " CROSS JOIN "
		}
		from += fmt.Sprintf("%s AS d%d", digits, k)
	}
	sql := fmt.Sprintf("(SELECT CAST(%s AS SIGNED) AS %s FROM %s WHERE %s <= %d) AS %s", x, quoteIdent(col), from, x, hi, quoteIdent(alias))
	return sql, t.add(rel{name: alias, cols: []Column{{Name: col, Type: tInt4, NotNull: true}}})
}
