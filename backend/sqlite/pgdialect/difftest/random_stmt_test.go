package difftest

import (
	"fmt"
	"strconv"
	"strings"
)

// The statement part of the generator beyond random_test.go's first
// forms: grouping with several keys, positions and HAVING on aggregates,
// DISTINCT ON, INSERT ... SELECT DISTINCT or GROUP BY, UPDATE and DELETE
// with subqueries, set operations of several columns and nested ones, and
// rows of equal numerics of different display scales (1, 1.0, 1.00),
// which the UPDATEs move about PostgreSQL's heap while SQLite keeps them
// in rowid order: a translation that answers by physical order shows.

// scaledLits are equal numerics of different display scales.
var scaledLits = []string{"1", "1.0", "1.00", "2.5", "2.50", "0", "0.00", "-1.0", "-1"}

// statementMore adds one statement of the forms above (and, after a
// write, the table's rows).
func (g *gen) statementMore(t, u table) {
	switch g.pick(7) {
	case 0:
		g.add(g.selectGroupedKeys(t), false)
	case 1:
		g.add(g.selectDistinctOn(t), false)
	case 2:
		g.add(g.selectSetOpColumns(t, u), false)
	case 3:
		g.add(g.scaledRow(t), false)
		g.add(g.scaledRow(t), false)
		g.add(g.selectGroupedKeys(t), false)
	default:
		var sql string
		switch g.pick(3) {
		case 0:
			sql = g.insertSelect(t)
		case 1:
			sql = g.updateSubquery(t, u)
		default:
			sql = g.deleteSubquery(t, u)
		}
		g.add(sql, false)
		g.add(fmt.Sprintf("SELECT * FROM %s ORDER BY %s", t.name, positions(len(t.cols), g)), false)
	}
}

// scaledRow inserts a row whose numeric-kind columns take equal values of
// different scales.
func (g *gen) scaledRow(t table) string {
	vals := make([]string, len(t.cols))
	for i, c := range t.cols {
		vals[i] = g.literalOrNull(c.kind)
		if c.kind == kFloat {
			vals[i] = scaledLits[g.pick(len(scaledLits))]
		}
	}
	sql := "INSERT INTO " + t.name + " VALUES (" + strings.Join(vals, ", ") + ")"
	if t.pk {
		sql += " ON CONFLICT DO NOTHING"
	}
	return sql
}

// selectGroupedKeys groups by one or two columns (by name or position),
// with aggregates, a HAVING on an aggregate now and then, and DISTINCT.
func (g *gen) selectGroupedKeys(t table) string {
	sc := t.scope(t.name)
	var keys, outs []string
	for n := 1 + g.pick(2); n > 0; n-- {
		keys = append(keys, sc[g.pick(len(sc))].name)
	}
	outs = append(outs, keys...)
	outs = append(outs, g.aggregate(sc))
	group := make([]string, len(keys))
	for i, k := range keys {
		group[i] = k
		if g.chance(0.3) {
			group[i] = strconv.Itoa(i + 1)
		}
	}
	distinct := ""
	if g.chance(0.2) {
		distinct = "DISTINCT "
	}
	sql := "SELECT " + distinct + strings.Join(outs, ", ") + " FROM " + t.name + g.where(sc) + " GROUP BY " + strings.Join(group, ", ")
	if g.chance(0.4) {
		sql += " HAVING " + []string{"count(*) > 1", "count(*) = 1", "min(" + keys[0] + ") IS NOT NULL", "count(DISTINCT " + keys[0] + ") >= 1"}[g.pick(4)]
	}
	sql += " ORDER BY " + positions(len(outs), g)
	if g.chance(0.2) {
		sql += " LIMIT " + strconv.Itoa(1+g.pick(3))
	}
	return sql
}

// selectDistinctOn is DISTINCT ON a column, ordered by it and then by
// every output column (a total order: PostgreSQL's answer is defined).
func (g *gen) selectDistinctOn(t table) string {
	sc := t.scope(t.name)
	on := sc[g.pick(len(sc))].name
	var all []string
	for _, c := range sc {
		all = append(all, c.name)
	}
	order := on + []string{"", " DESC", " NULLS FIRST"}[g.pick(3)]
	for _, c := range all {
		order += ", " + c + []string{"", " DESC"}[g.pick(2)]
	}
	return "SELECT DISTINCT ON (" + on + ") " + strings.Join(all, ", ") + " FROM " + t.name + g.where(sc) + " ORDER BY " + order
}

