package pgclass

import (
	"strconv"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/relchain/relchain/client"
	"github.com/relchain/relchain/sqlcheck/prescan"
)

// KeyRead recognises a SELECT that reads one table by key: `SELECT cols
// FROM t WHERE c = v [AND c2 = v2 ...]`, `WHERE c BETWEEN lo AND hi` or
// `WHERE c >= lo AND c <= hi`, the values literals or $n (issue 36,
// `relchain query --verify`). Anything else (joins, other clauses,
// expressions) is false: the caller answers it by f+1 agreement.
func (Classifier) KeyRead(sql string) (client.KeyRead, bool) {
	if prescan.Check(sql, prescan.PostgreSQL) != nil {
		return client.KeyRead{}, false
	}
	tree, err := pg_query.Parse(sql)
	if err != nil || len(tree.GetStmts()) != 1 {
		return client.KeyRead{}, false
	}
	sel := tree.GetStmts()[0].GetStmt().GetSelectStmt()
	if sel == nil || sel.GetWithClause() != nil || len(sel.GetFromClause()) != 1 || sel.GetWhereClause() == nil ||
		len(sel.GetGroupClause()) != 0 || sel.GetHavingClause() != nil || len(sel.GetSortClause()) != 0 ||
		sel.GetLimitCount() != nil || sel.GetLimitOffset() != nil || len(sel.GetDistinctClause()) != 0 ||
		sel.GetOp() != pg_query.SetOperation_SETOP_NONE || len(sel.GetLockingClause()) != 0 || sel.GetIntoClause() != nil {
		return client.KeyRead{}, false
	}
	rv := sel.GetFromClause()[0].GetRangeVar()
	if rv == nil || rv.GetSchemaname() != "" && rv.GetSchemaname() != "public" || rv.GetAlias() != nil {
		return client.KeyRead{}, false
	}
	r := client.KeyRead{Table: rv.GetRelname(), Eq: map[string]client.KeyTerm{}}
	cols, ok := selectList(sel.GetTargetList())
	if !ok {
		return client.KeyRead{}, false
	}
	r.Columns = cols
	if !whereTerms(sel.GetWhereClause(), &r) || (r.IsRange() && len(r.Eq) != 0) || (!r.IsRange() && len(r.Eq) == 0) {
		return client.KeyRead{}, false
	}
	return r, true
}

// selectList is the plain column names of a target list (nil for *).
func selectList(targets []*pg_query.Node) ([]string, bool) {
	var cols []string
	for _, t := range targets {
		rt := t.GetResTarget()
		if rt == nil || rt.GetName() != "" {
			return nil, false
		}
		name, star := columnName(rt.GetVal())
		switch {
		case star && len(targets) == 1:
			return nil, true
		case name == "":
			return nil, false
		}
		cols = append(cols, name)
	}
	return cols, true
}

// columnName is a ColumnRef's column (unqualified), or star.
func columnName(n *pg_query.Node) (name string, star bool) {
	cr := n.GetColumnRef()
	if cr == nil || len(cr.GetFields()) != 1 {
		return "", false
	}
	f := cr.GetFields()[0]
	if f.GetAStar() != nil {
		return "", true
	}
	return f.GetString_().GetSval(), false
}

// whereTerms adds the where clause's equalities or range bounds to r.
func whereTerms(n *pg_query.Node, r *client.KeyRead) bool {
	if b := n.GetBoolExpr(); b != nil {
		if b.GetBoolop() != pg_query.BoolExprType_AND_EXPR {
			return false
		}
		lo, hi := false, false
		for _, arg := range b.GetArgs() {
			e := arg.GetAExpr()
			if e == nil || e.GetKind() != pg_query.A_Expr_Kind_AEXPR_OP || len(e.GetName()) != 1 {
				return false
			}
			col, _ := columnName(e.GetLexpr())
			t, ok := term(e.GetRexpr())
			if col == "" || !ok {
				return false
			}
			switch op := e.GetName()[0].GetString_().GetSval(); {
			case op == "=":
				if _, dup := r.Eq[col]; dup {
					return false
				}
				r.Eq[col] = t
			case op == ">=" && !lo && (r.RangeColumn == "" || r.RangeColumn == col):
				r.RangeColumn, r.Lo, lo = col, t, true
			case op == "<=" && !hi && (r.RangeColumn == "" || r.RangeColumn == col):
				r.RangeColumn, r.Hi, hi = col, t, true
			default:
				return false
			}
		}
		return lo == hi
	}
	e := n.GetAExpr()
	if e == nil {
		return false
	}
	col, _ := columnName(e.GetLexpr())
	if col == "" {
		return false
	}
	switch e.GetKind() {
	case pg_query.A_Expr_Kind_AEXPR_OP:
		t, ok := term(e.GetRexpr())
		if !ok || len(e.GetName()) != 1 || e.GetName()[0].GetString_().GetSval() != "=" {
			return false
		}
		r.Eq[col] = t
		return true
	case pg_query.A_Expr_Kind_AEXPR_BETWEEN:
		l := e.GetRexpr().GetList()
		if l == nil || len(l.GetItems()) != 2 {
			return false
		}
		lo, ok1 := term(l.GetItems()[0])
		hi, ok2 := term(l.GetItems()[1])
		r.RangeColumn, r.Lo, r.Hi = col, lo, hi
		return ok1 && ok2
	}
	return false
}

// term is a literal (possibly cast, as '2024-01-01'::date) or $n.
func term(n *pg_query.Node) (client.KeyTerm, bool) {
	if tc := n.GetTypeCast(); tc != nil {
		n = tc.GetArg()
	}
	if p := n.GetParamRef(); p != nil {
		return client.KeyTerm{Param: int(p.GetNumber())}, p.GetNumber() > 0
	}
	c := n.GetAConst()
	if c == nil || c.GetIsnull() {
		return client.KeyTerm{}, false
	}
	switch {
	case c.GetIval() != nil:
		return client.KeyTerm{Literal: strconv.FormatInt(int64(c.GetIval().GetIval()), 10)}, true
	case c.GetFval() != nil:
		return client.KeyTerm{Literal: c.GetFval().GetFval()}, true
	case c.GetSval() != nil:
		return client.KeyTerm{Literal: c.GetSval().GetSval()}, true
	case c.GetBoolval() != nil:
		return client.KeyTerm{Literal: strings.ToLower(strconv.FormatBool(c.GetBoolval().GetBoolval()))}, true
	}
	return client.KeyTerm{}, false
}
