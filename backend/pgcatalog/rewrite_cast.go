package pgcatalog

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// typeCast rewrites x::t over doc.go's representation: a literal or a
// parameter takes the type; reg* from text reads the name
// (pgcat_<type>_in) and to text shows it (pgcat_<type>_out); integers and
// reg* are the same integers.
func (r *rewriter) typeCast(tc *pg_query.TypeCast, sc *scope) (val, error) {
	t, err := castType(tc.GetTypeName())
	if err != nil {
		return val{}, err
	}
	v, err := r.expr(tc.GetArg(), sc)
	if err != nil {
		return val{}, err
	}
	if v.typ == unknownType {
		return r.coerce(v, t), nil
	}
	return convert(v, t)
}

// convert is a typed value cast to t.
func convert(v val, t string) (val, error) {
	from := v.typ
	switch {
	case from == t:
		return v, nil
	case isReg(t) && isInteger(from):
		return val{sql: v.sql, typ: t}, nil
	case isReg(t) && isTextual(from):
		return val{sql: "pgcat_" + regTypes[t] + "_in(" + v.sql + ")", typ: t}, nil
	case isInteger(t) && (isInteger(from) || from == "bool"):
		return val{sql: v.sql, typ: t}, nil
	case isInteger(t) && (isTextual(from) || isFloat(from)):
		return val{sql: "CAST(" + v.sql + " AS INTEGER)", typ: t}, nil
	case isFloat(t) && (isInteger(from) || isFloat(from) || isTextual(from)):
		return val{sql: "CAST(" + v.sql + " AS REAL)", typ: t}, nil
	case isTextual(t) || t == "json":
		return toText(v, t)
	case t == "bool":
		return toBool(v)
	case (isArray(t) || isVector(t)) && (isArray(from) || isVector(from)):
		return val{sql: v.sql, typ: t}, nil
	case isArray(t) || isVector(t) || isArray(from) || isVector(from):
		return val{}, refuse("the cast from %s to %s", from, t)
	}
	return val{sql: v.sql, typ: t}, nil
}

func toText(v val, t string) (val, error) {
	switch from := v.typ; {
	case isReg(from):
		return val{sql: "pgcat_" + regTypes[from] + "_out(" + v.sql + ")", typ: t}, nil
	case from == "bool":
		return val{sql: "CASE " + v.sql + " WHEN 1 THEN 'true' WHEN 0 THEN 'false' END", typ: t}, nil
	case isInteger(from) || isFloat(from):
		return val{sql: "CAST(" + v.sql + " AS TEXT)", typ: t}, nil
	case isTextual(from), from == "json", from == "jsonb":
		return val{sql: v.sql, typ: t}, nil
	case isVector(from):
		return val{sql: "pgcat_vector_out(" + v.sql + ")", typ: t}, nil
	case isArray(from):
		return val{sql: "pgcat_array_out(" + v.sql + ", " + quote(elemType(from)) + ")", typ: t}, nil
	}
	return val{}, refuse("the cast from %s to %s", v.typ, t)
}

func toBool(v val) (val, error) {
	switch from := v.typ; {
	case isInteger(from):
		return val{sql: "(" + v.sql + " <> 0)", typ: "bool"}, nil
	case isTextual(from):
		return val{sql: "CASE lower(trim(" + v.sql + ")) WHEN 't' THEN 1 WHEN 'true' THEN 1 WHEN 'yes' THEN 1 " +
			"WHEN 'on' THEN 1 WHEN '1' THEN 1 WHEN 'f' THEN 0 WHEN 'false' THEN 0 WHEN 'no' THEN 0 WHEN 'off' THEN 0 " +
			"WHEN '0' THEN 0 END", typ: "bool"}, nil
	}
	return val{}, refuse("the cast from %s to boolean", v.typ)
}
