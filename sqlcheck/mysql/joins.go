package mysql

import (
	"fmt"
	"strings"

	"github.com/dolthub/vitess/go/vt/sqlparser"
)

// maxUnconnected is how many relations a FROM clause may hold without
// join conditions connecting them (a plain cross join of two).
const maxUnconnected = 2

// joinGraph is the relations of one FROM clause (tables, views, derived
// tables, by alias or name, lower case) and the equality conditions that
// connect them (a union-find over relation indexes).
type joinGraph struct {
	names  []string
	index  map[string]int
	parent []int
}

// checkJoins applies the join rule to one SELECT: a FROM clause of more
// than two relations must connect every relation to the others with
// equality conditions between qualified columns of two relations (ON
// a.x = b.y, USING, NATURAL, or a top-level AND term a.x = b.y of WHERE).
// Without them the row count is the product of the tables' sizes (a
// 24-way self-join of a 3-row table is 3^24 rows), which the text cannot
// bound.
func checkJoins(sel *sqlparser.Select) error {
	g := &joinGraph{index: map[string]int{}}
	for _, te := range sel.From {
		g.add(te)
	}
	if len(g.names) <= maxUnconnected {
		return nil
	}
	if sel.Where != nil {
		g.connectOn(sel.Where.Expr)
	}
	root := g.find(0)
	for i, name := range g.names {
		if g.find(i) != root {
			return fmt.Errorf("relation %s is not connected to %s by an equality join condition: a FROM clause of more "+
				"than %d tables must join each to another with ON a.x = b.y, USING (...) or WHERE a.x = b.y between "+
				"qualified columns (a cross join of many tables has a row count no statement text can bound)",
				name, g.names[0], maxUnconnected)
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
		if tn, ok := te.Expr.(sqlparser.TableName); ok && name == "" {
			name = strings.ToLower(tn.Name.String())
		}
		return []int{g.relation(name)}
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
