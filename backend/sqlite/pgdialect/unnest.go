package pgdialect

import (
	"errors"
	"fmt"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// unnestFrom is unnest(a1 [, a2 ...]) in FROM over arrays that do not
// refer to the other FROM items (constants, parameters, subqueries): a
// recursive CTE numbering the elements, one row per element of the
// longest array (the others padded with NULL), no row for NULL or empty
// arrays. A reference to another FROM item's column (PostgreSQL's
// implicit LATERAL) is refused: SQLite's subqueries in FROM cannot see it.
func (t *translator) unnestFrom(r *pg_query.RangeFunction, call *pg_query.FuncCall, parent *scope) (string, []rel, error) {
	args, err := t.args(call.GetArgs(), &scope{parent: parent})
	var pe *Error
	if errors.As(err, &pe) && (pe.Code == "42P01" || pe.Code == "42703") {
		return "", nil, refuse("unnest over a column of another FROM item (LATERAL): %s", pe.Message)
	}
	if err != nil {
		return "", nil, err
	}
	if len(args) == 0 || len(args) > 20 {
		return "", nil, refuse("unnest with %d arguments", len(args))
	}
	var cols []Column
	var init, step, cards, outs []string
	for i, a := range args {
		if a.untyped() || !isArray(a.typ) {
			return "", nil, refuse("unnest of %s (only typed arrays: cast a literal or parameter, $1::text[])", label(a.typ))
		}
		elem := elemOf(a.typ)
		cols = append(cols, Column{Name: "unnest", Type: Type{Name: elem.Name, Typmod: -1}})
		init = append(init, a.sql)
		step = append(step, fmt.Sprintf("a%d", i))
		cards = append(cards, fmt.Sprintf("coalesce(pg_array_fn('cardinality', a%d, 1), 0)", i))
	}
	alias, err := unnestNames(r.GetAlias(), cols)
	if err != nil {
		return "", nil, err
	}
	seen := map[string]bool{}
	for _, c := range cols {
		if seen[c.Name] {
			return "", nil, refuse("unnest of several arrays whose columns share the name %s (name them: AS u(a, b))", c.Name)
		}
		seen[c.Name] = true
	}
	for i, c := range cols {
		outs = append(outs, fmt.Sprintf("pg_array_get(a%d, i, '%s') AS %s", i, c.Type.Name, quoteIdent(c.Name)))
	}
	// The CTE's name is a relchain_ one, which no user table or
	// translated reference has (the Catalog has none), so an argument's
	// subquery still sees the user's tables.
	sql := fmt.Sprintf("(WITH RECURSIVE relchain_unnest(i, %s) AS (SELECT 0, %s UNION ALL SELECT i + 1, %s FROM relchain_unnest WHERE i < max(%s, 0)) "+
		"SELECT %s FROM relchain_unnest WHERE i >= 1) AS %s", join(step, ", "), join(init, ", "), join(step, ", "), join(cards, ", "),
		join(outs, ", "), quoteIdent(alias))
	return sql, []rel{{alias: alias, cols: cols}}, nil
}

// unnestNames applies FROM's alias to unnest's columns: unnest(a) AS x
// names the column x too, as PostgreSQL names a function's single
// column; AS x(c1, c2) names them.
func unnestNames(a *pg_query.Alias, cols []Column) (string, error) {
	if a == nil {
		return "unnest", nil
	}
	names := a.GetColnames()
	if len(names) > len(cols) {
		return "", pgError("42804", "too many column aliases specified for function unnest")
	}
	if len(names) == 0 && len(cols) == 1 {
		cols[0].Name = a.GetAliasname()
	}
	for i, n := range names {
		cols[i].Name = strNode(n)
	}
	return a.GetAliasname(), nil
}
