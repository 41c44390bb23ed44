package pggate

import (
	"errors"
	"fmt"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"
)

// Work bounds. PostgreSQL has no deterministic instruction counter, and a
// timeout decides differently on each node, so the gate refuses the
// constructs whose work it can see is unbounded by the text (see doc.go,
// "Bounds"): cartesian products of several relations and chains of
// size-multiplying string functions.
const (
	// maxCrossJoins is how many FROM items a statement may leave
	// unconnected, summed over all its FROM clauses (subqueries, CTEs and
	// UPDATE ... FROM / DELETE ... USING included): a FROM clause whose
	// items form k groups connected by equality join conditions counts
	// k-1. One cross product of two is allowed (t a, u b); a third
	// unconnected relation anywhere in the statement is refused.
	maxCrossJoins = 1
	// maxGrowth bounds the product of the size factors of a statement's
	// size-multiplying calls (see growthFactor): its output is at most
	// maxGrowth times the size of what it reads, plus constants.
	maxGrowth = 64
	// maxSynthesized bounds what a statement can build from its text alone:
	// the lengths of its lpad/rpad calls, times the rows of its
	// generate_series calls (each row may evaluate them anew), times its
	// growth factor.
	maxSynthesized = 1 << 28
)

// checkSynthesized refuses a statement that could build more than
// maxSynthesized bytes out of nothing (lpad inside string_agg over
// generate_series, say); the caller has walked the whole statement.
func (w *walker) checkSynthesized() error {
	if w.padded == 0 {
		return nil
	}
	if total := float64(w.padded) * w.series * w.growth; total > maxSynthesized {
		return fmt.Errorf("this statement could build %.0f bytes from lpad/rpad (lengths %d) times its generate_series rows (%.0f) and size factors (%.0f), more than the %d the gate allows; generate less per statement", total, w.padded, w.series, w.growth, maxSynthesized)
	}
	return nil
}

// crossJoinHint says how to connect FROM items.
const crossJoinHint = "join every relation to the others by an equality on qualified columns (JOIN u ON u.id = t.id, or WHERE u.id = t.id), or split the statement"

// joinGraph is the FROM clause of one SELECT, UPDATE, DELETE or MERGE:
// its items (relations, subqueries, functions) and the equality join
// conditions that connect them, as a union-find.
type joinGraph struct {
	parent []int
	names  map[string][]int // item name (alias or relation name) -> items
}

func (g *joinGraph) add(name string) int {
	i := len(g.parent)
	g.parent = append(g.parent, i)
	if name != "" {
		if g.names == nil {
			g.names = map[string][]int{}
		}
		g.names[name] = append(g.names[name], i)
	}
	return i
}

func (g *joinGraph) find(i int) int {
	for g.parent[i] != i {
		g.parent[i] = g.parent[g.parent[i]]
		i = g.parent[i]
	}
	return i
}

func (g *joinGraph) union(a, b int) { g.parent[g.find(a)] = g.find(b) }

// components is how many groups of connected items there are.
func (g *joinGraph) components() int {
	n := 0
	for i := range g.parent {
		if g.find(i) == i {
			n++
		}
	}
	return n
}

// connected reports whether items are all in one group.
func (g *joinGraph) connected(items []int) bool {
	for _, i := range items {
		if g.find(i) != g.find(items[0]) {
			return false
		}
	}
	return true
}

// fromItem adds one FROM entry and returns its items; a JoinExpr's
// condition connects its sides.
func (g *joinGraph) fromItem(n *pg_query.Node) []int {
	switch v := n.GetNode().(type) {
	case *pg_query.Node_RangeVar:
		name := v.RangeVar.GetRelname()
		if a := v.RangeVar.GetAlias(); a != nil {
			name = a.GetAliasname()
		}
		return []int{g.add(name)}
	case *pg_query.Node_RangeSubselect:
		return []int{g.add(v.RangeSubselect.GetAlias().GetAliasname())}
	case *pg_query.Node_RangeFunction:
		return []int{g.add(v.RangeFunction.GetAlias().GetAliasname())}
	case *pg_query.Node_JoinExpr:
		j := v.JoinExpr
		left, right := g.fromItem(j.GetLarg()), g.fromItem(j.GetRarg())
		if j.GetIsNatural() || len(j.GetUsingClause()) > 0 {
			// USING names a column of one item per side, which one is
			// unknown without the catalog: it connects the sides only
			// if each side is connected already.
			if len(left) > 0 && len(right) > 0 && g.connected(left) && g.connected(right) {
				g.union(left[0], right[0])
			}
		}
		g.conditions(j.GetQuals())
		return append(left, right...)
	}
	return []int{g.add("")}
}

