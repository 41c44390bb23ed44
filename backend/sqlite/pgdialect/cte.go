package pgdialect

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"
)

// cte is a common table expression in scope: its name and columns.
type cte struct {
	name string
	cols []Column
}

// withClause translates WITH (not data-modifying): each query sees the
// ones before it, a CTE of WITH RECURSIVE that refers to itself also
// itself (recursive.go); the body sees all. It returns SQLite's WITH
// prefix; the caller pops the CTEs (t.ctes) when its query is done.
func (t *translator) withClause(w *pg_query.WithClause, parent *scope) (string, error) {
	var parts []string
	seen := map[string]bool{}
	ctes := w.GetCtes()
	for i, n := range ctes {
		c := n.GetCommonTableExpr()
		if c.GetSearchClause() != nil || c.GetCycleClause() != nil {
			return "", refuse("SEARCH and CYCLE in WITH")
		}
		if seen[c.GetCtename()] {
			return "", pgError("42712", "WITH query name %q specified more than once", c.GetCtename())
		}
		seen[c.GetCtename()] = true
		if err := laterReference(w, i); err != nil {
			return "", err
		}
		cteOf := t.cteQuery
		if w.GetRecursive() && refCount(c.GetCtequery(), c.GetCtename()) > 0 {
			cteOf = t.recursiveCTE
		}
		sql, cols, err := cteOf(c, parent)
		if err != nil {
			return "", err
		}
		t.ctes = append(t.ctes, cte{name: c.GetCtename(), cols: cols})
		var names []string
		for _, col := range cols {
			names = append(names, quoteIdent(col.Name))
		}
		parts = append(parts, quoteIdent(c.GetCtename())+" ("+join(names, ", ")+") AS ("+sql+")")
	}
	if w.GetRecursive() {
		return "WITH RECURSIVE " + join(parts, ", ") + " ", nil
	}
	return "WITH " + join(parts, ", ") + " ", nil
}

// laterReference refuses, in WITH RECURSIVE, a CTE that names a CTE
// defined after it (PostgreSQL's WITH RECURSIVE sees them all; SQLite's
// order here would read a table of that name instead).
func laterReference(w *pg_query.WithClause, i int) error {
	if !w.GetRecursive() {
		return nil
	}
	ctes := w.GetCtes()
	for _, later := range ctes[i+1:] {
		name := later.GetCommonTableExpr().GetCtename()
		if refCount(ctes[i].GetCommonTableExpr().GetCtequery(), name) > 0 {
			return refuse("a WITH RECURSIVE query that refers to a later one (%s)", name)
		}
	}
	return nil
}

// cteQuery translates one CTE's query and applies its column aliases.
func (t *translator) cteQuery(c *pg_query.CommonTableExpr, parent *scope) (string, []Column, error) {
	s := c.GetCtequery().GetSelectStmt()
	if s == nil {
		return "", nil, refuse("data-modifying statements in WITH")
	}
	q, err := t.selectQuery(s, parent)
	if err != nil {
		return "", nil, err
	}
	cols, err := cteColumns(c, q.cols)
	return q.sql, cols, err
}

// cteColumns are a CTE's columns: its query's, renamed by its column list.
func cteColumns(c *pg_query.CommonTableExpr, qcols []Column) ([]Column, error) {
	aliases := c.GetAliascolnames()
	if len(aliases) > len(qcols) {
		return nil, pgError("42P10", "WITH query %q has %d columns available but %d columns specified", c.GetCtename(), len(qcols), len(aliases))
	}
	cols := append([]Column(nil), qcols...)
	for i, a := range aliases {
		cols[i].Name = strNode(a)
	}
	seen := map[string]bool{}
	for _, col := range cols {
		if seen[col.Name] {
			return nil, refuse("a WITH query with two output columns named %q", col.Name)
		}
		seen[col.Name] = true
	}
	return cols, nil
}

// cteNamed finds a CTE in scope by a table reference's name.
func (t *translator) cteNamed(rv *pg_query.RangeVar) (cte, bool) {
	if rv.GetSchemaname() != "" {
		return cte{}, false
	}
	for i := len(t.ctes) - 1; i >= 0; i-- {
		if t.ctes[i].name == rv.GetRelname() {
			return t.ctes[i], true
		}
	}
	return cte{}, false
}

// withQuery translates a query with a WITH clause: the CTEs, then the
// query itself with them in scope.
func (t *translator) withQuery(s *pg_query.SelectStmt, w *pg_query.WithClause, parent *scope) (query, error) {
	depth := len(t.ctes)
	defer func() { t.ctes = t.ctes[:depth] }()
	prefix, err := t.withClause(w, parent)
	if err != nil {
		return query{}, err
	}
	body := proto.Clone(s).(*pg_query.SelectStmt)
	body.WithClause = nil
	q, err := t.selectQuery(body, parent)
	q.sql = prefix + q.sql
	return q, err
}
