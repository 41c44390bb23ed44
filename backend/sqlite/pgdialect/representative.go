package pgdialect

import (
	"fmt"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// Equal values with several stored forms (numeric 1.0 and 1.00, bpchar
// 'a' and 'a ') are one group, one DISTINCT row; PostgreSQL shows the
// form of the first row its plan meets. SQLite would show the first in
// its scan order, which is not replicated state (VACUUM, another plan),
// and an INSERT ... SELECT would store it. So where a group or a DISTINCT
// row is represented, the translation chooses by value: the smallest
// stored form (COLLATE BINARY: 1.0 before 1.00), one of PostgreSQL's
// answers, the same on every node whatever the physical order.

// severalForms reports whether equal values of type t can be stored
// differently and show differently: numeric without a typmod (1.0 and
// 1.00, equal under COLLATE RTRIM) and bpchar without a length ('a' and
// 'a '). A numeric(p,s) or char(n) value has one stored form.
func severalForms(t Type) bool {
	return (t.Name == "numeric" || t.Name == "bpchar") && t.Typmod < 0
}

// distinctSQL translates SELECT DISTINCT whose rows have columns of
// severalForms types. PostgreSQL returns, of rows equal on every column,
// the first its plan meets; SQLite's DISTINCT would keep the first in
// its scan order, which is not replicated state (an INSERT ... SELECT
// DISTINCT would store a scale that depends on it). So it keeps the row
// numbered 1 in a window partitioned by every column and ordered by those
// columns as stored: one of PostgreSQL's answers, the same on every node
// whatever the physical order (rows equal as stored are identical). The
// select list is computed a level below the window, since it may hold
// window functions, which a PARTITION BY may not.
func distinctSQL(p *selectParts) string {
	var inner, cols, partition, tie, outer, order []string
	for i, v := range p.targetVals {
		c := fmt.Sprintf("\"c%d\"", i)
		inner = append(inner, v.sql+" AS "+c)
		cols = append(cols, "\"relchain_d\"."+c)
		outer = append(outer, "\"relchain_e\"."+c+" AS "+quoteIdent(p.cols[i].Name))
		if !severalForms(v.typ) {
			partition = append(partition, "\"relchain_d\"."+c)
			continue
		}
		partition = append(partition, "\"relchain_d\"."+c+" COLLATE RTRIM")
		tie = append(tie, "\"relchain_d\"."+c+" COLLATE BINARY")
	}
	for j, e := range p.orderExprs {
		k := fmt.Sprintf("\"k%d\"", j)
		inner = append(inner, e+" AS "+k)
		cols = append(cols, "\"relchain_d\"."+k)
		order = append(order, "\"relchain_e\"."+k+p.orderSuffixes[j])
	}
	sql := "SELECT " + join(inner, ", ")
	for _, c := range []struct{ kw, s string }{{" FROM ", p.from}, {" WHERE ", p.where}, {" GROUP BY ", p.group}, {" HAVING ", p.having}} {
		if c.s != "" {
			sql += c.kw + c.s
		}
	}
	sql = "SELECT " + join(cols, ", ") + ", row_number() OVER (PARTITION BY " + join(partition, ", ") + " ORDER BY " + join(tie, ", ") + ") AS \"rn\" FROM (" + sql + ") AS \"relchain_d\""
	sql = "SELECT " + join(outer, ", ") + " FROM (" + sql + ") AS \"relchain_e\" WHERE \"relchain_e\".\"rn\" = 1"
	if len(order) > 0 {
		sql += " ORDER BY " + join(order, ", ")
	}
	return sql + p.limit
}

// representedKeys are the GROUP BY items of s that are columns of
// severalForms types (by name, or by the position of a column in the
// select list), by their SQLite text.
func (t *translator) representedKeys(s *pg_query.SelectStmt, sc *scope) map[string]bool {
	out := map[string]bool{}
	targets := s.GetTargetList()
	for _, n := range s.GetGroupClause() {
		if iv := n.GetAConst().GetIval(); iv != nil && iv.GetIval() >= 1 && int(iv.GetIval()) <= len(targets) {
			n = targets[iv.GetIval()-1].GetResTarget().GetVal()
		}
		ref := n.GetColumnRef()
		if ref == nil {
			continue
		}
		var parts []string
		for _, f := range ref.GetFields() {
			if f.GetAStar() != nil {
				parts = nil
				break
			}
			parts = append(parts, strNode(f))
		}
		if len(parts) == 0 || len(parts) > 2 {
			continue
		}
		if v, found, err := sc.lookup(parts); err == nil && found && severalForms(v.typ) {
			out[v.sql] = true
		}
	}
	return out
}

// representative is v, a column referenced outside aggregates in a
// grouped query, as the group shows it: when v is a GROUP BY column of a
// severalForms type, its smallest stored form in the group (compared as
// stored, then as its type compares).
func (g *grouping) representative(v value) value {
	if !g.shown[v.sql] {
		return v
	}
	if g.used == nil {
		g.used = map[string]bool{}
	}
	g.used[v.sql] = true
	v.sql = representativeSQL(v.sql)
	return v
}

// outerRepresentative is v, a GROUP BY column of a severalForms type of
// an enclosing grouped query read in a correlated subquery's select list
// or ORDER BY, as the group shows it (its representative: SQLite
// evaluates an aggregate of outer columns in the outer query; it refuses
// one in a WHERE, where the column is compared, and comparisons under
// COLLATE RTRIM do not see the form). Inside an aggregate of the subquery
// the aggregate's level is not known here (PostgreSQL gives it the
// level of its arguments): refused.
func (t *translator) outerRepresentative(g *grouping, v value) (value, error) {
	if t.aggDepth > 0 {
		return value{}, refuse("a GROUP BY column of type %s of an enclosing query inside an aggregate of a subquery (which of its equal values of different display scales represents the group)", label(v.typ))
	}
	return g.representative(v), nil
}

func representativeSQL(col string) string { return "(min(" + col + " COLLATE BINARY) COLLATE RTRIM)" }

// represented is the GROUP BY column whose representative sql is, or sql
// itself (GROUP BY a position names the column, not its representative).
func (g *grouping) represented(sql string) string {
	for k := range g.used {
		if representativeSQL(k) == sql {
			return k
		}
	}
	return sql
}

// checkRepresentatives refuses what representative cannot choose by
// value: two such GROUP BY columns shown (their forms must come from one
// row, and the smallest of each need not), and a GROUP BY expression of a
// severalForms type shown as a whole (its references are not columns).
func (g *grouping) checkRepresentatives(checks []groupCheck) error {
	if len(g.used) > 1 {
		return refuse("two GROUP BY columns of type numeric without a scale or bpchar without a length used outside aggregates (which row's display scales represent the group)")
	}
	for i, k := range g.keys {
		if !severalForms(g.keyTypes[i]) || g.shown[k] {
			continue
		}
		for _, c := range checks {
			if c.v.sql == k {
				return refuse("a GROUP BY expression of type %s outside aggregates (which of its equal values of different display scales represents the group)", label(g.keyTypes[i]))
			}
		}
	}
	return nil
}

// minMaxSQL is min or max of arg. Of equal numerics of different display
// scales, SQLite's min/max keep the first in scan order (not replicated
// state) and PostgreSQL's the first or last its plan meets; a numeric is
// compared as stored (COLLATE BINARY), which orders numerics by value and
// equal ones by scale, so the choice is one of PostgreSQL's, made by
// value. (Not bpchar: as stored, 'a ' sorts after 'a' + a tab.)
func minMaxSQL(fn, distinct string, arg value) string {
	if arg.typ.Name != "numeric" || arg.typ.Typmod >= 0 {
		return fn + "(" + distinct + arg.sql + ")"
	}
	return "(" + fn + "(" + distinct + arg.sql + " COLLATE BINARY) COLLATE RTRIM)"
}

// setRepresentatives is l op r (UNION, INTERSECT, EXCEPT) over columns
// of which some have severalForms types: each result row is, of the rows
// equal to it that PostgreSQL may return (both arms' for UNION and
// INTERSECT, the left arm's for EXCEPT), the one whose such columns are
// smallest as stored (COLLATE BINARY), instead of the first SQLite's
// scan meets. The result's columns keep the left arm's names.
func setRepresentatives(l, r, op string, cols []Column) string {
	var names, outer, partition, tie, same []string
	for i, c := range cols {
		n := fmt.Sprintf("\"c%d\"", i)
		names = append(names, n)
		outer = append(outer, "\"relchain_e\"."+n+" AS "+quoteIdent(c.Name))
		coll := ""
		if severalForms(c.Type) {
			coll = " COLLATE RTRIM"
			tie = append(tie, "\"relchain_d\"."+n+" COLLATE BINARY")
		}
		partition = append(partition, "\"relchain_d\"."+n+coll)
		same = append(same, "\"relchain_x\"."+n+coll+" IS \"relchain_d\"."+n)
	}
	list := join(names, ", ")
	with := "WITH \"relchain_l\"(" + list + ") AS (" + l + "), \"relchain_r\"(" + list + ") AS (" + r + ") "
	from := "SELECT * FROM \"relchain_l\" UNION ALL SELECT * FROM \"relchain_r\""
	if op == " EXCEPT " {
		from = "SELECT * FROM \"relchain_l\""
	}
	where := ""
	if op != " UNION " {
		where = " WHERE EXISTS (SELECT 1 FROM (SELECT * FROM \"relchain_l\"" + op + "SELECT * FROM \"relchain_r\") AS \"relchain_x\" WHERE " + join(same, " AND ") + ")"
	}
	inner := "SELECT " + list + ", row_number() OVER (PARTITION BY " + join(partition, ", ") + " ORDER BY " + join(tie, ", ") + ") AS \"rn\" FROM (" + from + ") AS \"relchain_d\"" + where
	return "SELECT " + join(outer, ", ") + " FROM (" + with + inner + ") AS \"relchain_e\" WHERE \"relchain_e\".\"rn\" = 1"
}