// conditions connects the items that the equalities among the AND-ed
// conjuncts of qual join: a.x = b.y, both columns qualified by an item
// name. OR, inequalities and unqualified columns connect nothing.
func (g *joinGraph) conditions(qual *pg_query.Node) {
	if qual == nil {
		return
	}
	if b := qual.GetBoolExpr(); b != nil {
		if b.GetBoolop() == pg_query.BoolExprType_AND_EXPR {
			for _, a := range b.GetArgs() {
				g.conditions(a)
			}
		}
		return
	}
	e := qual.GetAExpr()
	if e == nil || e.GetKind() != pg_query.A_Expr_Kind_AEXPR_OP {
		return
	}
	if op := stringsOf(e.GetName()); len(op) != 1 || op[0] != "=" {
		return
	}
	a, okA := g.itemOf(e.GetLexpr())
	b, okB := g.itemOf(e.GetRexpr())
	if okA && okB {
		g.union(a, b)
	}
}

// itemOf is the item a qualified column reference (item.column or
// schema.item.column, under casts) names, if exactly one item has that
// name.
func (g *joinGraph) itemOf(n *pg_query.Node) (int, bool) {
	for n.GetTypeCast() != nil {
		n = n.GetTypeCast().GetArg()
	}
	names := stringsOf(n.GetColumnRef().GetFields())
	if len(names) != len(n.GetColumnRef().GetFields()) || len(names) < 2 || len(names) > 3 {
		return 0, false
	}
	items := g.names[names[len(names)-2]]
	if len(items) != 1 {
		return 0, false
	}
	return items[0], true
}

// crossJoins counts the unconnected FROM items of one statement level:
// target is the written relation of UPDATE/DELETE/MERGE (nil for SELECT),
// from its FROM/USING list or MERGE source, and quals the WHERE or ON
// condition.
func crossJoins(target *pg_query.RangeVar, from []*pg_query.Node, quals *pg_query.Node) int {
	var g joinGraph
	if target != nil {
		g.fromItem(&pg_query.Node{Node: &pg_query.Node_RangeVar{RangeVar: target}})
	}
	for _, f := range from {
		g.fromItem(f)
	}
	g.conditions(quals)
	if len(g.parent) == 0 {
		return 0
	}
	return g.components() - 1
}

// checkJoins counts the unconnected FROM items of a SELECT, UPDATE,
// DELETE or MERGE (see maxCrossJoins).
func (w *walker) checkJoins(n any) error {
	switch n := n.(type) {
	case *pg_query.SelectStmt:
		return w.addCrossJoins(crossJoins(nil, n.GetFromClause(), n.GetWhereClause()))
	case *pg_query.UpdateStmt:
		return w.addCrossJoins(crossJoins(n.GetRelation(), n.GetFromClause(), n.GetWhereClause()))
	case *pg_query.DeleteStmt:
		return w.addCrossJoins(crossJoins(n.GetRelation(), n.GetUsingClause(), n.GetWhereClause()))
	case *pg_query.MergeStmt:
		return w.addCrossJoins(crossJoins(n.GetRelation(), []*pg_query.Node{n.GetSourceRelation()}, n.GetJoinCondition()))
	}
	return nil
}

// addCrossJoins records a statement level's unconnected items and refuses
// the statement once they exceed maxCrossJoins.
func (w *walker) addCrossJoins(n int) error {
	w.crossJoins += n
	if w.crossJoins > maxCrossJoins {
		return fmt.Errorf("this join of relations not connected by join conditions (a cartesian product of more than two) is not allowed: its work grows as the product of the relations' sizes, which the gate cannot bound and a node-local timeout must not decide; %s", crossJoinHint)
	}
	return nil
}

// growthFactor is how many times larger than its inputs the result of a
// call of name can be, 1 if it is at most their size plus constants. An
// error says the growth cannot be bounded from the text.
func growthFactor(name string, args []*pg_query.Node) (int, error) {
	switch name {
	case "replace":
		if len(args) != 3 {
			return 1, nil
		}
		to, ok := constString(args[2])
		if !ok {
			return 0, errors.New("replace with a replacement that is not a string constant is not allowed: each match is replaced by it, so the result's size is the product of two sizes the gate cannot bound; use a constant replacement, or concat/overlay")
		}
		from, fromConst := constString(args[1])
		switch {
		case !fromConst:
			return max(1, len(to)), nil
		case len(from) == 0 || len(to) <= len(from):
			return 1, nil
		}
		return (len(to) + len(from) - 1) / len(from), nil
	case "encode":
		return 4, nil // escape writes a byte as \ooo
	case "translate":
		return 4, nil // a one-byte character may become a four-byte one
	case "to_json", "to_jsonb":
		return 6, nil // a control character of a string becomes \u00XX
	case "json_build_object", "jsonb_build_object", "json_build_array", "jsonb_build_array":
		// Escaping compounds only through a value's text (a nested
		// builder's jsonb is not escaped again), and there " and \ double.
		return 2, nil
	case "jsonb_pretty":
		return maxGrowth, nil // indentation grows with the depth, per line
	}
	return 1, nil
}

