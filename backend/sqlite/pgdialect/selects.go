package pgdialect

import (
	"slices"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// query is a translated SELECT: its SQLite text and result columns.
type query struct {
	sql  string
	cols []Column
}

func (t *translator) topSelect(s *pg_query.SelectStmt) error {
	if ok, err := t.sequenceSelect(s); ok {
		return err
	}
	q, err := t.selectQuery(s, nil)
	if err != nil {
		return err
	}
	t.out.Statements = []string{q.sql}
	for _, c := range q.cols {
		t.out.Columns = append(t.out.Columns, ResultColumn{Name: c.Name, Type: c.Type})
	}
	return nil
}

func (t *translator) subquery(n *pg_query.Node, sc *scope) (query, error) {
	s := n.GetSelectStmt()
	if s == nil {
		return query{}, refuse("the subquery %s", nodeName(n))
	}
	return t.selectQuery(s, sc)
}

func (t *translator) selectQuery(s *pg_query.SelectStmt, parent *scope) (query, error) {
	savedWin := t.win
	defer func() { t.win = savedWin }()
	t.win = windowState{} // not the enclosing query's: VALUES and set operations take none
	if w := s.GetWithClause(); w != nil {
		return t.withQuery(s, w, parent)
	}
	switch {
	case s.GetIntoClause() != nil:
		return query{}, refuse("SELECT INTO")
	case len(s.GetLockingClause()) > 0:
		return query{}, refuse("FOR UPDATE/SHARE")
	case s.GetLimitOption() == pg_query.LimitOption_LIMIT_OPTION_WITH_TIES:
		return query{}, refuse("FETCH ... WITH TIES")
	case len(s.GetValuesLists()) > 0:
		return t.valuesQuery(s, parent)
	case s.GetOp() != pg_query.SetOperation_SETOP_NONE:
		return t.setOperation(s, parent)
	}
	return t.simpleSelect(s, parent)
}

// selectParts are the translated clauses of one SELECT.
type selectParts struct {
	distinct, targets, from, where, group, having, order, limit string
	cols                                                        []Column
	targetVals                                                  []value
	arm                                                         *armHints
	orderExprs, orderSuffixes                                   []string // ORDER BY as expressions (DISTINCT ON)
	distinctOn                                                  []*pg_query.Node
	// pseudoConst: the output column is the same for every row (no
	// column, no aggregate, nothing volatile), a sort key PostgreSQL drops.
	pseudoConst []bool
}

func (p selectParts) sql() string {
	out := "SELECT " + p.distinct + p.targets
	for _, c := range []struct{ kw, s string }{{" FROM ", p.from}, {" WHERE ", p.where}, {" GROUP BY ", p.group}, {" HAVING ", p.having}, {" ORDER BY ", p.order}} {
		if c.s != "" {
			out += c.kw + c.s
		}
	}
	return out + p.limit
}

func (t *translator) simpleSelect(s *pg_query.SelectStmt, parent *scope) (query, error) {
	arm := t.arm
	t.arm = nil
	defer func() { t.arm = arm }()
	var p selectParts
	if err := distinctClause(s, &p); err != nil {
		return query{}, err
	}
	sc := &scope{parent: parent}
	savedWin := t.win
	defer func() { t.win = savedWin }()
	t.win = windowState{groupBy: s.GetGroupClause()}
	var err error
	if p.from, sc.rels, err = t.fromClause(s.GetFromClause(), parent); err != nil {
		return query{}, err
	}
	if err := t.windowClause(s.GetWindowClause(), sc); err != nil {
		return query{}, err
	}
	savedAgg := t.sawAgg
	defer func() { t.sawAgg = savedAgg }()
	t.sawAgg = false
	p.arm = arm
	if err := t.grouped(s, sc, &p); err != nil {
		return query{}, err
	}
	if p.limit, err = t.limitClause(s, sc); err != nil {
		return query{}, err
	}
	if len(p.distinctOn) > 0 {
		return t.distinctOnQuery(sc, &p)
	}
	if p.distinct != "" {
		if err := noJSONBColumns(p.cols, "SELECT DISTINCT"); err != nil {
			return query{}, err
		}
		if slices.ContainsFunc(p.targetVals, func(v value) bool { return severalForms(v.typ) }) {
			return query{sql: distinctSQL(&p), cols: p.cols}, nil
		}
	}
	return query{sql: p.sql(), cols: p.cols}, nil
}

func distinctClause(s *pg_query.SelectStmt, p *selectParts) error {
	d := s.GetDistinctClause()
	if len(d) == 0 {
		return nil
	}
	if len(d) > 1 || d[0].GetNode() != nil {
		p.distinctOn = d
		return nil
	}
	p.distinct = "DISTINCT "
	return nil
}

// grouped translates the target list, WHERE, HAVING, ORDER BY and GROUP
// BY (in PostgreSQL's order of analysis, so the first error is its
// first), then refuses a grouped query's ungrouped columns (42803).
func (t *translator) grouped(s *pg_query.SelectStmt, sc *scope, p *selectParts) error {
	g := &grouping{shown: t.representedKeys(s, sc)}
	sc.group = g
	defer func() { sc.group = nil }()
	var checks []groupCheck
	note := func(v value) { checks = append(checks, groupCheck{v, g.bare, g.cols}); g.bare, g.cols = nil, nil }
	t.win.allowed = true // window functions: in the target list and ORDER BY only
	if err := t.targetList(s.GetTargetList(), sc, p, note); err != nil {
		return err
	}
	t.win.allowed = false
	if err := t.whereClause(s.GetWhereClause(), sc, p); err != nil {
		return err
	}
	if s.GetHavingClause() != nil {
		h, err := t.condition(s.GetHavingClause(), sc, "HAVING")
		if err != nil {
			return err
		}
		p.having = h
		note(value{sql: h})
	}
	t.win.allowed = true
	if err := t.orderClause(s.GetSortClause(), sc, p, note); err != nil {
		return err
	}
	t.win.allowed = false
	if err := t.groupClause(s.GetGroupClause(), sc, p); err != nil {
		return err
	}
	if len(g.keys) == 0 && !t.sawAgg && p.having == "" {
		return nil
	}
	for _, c := range checks {
		g.bare, g.cols = c.bare, c.cols
		if err := g.checkGrouped(c.v); err != nil {
			return err
		}
	}
	return g.checkRepresentatives(checks)
}

type groupCheck struct {
	v    value
	bare []string
	cols []string
}

// targetList translates the SELECT list, expanding * into columns.
func (t *translator) targetList(targets []*pg_query.Node, sc *scope, p *selectParts, note func(value)) error {
	var out []string
	for _, n := range targets {
		rt := n.GetResTarget()
		if star, ok := starOf(rt.GetVal()); ok {
			vals, err := expandStar(star, sc)
			if err != nil {
				return err
			}
			for _, v := range vals {
				note(v)
				out = append(out, v.sql+" AS "+quoteIdent(v.name))
				p.cols = append(p.cols, Column{Name: v.name, Type: v.typ})
				p.targetVals = append(p.targetVals, v)
				p.pseudoConst = append(p.pseudoConst, false)
			}
			continue
		}
		saw := t.sawAgg
		t.sawAgg = false
		v, err := t.targetValue(rt.GetVal(), sc, p.arm, len(p.cols))
		if err != nil {
			return err
		}
		p.pseudoConst = append(p.pseudoConst, !t.sawAgg && pseudoConstant(rt.GetVal()))
		t.sawAgg = t.sawAgg || saw
		note(v)
		if rt.GetName() != "" {
			v.name = rt.GetName()
		}
		out = append(out, targetSQL(v)+" AS "+quoteIdent(v.name))
		p.cols = append(p.cols, Column{Name: v.name, Type: v.typ})
		p.targetVals = append(p.targetVals, v)
	}
	p.targets = join(out, ", ")
	if len(out) == 0 {
		return refuse("SELECT without columns")
	}
	return nil
}

// targetSQL is a target's SQLite text. A NULL of numeric or char(n)
// carries RTRIM there too: a derived table's or a set operation's column
// takes its collation from its first arm's expression, and NULL has none
// (SELECT NULL::numeric UNION ALL SELECT 1.0 … would group 1.0 and 1.00
// apart).
func targetSQL(v value) string {
	if isNullConst(v) && (v.typ.Name == "numeric" || v.typ.Name == "bpchar") {
		return "(NULL COLLATE RTRIM)"
	}
	return v.sql
}

// outputValue translates an expression whose value is returned: an
// untyped literal becomes text, as PostgreSQL resolves it.
func (t *translator) outputValue(n *pg_query.Node, sc *scope) (value, error) {
	v, err := t.expr(n, sc)
	if err != nil {
		return value{}, err
	}
	if v.untyped() {
		name := v.name
		v, err = t.retype(v, tText)
		v.name = name
	}
	return v, err
}

// starOf reports a * or alias.* target.
func starOf(n *pg_query.Node) (string, bool) {
	ref := n.GetColumnRef()
	if ref == nil {
		return "", false
	}
	f := ref.GetFields()
	if f[len(f)-1].GetAStar() == nil {
		return "", false
	}
	if len(f) == 2 {
		return strNode(f[0]), true
	}
	return "", true
}

func expandStar(alias string, sc *scope) ([]value, error) {
	var out []value
	found := false
	for _, r := range sc.rels {
		if alias != "" && r.alias != alias {
			continue
		}
		if alias != "" && r.merged {
			continue
		}
		found = true
		for _, c := range r.cols {
			if alias == "" && r.hidden[c.Name] {
				continue
			}
			out = append(out, r.value(c))
		}
	}
	if alias != "" && !found {
		return nil, pgError("42P01", "missing FROM-clause entry for table %q", alias)
	}
	if alias == "" && len(sc.rels) == 0 {
		return nil, pgError("42601", "SELECT * with no tables specified is not valid")
	}
	return out, nil
}

// whereClause translates WHERE, where an aggregate is 42803.
func (t *translator) whereClause(n *pg_query.Node, sc *scope, p *selectParts) error {
	if n == nil {
		return nil
	}
	saved, g := t.sawAgg, sc.group
	t.sawAgg, sc.group = false, nil
	defer func() { t.sawAgg, sc.group = saved, g }()
	var err error
	if p.where, err = t.condition(n, sc, "WHERE"); err != nil {
		return err
	}
	if t.sawAgg {
		return pgError("42803", "aggregate functions are not allowed in WHERE")
	}
	return nil
}

// targetValue translates a target; in a set operation's arm an untyped
// one takes the type resolved for its column, or stays untyped.
func (t *translator) targetValue(n *pg_query.Node, sc *scope, arm *armHints, pos int) (value, error) {
	if arm == nil {
		return t.outputValue(n, sc)
	}
	v, err := t.expr(n, sc)
	var hint Type
	if pos < len(arm.types) {
		hint = arm.types[pos]
	}
	// A numeric arm beside a float one is float8, an integer arm beside
	// a numeric one numeric: the arm converts.
	convert := v.typ.Name == "numeric" && isFloat(hint) || isInt(v.typ) && hint.Name == "numeric"
	if err != nil || (!v.untyped() && v.num == "" && !convert) || v.num != "" && !isFloat(hint) {
		return v, err // a numeric literal stays numeric except beside a float
	}
	if hint.Name != "" && hint.Name != "unknown" {
		out, err := t.coerceValue(v, hint, ctxImplicit)
		out.name = v.name
		out.sql = withCollation(out)
		return out, err
	}
	if v.param != 0 {
		return t.outputValue(n, sc)
	}
	if v.num != "" {
		return v, nil // numeric; float8 beside a float (the hint above)
	}
	return value{sql: v.sql, typ: tUnknown, name: v.name}, nil
}
