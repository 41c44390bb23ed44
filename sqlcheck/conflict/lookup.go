package conflict

import (
	"slices"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/relchain/relchain/sqlcheck/pgparse"
)

// Lookups: a key pinned not by a literal but by a row found through a
// unique key, as Smallbank finds a customer by name —
// `UPDATE checking ... WHERE custid = (SELECT custid FROM accounts WHERE
// name = $1)`, or `accounts a JOIN savings s ON s.custid = a.custid WHERE
// a.name = $1`. DESIGN.md ("Lookups") gives the soundness argument.

// pinned is the value a key column is pinned to: a literal or argument
// (via ""), or the value of column `to` of the row of table `from` whose
// unique column `by` holds v; via names that lookup (from, by, to). As
// both columns are unique, different v find different rows and so
// different values of `to` (or NULL, which matches nothing), as long as
// nothing in the block writes `from`: a tx that uses a lookup touches
// `from`, and every write to a table with a unique column besides its key
// is table-wide, so every writer of `from` is scheduled with it.
type pinned struct {
	kind Kind
	via  string
	v    string
}

// key is the row key of table rel whose single-column primary key is p.
func (p pinned) key(rel string) Key {
	return Key{Rel: "t:" + rel, Via: p.via, Row: rowKey([]string{p.v})}
}

// tupleKey is the row key of table rel whose primary key's columns are
// vals, in key order (a looked-up value only in a single-column key).
func tupleKey(rel string, vals []pinned) Key {
	if len(vals) == 1 {
		return vals[0].key(rel)
	}
	tuple := make([]string, len(vals))
	for i, v := range vals {
		tuple[i] = v.v
	}
	return Key{Rel: "t:" + rel, Row: rowKey(tuple)}
}

// outerCol is a column of the enclosing statement's row that its key
// rule pinned: an UPDATE's target seen from a subquery of its SET list.
type outerCol struct {
	qualifier, column string
	p                 pinned
}

// enter adds a FROM item's qualifier to the names that hide the outer
// statement's (a.inner); the returned func takes it out again.
func (a *analyzer) enter(qualifiers ...string) func() {
	base := len(a.inner)
	a.inner = append(a.inner, qualifiers...)
	return func() { a.inner = a.inner[:base] }
}

// isCTE reports whether r, unqualified, names a CTE of the top-level
// statement's WITH clause (visible in all of it).
func (a *analyzer) isCTE(r *pg_query.RangeVar) bool {
	return r.GetSchemaname() == "" && slices.Contains(a.ctes, r.GetRelname())
}

// keyColumns are t's columns whose value finds at most one row: a
// single-column primary key and the Unique columns.
func keyColumns(t Table) []Column {
	var cols []Column
	if len(t.PrimaryKey) == 1 {
		cols = append(cols, t.PrimaryKey[0])
	}
	return append(cols, t.Unique...)
}

// columnOf is the column of cols that n refers to as qualifier.name (or,
// where bare is true, name alone).
func columnOf(n *pg_query.Node, qualifier string, bare bool, cols []Column) (Column, bool) {
	fields := n.GetColumnRef().GetFields()
	if len(fields) == 1 && !bare {
		return Column{}, false
	}
	for _, c := range cols {
		if isColumn(n, qualifier, c.Name) {
			return c, true
		}
	}
	return Column{}, false
}

// plainSelect reports whether s is a SELECT without set operation, WITH,
// DISTINCT, GROUP BY, HAVING, WINDOW, ORDER BY, LIMIT, OFFSET, VALUES,
// INTO or locking clause: its rows are its FROM rows that WHERE keeps.
func plainSelect(s *pg_query.SelectStmt) bool {
	return s != nil && s.GetOp() == pg_query.SetOperation_SETOP_NONE && s.GetWithClause() == nil &&
		len(s.GetDistinctClause()) == 0 && len(s.GetGroupClause()) == 0 && s.GetHavingClause() == nil &&
		len(s.GetWindowClause()) == 0 && len(s.GetSortClause()) == 0 && s.GetLimitCount() == nil &&
		s.GetLimitOffset() == nil && len(s.GetValuesLists()) == 0 && s.GetIntoClause() == nil &&
		len(s.GetLockingClause()) == 0
}