// selectSetOpColumns is a set operation of several columns of a's kinds,
// the right arm another table's columns of the same kinds (or a's own),
// nested now and then, ordered by every column, with a LIMIT now and then.
func (g *gen) selectSetOpColumns(a, b table) string {
	arm := func(t table, kinds []kind) string {
		sc := t.scope(t.name)
		outs := make([]string, len(kinds))
		for i, k := range kinds {
			outs[i] = g.expr(k, sc, 1)
		}
		return "SELECT " + strings.Join(outs, ", ") + " FROM " + t.name + g.where(sc)
	}
	var kinds []kind
	for _, c := range a.cols[:1+g.pick(len(a.cols))] {
		kinds = append(kinds, c.kind)
	}
	ops := []string{" UNION ", " UNION ALL ", " INTERSECT ", " EXCEPT "}
	sql := arm(a, kinds) + ops[g.pick(4)] + arm(b, kinds)
	if g.chance(0.3) {
		sql = "(" + sql + ")" + ops[g.pick(4)] + arm(a, kinds)
	}
	sql += " ORDER BY " + positions(len(kinds), g)
	if g.chance(0.2) {
		sql += " LIMIT " + strconv.Itoa(1+g.pick(3))
	}
	return sql
}

// insertSelect copies t's rows into t through DISTINCT or GROUP BY, which
// choose among equal rows: the choice is stored.
func (g *gen) insertSelect(t table) string {
	sc := t.scope(t.name)
	var cols []string
	for _, c := range sc {
		cols = append(cols, c.name)
	}
	sql := "INSERT INTO " + t.name + " SELECT DISTINCT * FROM " + t.name + g.where(sc)
	if g.chance(0.5) {
		sql = "INSERT INTO " + t.name + " SELECT " + strings.Join(cols, ", ") + " FROM " + t.name + g.where(sc) + " GROUP BY " + strings.Join(cols, ", ")
	}
	if t.pk {
		sql += " ON CONFLICT DO NOTHING"
	}
	return sql
}

// updateSubquery sets a column of t from an aggregate of u, or updates
// the rows a subquery over u selects.
func (g *gen) updateSubquery(t, u table) string {
	sc := t.scope(t.name)
	c := t.cols[g.pick(len(t.cols))]
	uc := u.cols[g.pick(len(u.cols))]
	if uc.kind == c.kind && c.kind != kBool && g.chance(0.5) {
		agg := []string{"max", "min"}[g.pick(2)]
		return "UPDATE " + t.name + " SET " + c.name + " = " + stored(c.kind, "(SELECT "+agg+"(i."+uc.name+") FROM "+u.name+" i)") + g.where(sc)
	}
	cond := g.expr(uc.kind, sc, 1) + []string{" IN ", " NOT IN ", " = ANY "}[g.pick(3)] + "(SELECT i." + uc.name + " FROM " + u.name + " i" + g.where(u.scope("i")) + ")"
	if g.chance(0.4) {
		cond = []string{"EXISTS ", "NOT EXISTS "}[g.pick(2)] + "(SELECT 1 FROM " + u.name + " i WHERE " + g.expr(kBool, append(u.scope("i"), sc...), 1) + ")"
	}
	return "UPDATE " + t.name + " SET " + c.name + " = " + stored(c.kind, g.expr(c.kind, sc, 1)) + " WHERE " + cond
}

// deleteSubquery deletes the rows of t a subquery over u selects.
func (g *gen) deleteSubquery(t, u table) string {
	sc := t.scope(t.name)
	uc := u.cols[g.pick(len(u.cols))]
	cond := g.expr(uc.kind, sc, 1) + []string{" IN ", " NOT IN "}[g.pick(2)] + "(SELECT i." + uc.name + " FROM " + u.name + " i" + g.where(u.scope("i")) + ")"
	if g.chance(0.4) {
		cond = []string{"EXISTS ", "NOT EXISTS "}[g.pick(2)] + "(SELECT 1 FROM " + u.name + " i WHERE " + g.expr(kBool, append(u.scope("i"), sc...), 1) + ")"
	}
	return "DELETE FROM " + t.name + " WHERE " + cond
}
