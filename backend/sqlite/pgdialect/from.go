package pgdialect

import (
	"fmt"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// fromClause translates FROM: tables, joins, subqueries and
// generate_series, returning the relations their names bring into scope.
func (t *translator) fromClause(items []*pg_query.Node, parent *scope) (string, []rel, error) {
	var parts []string
	var rels []rel
	for _, n := range items {
		sql, rs, err := t.fromItem(n, parent)
		if err != nil {
			return "", nil, err
		}
		parts = append(parts, sql)
		rels = append(rels, rs...)
	}
	seen := map[string]bool{}
	for _, r := range rels {
		if r.merged {
			continue
		}
		if seen[r.alias] {
			return "", nil, pgError("42712", "table name %q specified more than once", r.alias)
		}
		seen[r.alias] = true
	}
	return join(parts, ", "), rels, nil
}

func (t *translator) fromItem(n *pg_query.Node, parent *scope) (string, []rel, error) {
	switch f := n.GetNode().(type) {
	case *pg_query.Node_RangeVar:
		return t.table(f.RangeVar)
	case *pg_query.Node_JoinExpr:
		return t.join(f.JoinExpr, parent)
	case *pg_query.Node_RangeSubselect:
		return t.rangeSubselect(f.RangeSubselect, parent)
	case *pg_query.Node_RangeFunction:
		return t.rangeFunction(f.RangeFunction, parent)
	}
	return "", nil, refuse("%s in FROM", nodeName(n))
}

// tableName checks a RangeVar's schema (none or public) and returns its
// columns from the catalog.
func (t *translator) tableName(rv *pg_query.RangeVar) ([]Column, error) {
	if s := rv.GetSchemaname(); s != "" && s != "public" {
		return nil, refuse("the schema %s", s)
	}
	if rv.GetCatalogname() != "" {
		return nil, refuse("catalog-qualified names")
	}
	cols, ok := t.cat.Columns(rv.GetRelname())
	if !ok {
		return nil, pgError("42P01", "relation %q does not exist", rv.GetRelname())
	}
	return cols, nil
}

func (t *translator) table(rv *pg_query.RangeVar) (string, []rel, error) {
	if c, ok := t.cteNamed(rv); ok {
		alias := c.name
		if a := rv.GetAlias(); a != nil {
			alias = a.GetAliasname()
			if len(a.GetColnames()) > 0 {
				return "", nil, refuse("column aliases on a WITH query")
			}
		}
		return quoteIdent(c.name) + " AS " + quoteIdent(alias), []rel{{alias: alias, cols: c.cols}}, nil
	}
	if !rv.GetInh() {
		return "", nil, refuse("ONLY")
	}
	cols, err := t.tableName(rv)
	if err != nil {
		return "", nil, err
	}
	alias := rv.GetRelname()
	if a := rv.GetAlias(); a != nil {
		alias = a.GetAliasname()
		if cols, err = renameColumns(cols, a); err != nil {
			return "", nil, err
		}
	}
	sql := quoteIdent(rv.GetRelname()) + " AS " + quoteIdent(alias)
	if len(rv.GetAlias().GetColnames()) > 0 {
		return "", nil, refuse("column aliases on a table")
	}
	return sql, []rel{{alias: alias, cols: cols}}, nil
}

// renameColumns applies an alias's column names.
func renameColumns(cols []Column, a *pg_query.Alias) ([]Column, error) {
	names := a.GetColnames()
	if len(names) > len(cols) {
		return nil, pgError("42P10", "table %q has %d columns available but %d columns specified", a.GetAliasname(), len(cols), len(names))
	}
	out := append([]Column(nil), cols...)
	for i, n := range names {
		out[i].Name = strNode(n)
	}
	return out, nil
}

var joinKinds = map[pg_query.JoinType]string{
	pg_query.JoinType_JOIN_INNER: " JOIN ", pg_query.JoinType_JOIN_LEFT: " LEFT JOIN ",
	pg_query.JoinType_JOIN_RIGHT: " RIGHT JOIN ", pg_query.JoinType_JOIN_FULL: " FULL JOIN ",
}

func (t *translator) join(j *pg_query.JoinExpr, parent *scope) (string, []rel, error) {
	kind, ok := joinKinds[j.GetJointype()]
	switch {
	case !ok:
		return "", nil, refuse("the join type %s", j.GetJointype())
	case j.GetJoinUsingAlias() != nil:
		return "", nil, refuse("an alias on JOIN USING")
	case j.GetAlias() != nil:
		return "", nil, refuse("an alias on a join")
	}
	l, lrels, err := t.fromItem(j.GetLarg(), parent)
	if err != nil {
		return "", nil, err
	}
	r, rrels, err := t.fromItem(j.GetRarg(), parent)
	if err != nil {
		return "", nil, err
	}
	rels := append(lrels, rrels...)
	if j.GetIsNatural() {
		names := commonNames(lrels, rrels)
		if len(names) == 0 {
			return "(" + l + " CROSS JOIN " + r + ")", rels, nil
		}
		return t.joinUsing(names, kind, l, r, lrels, rrels)
	}
	if len(j.GetUsingClause()) > 0 {
		var names []string
		for _, n := range j.GetUsingClause() {
			names = append(names, strNode(n))
		}
		return t.joinUsing(names, kind, l, r, lrels, rrels)
	}
	if j.GetQuals() == nil {
		return "(" + l + " CROSS JOIN " + r + ")", rels, nil
	}
	on, err := t.condition(j.GetQuals(), &scope{rels: rels, parent: parent}, "JOIN/ON")
	if err != nil {
		return "", nil, err
	}
	return "(" + l + kind + r + " ON " + on + ")", rels, nil
}

func (t *translator) rangeSubselect(r *pg_query.RangeSubselect, parent *scope) (string, []rel, error) {
	if r.GetLateral() {
		return "", nil, refuse("LATERAL")
	}
	if r.GetAlias() == nil {
		return "", nil, pgError("42601", "subquery in FROM must have an alias")
	}
	q, err := t.subquery(r.GetSubquery(), parent)
	if err != nil {
		return "", nil, err
	}
	cols, err := renameColumns(q.cols, r.GetAlias())
	if err != nil {
		return "", nil, err
	}
	alias := r.GetAlias().GetAliasname()
	sql, err := renamed(q, cols)
	return "(" + sql + ") AS " + quoteIdent(alias), []rel{{alias: alias, cols: cols}}, err
}

// renamed applies a FROM alias's column names to a subquery: an outer
// SELECT naming each column anew (the subquery's own names must then be
// distinct).
func renamed(q query, cols []Column) (string, error) {
	same := true
	for i := range cols {
		same = same && q.cols[i].Name == cols[i].Name
	}
	if same {
		return q.sql, nil
	}
	if dupNames(q.cols) {
		return "", refuse("column aliases on a subquery in FROM with two output columns of the same name")
	}
	var outs []string
	for i, c := range cols {
		outs = append(outs, "\"r\"."+quoteIdent(q.cols[i].Name)+" AS "+quoteIdent(c.Name))
	}
	return "SELECT " + join(outs, ", ") + " FROM (" + q.sql + ") AS \"r\"", nil
}

// rangeFunction supports generate_series(start, stop [, step]) over
// integers, as a recursive CTE (SQLite's generate_series is refused by the
// SQLite gate).
func (t *translator) rangeFunction(r *pg_query.RangeFunction, parent *scope) (string, []rel, error) {
	if r.GetLateral() || r.GetOrdinality() || r.GetIsRowsfrom() || len(r.GetFunctions()) != 1 || len(r.GetColdeflist()) > 0 {
		return "", nil, refuse("this function form in FROM (LATERAL, WITH ORDINALITY, ROWS FROM)")
	}
	call := r.GetFunctions()[0].GetList().GetItems()[0].GetFuncCall()
	if call != nil && funcName(call) == "unnest" {
		return t.unnestFrom(r, call, parent) // arrays.go, unnest.go
	}
	if call == nil || funcName(call) != "generate_series" {
		return "", nil, refuse("functions in FROM other than generate_series")
	}
	args, err := t.args(call.GetArgs(), &scope{parent: parent})
	if err != nil {
		return "", nil, err
	}
	typ, sqls, err := t.seriesArgs(args)
	if err != nil {
		return "", nil, err
	}
	alias, col := "generate_series", "generate_series"
	if a := r.GetAlias(); a != nil {
		alias, col = a.GetAliasname(), a.GetAliasname()
		if len(a.GetColnames()) == 1 {
			col = strNode(a.GetColnames()[0])
		} else if len(a.GetColnames()) > 1 {
			return "", nil, pgError("42804", "too many column aliases specified for function generate_series")
		}
	}
	return seriesSQL(sqls, intBits(typ), alias, col), []rel{{alias: alias, cols: []Column{{Name: col, Type: typ}}}}, nil
}

// seriesArgs types generate_series's integer arguments (int4 or int8).
func (t *translator) seriesArgs(args []value) (Type, []string, error) {
	if len(args) < 2 || len(args) > 3 {
		return Type{}, nil, refuse("generate_series with %d arguments", len(args))
	}
	typ := tInt4
	for _, a := range args {
		switch {
		case a.untyped():
		case isInt(a.typ) && intBits(a.typ) == 64:
			typ = tInt8
		case !isInt(a.typ):
			return Type{}, nil, refuse("generate_series over %s", label(a.typ))
		}
	}
	sqls, err := t.coerceAll(args, typ)
	if len(sqls) == 2 {
		sqls = append(sqls, "1")
	}
	return typ, sqls, err
}

// seriesSQL is generate_series as a recursive CTE in a subquery: start,
// stop and step are evaluated once (pg_series_step checks the step).
func seriesSQL(a []string, bits int, alias, col string) string {
	return fmt.Sprintf("(WITH RECURSIVE s(v, stop, step) AS (SELECT %s, %s, pg_series_step(%s) WHERE %s IS NOT NULL AND %s IS NOT NULL "+
		"UNION ALL SELECT v + step, stop, step FROM s WHERE (step > 0 AND v <= stop - step) OR (step < 0 AND v >= stop - step)) "+
		"SELECT v AS %s FROM s WHERE (step > 0 AND v <= stop) OR (step < 0 AND v >= stop)) AS %s",
		a[0], a[1], a[2], a[0], a[1], quoteIdent(col), quoteIdent(alias))
}