// lookup is the value of (SELECT to FROM u WHERE by = v [AND ...]): by
// and to are u's single-column primary key or Unique columns, to of kind
// k, v a literal or argument. u is not marked done: walk records it read
// whole.
func (a *analyzer) lookup(sl *pg_query.SubLink, k Kind) (pinned, bool) {
	s := sl.GetSubselect().GetSelectStmt()
	if sl.GetSubLinkType() != pg_query.SubLinkType_EXPR_SUBLINK || !plainSelect(s) ||
		len(s.GetFromClause()) != 1 || len(s.GetTargetList()) != 1 || s.GetWhereClause() == nil {
		return pinned{}, false
	}
	r := s.GetFromClause()[0].GetRangeVar()
	if r == nil || a.isCTE(r) || renamesColumns(r) {
		return pinned{}, false
	}
	t, ok := a.cat.Table(relName(r))
	if !ok || t.Opaque {
		return pinned{}, false
	}
	q := qualifierOf(r)
	to, ok := columnOf(s.GetTargetList()[0].GetResTarget().GetVal(), q, true, keyColumns(t))
	if !ok || to.Kind != k {
		return pinned{}, false
	}
	defer a.enter(q)()
	conjuncts := flattenAnd(s.GetWhereClause(), nil)
	for _, by := range keyColumns(t) {
		for _, conj := range conjuncts {
			vs, ok := a.pins(conj, q, by, false)
			if !ok || vs[0].via != "" {
				continue
			}
			if by.Name == to.Name {
				return vs[0], true
			}
			return pinned{kind: k, via: rowKey([]string{t.Name, by.Name, to.Name}), v: vs[0].v}, true
		}
	}
	return pinned{}, false
}

// outerValue is the value of a reference to a pinned column of the
// enclosing statement (a.outer), qualified, its qualifier not hidden by a
// FROM item in between.
func (a *analyzer) outerValue(cr *pg_query.ColumnRef, k Kind) (pinned, bool) {
	fields := cr.GetFields()
	if len(fields) != 2 {
		return pinned{}, false
	}
	q, name := fields[0].GetString_().GetSval(), fields[1].GetString_().GetSval()
	if q == "" || slices.Contains(a.inner, q) {
		return pinned{}, false
	}
	for _, o := range a.outer {
		if o.qualifier == q && o.column == name && o.p.kind == k {
			return o.p, true
		}
	}
	return pinned{}, false
}

// setSubqueries applies the key rules to the SELECTs of an UPDATE's SET
// and RETURNING lists (not those nested deeper): they run for the target
// rows only, so a reference to the target's key column there is the value
// its WHERE pinned (target, when pinnedOne). Not under a WITH clause.
func (a *analyzer) setSubqueries(s *pg_query.UpdateStmt, t Table, target pinned, pinnedOne bool) {
	// Without the word, no subquery to look for (most UPDATEs): skipping
	// the search leaves subqueries to walk, table-wide, never less.
	if s.GetWithClause() != nil || !strings.Contains(strings.ToLower(a.sql), "select") {
		return
	}
	if pinnedOne {
		a.outer = []outerCol{{qualifier: qualifierOf(s.GetRelation()), column: t.PrimaryKey[0].Name, p: target}}
		defer func() { a.outer = nil }()
	}
	var subs []*pg_query.SelectStmt
	for _, n := range append(slices.Clip(s.GetTargetList()), s.GetReturningList()...) {
		subs = subqueries(n.ProtoReflect(), subs)
	}
	for _, sub := range subs {
		a.selectByKey(sub)
	}
}

// subqueries appends the SELECTs of the sublinks in m to out, not those
// nested in them.
func subqueries(m protoreflect.Message, out []*pg_query.SelectStmt) []*pg_query.SelectStmt {
	if sl, ok := m.Interface().(*pg_query.SubLink); ok {
		if sub := sl.GetSubselect().GetSelectStmt(); sub != nil {
			return append(out, sub)
		}
		return out
	}
	pgparse.Children(m, func(c protoreflect.Message) bool {
		out = subqueries(c, out)
		return true
	})
	return out
}

// Bounds of joinByKey's search (up to one round per item, each over every
// item's key columns and every conjunct: items² × conjuncts): a join
// beyond them is read whole. Applications join a few tables; a 13 KB
// statement joining 300 took the unbounded search 1 s, and a block's
// statements may hold megabytes.
const (
	maxJoinItems     = 16
	maxJoinConjuncts = 64
)

// fromItem is a table of a join and the row a conjunct found of it.
type fromItem struct {
	r      *pg_query.RangeVar
	t      Table
	q      string
	usable bool   // a plain table with a column that finds one row
	by     Column // the column that found the row
	p      pinned
	found  bool
}

