package pgdialect

import (
	"github.com/relchain/relchain/backend/sqlite/pgdialect/internal/pgconv"
)

// json and jsonb (see DESIGN.md, "json and jsonb"): both stored as text,
// json verbatim, jsonb as jsonb_out writes it; the operators and
// functions call pgruntime's pg_json_* (their semantics in pgconv).

var (
	tJSONB     = Type{Name: "jsonb", Typmod: -1}
	tTextArray = Type{Name: "_text", Typmod: -1}
)

func isJSON(t Type) bool { return t.Name == "json" || t.Name == "jsonb" }

// jsonOps are the json operators the dialect translates.
var jsonOps = map[string]bool{"->": true, "->>": true, "#>": true, "#>>": true, "@>": true, "<@": true, "?": true, "?|": true, "?&": true}

// jsonOperator translates an operator with a json or jsonb operand; ok
// false leaves it to the general operators (= and <> compare jsonb by
// its equality key in comparison; json has no =, 42883 there).
func (t *translator) jsonOperator(op string, l, r value) (value, bool, error) {
	switch {
	case op == "=" || op == "<>" || op == "!=":
		return value{}, false, nil
	case !jsonOps[op]:
		if l.typ.Name == "jsonb" || r.typ.Name == "jsonb" {
			return value{}, true, refuse("the operator %s on jsonb", op)
		}
		return value{}, false, nil
	case op == "->" || op == "->>" || op == "#>" || op == "#>>":
		v, err := t.jsonGet(op, l, r)
		return v, true, err
	}
	v, err := t.jsonbPredicate(op, l, r)
	return v, true, err
}

// jsonGet is -> ->> (a text key or an int4 index) and #> #>> (a text[]
// path) on json or jsonb: -> and #> give the left operand's type, ->>
// and #>> text.
func (t *translator) jsonGet(op string, l, r value) (value, error) {
	if l.untyped() {
		// json and jsonb both have the operator: PostgreSQL cannot choose.
		return value{}, pgError("42725", "operator is not unique: unknown %s %s", op, label(r.typ))
	}
	if !isJSON(l.typ) {
		return value{}, pgError("42883", "operator does not exist: %s %s %s", label(l.typ), op, label(r.typ))
	}
	key := tText
	switch {
	case op == "#>" || op == "#>>":
		key = tTextArray
	case isInt(r.typ) && r.typ.Name != "int8":
		key = tInt4
	}
	rs, err := t.coerce(r, key, ctxImplicit)
	if err != nil {
		if errIs(err, "42846") {
			return value{}, pgError("42883", "operator does not exist: %s %s %s", label(l.typ), op, label(r.typ))
		}
		return value{}, err
	}
	res := l.typ
	if op == "->>" || op == "#>>" {
		res = tText
	}
	sql := "pg_json_get('" + l.typ.Name + "', '" + op + "', " + l.sql + ", " + rs + ")"
	return value{sql: sql, typ: res, name: "?column?"}, nil
}

// jsonbPredicate is @> <@ (jsonb both sides) and ? (text), ?| ?& (text[])
// on jsonb; json has none of them (42883). An untyped left operand is
// jsonb, as PostgreSQL resolves it.
func (t *translator) jsonbPredicate(op string, l, r value) (value, error) {
	if l.untyped() {
		var err error
		if l, err = t.retype(l, tJSONB); err != nil {
			return value{}, err
		}
	}
	if l.typ.Name != "jsonb" {
		return value{}, pgError("42883", "operator does not exist: %s %s %s", label(l.typ), op, label(r.typ))
	}
	want := map[string]Type{"@>": tJSONB, "<@": tJSONB, "?": tText, "?|": tTextArray, "?&": tTextArray}[op]
	if !r.untyped() && r.typ.Name != want.Name && !(want == tText && isText(r.typ)) {
		return value{}, pgError("42883", "operator does not exist: %s %s %s", label(l.typ), op, label(r.typ))
	}
	rs, err := t.coerce(r, want, ctxImplicit)
	if err != nil {
		return value{}, err
	}
	sql := "pg_jsonb_op('" + op + "', " + l.sql + ", " + rs + ")"
	return value{sql: sql, typ: tBool, name: "?column?"}, nil
}

// jsonbSides is comparison's text of two jsonb operands: their equality
// keys (pg_jsonb_key: numbers without display scale, 1.0 = 1), so =, <>,
// IN, IS DISTINCT FROM and NULLIF are SQLite's text comparisons. jsonb's
// order (objects after arrays ...) is refused.
func (t *translator) jsonbSides(op string, l, r value) (string, string, error) {
	if op != "=" && op != "<>" && op != "!=" {
		return "", "", refuse("the operator %s on jsonb (jsonb's order)", op)
	}
	return jsonbKeySQL(l), jsonbKeySQL(r), nil
}

func jsonbKeySQL(v value) string {
	if v.isConst {
		if s, ok := v.konst.(string); ok {
			if k, err := pgconv.JSONBKey(s); err == nil {
				return quoteString(k)
			}
		}
		if v.konst == nil {
			return "NULL"
		}
	}
	return "pg_jsonb_key(" + v.sql + ")"
}

// jsonbNullif is NULLIF of two jsonb values: NULL when their equality
// keys are equal, else the first value as it is.
func jsonbNullif(l, r value) value {
	sql := "CASE WHEN " + jsonbKeySQL(l) + " = " + jsonbKeySQL(r) + " THEN NULL ELSE " + l.sql + " END"
	return value{sql: sql, typ: l.typ, name: "nullif"}
}

