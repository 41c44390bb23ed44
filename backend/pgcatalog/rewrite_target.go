package pgcatalog

import (
	"strconv"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// targets rewrites a select list: each output as "<expr> AS cN", with
// PostgreSQL's name and type.
func (r *rewriter) targets(list []*pg_query.Node, sc *scope) ([]string, []col, error) {
	var out, extra []string
	var cols []col
	add := func(sql string, c col) {
		out = append(out, sql+" AS "+colName(len(out)))
		cols = append(cols, c)
	}
	for _, n := range list {
		rt := n.GetResTarget()
		if rt == nil {
			return nil, nil, refuse("the select list item %s", nodeName(n))
		}
		if star, alias, ok := isStar(rt.GetVal()); ok && star {
			cs, err := sc.star(alias)
			if err != nil {
				return nil, nil, err
			}
			for _, c := range cs {
				add(c.sql, c)
			}
			continue
		}
		v, err := r.expr(rt.GetVal(), sc)
		if err != nil {
			return nil, nil, err
		}
		name := rt.GetName()
		if name == "" {
			name = figureName(rt.GetVal())
		}
		c := col{name: name, typ: v.typ, mod: v.mod, lb0: v.lb0, lbMixed: v.lbMixed}
		if v.fields != nil {
			// A composite: shown as its row text, and its fields as
			// further SQLite columns (c3_x) an enclosing query reads.
			for _, f := range v.fields {
				fname := colName(len(out)) + "_" + f.name
				extra = append(extra, f.sql+" AS "+fname)
				c.fields = append(c.fields, col{name: f.name, typ: f.typ, sql: fname})
			}
		}
		add(v.sql, c)
	}
	if !sc.top {
		out = append(out, extra...)
	}
	return out, cols, nil
}

// isStar reports whether n is `*` or `alias.*` (alias "" for `*`).
func isStar(n *pg_query.Node) (star bool, alias string, ok bool) {
	f := n.GetColumnRef().GetFields()
	if len(f) == 0 || f[len(f)-1].GetAStar() == nil {
		return false, "", n.GetColumnRef() != nil
	}
	if len(f) == 2 {
		alias = f[0].GetString_().GetSval()
	}
	return len(f) <= 2, alias, true
}

// figureName is PostgreSQL's name for an output column with no alias
// (FigureColname).
func figureName(n *pg_query.Node) string {
	if name, _ := figureNameOf(n); name != "" {
		return name
	}
	return "?column?"
}

// figureNameOf is FigureColnameInternal: a name and its strength (2 a
// column's or function's name, 1 a keyword's such as "case", 0 none); a
// cast names its output by its type unless its argument names it with
// strength 2.
func figureNameOf(n *pg_query.Node) (string, int) {
	switch x := n.GetNode().(type) {
	case *pg_query.Node_ColumnRef:
		f := x.ColumnRef.GetFields()
		if s := f[len(f)-1].GetString_(); s != nil {
			return s.GetSval(), 2
		}
	case *pg_query.Node_AIndirection:
		ind := x.AIndirection.GetIndirection()
		if s := ind[len(ind)-1].GetString_(); s != nil {
			return s.GetSval(), 2
		}
		return figureNameOf(x.AIndirection.GetArg())
	case *pg_query.Node_FuncCall:
		f := x.FuncCall.GetFuncname()
		return f[len(f)-1].GetString_().GetSval(), 2
	case *pg_query.Node_TypeCast:
		name, strength := figureNameOf(x.TypeCast.GetArg())
		if strength <= 1 {
			names := x.TypeCast.GetTypeName().GetNames()
			return names[len(names)-1].GetString_().GetSval(), 1
		}
		return name, strength
	case *pg_query.Node_CollateClause:
		return figureNameOf(x.CollateClause.GetArg())
	case *pg_query.Node_CaseExpr:
		if name, strength := figureNameOf(x.CaseExpr.GetDefresult()); strength == 2 {
			return name, 2
		}
		return "case", 1
	case *pg_query.Node_AArrayExpr:
		return "array", 2
	case *pg_query.Node_RowExpr:
		return "row", 2
	case *pg_query.Node_CoalesceExpr:
		return "coalesce", 2
	case *pg_query.Node_MinMaxExpr:
		if x.MinMaxExpr.GetOp() == pg_query.MinMaxOp_IS_GREATEST {
			return "greatest", 2
		}
		return "least", 2
	case *pg_query.Node_SqlvalueFunction:
		return svfName(x.SqlvalueFunction.GetOp()), 2
	case *pg_query.Node_AExpr:
		if x.AExpr.GetKind() == pg_query.A_Expr_Kind_AEXPR_NULLIF {
			return "nullif", 2
		}
	case *pg_query.Node_SubLink:
		return subLinkName(x.SubLink)
	}
	return "", 0
}

func subLinkName(s *pg_query.SubLink) (string, int) {
	switch s.GetSubLinkType() {
	case pg_query.SubLinkType_EXISTS_SUBLINK:
		return "exists", 2
	case pg_query.SubLinkType_ARRAY_SUBLINK:
		return "array", 2
	case pg_query.SubLinkType_EXPR_SUBLINK:
		tl := s.GetSubselect().GetSelectStmt().GetTargetList()
		if len(tl) > 0 {
			if rt := tl[0].GetResTarget(); rt.GetName() != "" {
				return rt.GetName(), 2
			}
			return figureName(tl[0].GetResTarget().GetVal()), 2
		}
	}
	return "", 0
}

// orderLimit writes ORDER BY, LIMIT and OFFSET. An ORDER BY item may be
// an ordinal or an output column's name (which PostgreSQL tries before
// the input columns); in a set operation or VALUES (sc nil) only those.
func (r *rewriter) orderLimit(s *pg_query.SelectStmt, q *selectOut, sc *scope, targets []string) (*selectOut, error) {
	var items []string
	for _, n := range s.GetSortClause() {
		sb := n.GetSortBy()
		if sb.GetUseOp() != nil {
			return nil, refuse("ORDER BY … USING")
		}
		e, err := r.sortKey(sb.GetNode(), q, sc)
		if err != nil {
			return nil, err
		}
		items = append(items, e+sortDirection(sb))
	}
	if len(items) > 0 {
		q.sql += " ORDER BY " + strings.Join(items, ", ")
	}
	return r.limit(s, q, sc)
}

// sortDirection is an ORDER BY item's direction with PostgreSQL's NULL
// placement (last ascending, first descending) made explicit: SQLite
// places NULLs the other way.
func sortDirection(sb *pg_query.SortBy) string {
	desc := sb.GetSortbyDir() == pg_query.SortByDir_SORTBY_DESC
	nullsFirst := desc
	switch sb.GetSortbyNulls() {
	case pg_query.SortByNulls_SORTBY_NULLS_FIRST:
		nullsFirst = true
	case pg_query.SortByNulls_SORTBY_NULLS_LAST:
		nullsFirst = false
	}
	dir := " ASC"
	if desc {
		dir = " DESC"
	}
	if nullsFirst {
		return dir + " NULLS FIRST"
	}
	return dir + " NULLS LAST"
}

func (r *rewriter) sortKey(n *pg_query.Node, q *selectOut, sc *scope) (string, error) {
	if i, ok := ordinal(n); ok {
		if i < 1 || i > len(q.cols) {
			return "", pgErr("42P10", "ORDER BY position %d is not in select list", i)
		}
		return strconv.Itoa(i), nil
	}
	if name, ok := bareName(n); ok {
		found := 0
		for i, c := range q.cols {
			if c.name == name {
				if found != 0 {
					return "", pgErr("42702", "ORDER BY %q is ambiguous", name)
				}
				found = i + 1
			}
		}
		if found != 0 {
			return strconv.Itoa(found), nil
		}
	}
	if sc == nil {
		return "", refuse("ORDER BY on expressions of a set operation's result (name an output column)")
	}
	v, err := r.expr(n, sc)
	if err != nil {
		return "", err
	}
	return v.sql, nil
}

// limit writes LIMIT and OFFSET (LIMIT ALL is no limit).
func (r *rewriter) limit(s *pg_query.SelectStmt, q *selectOut, sc *scope) (*selectOut, error) {
	if s.GetLimitOption() == pg_query.LimitOption_LIMIT_OPTION_WITH_TIES {
		return nil, refuse("FETCH … WITH TIES")
	}
	if sc == nil {
		sc = &scope{}
	}
	lim, off := "-1", ""
	if n := s.GetLimitCount(); n != nil && !n.GetAConst().GetIsnull() {
		v, err := r.expr(n, sc)
		if err != nil {
			return nil, err
		}
		lim = r.coerce(v, "int8").sql
	}
	if n := s.GetLimitOffset(); n != nil {
		v, err := r.expr(n, sc)
		if err != nil {
			return nil, err
		}
		off = " OFFSET " + r.coerce(v, "int8").sql
	}
	if lim != "-1" || off != "" {
		q.sql += " LIMIT " + lim + off
	}
	return q, nil
}

// nodeName names a parse node for a refusal ("RowExpr").
func nodeName(n *pg_query.Node) string {
	if n == nil || n.GetNode() == nil {
		return "(empty)"
	}
	m := n.ProtoReflect()
	return string(m.WhichOneof(m.Descriptor().Oneofs().Get(0)).Message().Name())
}
