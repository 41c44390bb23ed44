package pgdialect

import (
	"slices"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// rel is a FROM item in scope: the name a column reference qualifies it
// by and its columns.
type rel struct {
	name string
	cols []Column
}

// scope is the FROM items of one query, inside its enclosing query's.
type scope struct {
	rels   []rel
	parent *scope
	// grouped: the GROUP BY column references ("rel.col") of this query
	// when it has a GROUP BY; a column outside aggregates must be one.
	grouped map[string]bool
}

// nullable makes the columns of rels[from:to] (an outer join's inner
// side) NULL where no row matched: none is NOT NULL any more.
func (s *scope) nullable(from, to int) {
	for i := from; i < to; i++ {
		cols := slices.Clone(s.rels[i].cols)
		for c := range cols {
			cols[c].NotNull = false
		}
		s.rels[i].cols = cols
	}
}

// push opens a query's scope; pop closes it.
func (t *translator) push() { t.scope = &scope{parent: t.scope} }
func (t *translator) pop()  { t.scope = t.scope.parent }

// add puts a FROM item in the current scope (42712 for a name twice).
func (t *translator) add(r rel) error {
	for _, o := range t.scope.rels {
		if o.name == r.name {
			return pgError("42712", "table name %q specified more than once", r.name)
		}
	}
	t.scope.rels = append(t.scope.rels, r)
	return nil
}

// columnRef resolves a column reference, innermost query first.
func (t *translator) columnRef(c *pg_query.ColumnRef) (val, error) {
	fields := c.GetFields()
	var relName, col string
	switch {
	case len(fields) == 1 && strNode(fields[0]) != "":
		col = strNode(fields[0])
	case len(fields) == 2 && strNode(fields[1]) != "":
		relName, col = strNode(fields[0]), strNode(fields[1])
	default:
		return val{}, refuse("this column reference (* or a qualified name of more than two parts)")
	}
	for s := t.scope; s != nil; s = s.parent {
		var found *rel
		var fc Column
		for i := range s.rels {
			r := &s.rels[i]
			if relName != "" && r.name != relName {
				continue
			}
			for _, rc := range r.cols {
				if rc.Name == col {
					if found != nil {
						return val{}, pgError("42702", "column reference %q is ambiguous", col)
					}
					found, fc = r, rc
				}
			}
		}
		if found == nil {
			continue
		}
		key := found.name + "." + col
		if s == t.scope && s.grouped != nil && t.aggDepth == 0 && !s.grouped[key] {
			return val{}, refuse("a column shown outside aggregates that GROUP BY does not list (%s; PostgreSQL's functional dependency on a key)", key)
		}
		if t.reads != nil {
			t.reads[col] = true
		}
		if s != t.scope {
			t.refScopes = append(t.refScopes, s)
		}
		v := typed(quoteIdent(found.name)+"."+quoteIdent(col), fc.Type)
		v.notNull, v.maxLen = fc.NotNull, typeLen(fc)
		return v, nil
	}
	if relName != "" {
		return val{}, pgError("42703", "column %s.%s does not exist", relName, col)
	}
	return val{}, pgError("42703", "column %q does not exist", col)
}

// columnKey is the grouping key of a GROUP BY column reference.
func (t *translator) columnKey(n *pg_query.Node) (string, bool) {
	c := n.GetColumnRef()
	if c == nil {
		return "", false
	}
	fields := c.GetFields()
	col := strNode(fields[len(fields)-1])
	rn := ""
	if len(fields) == 2 {
		rn = strNode(fields[0])
	}
	for _, r := range t.scope.rels {
		if rn != "" && r.name != rn {
			continue
		}
		for _, rc := range r.cols {
			if rc.Name == col {
				return r.name + "." + col, true
			}
		}
	}
	return "", false
}
