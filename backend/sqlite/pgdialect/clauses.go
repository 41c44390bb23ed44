package pgdialect

import (
	"strconv"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// positionOf reads ORDER BY / GROUP BY 2 (a target's position).
func positionOf(n *pg_query.Node, targets int) (int, bool, error) {
	c := n.GetAConst()
	if c == nil {
		return 0, false, nil
	}
	iv, ok := c.GetVal().(*pg_query.A_Const_Ival)
	if !ok {
		return 0, false, refuse("a non-integer constant in ORDER BY or GROUP BY")
	}
	pos := int(iv.Ival.GetIval())
	if pos < 1 || pos > targets {
		return 0, false, pgError("42P10", "position %d is not in select list", pos)
	}
	return pos, true, nil
}

// outputNamed is the position of the target named name (bare ORDER BY
// names refer to output columns first), 0 if none.
func outputNamed(n *pg_query.Node, p *selectParts) (int, error) {
	ref := n.GetColumnRef()
	if ref == nil || len(ref.GetFields()) != 1 || ref.GetFields()[0].GetAStar() != nil {
		return 0, nil
	}
	name, pos := strNode(ref.GetFields()[0]), 0
	for i, c := range p.cols {
		if c.Name == name {
			if pos != 0 && p.targetVals[pos-1].sql != p.targetVals[i].sql {
				return 0, pgError("42702", "ORDER BY %q is ambiguous", name)
			}
			if pos == 0 {
				pos = i + 1
			}
		}
	}
	return pos, nil
}

func (t *translator) groupClause(items []*pg_query.Node, sc *scope, p *selectParts) error {
	var out []string
	for _, n := range items {
		pos, ok, err := positionOf(n, len(p.cols))
		if err != nil {
			return err
		}
		if ok {
			if err := noJSONBKey(p.targetVals[pos-1].typ, "GROUP BY"); err != nil {
				return err
			}
			key := sc.group.represented(p.targetVals[pos-1].sql)
			sc.group.keys = append(sc.group.keys, key)
			sc.group.keyTypes = append(sc.group.keyTypes, p.targetVals[pos-1].typ)
			out = append(out, nonPositional(key))
			continue
		}
		g := sc.group
		sc.group = nil
		v, err := t.expr(n, sc)
		sc.group = g
		if err != nil && errIs(err, "42703") {
			if pos, _ := outputNamed(n, p); pos > 0 {
				v, err = p.targetVals[pos-1], nil
			}
		}
		if err != nil {
			return err
		}
		if n.GetGroupingSet() != nil || n.GetRowExpr() != nil {
			return refuse("GROUPING SETS, ROLLUP and CUBE")
		}
		if err := noJSONBKey(v.typ, "GROUP BY"); err != nil {
			return err
		}
		g.keys, g.keyTypes = append(g.keys, v.sql), append(g.keyTypes, v.typ)
		out = append(out, nonPositional(v.sql))
	}
	p.group = join(out, ", ")
	return nil
}

// orderClause translates ORDER BY with PostgreSQL's NULL order made
// explicit: NULLS LAST ascending, NULLS FIRST descending.
func (t *translator) orderClause(items []*pg_query.Node, sc *scope, p *selectParts, note func(value)) error {
	var out []string
	for _, n := range items {
		sb := n.GetSortBy()
		if len(sb.GetUseOp()) > 0 {
			return refuse("ORDER BY ... USING")
		}
		key, expr, err := t.sortKey(sb.GetNode(), sc, p, note)
		if err != nil {
			return err
		}
		p.orderExprs, p.orderSuffixes = append(p.orderExprs, expr), append(p.orderSuffixes, sortSuffix(sb))
		if constantTarget(key, p) {
			// PostgreSQL's planner drops a constant sort key (it orders
			// nothing): with a LIMIT it then stops reading rows at the
			// limit, so an error in a later row is not raised there.
			continue
		}
		out = append(out, key+sortSuffix(sb))
	}
	p.order = join(out, ", ")
	return nil
}

// constantTarget reports whether an ORDER BY key is the position of an
// output column that is the same for every row: a constant, or what
// PostgreSQL's planner takes for one in a sort key (a pseudo-constant: no
// column, no aggregate or window function, nothing volatile; DATE '…'
// converted to timestamptz is not folded but is one).
func constantTarget(key string, p *selectParts) bool {
	pos, err := strconv.Atoi(key)
	if err != nil || pos < 1 || pos > len(p.targetVals) {
		return false
	}
	return p.targetVals[pos-1].isConstant() || pos <= len(p.pseudoConst) && p.pseudoConst[pos-1]
}

// sortKey translates an ORDER BY (or DISTINCT ON) item: the SQLite key
// and the expression it stands for (a target's, for a position or an
// output name).
func (t *translator) sortKey(n *pg_query.Node, sc *scope, p *selectParts, note func(value)) (key, expr string, err error) {
	pos, ok, err := positionOf(n, len(p.cols))
	if err != nil {
		return "", "", err
	}
	if !ok {
		if pos, err = outputNamed(n, p); err != nil {
			return "", "", err
		}
	}
	if pos > 0 {
		if err := orderable(p.cols[pos-1].Type); err != nil {
			return "", "", err
		}
		return strconv.Itoa(pos), nonPositional(p.targetVals[pos-1].sql), nil
	}
	v, err := t.outputValue(n, sc)
	if err != nil {
		return "", "", err
	}
	note(v)
	if p.distinct != "" && !anySQL(p.targetVals, v.sql) {
		return "", "", pgError("42P10", "for SELECT DISTINCT, ORDER BY expressions must appear in select list")
	}
	return nonPositional(v.sql), nonPositional(v.sql), orderable(v.typ)
}

// nonPositional keeps SQLite from reading a constant integer key (a
// folded expression: ORDER BY 1 + 1) as a column position, which
// PostgreSQL does only for a written integer.
func nonPositional(sql string) string {
	if _, err := strconv.ParseInt(sql, 10, 64); err == nil {
		return "CAST(" + sql + " AS INTEGER)"
	}
	return sql
}

func anySQL(vals []value, sql string) bool {
	for _, v := range vals {
		if v.sql == sql {
			return true
		}
	}
	return false
}

func orderable(t Type) error {
	if t.Name == "json" {
		return pgError("42883", "could not identify an ordering operator for type json")
	}
	if isArray(t) {
		return refuse("ORDER BY an array (%s)", label(t))
	}
	return noJSONBKey(t, "ORDER BY")
}

func sortSuffix(sb *pg_query.SortBy) string {
	desc := sb.GetSortbyDir() == pg_query.SortByDir_SORTBY_DESC
	dir := " ASC"
	if desc {
		dir = " DESC"
	}
	switch sb.GetSortbyNulls() {
	case pg_query.SortByNulls_SORTBY_NULLS_FIRST:
		return dir + " NULLS FIRST"
	case pg_query.SortByNulls_SORTBY_NULLS_LAST:
		return dir + " NULLS LAST"
	}
	if desc {
		return dir + " NULLS FIRST"
	}
	return dir + " NULLS LAST"
}

// limitClause translates LIMIT and OFFSET: negative values are
// PostgreSQL's errors (2201W, 2201X), LIMIT NULL/ALL is no limit.
func (t *translator) limitClause(s *pg_query.SelectStmt, sc *scope) (string, error) {
	count, err := t.limitValue(s.GetLimitCount(), sc, "LIMIT", "2201W", "-1")
	if err != nil {
		return "", err
	}
	offset, err := t.limitValue(s.GetLimitOffset(), sc, "OFFSET", "2201X", "0")
	if err != nil {
		return "", err
	}
	if count == "-1" && offset == "0" {
		return "", nil
	}
	return " LIMIT " + count + " OFFSET " + offset, nil
}

func (t *translator) limitValue(n *pg_query.Node, sc *scope, what, code, none string) (string, error) {
	if n == nil {
		return none, nil
	}
	v, err := t.expr(n, &scope{parent: sc.parent})
	if err != nil {
		return "", err
	}
	if v.null {
		return none, nil
	}
	if v.num != "" {
		return "", refuse("numeric values in %s", what)
	}
	sql, err := t.coerce(v, tInt8, ctxImplicit)
	if err != nil {
		return "", err
	}
	if i, err := strconv.ParseInt(sql, 10, 64); err == nil {
		if i < 0 {
			return "", pgError(code, "%s must not be negative", what)
		}
		return sql, nil
	}
	return "pg_limit(" + sql + ", " + none + ")", nil
}
