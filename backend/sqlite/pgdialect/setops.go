package pgdialect

import (
	"slices"

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
	// A nested set operation resolves its own columns first, as
	// PostgreSQL does bottom-up: ('x' UNION 'y') is text.
	t.arm = nil
	l, r, cols, err := t.setArms(s, parent)
	if err != nil {
		return query{}, err
	}
	for i := range cols {
		if cols[i].Type.Name == "unknown" {
			cols[i].Type = tText
		}
	}
	if err := nestedArmsStored(s, l, r, cols); err != nil {
		return query{}, err
	}
	if op != " UNION ALL " {
		if err := noJSONBColumns(cols, "UNION, INTERSECT and EXCEPT"); err != nil {
			return query{}, err
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
	if op != " UNION ALL " && slices.ContainsFunc(cols, func(c Column) bool { return severalForms(c.Type) }) {
		sql = setRepresentatives(l.sql, r.sql, op, cols)
	}
	if p.order != "" {
		sql += " ORDER BY " + p.order
	}
	return query{sql: sql + p.limit, cols: cols}, nil
}

// setArms translates both arms and resolves the columns' types; when an
// arm had untyped targets (NULL, 'a') that the other arm types, the arms
// are translated again with the resolved types (PostgreSQL coerces the
// untyped value to the column's type, with its input errors).
func (t *translator) setArms(s *pg_query.SelectStmt, parent *scope) (query, query, []Column, error) {
	var hints *armHints
	for pass := 0; ; pass++ {
		l, err := t.setArm(s.GetLarg(), parent, hints)
		if err != nil {
			return query{}, query{}, nil, err
		}
		r, err := t.setArm(s.GetRarg(), parent, hints)
		if err != nil {
			return query{}, query{}, nil, err
		}
		cols, err := setColumns(l.cols, r.cols)
		if err != nil || pass == 1 || !untypedResolved(l.cols, r.cols, cols) {
			return l, r, cols, err
		}
		hints = &armHints{}
		for _, c := range cols {
			hints.types = append(hints.types, c.Type)
		}
	}
}

// untypedResolved reports an arm's untyped column that the other arm typed.
func untypedResolved(l, r, cols []Column) bool {
	for i := range cols {
		if cols[i].Type.Name != "unknown" && (l[i].Type.Name == "unknown" || r[i].Type.Name == "unknown" ||
			cols[i].Type.Name != "numeric" && (l[i].Type.Name == "numeric" || r[i].Type.Name == "numeric") ||
			cols[i].Type.Name == "numeric" && (isInt(l[i].Type) || isInt(r[i].Type))) {
			return true
		}
	}
	return false
}

func (t *translator) setArm(s *pg_query.SelectStmt, parent *scope, hints *armHints) (query, error) {
	if hints == nil {
		hints = &armHints{}
	}
	t.arm = hints
	q, err := t.selectQuery(s, parent)
	t.arm = nil
	if err != nil {
		return q, err
	}
	if s.GetOp() != pg_query.SetOperation_SETOP_NONE || len(s.GetSortClause()) > 0 || s.GetLimitCount() != nil || s.GetLimitOffset() != nil || s.GetWithClause() != nil {
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
	case l.Name == "numeric" && isFloat(r), r.Name == "numeric" && isFloat(l):
		return tFloat8, nil // numeric casts implicitly to float8
	case l.Name == "numeric" && l == r:
		return l, nil
	case l.Name == "numeric" && (r.Name == "numeric" || r.Name == "unknown" || isInt(r)),
		r.Name == "numeric" && (l.Name == "unknown" || isInt(l)):
		return tNumeric, nil
	case (l.Name == "bpchar") != (r.Name == "bpchar") && l.Name != "unknown" && r.Name != "unknown":
		return Type{}, refuse("set operations mixing character(n) with other types")
	case l.Name == "unknown" && r.Name == "varchar", r.Name == "unknown" && l.Name == "varchar":
		return Type{Name: "varchar", Typmod: -1}, nil
	case l.Name == "unknown":
		return r, nil
	case r.Name == "unknown":
		return l, nil
	case l.Name == "varchar" && r.Name == "varchar":
		if l.Typmod != r.Typmod {
			return Type{Name: "varchar", Typmod: -1}, nil
		}
		return l, nil
	case datetimeRank[l.Name] > 0 && l != r:
		return Type{}, refuse("set operations mixing date, timestamp and timestamptz")
	}
	return commonType("UNION", []value{{typ: l}, {typ: r}})
}

// nestedArmsStored refuses an arm that is itself a set operation whose
// column the enclosing one resolves to a type stored otherwise (numeric
// beside double precision, an integer beside numeric): the nested one
// resolved its columns alone, bottom-up as PostgreSQL does, and its
// values are not converted again (SQLite would mix a numeric's stored
// text into a float column).
func nestedArmsStored(s *pg_query.SelectStmt, l, r query, cols []Column) error {
	for _, arm := range []struct {
		s *pg_query.SelectStmt
		q query
	}{{s.GetLarg(), l}, {s.GetRarg(), r}} {
		if arm.s.GetOp() == pg_query.SetOperation_SETOP_NONE {
			continue
		}
		for i, c := range arm.q.cols {
			a, b := c.Type, cols[i].Type
			if a.Name != b.Name && !(isInt(a) && isInt(b)) && !(isText(a) && isText(b)) && a.Name != "unknown" {
				return refuse("a nested set operation whose column of type %s the enclosing one makes %s", label(a), label(b))
			}
		}
	}
	return nil
}