// jsonbInSubquery is x IN (subquery) over jsonb: x's equality key (ls)
// among the keys of the subquery's values.
func jsonbInSubquery(ls string, q query) value {
	keys := "SELECT pg_jsonb_key(q." + quoteIdent(q.cols[0].Name) + ") FROM (" + q.sql + ") AS q"
	sql := "(CASE WHEN EXISTS (" + q.sql + ") THEN (" + ls + " IN (" + keys + ")) ELSE 0 END)"
	return value{sql: sql, typ: tBool, name: "?column?"}
}

// foldJSONBCompare folds = and <> of two jsonb constants by their keys.
func foldJSONBCompare(op string, l, r value) (value, bool) {
	ls, rs := jsonbKeySQL(l), jsonbKeySQL(r)
	if ls == "NULL" || rs == "NULL" {
		return constOf(nil, tBool, "?column?"), true
	}
	eq := ls == rs
	if op != "=" {
		eq = !eq
	}
	return constOf(map[bool]int64{false: 0, true: 1}[eq], tBool, "?column?"), true
}

// noJSONBKey refuses jsonb where the dialect would group, sort or index
// by the stored text (what: the construct), which is not jsonb's
// equality: 1.0 and 1 are one jsonb value with two texts. json, which
// has no equality or order in PostgreSQL, gets PostgreSQL's error.
func noJSONBKey(typ Type, what string) error {
	switch {
	case typ.Name == "jsonb":
		return refuse("%s on jsonb values", what)
	case typ.Name != "json":
		return nil
	case what == "ORDER BY":
		return pgError("42883", "could not identify an ordering operator for type json")
	case jsonKeyConstructs[what]:
		return pgError("42704", "data type json has no default operator class for access method \"btree\"")
	}
	return pgError("42883", "could not identify an equality operator for type json")
}

// jsonKeyConstructs are noJSONBKey's constructs that build an index.
var jsonKeyConstructs = map[string]bool{"PRIMARY KEY and UNIQUE": true, "PRIMARY KEY": true, "UNIQUE": true, "indexes": true}

// noJSONBColumns is noJSONBKey over a query's or key's columns.
func noJSONBColumns(cols []Column, what string) error {
	for _, c := range cols {
		if err := noJSONBKey(c.Type, what); err != nil {
			return err
		}
	}
	return nil
}

func init() {
	scalars["json_typeof"] = jsonFunc("json", "typeof", tText)
	scalars["jsonb_typeof"] = jsonFunc("jsonb", "typeof", tText)
	scalars["json_array_length"] = jsonFunc("json", "array_length", tInt4)
	scalars["jsonb_array_length"] = jsonFunc("jsonb", "array_length", tInt4)
	scalars["json_build_object"] = jsonBuild("json", "object")
	scalars["jsonb_build_object"] = jsonBuild("jsonb", "object")
	scalars["json_build_array"] = jsonBuild("json", "array")
	scalars["jsonb_build_array"] = jsonBuild("jsonb", "array")
	scalars["to_json"] = jsonBuild("json", "value")
	scalars["to_jsonb"] = jsonBuild("jsonb", "value")
}

// jsonFunc is a function of one json (kind) argument: pg_json_fn.
func jsonFunc(kind, fn string, res Type) func(t *translator, args []value) (value, error) {
	name := kind + "_" + fn
	return func(t *translator, args []value) (value, error) {
		if len(args) != 1 {
			return value{}, pgError("42883", "function %s with %d arguments does not exist", name, len(args))
		}
		a, err := t.coerceValue(args[0], Type{Name: kind, Typmod: -1}, ctxImplicit)
		if err != nil {
			if errIs(err, "42846") {
				return value{}, pgError("42883", "function %s(%s) does not exist", name, label(args[0].typ))
			}
			return value{}, err
		}
		return value{sql: "pg_json_fn('" + fn + "', '" + kind + "', " + a.sql + ")", typ: res}, nil
	}
}

// jsonArgTypes are the types json(b)_build_* and to_json(b) convert
// here; others (float, timestamps, bytea, arrays) are refused by name.
var jsonArgTypes = map[string]bool{"int2": true, "int4": true, "int8": true, "numeric": true, "bool": true,
	"text": true, "varchar": true, "bpchar": true, "uuid": true, "date": true, "json": true, "jsonb": true}

// jsonBuild is json(b)_build_object/_array (shape object, array) and
// to_json(b) (value): pg_json_build with each argument's type.
func jsonBuild(kind, shape string) func(t *translator, args []value) (value, error) {
	name := map[string]string{"object": kind + "_build_object", "array": kind + "_build_array", "value": "to_" + kind}[shape]
	return func(t *translator, args []value) (value, error) {
		if shape == "value" && len(args) != 1 {
			return value{}, pgError("42883", "function %s with %d arguments does not exist", name, len(args))
		}
		sql := "pg_json_build('" + kind + "', '" + shape + "'"
		for _, a := range args {
			if a.untyped() {
				var err error
				if a, err = t.retype(a, tText); err != nil {
					return value{}, err
				}
			}
			if !jsonArgTypes[a.typ.Name] {
				return value{}, refuse("%s of %s values", name, label(a.typ))
			}
			sql += ", '" + a.typ.Name + "', " + a.sql
		}
		return value{sql: sql + ")", typ: Type{Name: kind, Typmod: -1}}, nil
	}
}
