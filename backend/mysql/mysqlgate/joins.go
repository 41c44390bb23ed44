package mysqlgate

import (
	"fmt"
	"strings"

	"github.com/dolthub/vitess/go/vt/sqlparser"
)

// maxCrossJoins is how many cross joins (two groups of relations with
// tables in them, not connected by an equality join condition) one
// statement may hold, all its FROM clauses together.
const maxCrossJoins = 1

// maxConstantRows bounds the product of the row counts of the constant
// derived tables ((SELECT 0 UNION ALL SELECT 1 ...) AS d) a statement
// cross-joins: the bench workloads generate series that way.
const maxConstantRows = 10_000_000

// joinGraph is the relations of one FROM clause (tables, views, derived
// tables, by alias or name, lower case), the row count of each constant
// one (0 for the others), and the equality conditions that connect them
// (a union-find over relation indexes).
type joinGraph struct {
	names  []string
	rows   []uint64
	index  map[string]int
	parent []int
}

// checkJoins applies the join rule to one FROM clause (of a SELECT, or of
// a multi-table UPDATE or DELETE) and its WHERE condition: relations
// connected by equality conditions between qualified columns of two
// relations (ON a.x = b.y as a top-level AND term, USING, NATURAL, or a
// top-level AND term a.x = b.y of WHERE) form a group; every group after
// the first that holds a table is a cross join, and the statement may hold
// maxCrossJoins of them in all its FROM clauses (nested derived tables and
// subqueries included); groups of constant derived tables multiply the
// statement's constant rows, at most maxConstantRows. Without such a rule
// a 24-way self-join of a 3-row table is 3^24 rows, which no text bounds.
func (w *walker) checkJoins(from sqlparser.TableExprs, where *sqlparser.Where) error {
	g := &joinGraph{index: map[string]int{}}
	for _, te := range from {
		g.add(te)
	}
	if where != nil {
		g.connectOn(where.Expr)
	}
	groups := map[int]uint64{} // root -> constant rows (0: holds a table)
	var order []int
	for i := range g.names {
		r := g.find(i)
		n, seen := groups[r]
		if !seen {
			order = append(order, r)
			n = 1
		}
		if n != 0 && g.rows[i] != 0 {
			n = min(n*g.rows[i], maxConstantRows+1) // saturating: both are at most maxConstantRows+1
		} else {
			n = 0
		}
		groups[r] = n
	}
	tables := 0
	for _, r := range order {
		if n := groups[r]; n == 0 {
			if tables++; tables > 1 {
				w.crossJoins++
			}
			if w.crossJoins > maxCrossJoins {
				return fmt.Errorf("relation %s is not connected to %s by an equality join condition, and the statement "+
					"already holds %d cross join: join each table to another with ON a.x = b.y, USING (...) or "+
					"WHERE a.x = b.y between qualified columns (a cross join of many tables has a row count no "+
					"statement text can bound)", g.names[r], g.names[order[0]], maxCrossJoins)
			}
		} else if w.constRows = min(w.constRows*n, maxConstantRows+1); w.constRows > maxConstantRows {
			return fmt.Errorf("the constant derived tables this statement joins make more than %d rows", maxConstantRows)
		}
	}
	return nil
}

// add records the relations of a table expression and connects the sides
// of its joins; it returns the indexes of the relations it added.
func (g *joinGraph) add(te sqlparser.TableExpr) []int {
	switch te := te.(type) {
	case *sqlparser.AliasedTableExpr:
		name := strings.ToLower(te.As.String())
		tn, isTable := te.Expr.(sqlparser.TableName)
		if isTable && name == "" {
			name = strings.ToLower(tn.Name.String())
		}
		i := g.relation(name)
		if isTable && strings.EqualFold(tn.Name.String(), "dual") {
			g.rows[i] = 1
		} else if sq, ok := te.Expr.(*sqlparser.Subquery); ok && !te.Lateral {
			g.rows[i] = constantRows(sq.Select)
		}
		return []int{i}
	case *sqlparser.ParenTableExpr:
		var all []int
		for _, e := range te.Exprs {
			all = append(all, g.add(e)...)
		}
		return all
	case *sqlparser.JoinTableExpr:
		left, right := g.add(te.LeftExpr), g.add(te.RightExpr)
		natural := strings.HasPrefix(te.Join, "natural")
		if (natural || len(te.Condition.Using) > 0) && len(left) > 0 && len(right) > 0 {
			// USING and NATURAL join the right side to the left side's
			// relation nearest to it.
			g.union(left[len(left)-1], right[0])
		}
		if te.Condition.On != nil {
			g.connectOn(te.Condition.On)
		}
		return append(left, right...)
	}
	return []int{g.relation("")}
}

// relation returns the index of a relation, adding it (an unnamed one is
// always new).
func (g *joinGraph) relation(name string) int {
	if i, ok := g.index[name]; ok && name != "" {
		return i
	}
	i := len(g.names)
	if name == "" {
		name = fmt.Sprintf("#%d", i+1)
	}
	g.names = append(g.names, name)
	g.rows = append(g.rows, 0)
	g.index[name] = i
	g.parent = append(g.parent, i)
	return i
}

// connectOn connects the relations of every top-level AND term a.x = b.y
// of a condition.
func (g *joinGraph) connectOn(e sqlparser.Expr) {
	switch e := e.(type) {
	case *sqlparser.AndExpr:
		g.connectOn(e.Left)
		g.connectOn(e.Right)
	case *sqlparser.ParenExpr:
		g.connectOn(e.Expr)
	case *sqlparser.ComparisonExpr:
		if e.Operator != sqlparser.EqualStr && e.Operator != sqlparser.NullSafeEqualStr {
			return
		}
		l, lok := e.Left.(*sqlparser.ColName)
		r, rok := e.Right.(*sqlparser.ColName)
		if !lok || !rok {
			return
		}
		li, lok := g.index[strings.ToLower(l.Qualifier.Name.String())]
		ri, rok := g.index[strings.ToLower(r.Qualifier.Name.String())]
		if lok && rok && !l.Qualifier.IsEmpty() && !r.Qualifier.IsEmpty() {
			g.union(li, ri)
		}
	}
}

func (g *joinGraph) find(i int) int {
	for g.parent[i] != i {
		i = g.parent[i]
	}
	return i
}

func (g *joinGraph) union(a, b int) {
	// The smaller root becomes the parent: the same tree for the same text.
	ra, rb := g.find(a), g.find(b)
	if ra < rb {
		g.parent[rb] = ra
	} else {
		g.parent[ra] = rb
	}
}

// constantRows is the most rows a query without tables returns (SELECT of
// expressions, and UNION ALL or UNION of such), capped at
// maxConstantRows+1, or 0 if it reads a table.
func constantRows(s sqlparser.SelectStatement) uint64 {
	switch s := s.(type) {
	case *sqlparser.Select:
		for _, te := range s.From {
			ae, ok := te.(*sqlparser.AliasedTableExpr)
			if !ok {
				return 0
			}
			if tn, ok := ae.Expr.(sqlparser.TableName); !ok || !strings.EqualFold(tn.Name.String(), "dual") {
				return 0
			}
		}
		return 1
	case *sqlparser.SetOp:
		l, r := constantRows(s.Left), constantRows(s.Right)
		if l == 0 || r == 0 {
			return 0
		}
		return min(l+r, maxConstantRows+1)
	case *sqlparser.ParenSelect:
		return constantRows(s.Select)
	}
	return 0
}
