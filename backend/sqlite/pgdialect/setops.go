package pgdialect

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"
)

var setOps = map[pg_query.SetOperation]string{
	pg_query.SetOperation_SETOP_UNION: " UNION ", pg_query.SetOperation_SETOP_INTERSECT: " INTERSECT ",
	pg_query.SetOperation_SETOP_EXCEPT: " EXCEPT ",
}

// setOperation translates UNION, INTERSECT and EXCEPT (UNION ALL too;
// SQLite has no INTERSECT ALL or EXCEPT ALL). An arm that is itself a set
// operation or has ORDER BY/LIMIT becomes a subquery, since SQLite's
// compound operators have no parentheses and one precedence.
func (t *translator) setOperation(s *pg_query.SelectStmt, parent *scope) (query, error) {
	op := setOps[s.GetOp()]
	if s.GetAll() {
		if s.GetOp() != pg_query.SetOperation_SETOP_UNION {
			return query{}, refuse("INTERSECT ALL and EXCEPT ALL")
		}
		op = " UNION ALL "
	}
	l, err := t.setArm(s.GetLarg(), parent)
	if err != nil {
		return query{}, err
	}
	r, err := t.setArm(s.GetRarg(), parent)
	if err != nil {
		return query{}, err
	}
	cols, err := setColumns(l.cols, r.cols)
	if err != nil {
		return query{}, err
	}
	if !t.keepNull {
		for i := range cols {
			if cols[i].Type.Name == "unknown" {
				cols[i].Type = tText
			}
		}
	}
	p := selectParts{cols: cols}
	for _, c := range cols {
		p.targetVals = append(p.targetVals, value{sql: quoteIdent(c.Name), typ: c.Type, name: c.Name})
	}
	sc := &scope{parent: parent}
	if err := t.orderClause(s.GetSortClause(), sc, &p, func(value) {}); err != nil {
		return query{}, err
	}
	if p.limit, err = t.limitClause(s, sc); err != nil {
		return query{}, err
	}
	sql := l.sql + op + r.sql
	if p.order != "" {
		sql += " ORDER BY " + p.order
	}
	return query{sql: sql + p.limit, cols: cols}, nil
}

func (t *translator) setArm(s *pg_query.SelectStmt, parent *scope) (query, error) {
	t.keepNull = true
	q, err := t.selectQuery(s, parent)
	t.keepNull = false
	if err != nil {
		return q, err
	}
	if s.GetOp() != pg_query.SetOperation_SETOP_NONE || len(s.GetSortClause()) > 0 || s.GetLimitCount() != nil || s.GetLimitOffset() != nil {
		q.sql = "SELECT * FROM (" + q.sql + ")"
	}
	return q, nil
}

// setColumns resolves each output column's type: the arms' types must
// be alike (integers widen; integers beside floats are refused, since
// SQLite would not convert them).
func setColumns(l, r []Column) ([]Column, error) {
	if len(l) != len(r) {
		return nil, pgError("42601", "each UNION query must have the same number of columns")
	}
	out := make([]Column, len(l))
	for i := range l {
		typ, err := setColumnType(l[i].Type, r[i].Type)
		if err != nil {
			return nil, err
		}
		if isFloat(typ) && (isInt(l[i].Type) || isInt(r[i].Type)) || isFloat(l[i].Type) && isFloat(r[i].Type) && l[i].Type != r[i].Type {
			return nil, refuse("set operations mixing integer and float columns")
		}
		out[i] = Column{Name: l[i].Name, Type: typ}
	}
	return out, nil
}

// setColumnType is commonType for two arms' columns, where an untyped
// NULL takes the other arm's type (both NULL: unknown, text at the top).
func setColumnType(l, r Type) (Type, error) {
	switch {
	case l.Name == "unknown":
		return r, nil
	case r.Name == "unknown":
		return l, nil
	case datetimeRank[l.Name] > 0 && l != r:
		return Type{}, refuse("set operations mixing date, timestamp and timestamptz")
	}
	return commonType("UNION", []value{{typ: l}, {typ: r}})
}