// constString is the value of a string constant (under casts).
func constString(n *pg_query.Node) (string, bool) {
	for n.GetTypeCast() != nil {
		n = n.GetTypeCast().GetArg()
	}
	if sv := n.GetAConst().GetSval(); sv != nil {
		return sv.GetSval(), true
	}
	return "", false
}

// grows records a call's size factor (see maxGrowth).
func (w *walker) grows(name string, args []*pg_query.Node) error {
	f, err := growthFactor(name, args)
	if err != nil {
		return err
	}
	w.growth *= float64(f)
	if w.growth > maxGrowth {
		return fmt.Errorf("%s here is not allowed: this statement's size-multiplying calls (replace with a longer replacement, encode, translate, JSON builders, jsonb_pretty) can make its result %.0f times larger than its input, more than the %d the gate allows (PostgreSQL has no deterministic bound on the memory a statement builds); split it into several statements or use shorter replacements", name, w.growth, maxGrowth)
	}
	return nil
}

// sortedAggs are the aggregates whose result depends on the order of their
// input and whose arguments can be sorted: float sum and avg round
// differently in another order (sum of 1e16, -1e16, 1 is 1 or 0), and
// string_agg's text shows the order of ties of its ORDER BY. The gate makes
// their input order canonical: it appends every argument to the call's
// ORDER BY (see canonicalOrder).
var sortedAggs = map[string]int{"sum": 1, "avg": 1, "string_agg": 1}

// canonicalOrder makes an order-sensitive aggregate call's input order a
// function of the rows' values, not of their physical order (which VACUUM,
// autovacuum and HOT pruning change on each node's own schedule): its
// ORDER BY gets each sorted argument appended, unless it already holds it.
// Rows whose sort keys tie then have equal arguments, so the aggregate
// sees the same sequence of values on every node. At the top level of a
// statement and in a SQL function body the call is rewritten (recorded in
// w.aggs, applied when the walk is done; a body given as a string is
// replaced by its rewritten deparse, see checkSQLText); in a PL/pgSQL body,
// whose text is stored as written, the ORDER BY must be written out.
func (w *walker) canonicalOrder(name string, f *pg_query.FuncCall) error {
	n, ok := sortedAggs[name]
	if !ok || f.GetAggDistinct() || f.GetAggStar() || len(f.GetArgs()) < n {
		return nil // DISTINCT sorts its input already
	}
	var missing []*pg_query.Node
	for _, a := range f.GetArgs()[:n] {
		if !inOrder(f.GetAggOrder(), a) {
			missing = append(missing, a)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	if w.ctx == stmtPL {
		return fmt.Errorf("%s(...) in a PL/pgSQL body must order its input by its argument, as in %s(x ORDER BY x) (or ORDER BY y, x): float sums and the text of string_agg depend on the input order, and the order of a table's rows differs between nodes", name, name)
	}
	w.aggs = append(w.aggs, aggFix{f, missing})
	return nil
}

// inOrder reports whether the ORDER BY list holds expression a.
func inOrder(order []*pg_query.Node, a *pg_query.Node) bool {
	for _, o := range order {
		if s := o.GetSortBy(); s != nil && sameExpr(s.GetNode(), a) {
			return true
		}
	}
	return false
}

// sameExpr reports whether two expressions are the same tree, source
// positions aside.
func sameExpr(a, b *pg_query.Node) bool {
	if a == nil || b == nil {
		return false
	}
	ca, cb := cloneNode(a), cloneNode(b)
	stripPositions(ca.ProtoReflect())
	stripPositions(cb.ProtoReflect())
	return proto.Equal(ca, cb)
}

func cloneNode(n *pg_query.Node) *pg_query.Node { return proto.Clone(n).(*pg_query.Node) }

// aggFix is an aggregate call whose ORDER BY the rewrite extends.
type aggFix struct {
	call *pg_query.FuncCall
	args []*pg_query.Node
}

// applyAggFixes appends the missing sort keys to the recorded calls.
func applyAggFixes(fixes []aggFix) {
	for _, f := range fixes {
		for _, a := range f.args {
			f.call.AggOrder = append(f.call.AggOrder, &pg_query.Node{Node: &pg_query.Node_SortBy{SortBy: &pg_query.SortBy{
				Node:        cloneNode(a),
				SortbyDir:   pg_query.SortByDir_SORTBY_DEFAULT,
				SortbyNulls: pg_query.SortByNulls_SORTBY_NULLS_DEFAULT,
				Location:    -1,
			}}})
		}
	}
}

// deparseBody is the text of a SQL function body the gate changed; it
// fails unless the text parses back to the changed tree.
func deparseBody(tree *pg_query.ParseResult) (string, error) {
	text, err := pg_query.Deparse(tree)
	if err != nil {
		return "", fmt.Errorf("the function body cannot be rewritten: PostgreSQL's deparser fails on it (%v)", err)
	}
	if err := sameTree(tree, text); err != nil {
		return "", errors.New("the function body cannot be rewritten: PostgreSQL's deparser does not reproduce it faithfully")
	}
	return text, nil
}
