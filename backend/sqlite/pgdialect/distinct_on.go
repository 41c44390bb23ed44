package pgdialect

import (
	"fmt"
	"slices"
)

// distinctOnQuery translates SELECT DISTINCT ON (exprs): the first row of
// each group of equal exprs in the ORDER BY's order, as the row numbered
// 1 by a window partitioned by the exprs and ordered by the ORDER BY and
// then by every FROM column as stored (fromTieBreak): PostgreSQL takes
// the first of the rows the ORDER BY leaves tied in its plan's order;
// SQLite would take the first in its scan order, which is not replicated
// state, so the tie-break makes the choice one of PostgreSQL's, the same
// on every node. The outer query sorts by the ORDER BY keys. The exprs
// must be the ORDER BY's first items (42P10). Grouped queries are
// refused.
func (t *translator) distinctOnQuery(sc *scope, p *selectParts) (query, error) {
	if p.group != "" || p.having != "" || t.sawAgg {
		return query{}, refuse("DISTINCT ON with GROUP BY, HAVING or aggregates")
	}
	var on []string
	for _, n := range p.distinctOn {
		_, expr, err := t.sortKey(n, sc, p, func(value) {})
		if err != nil {
			return query{}, err
		}
		on = append(on, expr)
	}
	if len(p.orderExprs) > 0 {
		for _, e := range on {
			if !slices.Contains(p.orderExprs[:min(len(on), len(p.orderExprs))], e) {
				return query{}, pgError("42P10", "SELECT DISTINCT ON expressions must match initial ORDER BY expressions")
			}
		}
	}
	tie, err := fromTieBreak(sc, "DISTINCT ON")
	if err != nil {
		return query{}, err
	}
	return query{sql: distinctOnSQL(p, on, tie), cols: p.cols}, nil
}

// distinctOnSQL is the query keeping the row numbered 1 in each partition
// of on, ordered by the ORDER BY and then by tie.
func distinctOnSQL(p *selectParts, on, tie []string) string {
	var inner, outer, order, window []string
	for i, v := range p.targetVals {
		inner = append(inner, fmt.Sprintf("%s AS \"c%d\"", v.sql, i))
		outer = append(outer, fmt.Sprintf("\"d\".\"c%d\" AS %s", i, quoteIdent(p.cols[i].Name)))
	}
	for j, e := range p.orderExprs {
		inner = append(inner, fmt.Sprintf("%s AS \"k%d\"", e, j))
		order = append(order, fmt.Sprintf("\"d\".\"k%d\"%s", j, p.orderSuffixes[j]))
		window = append(window, e+p.orderSuffixes[j])
	}
	window = append(window, tie...)
	over := "PARTITION BY " + join(on, ", ") + " ORDER BY " + join(window, ", ")
	inner = append(inner, "row_number() OVER ("+over+") AS \"rn\"")
	sql := "SELECT " + join(inner, ", ")
	if p.from != "" {
		sql += " FROM " + p.from
	}
	if p.where != "" {
		sql += " WHERE " + p.where
	}
	sql = "SELECT " + join(outer, ", ") + " FROM (" + sql + ") AS \"d\" WHERE \"d\".\"rn\" = 1"
	if len(order) > 0 {
		sql += " ORDER BY " + join(order, ", ")
	}
	return sql + p.limit
}
