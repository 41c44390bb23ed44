package pgdialect

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// WITH RECURSIVE (see DESIGN.md, "WITH RECURSIVE"): a CTE that refers to
// itself is PostgreSQL's form `non-recursive term UNION [ALL] recursive
// term`, run as SQLite's own recursive CTE. The non-recursive term fixes
// the columns' types; the recursive term's must resolve to the same
// (42804 otherwise, as PostgreSQL). SQLite evaluates the recursive term
// once per queued row where PostgreSQL evaluates it once per iteration
// over the working table; for the terms both accept (no aggregates,
// window functions, DISTINCT, GROUP BY, ORDER BY or LIMIT in the recursive
// term, the reference once in its FROM) the rows are the same, and UNION
// discards a row seen before in both, so a cycle ends alike. A recursion
// that does not end is stopped by the backend's work limit.

// refCount is how many range references in n name the CTE name (a table
// of that name unqualified).
func refCount(n proto.Message, name string) int {
	count := 0
	walkMessages(n.ProtoReflect(), func(m protoreflect.Message) bool {
		if rv, ok := m.Interface().(*pg_query.RangeVar); ok && rv.GetSchemaname() == "" && rv.GetRelname() == name {
			count++
		}
		return true
	})
	return count
}

// hasWindowCall reports an OVER clause anywhere in n.
func hasWindowCall(n proto.Message) bool {
	found := false
	walkMessages(n.ProtoReflect(), func(m protoreflect.Message) bool {
		if f, ok := m.Interface().(*pg_query.FuncCall); ok && f.GetOver() != nil {
			found = true
		}
		return true
	})
	return found
}

// hasAggregateCall reports a call of an aggregate in the recursive term's
// own level (not in its subqueries, which may aggregate).
func hasAggregateCall(s *pg_query.SelectStmt) bool {
	found := false
	for _, n := range append(append([]*pg_query.Node(nil), s.GetTargetList()...), s.GetHavingClause(), s.GetWhereClause()) {
		if n == nil {
			continue
		}
		walkMessages(n.ProtoReflect(), func(m protoreflect.Message) bool {
			switch x := m.Interface().(type) {
			case *pg_query.SubLink:
				return false
			case *pg_query.FuncCall:
				name := funcName(x)
				if _, agg := aggregates[name]; (agg || name == "string_agg" || name == "array_agg") && x.GetOver() == nil {
					found = true
				}
			}
			return true
		})
	}
	return found
}

// walkMessages calls fn on m and every message inside it, but not inside
// one for which fn returns false.
func walkMessages(m protoreflect.Message, fn func(protoreflect.Message) bool) {
	if !fn(m) {
		return
	}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsList() && fd.Message() != nil:
			for i := 0; i < v.List().Len(); i++ {
				walkMessages(v.List().Get(i).Message(), fn)
			}
		case fd.Message() != nil && !fd.IsMap():
			walkMessages(v.Message(), fn)
		}
		return true
	})
}

// fromRefers reports that the recursive reference is a FROM item of the
// recursive term, alone or in an inner or cross join (not in a subquery,
// where PostgreSQL and SQLite refuse it).
func fromRefers(items []*pg_query.Node, name string) (bool, error) {
	for _, n := range items {
		if rv := n.GetRangeVar(); rv != nil && rv.GetSchemaname() == "" && rv.GetRelname() == name {
			return true, nil
		}
		if j := n.GetJoinExpr(); j != nil && refCount(j, name) > 0 {
			if j.GetJointype() != pg_query.JoinType_JOIN_INNER {
				return false, refuse("a recursive reference inside an outer join")
			}
			if ok, err := fromRefers([]*pg_query.Node{j.GetLarg(), j.GetRarg()}, name); ok || err != nil {
				return ok, err
			}
		}
	}
	return false, nil
}

