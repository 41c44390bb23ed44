package pgdialect

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// rel is one range-table entry a name can refer to: a table, a subquery
// or a function in FROM, under its alias.
type rel struct {
	alias string
	cols  []Column
	bare  bool // columns written unqualified (a CHECK constraint's table)

	// JOIN USING: the merged columns are a relation of their own, named
	// by no alias, whose columns have their own SQL; the joined tables'
	// columns of the same names are hidden from unqualified names and *.
	merged bool
	sqls   map[string]string
	hidden map[string]bool
}

// scope is the names an expression can see: its query's relations, then
// the enclosing queries' (correlated subqueries).
type scope struct {
	rels   []rel
	parent *scope
	group  *grouping // non-nil while the query's grouped expressions are checked
}

// grouping collects the column references an expression makes outside
// aggregates, so that a grouped query refuses an ungrouped column as
// PostgreSQL does (42803) instead of SQLite's arbitrary row.
type grouping struct {
	keys     []string // the GROUP BY expressions' SQLite text
	keyTypes []Type   // and their types
	bare     []string // columns referenced outside an aggregate, this expression
	cols     []string // their names, for the message
	// shown: the GROUP BY columns of severalForms types, whose references
	// outside aggregates read a value chosen by value (representative);
	// used: those referenced.
	shown, used map[string]bool
}

// value is a translated expression.
type value struct {
	sql   string
	typ   Type
	name  string  // the column name PostgreSQL gives it as a target
	lit   *string // an untyped string literal's text (typ unknown)
	num   string  // a numeric literal's text (typ numeric)
	param int32   // a bare placeholder (typ unknown until context types it)
	null  bool    // the NULL literal
	weak  bool    // name comes from a cast: an outer cast renames it

	isConst bool // a constant PostgreSQL folds at plan time
	pgConst bool // not folded here, but PostgreSQL's planner folds it (volatility.go)
	konst   any  // its stored value (nil, int64, float64, string, []byte)
}

// constOf is a typed constant's value.
func constOf(konst any, typ Type, name string) value {
	return value{sql: renderLiteral(konst), typ: typ, name: name, isConst: true, konst: konst}
}

// untyped reports whether v still takes its type from its context.
func (v value) untyped() bool { return v.typ.Name == "unknown" }

// column resolves a column reference in sc.
func (t *translator) column(ref *pg_query.ColumnRef, sc *scope) (value, error) {
	var parts []string
	for _, f := range ref.GetFields() {
		if f.GetAStar() != nil {
			return value{}, refuse("* in an expression")
		}
		parts = append(parts, strNode(f))
	}
	if len(parts) > 2 {
		return value{}, refuse("schema-qualified column references (%s)", strings.Join(parts, "."))
	}
	for s, depth := sc, 0; s != nil; s, depth = s.parent, depth+1 {
		v, found, err := s.lookup(parts)
		if err != nil || !found {
			if err != nil {
				return value{}, err
			}
			continue
		}
		if depth == 0 && s.group != nil && t.aggDepth == 0 {
			s.group.bare = append(s.group.bare, v.sql)
			s.group.cols = append(s.group.cols, strings.Join(parts, "."))
			v = s.group.representative(v)
		}
		if depth > 0 && s.group != nil && s.group.shown[v.sql] && t.win.allowed {
			return t.outerRepresentative(s.group, v)
		}
		return v, nil
	}
	if len(parts) == 2 && !sc.hasAlias(parts[0]) {
		return value{}, pgError("42P01", "missing FROM-clause entry for table %q", parts[0])
	}
	return value{}, pgError("42703", "column %q does not exist", strings.Join(parts, "."))
}

func (s *scope) hasAlias(a string) bool {
	for x := s; x != nil; x = x.parent {
		for _, r := range x.rels {
			if r.alias == a {
				return true
			}
		}
	}
	return false
}

// lookup finds parts (col or alias.col) among s's own relations.
func (s *scope) lookup(parts []string) (value, bool, error) {
	var out value
	found := 0
	for _, r := range s.rels {
		if len(parts) == 2 && (r.alias != parts[0] || r.merged) {
			continue
		}
		for _, c := range r.cols {
			if c.Name == parts[len(parts)-1] && (len(parts) == 2 || !r.hidden[c.Name]) {
				found++
				out = r.value(c)
			}
		}
	}
	if found > 1 {
		return value{}, false, pgError("42702", "column reference %q is ambiguous", strings.Join(parts, "."))
	}
	return out, found == 1, nil
}

// checkGrouped refuses an expression of a grouped query that uses a
// column neither grouped nor aggregated.
func (g *grouping) checkGrouped(v value) error {
	defer func() { g.bare, g.cols = nil, nil }()
	if g.isKey(v.sql) {
		return nil
	}
	for i, b := range g.bare {
		if !g.isKey(b) {
			return pgError("42803", "column %q must appear in the GROUP BY clause or be used in an aggregate function", g.cols[i])
		}
	}
	return nil
}

func (g *grouping) isKey(sql string) bool {
	for _, k := range g.keys {
		if k == sql {
			return true
		}
	}
	return false
}

// value is a column of r as an expression.
func (r rel) value(c Column) value {
	v := value{sql: quoteIdent(r.alias) + "." + quoteIdent(c.Name), typ: c.Type, name: c.Name}
	switch {
	case r.merged:
		v.sql = r.sqls[c.Name]
	case r.bare:
		v.sql = quoteIdent(c.Name)
	}
	return v
}
