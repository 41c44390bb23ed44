package pgcatalog

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// fromList rewrites a FROM list and sets sc's FROM items. While it runs,
// sc has no FROM items: a subquery in FROM sees only the enclosing
// queries (no LATERAL), a function in FROM sees the items before it.
func (r *rewriter) fromList(list []*pg_query.Node, sc *scope) (string, error) {
	var parts []string
	var srcs []*source
	for _, n := range list {
		sql, ss, err := r.fromItem(n, sc, srcs)
		if err != nil {
			return "", err
		}
		parts = append(parts, sql)
		srcs = append(srcs, ss...)
	}
	seen := map[string]bool{}
	for _, s := range srcs {
		if s.alias == "" {
			continue // a JOIN … USING's merged columns
		}
		if seen[s.alias] {
			return "", pgErr("42712", "table name %q specified more than once", s.alias)
		}
		seen[s.alias] = true
	}
	sc.sources = srcs
	return strings.Join(parts, ", "), nil
}

// fromItem rewrites one FROM item; prior are the items before it.
func (r *rewriter) fromItem(n *pg_query.Node, sc *scope, prior []*source) (string, []*source, error) {
	switch x := n.GetNode().(type) {
	case *pg_query.Node_RangeVar:
		return r.rangeVar(x.RangeVar, sc)
	case *pg_query.Node_RangeSubselect:
		return r.rangeSubselect(x.RangeSubselect, sc)
	case *pg_query.Node_JoinExpr:
		return r.join(x.JoinExpr, sc, prior)
	case *pg_query.Node_RangeFunction:
		return r.rangeFunction(x.RangeFunction, &scope{parent: sc, sources: prior})
	}
	return "", nil, refuse("the FROM item %s", nodeName(n))
}

// rangeVar resolves a relation name: a WITH query in scope, else
// pg_catalog's relation (PostgreSQL's search path); a qualified name
// pg_catalog's or information_schema's.
func (r *rewriter) rangeVar(rv *pg_query.RangeVar, sc *scope) (string, []*source, error) {
	name, schema := rv.GetRelname(), rv.GetSchemaname()
	alias := rv.GetAlias().GetAliasname()
	if alias == "" {
		alias = name
	}
	src := &source{alias: alias}
	a := r.newAlias() // the SQLite alias: PostgreSQL's are case-sensitive, and never the rewriting's own
	var sql string
	if cte, ok := sc.cte(name); ok && schema == "" && rv.GetCatalogname() == "" {
		sql = cte.sql + " AS " + a
		for i, c := range cte.cols {
			src.cols = append(src.cols, col{name: c.name, typ: c.typ, mod: c.mod, lb0: c.lb0, lbMixed: c.lbMixed, sql: a + "." + colName(i)})
		}
	} else {
		rel, ok := relation(schema, name)
		if !ok || rv.GetCatalogname() != "" {
			full := name
			if schema != "" {
				full = schema + "." + name
			}
			return "", nil, pgErr("42P01", "relation %q does not exist", full)
		}
		src.schema, src.rel = rel.Schema, rel.Name
		sql = rel.Schema + "." + ident(rel.Name) + " AS " + a
		for _, c := range rel.Columns {
			src.cols = append(src.cols, col{name: c.Name, typ: c.Type, mod: relTypmod(rel, c), sql: a + "." + ident(c.Name)})
		}
	}
	if err := renameCols(src, rv.GetAlias()); err != nil {
		return "", nil, err
	}
	return sql, []*source{src}, nil
}

// renameCols applies an alias's column list to a FROM item's columns.
func renameCols(src *source, a *pg_query.Alias) error {
	names := a.GetColnames()
	if len(names) > len(src.cols) {
		return pgErr("42P10", "table %q has %d columns available but %d columns specified", src.alias, len(src.cols), len(names))
	}
	for i, n := range names {
		src.cols[i].name = n.GetString_().GetSval()
	}
	return nil
}

func (r *rewriter) rangeSubselect(rs *pg_query.RangeSubselect, sc *scope) (string, []*source, error) {
	if rs.GetLateral() {
		return "", nil, refuse("LATERAL subqueries")
	}
	sel := rs.GetSubquery().GetSelectStmt()
	if sel == nil {
		return "", nil, refuse("the FROM subquery %s", nodeName(rs.GetSubquery()))
	}
	q, err := r.query(sel, sc)
	if err != nil {
		return "", nil, err
	}
	alias := rs.GetAlias().GetAliasname()
	if alias == "" {
		alias = r.newAlias()
	}
	src := &source{alias: alias}
	a := r.newAlias()
	for i, c := range q.cols {
		sc := col{name: c.name, typ: c.typ, mod: c.mod, lb0: c.lb0, lbMixed: c.lbMixed, sql: a + "." + colName(i)}
		for _, f := range c.fields {
			sc.fields = append(sc.fields, col{name: f.name, typ: f.typ, sql: a + "." + f.sql})
		}
		src.cols = append(src.cols, sc)
	}
	if err := renameCols(src, rs.GetAlias()); err != nil {
		return "", nil, err
	}
	return "(" + q.sql + ") AS " + a, []*source{src}, nil
}