// recursiveShape checks the CTE's query has PostgreSQL's recursive form
// and a recursive term this translation runs as PostgreSQL does.
func recursiveShape(name string, s *pg_query.SelectStmt) error {
	switch {
	case len(s.GetSortClause()) > 0:
		return pgError("0A000", "ORDER BY in a recursive query is not implemented")
	case s.GetLimitOffset() != nil:
		return pgError("0A000", "OFFSET in a recursive query is not implemented")
	case s.GetLimitCount() != nil:
		return pgError("0A000", "LIMIT in a recursive query is not implemented")
	case s.GetOp() != pg_query.SetOperation_SETOP_UNION || s.GetWithClause() != nil:
		return pgError("42P19", "recursive query %q does not have the form non-recursive-term UNION [ALL] recursive-term", name)
	case refCount(s.GetLarg(), name) > 0:
		return pgError("42P19", "recursive reference to query %q must not appear within its non-recursive term", name)
	case refCount(s.GetRarg(), name) > 1:
		return pgError("42P19", "recursive reference to query %q must not appear more than once", name)
	}
	r := s.GetRarg()
	if hasAggregateCall(r) {
		return pgError("42P19", "aggregate functions are not allowed in a recursive query's recursive term")
	}
	if hasWindowCall(r) {
		// PostgreSQL evaluates them over each iteration's rows; SQLite
		// refuses them there.
		return refuse("window functions in a recursive query's recursive term")
	}
	if r.GetOp() != pg_query.SetOperation_SETOP_NONE || r.GetWithClause() != nil || len(r.GetSortClause()) > 0 ||
		r.GetLimitCount() != nil || r.GetLimitOffset() != nil || len(r.GetDistinctClause()) > 0 ||
		len(r.GetGroupClause()) > 0 || r.GetHavingClause() != nil || len(r.GetValuesLists()) > 0 {
		return refuse("a recursive term with a set operation, WITH, ORDER BY, LIMIT, DISTINCT, GROUP BY, HAVING or VALUES")
	}
	ok, err := fromRefers(r.GetFromClause(), name)
	if err == nil && !ok {
		err = pgError("42P19", "recursive reference to query %q must not appear within a subquery", name)
	}
	return err
}

// recursiveCTE translates a self-referencing CTE of WITH RECURSIVE: its
// UNION [ALL] body and its columns (the non-recursive term's types).
func (t *translator) recursiveCTE(c *pg_query.CommonTableExpr, parent *scope) (string, []Column, error) {
	name := c.GetCtename()
	s := c.GetCtequery().GetSelectStmt()
	if s == nil {
		return "", nil, refuse("data-modifying statements in WITH")
	}
	if err := recursiveShape(name, s); err != nil {
		return "", nil, err
	}
	t.arm = nil
	l, err := t.selectQuery(s.GetLarg(), parent)
	if err != nil {
		return "", nil, err
	}
	if larg := s.GetLarg(); larg.GetOp() != pg_query.SetOperation_SETOP_NONE || len(larg.GetSortClause()) > 0 || larg.GetLimitCount() != nil || larg.GetLimitOffset() != nil || larg.GetWithClause() != nil {
		l.sql = "SELECT * FROM (" + l.sql + ")"
	}
	cols, err := cteColumns(c, l.cols)
	if err != nil {
		return "", nil, err
	}
	depth := len(t.ctes)
	t.ctes = append(t.ctes, cte{name: name, cols: cols})
	defer func() { t.ctes = t.ctes[:depth] }()
	hints := &armHints{}
	for _, col := range cols {
		hints.types = append(hints.types, col.Type)
	}
	r, err := t.setArm(s.GetRarg(), parent, hints)
	if err != nil {
		return "", nil, err
	}
	if _, err := setColumns(cols, r.cols); err != nil {
		return "", nil, err
	}
	for i := range cols {
		typ, err := setColumnType(cols[i].Type, r.cols[i].Type)
		if err != nil {
			return "", nil, err
		}
		if typ != cols[i].Type {
			return "", nil, pgError("42804", "recursive query %q column %d has type %s in non-recursive term but type %s overall", name, i+1, typmodLabel(cols[i].Type), typmodLabel(typ))
		}
	}
	op := " UNION "
	if s.GetAll() {
		op = " UNION ALL "
	}
	return l.sql + op + r.sql, cols, nil
}

// typmodLabel is a type as format_type_with_typemod writes it.
func typmodLabel(t Type) string {
	if t.Name == "numeric" && t.Typmod >= 4 {
		return "numeric(" + itoa(int((t.Typmod-4)>>16)) + "," + itoa(int((t.Typmod-4)&0xffff)) + ")"
	}
	if t.Name == "bpchar" && t.Typmod >= 4 {
		return "character(" + itoa(int(t.Typmod-4)) + ")"
	}
	return label(t)
}
