package pggate

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// A rewrite must not rename output columns: SELECT now() yields a column
// named now, which outer queries, CTEs, ORDER BY and clients may refer to,
// but its rewrite SELECT '...'::timestamptz would yield one named
// timestamptz. So every output column without AS whose expression holds a
// rewritten call gets, as its AS, the name PostgreSQL gives the original
// expression.

// colName is PostgreSQL's FigureColname (parse_target.c) for a raw
// expression: the name of an output column written without AS. ok is false
// where the gate cannot tell the name from the text.
func colName(n *pg_query.Node) (name string, ok bool) {
	name, _, ok = figureColname(n)
	if name == "" {
		name = "?column?"
	}
	return name, ok
}

// figureColname is FigureColnameInternal: a name and its strength (2 a
// real name, 1 a type or CASE fallback, 0 none).
func figureColname(n *pg_query.Node) (string, int, bool) {
	switch v := n.GetNode().(type) {
	case *pg_query.Node_ColumnRef:
		if f := lastString(v.ColumnRef.GetFields()); f != "" {
			return f, 2, true
		}
	case *pg_query.Node_AIndirection:
		if f := lastString(v.AIndirection.GetIndirection()); f != "" {
			return f, 2, true
		}
		return figureColname(v.AIndirection.GetArg())
	case *pg_query.Node_FuncCall:
		if f := lastString(v.FuncCall.GetFuncname()); f != "" {
			return f, 2, true
		}
	case *pg_query.Node_AExpr:
		if v.AExpr.GetKind() == pg_query.A_Expr_Kind_AEXPR_NULLIF {
			return "nullif", 2, true
		}
	case *pg_query.Node_TypeCast:
		name, s, ok := figureColname(v.TypeCast.GetArg())
		if s <= 1 && v.TypeCast.GetTypeName() != nil {
			names := v.TypeCast.GetTypeName().GetNames()
			if len(names) > 0 {
				return lastString(names[len(names)-1:]), 1, ok
			}
		}
		return name, s, ok
	case *pg_query.Node_CollateClause:
		return figureColname(v.CollateClause.GetArg())
	case *pg_query.Node_SubLink:
		switch v.SubLink.GetSubLinkType() {
		case pg_query.SubLinkType_EXISTS_SUBLINK:
			return "exists", 2, true
		case pg_query.SubLinkType_ARRAY_SUBLINK:
			return "array", 2, true
		case pg_query.SubLinkType_EXPR_SUBLINK:
			name, ok := subqueryColName(v.SubLink.GetSubselect().GetSelectStmt())
			return name, 2, ok
		}
	case *pg_query.Node_CaseExpr:
		name, s, ok := figureColname(v.CaseExpr.GetDefresult())
		if s <= 1 {
			return "case", 1, ok
		}
		return name, s, ok
	case *pg_query.Node_AArrayExpr:
		return "array", 2, true
	case *pg_query.Node_RowExpr:
		return "row", 2, true
	case *pg_query.Node_CoalesceExpr:
		return "coalesce", 2, true
	case *pg_query.Node_MinMaxExpr:
		switch v.MinMaxExpr.GetOp() {
		case pg_query.MinMaxOp_IS_GREATEST:
			return "greatest", 2, true
		case pg_query.MinMaxOp_IS_LEAST:
			return "least", 2, true
		}
	case *pg_query.Node_SqlvalueFunction:
		name := strings.ToLower(strings.TrimPrefix(v.SqlvalueFunction.GetOp().String(), "SVFOP_"))
		return strings.TrimSuffix(name, "_n"), 2, true
	case *pg_query.Node_GroupingFunc, *pg_query.Node_MergeSupportFunc, *pg_query.Node_XmlExpr,
		*pg_query.Node_XmlSerialize, *pg_query.Node_JsonObjectConstructor, *pg_query.Node_JsonArrayConstructor,
		*pg_query.Node_JsonArrayQueryConstructor, *pg_query.Node_JsonObjectAgg, *pg_query.Node_JsonArrayAgg,
		*pg_query.Node_JsonFuncExpr, *pg_query.Node_JsonParseExpr, *pg_query.Node_JsonScalarExpr,
		*pg_query.Node_JsonSerializeExpr:
		return "", 0, false // named by PostgreSQL, but not allowed by the gate anyway
	}
	return "", 0, true
}

// subqueryColName is the name of the first output column of a scalar
// subquery: its leftmost SELECT's first target.
func subqueryColName(s *pg_query.SelectStmt) (string, bool) {
	for s != nil && s.GetOp() != pg_query.SetOperation_SETOP_NONE {
		s = s.GetLarg()
	}
	switch {
	case s == nil:
		return "", false
	case len(s.GetValuesLists()) > 0:
		return "column1", true
	case len(s.GetTargetList()) == 0:
		return "", false
	}
	rt := s.GetTargetList()[0].GetResTarget()
	if rt.GetName() != "" {
		return rt.GetName(), true
	}
	if c := rt.GetVal().GetColumnRef(); c != nil {
		if f := c.GetFields(); len(f) > 0 && f[len(f)-1].GetAStar() != nil {
			return "", false // the first column of a *
		}
	}
	return colName(rt.GetVal())
}

// lastString is the last String of a name list, or "".
func lastString(nodes []*pg_query.Node) string {
	name := ""
	for _, n := range nodes {
		if s := n.GetString_(); s != nil {
			name = s.GetSval()
		}
	}
	return name
}