// joinByKey: tables joined (a FROM list, inner JOIN … ON), where each
// table's row is found by a conjunct of WHERE or ON, `x.col = v` or
// `x.col = y.col2` with y's row found: a table whose single-column key
// is so pinned is read by that key (a looked-up one through y's lookup).
func (a *analyzer) joinByKey(s *pg_query.SelectStmt) {
	if s.GetWithClause() != nil {
		return
	}
	var items []*fromItem
	var conjuncts []*pg_query.Node
	for _, f := range s.GetFromClause() {
		var ok bool
		if items, conjuncts, ok = flattenFrom(f, items, conjuncts); !ok {
			return
		}
	}
	if w := s.GetWhereClause(); w != nil {
		conjuncts = flattenAnd(w, conjuncts)
	}
	if len(items) > maxJoinItems || len(conjuncts) > maxJoinConjuncts {
		return // the search below grows as items² × conjuncts: a hostile text stays table-wide
	}
	var qualifiers []string
	for _, it := range items {
		if a.isCTE(it.r) || slices.Contains(qualifiers, it.q) {
			return
		}
		qualifiers = append(qualifiers, it.q)
		t, ok := a.cat.Table(relName(it.r))
		it.t, it.usable = t, ok && !t.Opaque && len(keyColumns(t)) > 0
	}
	defer a.enter(qualifiers...)()
	for changed := true; changed; {
		changed = false
		for _, it := range items {
			if it.usable && !it.found && a.findRow(it, items, conjuncts) {
				changed = true
			}
		}
	}
	for _, it := range items {
		if it.found && len(it.t.PrimaryKey) == 1 && it.by.Name == it.t.PrimaryKey[0].Name {
			a.done[it.r] = true
			a.touch(it.p.key(relName(it.r)), false)
		}
	}
}

// flattenFrom appends a FROM item's tables to items and its ON
// conditions' conjuncts to conjuncts; false for anything but tables (not
// renaming their columns) and inner joins with ON (no USING, NATURAL or
// alias).
func flattenFrom(n *pg_query.Node, items []*fromItem, conjuncts []*pg_query.Node) ([]*fromItem, []*pg_query.Node, bool) {
	if r := n.GetRangeVar(); r != nil {
		if renamesColumns(r) {
			return nil, nil, false
		}
		return append(items, &fromItem{r: r, q: qualifierOf(r)}), conjuncts, true
	}
	j := n.GetJoinExpr()
	if j == nil || j.GetJointype() != pg_query.JoinType_JOIN_INNER || j.GetIsNatural() ||
		len(j.GetUsingClause()) > 0 || j.GetAlias() != nil || j.GetQuals() == nil {
		return nil, nil, false
	}
	items, conjuncts, ok := flattenFrom(j.GetLarg(), items, conjuncts)
	if !ok {
		return nil, nil, false
	}
	if items, conjuncts, ok = flattenFrom(j.GetRarg(), items, conjuncts); !ok {
		return nil, nil, false
	}
	return items, flattenAnd(j.GetQuals(), conjuncts), true
}

// findRow looks for a conjunct `it.col = x` that finds it's row: col one
// of its keyColumns, x a value (value) or another item's column that
// its found row determines (joined).
func (a *analyzer) findRow(it *fromItem, items []*fromItem, conjuncts []*pg_query.Node) bool {
	for _, col := range keyColumns(it.t) {
		for _, conj := range conjuncts {
			e := conj.GetAExpr()
			if e == nil || e.GetKind() != pg_query.A_Expr_Kind_AEXPR_OP || !isOperator(e.GetName(), "=") {
				continue
			}
			other := e.GetRexpr()
			if _, ok := columnOf(e.GetLexpr(), it.q, false, []Column{col}); !ok {
				if _, ok := columnOf(e.GetRexpr(), it.q, false, []Column{col}); !ok {
					continue
				}
				other = e.GetLexpr()
			}
			p, ok := a.joined(other, col.Kind, items)
			if !ok {
				p, ok = a.value(other, col.Kind)
			}
			if ok {
				it.by, it.p, it.found = col, p, true
				return true
			}
		}
	}
	return false
}

// joined is the value of a reference y.col to another item of the join
// whose row was found: the value that found it, or (found by a literal)
// the lookup of col through it, when col finds one row of y too.
func (a *analyzer) joined(n *pg_query.Node, k Kind, items []*fromItem) (pinned, bool) {
	for _, y := range items {
		if !y.found {
			continue
		}
		col, ok := columnOf(n, y.q, false, keyColumns(y.t))
		switch {
		case !ok || col.Kind != k:
		case col.Name == y.by.Name:
			return y.p, true
		case y.p.via == "":
			return pinned{kind: k, via: rowKey([]string{y.t.Name, y.by.Name, col.Name}), v: y.p.v}, true
		}
	}
	return pinned{}, false
}