// join rewrites a JOIN; USING becomes ON (the FROM items' SQLite column
// names are not PostgreSQL's), its columns merged for unqualified names.
func (r *rewriter) join(j *pg_query.JoinExpr, sc *scope, prior []*source) (string, []*source, error) {
	if j.GetIsNatural() || j.GetAlias() != nil || j.GetJoinUsingAlias() != nil {
		return "", nil, refuse("NATURAL joins and aliases of joins")
	}
	lsql, lsrc, err := r.fromItem(j.GetLarg(), sc, prior)
	if err != nil {
		return "", nil, err
	}
	rsql, rsrc, err := r.fromItem(j.GetRarg(), sc, append(append([]*source(nil), prior...), lsrc...))
	if err != nil {
		return "", nil, err
	}
	if j.GetRarg().GetJoinExpr() != nil {
		rsql = "(" + rsql + ")"
	}
	srcs := append(append([]*source(nil), lsrc...), rsrc...)
	kw, err := joinKeyword(j)
	if err != nil {
		return "", nil, err
	}
	on := &scope{parent: sc, sources: srcs, using: sc.using}
	cond := ""
	switch {
	case len(j.GetUsingClause()) > 0:
		var merged *source
		if cond, merged, err = usingJoin(j, lsrc, rsrc, sc); err != nil {
			return "", nil, err
		}
		srcs = append([]*source{merged}, srcs...)
	case j.GetQuals() != nil:
		c, err := r.boolExpr(j.GetQuals(), on, "JOIN/ON")
		if err != nil {
			return "", nil, err
		}
		cond = " ON " + c
	case kw != "CROSS JOIN":
		cond = " ON 1"
	}
	return lsql + " " + kw + " " + rsql + cond, srcs, nil
}

func joinKeyword(j *pg_query.JoinExpr) (string, error) {
	switch j.GetJointype() {
	case pg_query.JoinType_JOIN_INNER:
		if j.GetQuals() == nil && len(j.GetUsingClause()) == 0 {
			return "CROSS JOIN", nil
		}
		return "JOIN", nil
	case pg_query.JoinType_JOIN_LEFT:
		return "LEFT JOIN", nil
	case pg_query.JoinType_JOIN_RIGHT:
		return "RIGHT JOIN", nil
	case pg_query.JoinType_JOIN_FULL:
		return "FULL JOIN", nil
	}
	return "", refuse("the join type %s", j.GetJointype())
}

// usingJoin is JOIN … USING (cols): the ON condition, and the merged
// columns as a FROM item of no name that comes first in `*` (the left
// column, the right one for RIGHT JOIN, their coalesce for FULL JOIN);
// `*` leaves out the joined items' own columns of those names, and an
// unqualified name reads the merged column (sc.using).
func usingJoin(j *pg_query.JoinExpr, lsrc, rsrc []*source, sc *scope) (string, *source, error) {
	if sc.using == nil {
		sc.using = map[string]bool{}
	}
	merged := &source{}
	var eqs []string
	for _, u := range j.GetUsingClause() {
		name := u.GetString_().GetSval()
		l, err := (&scope{sources: lsrc, using: sc.using}).unqualified(name)
		if err != nil {
			return "", nil, err
		}
		rc, err := (&scope{sources: rsrc, using: sc.using}).unqualified(name)
		if err != nil {
			return "", nil, err
		}
		eqs = append(eqs, l.sql+" = "+rc.sql)
		m := l
		switch j.GetJointype() {
		case pg_query.JoinType_JOIN_RIGHT:
			m = rc
		case pg_query.JoinType_JOIN_FULL:
			m.sql = "coalesce(" + l.sql + ", " + rc.sql + ")"
		}
		merged.cols = append(merged.cols, col{name: name, typ: m.typ, sql: m.sql})
		sc.using[name] = true
		for _, s := range append(append([]*source(nil), lsrc...), rsrc...) {
			if s.hideStar == nil {
				s.hideStar = map[string]bool{}
			}
			s.hideStar[name] = true
		}
	}
	return " ON " + strings.Join(eqs, " AND "), merged, nil
}
