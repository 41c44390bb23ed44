package pgdialect

import (
	"maps"
	"slices"
)

// joinUsing translates JOIN ... USING (cols) as an ON of equalities and
// a merged column per name, as PostgreSQL: the left one for INNER and
// LEFT joins, the right one for RIGHT, COALESCE of both for FULL, in the
// columns' common type; * lists the merged columns first.
func (t *translator) joinUsing(names []string, kind, l, r string, lrels, rrels []rel) (string, []rel, error) {
	merged := rel{merged: true, sqls: map[string]string{}}
	var conds []string
	for _, name := range names {
		lv, ok1, err1 := (&scope{rels: lrels}).lookup([]string{name})
		rv, ok2, err2 := (&scope{rels: rrels}).lookup([]string{name})
		switch {
		case err1 != nil || err2 != nil:
			return "", nil, pgError("42702", "common column name %q appears more than once", name)
		case !ok1:
			return "", nil, pgError("42703", "column %q specified in USING clause does not exist in left table", name)
		case !ok2:
			return "", nil, pgError("42703", "column %q specified in USING clause does not exist in right table", name)
		}
		ls, rs, err := t.comparison("=", lv, rv)
		if err != nil {
			return "", nil, err
		}
		typ, err := commonType("JOIN/USING", []value{lv, rv})
		if err != nil {
			return "", nil, err
		}
		if _, exists := merged.sqls[name]; exists {
			return "", nil, pgError("42701", "column name %q appears more than once in USING clause", name)
		}
		conds = append(conds, "("+ls+" = "+rs+")")
		merged.cols = append(merged.cols, Column{Name: name, Type: typ})
		merged.sqls[name] = usingSQL(kind, ls, rs)
		if typ.Name == "jsonb" {
			merged.sqls[name] = usingSQL(kind, lv.sql, rv.sql) // ls, rs are equality keys
		}
	}
	rels := []rel{merged}
	for _, side := range [][]rel{lrels, rrels} {
		for _, x := range side {
			x.hidden = maps.Clone(x.hidden)
			if x.hidden == nil {
				x.hidden = map[string]bool{}
			}
			for name := range merged.sqls {
				x.hidden[name] = true
			}
			rels = append(rels, x)
		}
	}
	return "(" + l + kind + r + " ON " + join(conds, " AND ") + ")", rels, nil
}

func usingSQL(kind, l, r string) string {
	switch kind {
	case " RIGHT JOIN ":
		return r
	case " FULL JOIN ":
		return "coalesce(" + l + ", " + r + ")"
	}
	return l
}

// commonNames are the column names a NATURAL join matches: those visible
// unqualified on both sides, in the left side's order.
func commonNames(lrels, rrels []rel) []string {
	var left, right []string
	for _, side := range []struct {
		rels []rel
		out  *[]string
	}{{lrels, &left}, {rrels, &right}} {
		for _, x := range side.rels {
			for _, c := range x.cols {
				if !x.hidden[c.Name] && !slices.Contains(*side.out, c.Name) {
					*side.out = append(*side.out, c.Name)
				}
			}
		}
	}
	var out []string
	for _, n := range left {
		if slices.Contains(right, n) {
			out = append(out, n)
		}
	}
	return out
}
