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
	if err := setTwice(u.GetTargetList(), tg); err != nil {
		return err
	}
	t.out.Statements = []string{"UPDATE " + tg.sql() + " SET " + sets + from + where + ret}
	return nil
}

// setList translates SET col = expr, ... (assignment casts) in
// PostgreSQL's order (transformUpdateTargetList): every expression first,
// then each target column and its assignment. A column set twice is its
// rewriter's error, after the whole statement's analysis: the caller
// checks it with setTwice.
func (t *translator) setList(items []*pg_query.Node, tg target, sc *scope) (string, error) {
	vals := make([]*pg_query.Node, len(items))
	for i, n := range items {
		rt := n.GetResTarget()
		if len(rt.GetIndirection()) > 0 || rt.GetVal().GetMultiAssignRef() != nil {
			return "", refuse("SET with subscripts, fields or multiple columns")
		}
		if rt.GetVal().GetSetToDefault() != nil {
			return "", refuse("DEFAULT in UPDATE SET or in multi-row VALUES")
		}
		vals[i] = rt.GetVal()
	}
	vs, err := t.assignedValues(vals, sc)
	if err != nil {
		return "", err
	}
	out := make([]string, len(items))
	for i, n := range items {
		c, _, err := tg.column(n.GetResTarget().GetName())
		if err != nil {
			return "", err
		}
		sql, err := t.assign(vs[i], c)
		if err != nil {
			return "", err
		}
		out[i] = quoteIdent(c.Name) + " = " + sql
	}
	return join(out, ", "), nil
}

// setTwice is PostgreSQL's rewriter error for a column a SET list
// assigns twice (rewriteTargetListIU), raised after parse analysis.
func setTwice(items []*pg_query.Node, tg target) error {
	seen := map[string]bool{}
	for _, n := range items {
		c, _, err := tg.column(n.GetResTarget().GetName())
		if err != nil {
			return err
		}
		if seen[c.Name] {
			return pgError("42601", "multiple assignments to same column %q", c.Name)
		}
		seen[c.Name] = true
	}
	return nil
}

// assignedValues translates the expressions of a SET list or a VALUES
// row before any is assigned to its column, PostgreSQL's order
// (transformTargetList / transformExpressionList, then the assignments),
// so the first error is its. A DEFAULT item is left as a zero value.
func (t *translator) assignedValues(items []*pg_query.Node, sc *scope) ([]value, error) {
	vs := make([]value, len(items))
	for i, n := range items {
		if n.GetSetToDefault() != nil {
			continue
		}
		v, err := t.expr(n, sc)
		if err != nil {
			return nil, err
		}
		vs[i] = v
	}
	return vs, nil
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
