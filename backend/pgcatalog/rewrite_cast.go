package pgcatalog

import (
	"strconv"

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
	out := r.coerce(v, t)
	if v.typ != unknownType {
		if out, err = convert(v, t); err != nil {
			return val{}, err
		}
	}
	if mods := tc.GetTypeName().GetTypmods(); len(mods) > 0 {
		if out, err = castTypmod(out, mods); err != nil {
			return val{}, err
		}
	}
	// A vector (lower bound 0) cast to an array keeps its bound.
	out.lb0 = (v.lb0 || isVector(v.typ)) && isArray(out.typ)
	out.lbMixed = v.lbMixed && isArray(out.typ)
	return out, nil
}

// castTypmod applies a cast's type modifier: varchar(n) and char(n) cut
// the text to n characters (char(n) pads it, which the catalog's values
// never need: refused); others are refused.
func castTypmod(v val, mods []*pg_query.Node) (val, error) {
	n := mods[0].GetAConst().GetIval()
	if len(mods) != 1 || n == nil || v.typ != "varchar" {
		return val{}, refuse("the type modifier of %s", v.typ)
	}
	v.sql = "substr(" + v.sql + ", 1, " + strconv.Itoa(int(n.GetIval())) + ")"
	v.mod = n.GetIval() + 4
	return v, nil
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
	case isVector(from) && isArray(t):
		return convertElements(val{sql: v.sql, typ: arrayOf(elemType(from))}, t)
	case (isArray(t) || isVector(t)) && (isArray(from) || isVector(from)):
		return convertElements(v, t)
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

// convertElements casts an array (or vector) to another array type:
// each element converted as its own cast would (reg* to and from names,
// integers to and from text), the order kept.
func convertElements(v val, t string) (val, error) {
	from, to := elemType(v.typ), elemType(t)
	same := from == to || isInteger(from) && !isReg(from) && isInteger(to) && !isReg(to) ||
		isInteger(from) && isReg(to) || isReg(from) && isInteger(to) && !isReg(to) ||
		isTextual(from) && isTextual(to)
	if same {
		return val{sql: v.sql, typ: t}, nil
	}
	e, err := convert(val{sql: "_e.value", typ: from}, to)
	if err != nil {
		return val{}, err
	}
	return val{sql: "CASE WHEN " + v.sql + " IS NOT NULL THEN (SELECT json_group_array(" + e.sql + ") FROM json_each(" +
		v.sql + ") AS _e) END", typ: t}, nil
}
