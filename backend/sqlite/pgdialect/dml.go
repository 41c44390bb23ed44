package pgdialect

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// target is the table a DML statement writes.
type target struct {
	name  string
	alias string
	cols  []Column
}

func (t *translator) target(rv *pg_query.RangeVar) (target, error) {
	cols, err := t.tableName(rv)
	if err != nil {
		return target{}, err
	}
	tg := target{name: rv.GetRelname(), alias: rv.GetRelname(), cols: cols}
	if a := rv.GetAlias(); a != nil {
		tg.alias = a.GetAliasname()
	}
	return tg, nil
}

func (tg target) sql() string {
	if tg.alias != tg.name {
		return quoteIdent(tg.name) + " AS " + quoteIdent(tg.alias)
	}
	return quoteIdent(tg.name)
}

func (tg target) column(name string) (Column, int, error) {
	for i, c := range tg.cols {
		if c.Name == name {
			return c, i, nil
		}
	}
	return Column{}, 0, pgError("42703", "column %q of relation %q does not exist", name, tg.name)
}

// returning translates RETURNING and records the result columns.
func (t *translator) returning(items []*pg_query.Node, sc *scope) (string, error) {
	if len(items) == 0 {
		return "", nil
	}
	// SQLite's RETURNING sees the table's columns under no alias: they
	// are written unqualified, and a subquery (where a bare name could
	// bind to its own tables) is refused.
	sc = &scope{rels: []rel{{alias: sc.rels[0].alias, cols: sc.rels[0].cols, bare: true}}}
	t.inReturning = true
	defer func() { t.inReturning = false }()
	var p selectParts
	if err := t.targetList(items, sc, &p, func(value) {}); err != nil {
		return "", err
	}
	if t.sawAgg {
		return "", pgError("42803", "aggregate functions are not allowed in RETURNING")
	}
	for _, c := range p.cols {
		t.out.Columns = append(t.out.Columns, ResultColumn{Name: c.Name, Type: c.Type})
	}
	return " RETURNING " + p.targets, nil
}

// assign converts v to column c's type with PostgreSQL's assignment cast.
func (t *translator) assign(v value, c Column) (string, error) {
	sql, err := t.coerce(v, c.Type, ctxAssignment)
	if errIs(err, "42804") {
		return "", pgError("42804", "column %q is of type %s but expression is of type %s", c.Name, label(c.Type), label(v.typ))
	}
	return sql, err
}

func (t *translator) update(u *pg_query.UpdateStmt) error {
	if u.GetWithClause() != nil {
		return refuse("UPDATE with WITH")
	}
	tg, err := t.target(u.GetRelation())
	if err != nil {
		return err
	}
	sc := &scope{rels: []rel{{alias: tg.alias, cols: tg.cols}}}
	from, sc, err := t.updateFrom(u, sc)
	if err != nil {
		return err
	}
	// PostgreSQL's order of analysis (transformUpdateStmt): FROM, WHERE,
	// RETURNING, then SET, so the first error and a $n's type (taken at
	// its first use) are its.
	where := ""
	if u.GetWhereClause() != nil {
		if u.GetWhereClause().GetCurrentOfExpr() != nil {
			return refuse("WHERE CURRENT OF")
		}
		w, err := t.condition(u.GetWhereClause(), sc, "WHERE")
		if err != nil {
			return err
		}
		where = " WHERE " + w
	}
	ret, err := t.returning(u.GetReturningList(), sc)
	if err != nil {
		return err
	}
	sets, err := t.setList(u.GetTargetList(), tg, sc)
	if err != nil {
		return err
	}
	t.out.Statements = []string{"UPDATE " + tg.sql() + " SET " + sets + from + where + ret}
	return nil
}

// setList translates SET col = expr, ... (assignment casts).
func (t *translator) setList(items []*pg_query.Node, tg target, sc *scope) (string, error) {
	var out []string
	seen := map[string]bool{}
	for _, n := range items {
		rt := n.GetResTarget()
		if len(rt.GetIndirection()) > 0 || rt.GetVal().GetMultiAssignRef() != nil {
			return "", refuse("SET with subscripts, fields or multiple columns")
		}
		c, _, err := tg.column(rt.GetName())
		if err != nil {
			return "", err
		}
		if seen[c.Name] {
			return "", pgError("42601", "multiple assignments to same column %q", c.Name)
		}
		seen[c.Name] = true
		sql, err := t.assignNode(rt.GetVal(), c, sc)
		if err != nil {
			return "", err
		}
		out = append(out, quoteIdent(c.Name)+" = "+sql)
	}
	return join(out, ", "), nil
}

// assignNode translates an assigned expression (DEFAULT included).
func (t *translator) assignNode(n *pg_query.Node, c Column, sc *scope) (string, error) {
	if n.GetSetToDefault() != nil {
		return "", refuse("DEFAULT in UPDATE SET or in multi-row VALUES")
	}
	v, err := t.expr(n, sc)
	if err != nil {
		return "", err
	}
	return t.assign(v, c)
}

func (t *translator) delete(d *pg_query.DeleteStmt) error {
	if d.GetWithClause() != nil {
		return refuse("DELETE with WITH")
	}
	tg, err := t.target(d.GetRelation())
	if err != nil {
		return err
	}
	sc := &scope{rels: []rel{{alias: tg.alias, cols: tg.cols}}}
	sql := "DELETE FROM " + tg.sql()
	where, err := t.deleteWhere(d, sc)
	if err != nil {
		return err
	}
	sql += where
	ret, err := t.returning(d.GetReturningList(), sc)
	t.out.Statements = []string{sql + ret}
	return err
}

// deleteWhere translates DELETE's WHERE and USING. SQLite has no USING:
// a row is deleted when some combination of the USING tables satisfies
// the WHERE, which is EXISTS (SELECT 1 FROM using WHERE cond).
func (t *translator) deleteWhere(d *pg_query.DeleteStmt, sc *scope) (string, error) {
	if len(d.GetUsingClause()) == 0 {
		if d.GetWhereClause() == nil {
			return "", nil
		}
		w, err := t.condition(d.GetWhereClause(), sc, "WHERE")
		return " WHERE " + w, err
	}
	from, rels, err := t.fromClause(d.GetUsingClause(), sc)
	if err != nil {
		return "", err
	}
	for _, r := range rels {
		if r.alias == sc.rels[0].alias && !r.merged {
			return "", pgError("42712", "table name %q specified more than once", r.alias)
		}
	}
	inner := &scope{rels: rels, parent: sc}
	cond := ""
	if d.GetWhereClause() != nil {
		w, err := t.condition(d.GetWhereClause(), inner, "WHERE")
		if err != nil {
			return "", err
		}
		cond = " WHERE " + w
	}
	return " WHERE EXISTS (SELECT 1 FROM " + from + cond + ")", nil
}
