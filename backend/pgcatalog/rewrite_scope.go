package pgcatalog

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// scope is the name space of one SELECT: its FROM items, its WITH
// queries, and the enclosing query's scope (correlated references).
type scope struct {
	parent  *scope
	sources []*source
	ctes    map[string]cteDef
	using   map[string]bool // columns merged by JOIN … USING
	top     bool            // the statement's own SELECT (its results are the client's)
	// windowClause is the SELECT's WINDOW clause (nil none: a subquery's
	// windows are not its enclosing query's).
	windowClause []*pg_query.Node
}

// source is one FROM item: the alias it is known by, the relation it
// reads (schema and name, for schema.rel.col references) and its columns.
type source struct {
	alias, schema, rel string
	cols               []col
	hideStar           map[string]bool // columns merged by JOIN … USING: not in an unqualified *
}

// window resolves OVER w and OVER (w ORDER BY …) against the SELECT's
// WINDOW clause: the named window's partitioning, and its ordering
// unless the reference orders.
func (s *scope) window(w *pg_query.WindowDef) (*pg_query.WindowDef, error) {
	ref := w.GetRefname()
	if ref == "" {
		ref = w.GetName()
	}
	if ref == "" {
		return w, nil
	}
	for sc := s; sc != nil; sc = sc.parent {
		if sc.windowClause == nil {
			continue
		}
		for _, n := range sc.windowClause {
			d := n.GetWindowDef()
			if d.GetName() != ref {
				continue
			}
			out := &pg_query.WindowDef{PartitionClause: d.GetPartitionClause(), OrderClause: d.GetOrderClause(),
				FrameOptions: d.GetFrameOptions()}
			if w.GetRefname() != "" {
				if len(w.GetOrderClause()) > 0 {
					out.OrderClause = w.GetOrderClause()
				}
				out.FrameOptions = w.GetFrameOptions()
			}
			return out, nil
		}
		break // a window is its own SELECT's
	}
	return nil, pgErr("42704", "window %q does not exist", ref)
}

// cteDef is a WITH query: its columns and the name the SQLite text
// gives it.
type cteDef struct {
	cols []col
	sql  string
}

// cte finds a WITH query by name in s or an enclosing scope.
func (s *scope) cte(name string) (cteDef, bool) {
	for ; s != nil; s = s.parent {
		if c, ok := s.ctes[name]; ok {
			return c, true
		}
	}
	return cteDef{}, false
}

// column resolves a column reference (name, alias.name or
// schema.rel.name) as PostgreSQL does: the nearest scope first.
func (s *scope) column(names []string) (col, error) {
	switch len(names) {
	case 1:
		return s.unqualified(names[0])
	case 2, 3:
		return s.qualified(names)
	}
	return col{}, refuse("the column reference %s", strings.Join(names, "."))
}

func (s *scope) unqualified(name string) (col, error) {
	for sc := s; sc != nil; sc = sc.parent {
		var found []col
		for _, src := range sc.sources {
			for _, c := range src.cols {
				if c.name == name {
					found = append(found, c)
					break
				}
			}
		}
		switch {
		case len(found) == 1, len(found) > 1 && sc.using[name]:
			return found[0], nil
		case len(found) > 1:
			return col{}, pgErr("42702", "column reference %q is ambiguous", name)
		}
	}
	return col{}, pgErr("42703", "column %q does not exist", name)
}

func (s *scope) qualified(names []string) (col, error) {
	rel, name := names[len(names)-2], names[len(names)-1]
	for sc := s; sc != nil; sc = sc.parent {
		for _, src := range sc.sources {
			if src.alias != rel || len(names) == 3 && src.schema != names[0] {
				continue
			}
			for _, c := range src.cols {
				if c.name == name {
					return c, nil
				}
			}
			return col{}, pgErr("42703", "column %s.%s does not exist", rel, name)
		}
	}
	return col{}, pgErr("42P01", "missing FROM-clause entry for table %q", rel)
}

// star is the columns of `*` (every FROM item's) or `alias.*`.
func (s *scope) star(alias string) ([]col, error) {
	var out []col
	for _, src := range s.sources {
		if alias != "" && src.alias == alias {
			return append(out, src.cols...), nil
		}
		if alias != "" {
			continue
		}
		for _, c := range src.cols {
			if !src.hideStar[c.name] {
				out = append(out, c)
			}
		}
	}
	if alias != "" {
		return nil, pgErr("42P01", "missing FROM-clause entry for table %q", alias)
	}
	if len(out) == 0 {
		return nil, pgErr("42601", "SELECT * with no tables specified is not valid")
	}
	return out, nil
}

// relation finds a catalog relation by schema ("" for PostgreSQL's
// search path: pg_catalog) and name.
func relation(schema, name string) (*Relation, bool) {
	if schema == "" {
		schema = pgCatalog
	}
	for i := range Relations {
		if Relations[i].Schema == schema && Relations[i].Name == name {
			return &Relations[i], true
		}
	}
	return nil, false
}
