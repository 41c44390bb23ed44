package conflict

import (
	"regexp"
	"slices"
	"strconv"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// The key rules: a top-level statement over one table whose text and
// arguments pin every primary-key column touches only those rows of it.
// Each rule either records its rows and marks the relation done (walk then
// adds nothing for it) or leaves it to walk, which records the table whole.

// selectByKey: SELECT ... FROM t WHERE pk = v [AND ...], or tables
// joined (joinByKey).
func (a *analyzer) selectByKey(s *pg_query.SelectStmt) {
	from := s.GetFromClause()
	if s.GetOp() != pg_query.SetOperation_SETOP_NONE || len(from) == 0 {
		return
	}
	r := from[0].GetRangeVar()
	if len(from) > 1 || r == nil {
		a.joinByKey(s)
		return
	}
	if r.GetSchemaname() == "" && (namesCTE(s.GetWithClause(), r.GetRelname()) || a.isCTE(r)) {
		return
	}
	a.byKey(r, s.GetWhereClause(), false)
}

// updateByKey: UPDATE t SET non-key columns WHERE pk = v [AND ...],
// without FROM; then the SELECTs of its SET and RETURNING lists
// (setSubqueries).
func (a *analyzer) updateByKey(s *pg_query.UpdateStmt) {
	if len(s.GetFromClause()) > 0 {
		return
	}
	t, ok := a.cat.Table(relName(s.GetRelation()))
	if !ok || setsKey(s.GetTargetList(), t) {
		return
	}
	target, pinnedOne := a.byKey(s.GetRelation(), s.GetWhereClause(), true)
	a.setSubqueries(s, t, target, pinnedOne)
}

// deleteByKey: DELETE FROM t WHERE pk = v [AND ...], without USING.
func (a *analyzer) deleteByKey(s *pg_query.DeleteStmt) {
	if len(s.GetUsingClause()) > 0 {
		return
	}
	a.byKey(s.GetRelation(), s.GetWhereClause(), true)
}

// insertByKey: INSERT INTO t (cols) VALUES (...), ... with every key
// column given a pinned value in every row; ON CONFLICT ... DO UPDATE may
// not set a key column.
func (a *analyzer) insertByKey(s *pg_query.InsertStmt) {
	r := s.GetRelation()
	t, ok := a.cat.Table(relName(r))
	if !ok || t.Opaque || len(t.PrimaryKey) == 0 {
		return
	}
	if oc := s.GetOnConflictClause(); oc != nil && setsKey(oc.GetTargetList(), t) {
		return
	}
	v := s.GetSelectStmt().GetSelectStmt()
	if v == nil || len(v.GetValuesLists()) == 0 || v.GetWithClause() != nil || len(v.GetSortClause()) > 0 ||
		v.GetLimitCount() != nil || v.GetLimitOffset() != nil || v.GetOp() != pg_query.SetOperation_SETOP_NONE {
		return
	}
	pos := make([]int, len(t.PrimaryKey)) // each key column's place in cols
	for i, c := range t.PrimaryKey {
		pos[i] = -1
		for j, n := range s.GetCols() {
			rt := n.GetResTarget()
			if len(rt.GetIndirection()) > 0 {
				return // a field or element of a column
			}
			if rt.GetName() == c.Name {
				pos[i] = j
			}
		}
		if pos[i] < 0 {
			return // filled by its default
		}
	}
	var rows []Key
	for _, l := range v.GetValuesLists() {
		items := l.GetList().GetItems()
		if len(items) != len(s.GetCols()) {
			return
		}
		vals := make([]pinned, len(t.PrimaryKey))
		for i, c := range t.PrimaryKey {
			if vals[i], ok = a.value(items[pos[i]], c.Kind); !ok || len(vals) > 1 && vals[i].via != "" {
				return
			}
		}
		rows = append(rows, tupleKey(relName(r), vals))
	}
	a.done[r] = true
	for _, row := range rows {
		a.touch(row, true)
	}
}

// namesCTE reports whether a WITH clause defines a CTE of that name.
func namesCTE(w *pg_query.WithClause, name string) bool {
	for _, c := range w.GetCtes() {
		if c.GetCommonTableExpr().GetCtename() == name {
			return true
		}
	}
	return false
}

// setsKey reports whether a SET list assigns a primary-key column.
func setsKey(targets []*pg_query.Node, t Table) bool {
	for _, n := range targets {
		name := n.GetResTarget().GetName()
		if slices.ContainsFunc(t.PrimaryKey, func(c Column) bool { return c.Name == name }) {
			return true
		}
	}
	return false
}

// byKey records the rows of r that where pins, if it pins every key
// column, as reads or writes, and marks r done. one is the value of a
// single-column key pinned to one value (ok: it was).
func (a *analyzer) byKey(r *pg_query.RangeVar, where *pg_query.Node, write bool) (one pinned, ok bool) {
	t, ok := a.cat.Table(relName(r))
	if !ok || t.Opaque || len(t.PrimaryKey) == 0 || where == nil || renamesColumns(r) {
		return pinned{}, false
	}
	qualifier := qualifierOf(r)
	defer a.enter(qualifier)()
	conjuncts := flattenAnd(where, nil)
	vals := make([][]pinned, len(t.PrimaryKey))
	for i, c := range t.PrimaryKey {
		for _, conj := range conjuncts {
			if vs, ok := a.pins(conj, qualifier, c, len(t.PrimaryKey) == 1); ok {
				vals[i] = vs
				break // the rows lie in the intersection: any one conjunct bounds them
			}
		}
		if vals[i] == nil {
			return pinned{}, false
		}
	}
	if len(t.PrimaryKey) == 1 {
		a.done[r] = true
		for _, v := range vals[0] {
			a.touch(v.key(relName(r)), write)
		}
		return vals[0][0], len(vals[0]) == 1
	}
	tuple := make([]string, len(vals))
	for i, vs := range vals {
		if vs[0].via != "" {
			return pinned{}, false // a looked-up value in a composite key: table-wide
		}
		tuple[i] = vs[0].v
	}
	a.done[r] = true
	a.touch(Key{Rel: "t:" + relName(r), Row: rowKey(tuple)}, write)
	return pinned{}, false
}

// renamesColumns reports whether r's alias renames its columns (FROM t
// AS a(x, y)): the statement's column names are then not the table's
// (a(bal, custid) swaps savings' two), so no key rule reads r.
func renamesColumns(r *pg_query.RangeVar) bool {
	return len(r.GetAlias().GetColnames()) > 0
}

// qualifierOf is the name a statement refers to r's columns by: its
// alias, which hides the table's own name, or the table's name.
func qualifierOf(r *pg_query.RangeVar) string {
	if alias := r.GetAlias(); alias != nil {
		return alias.GetAliasname()
	}
	return r.GetRelname()
}

// flattenAnd appends the top-level AND conjuncts of e to out.
func flattenAnd(e *pg_query.Node, out []*pg_query.Node) []*pg_query.Node {
	if b := e.GetBoolExpr(); b != nil && b.GetBoolop() == pg_query.BoolExprType_AND_EXPR {
		for _, arg := range b.GetArgs() {
			out = flattenAnd(arg, out)
		}
		return out
	}
	return append(out, e)
}

// pins is the values conj pins column c to: `c = v`, `v = c`, or (when
// in is true: a single-column key) `c IN (v, ...)`.
func (a *analyzer) pins(conj *pg_query.Node, qualifier string, c Column, in bool) ([]pinned, bool) {
	e := conj.GetAExpr()
	if e == nil || !isOperator(e.GetName(), "=") {
		return nil, false
	}
	switch e.GetKind() {
	case pg_query.A_Expr_Kind_AEXPR_OP:
		other := e.GetRexpr()
		if !isColumn(e.GetLexpr(), qualifier, c.Name) {
			if !isColumn(e.GetRexpr(), qualifier, c.Name) {
				return nil, false
			}
			other = e.GetLexpr()
		}
		v, ok := a.value(other, c.Kind)
		if !ok {
			return nil, false
		}
		return []pinned{v}, true
	case pg_query.A_Expr_Kind_AEXPR_IN:
		items := e.GetRexpr().GetList().GetItems()
		if !in || len(items) == 0 || !isColumn(e.GetLexpr(), qualifier, c.Name) {
			return nil, false
		}
		vs := make([]pinned, len(items))
		for i, item := range items {
			v, ok := a.value(item, c.Kind)
			if !ok {
				return nil, false
			}
			vs[i] = v
		}
		return vs, true
	}
	return nil, false
}

// isOperator reports whether an operator name is op, unqualified
// (OPERATOR(pg_catalog.=) is left alone).
func isOperator(name []*pg_query.Node, op string) bool {
	return len(name) == 1 && name[0].GetString_().GetSval() == op
}

// isColumn reports whether n is a reference to column name of the
// statement's one table: name, or qualifier.name.
func isColumn(n *pg_query.Node, qualifier, name string) bool {
	fields := n.GetColumnRef().GetFields()
	switch len(fields) {
	case 1:
		return fields[0].GetString_().GetSval() == name
	case 2:
		return fields[0].GetString_().GetSval() == qualifier && fields[1].GetString_().GetSval() == name
	}
	return false
}

// canonicalInt is the form of an integer key PostgreSQL's integer input
// reads in exactly one way: no sign but '-', spaces, leading zeros,
// underscores or other bases.
var canonicalInt = regexp.MustCompile(`^-?(0|[1-9][0-9]*)$`)

// value is the key value n stands for in a column of kind k: a literal
// or $n (with its argument), under casts that keep the kind, as canonical
// text; or a value looked up through a unique key (lookup), or a column
// of the enclosing statement's pinned row (outerValue). false: anything
// else, which leaves the access table-wide.
func (a *analyzer) value(n *pg_query.Node, k Kind) (pinned, bool) {
	if tc := n.GetTypeCast(); tc != nil {
		if !keepsKind(tc.GetTypeName(), k) {
			return pinned{}, false
		}
		return a.value(tc.GetArg(), k)
	}
	if sl := n.GetSubLink(); sl != nil {
		return a.lookup(sl, k)
	}
	if cr := n.GetColumnRef(); cr != nil {
		return a.outerValue(cr, k)
	}
	v, ok := a.literal(n, k)
	return pinned{kind: k, v: v}, ok
}

// literal is the canonical text of a literal or $n (with its argument) as
// a key value of kind k.
func (a *analyzer) literal(n *pg_query.Node, k Kind) (string, bool) {
	if p := n.GetParamRef(); p != nil {
		i := int(p.GetNumber())
		a.usedArgs = true
		if i < 1 || i > len(a.args) {
			return "", false
		}
		v, ok := argValue(a.args[i-1], k)
		if ok && a.marks {
			return argMark(i, k), true
		}
		return v, ok
	}
	c := n.GetAConst()
	if c == nil || c.GetIsnull() {
		return "", false
	}
	if strings.Contains(c.GetSval().GetSval(), "\x00") {
		a.marked = true
	}
	switch {
	case k == KindInt && c.GetIval() != nil:
		return strconv.FormatInt(int64(c.GetIval().GetIval()), 10), true
	case k == KindInt && c.GetFval() != nil:
		return intText(c.GetFval().GetFval()) // an integer literal beyond int4
	case k == KindInt && c.GetSval() != nil:
		return intText(c.GetSval().GetSval())
	case k == KindText && c.GetSval() != nil:
		return c.GetSval().GetSval(), true
	}
	return "", false
}

// argValue is the canonical text of an argument as a key of kind k.
func argValue(v any, k Kind) (string, bool) {
	switch v := v.(type) {
	case int64:
		if k == KindInt {
			return strconv.FormatInt(v, 10), true
		}
	case string:
		switch k {
		case KindInt:
			return intText(v)
		case KindText:
			return v, true
		}
	}
	return "", false
}

// intText is s as an int8 in canonical form, if s is canonical.
func intText(s string) (string, bool) {
	if !canonicalInt.MatchString(s) {
		return "", false
	}
	i, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return "", false
	}
	return strconv.FormatInt(i, 10), true
}

// keepsKind reports whether a cast to t keeps a value of kind k what it is
// (no typmod, which could truncate; no array; no other type).
func keepsKind(t *pg_query.TypeName, k Kind) bool {
	if t.GetPctType() || t.GetSetof() || len(t.GetTypmods()) > 0 || len(t.GetArrayBounds()) > 0 {
		return false
	}
	var names []string
	for _, n := range t.GetNames() {
		names = append(names, n.GetString_().GetSval())
	}
	name := ""
	switch {
	case len(names) == 1:
		name = names[0]
	case len(names) == 2 && names[0] == "pg_catalog":
		name = names[1]
	}
	switch k {
	case KindInt:
		return name == "int2" || name == "int4" || name == "int8"
	case KindText:
		return name == "text" || name == "varchar"
	}
	return false
}

// rowKey encodes a key's column values (in key order) unambiguously: each
// as its length in bytes, ':', the value.
func rowKey(vals []string) string {
	var b strings.Builder
	for _, v := range vals {
		b.WriteString(strconv.Itoa(len(v)))
		b.WriteByte(':')
		b.WriteString(v)
	}
	return b.String()
}
