package pgdialect

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/relchain/relchain/backend/sqlite/pgdialect/internal/pgconv"
)

// One-dimensional arrays (DESIGN.md, "Arrays"). An array type is named
// as pg_type names it ("_text", "_varchar" with the element's typmod); its
// value is stored as PostgreSQL's own array text, canonical (array_out),
// so equal arrays are equal texts: =, <>, GROUP BY, DISTINCT and UNIQUE
// are SQLite's text comparisons. Order (<, ORDER BY, min/max) is not
// the text's and is refused.

func isArray(t Type) bool { return pgconv.IsArray(t.Name) }

// elemOf is an array type's element type.
func elemOf(t Type) Type { return Type{Name: pgconv.Elem(t.Name), Typmod: t.Typmod} }

// arrayType is the array of t declared with dims bracket pairs.
func arrayType(t Type, dims int) (Type, error) {
	if dims > 1 {
		return Type{}, refuse("multi-dimensional arrays (%s%s)", label(t), strings.Repeat("[]", dims))
	}
	if !pgconv.ArrayElements[t.Name] {
		return Type{}, refuse("arrays of %s", label(t))
	}
	return Type{Name: "_" + t.Name, Typmod: t.Typmod}, nil
}

// parseArrayDeclared reads back an array's declared type: "_" and its
// element's (DeclaredType).
func parseArrayDeclared(d string) (Type, bool) {
	elem, ok := ParseDeclaredType(d[1:])
	if !ok || !pgconv.ArrayElements[elem.Name] {
		return Type{}, false
	}
	return Type{Name: "_" + elem.Name, Typmod: elem.Typmod}, true
}

// arrayExpr translates ARRAY[e1, ...]: the elements' common type (text
// when all are untyped), folded to its text when every element is a
// constant, else pg_array_make.
func (t *translator) arrayExpr(a *pg_query.A_ArrayExpr, sc *scope) (value, error) {
	if len(a.GetElements()) == 0 {
		return value{}, pgError("42P18", "cannot determine type of empty array")
	}
	var vals []value
	for _, n := range a.GetElements() {
		if n.GetAArrayExpr() != nil {
			return value{}, refuse("multi-dimensional arrays (ARRAY[ARRAY[...]])")
		}
		v, err := t.expr(n, sc)
		if err != nil {
			return value{}, err
		}
		vals = append(vals, v)
	}
	elem, err := commonType("ARRAY", vals)
	if err != nil {
		return value{}, err
	}
	typ, err := arrayType(elem, 1)
	if err != nil {
		return value{}, err
	}
	return t.buildArray(vals, typ)
}

// buildArray is the array of vals converted to typ's element type.
func (t *translator) buildArray(vals []value, typ Type) (value, error) {
	elem := elemOf(typ)
	sqls := []string{"'" + elem.Name + "'"}
	var texts []*string
	folded := t.noFold == 0
	for _, v := range vals {
		c, err := t.coerceValue(v, elem, ctxImplicit)
		if err != nil {
			return value{}, err
		}
		sqls = append(sqls, c.sql)
		if !c.isConst {
			folded = false
			continue
		}
		if c.konst == nil {
			texts = append(texts, nil)
			continue
		}
		s, err := pgconv.ElemText(c.konst, elem.Name)
		if err != nil {
			return value{}, convError(err)
		}
		texts = append(texts, &s)
	}
	if folded {
		return constOf(pgconv.FormatArray(texts), typ, "array"), nil
	}
	if len(vals) > 100 {
		return value{}, refuse("ARRAY[...] of more than 100 elements that are not constants")
	}
	return value{sql: "pg_array_make(" + join(sqls, ", ") + ")", typ: typ, name: "array"}, nil
}

// emptyArrayCast is ARRAY[]::t[], the empty array of a named type.
func emptyArrayCast(c *pg_query.TypeCast) (value, bool, error) {
	a := c.GetArg().GetAArrayExpr()
	if a == nil || len(a.GetElements()) > 0 {
		return value{}, false, nil
	}
	to, err := typeFromName(c.GetTypeName())
	if err != nil {
		return value{}, true, err
	}
	if !isArray(to) {
		return value{}, true, pgError("42846", "cannot cast type %s to %s", "unknown[]", label(to))
	}
	return constOf("{}", to, "array"), true, nil
}

// indirection translates arr[i]: the element, NULL out of range (PostgreSQL
// arrays here start at 1); i is converted to int4 as an assignment is
// (1.6 is 2, a bigint out of range 22003). Slices and several subscripts
// are refused.
func (t *translator) indirection(a *pg_query.A_Indirection, sc *scope) (value, error) {
	if len(a.GetIndirection()) != 1 || a.GetIndirection()[0].GetAIndices() == nil {
		return value{}, refuse("this subscript or field selection (multi-dimensional subscripts, fields of composite values)")
	}
	idx := a.GetIndirection()[0].GetAIndices()
	if idx.GetIsSlice() {
		return value{}, refuse("array slices (a[i:j])")
	}
	before := t.stableLeft
	arr, err := t.expr(a.GetArg(), sc)
	if err != nil {
		return value{}, err
	}
	if !isArray(arr.typ) {
		return value{}, pgError("42804", "cannot subscript type %s because it does not support subscripting", label(arr.typ))
	}
	i, err := t.expr(idx.GetUidx(), sc)
	if err != nil {
		return value{}, err
	}
	if !i.untyped() && !isNum(i.typ) {
		return value{}, pgError("42804", "array subscript must have type integer")
	}
	is, err := t.coerce(i, tInt4, ctxAssignment) // as PostgreSQL coerces a subscript
	if err != nil {
		return value{}, err
	}
	elem := elemOf(arr.typ)
	name := arr.name
	v := value{sql: "pg_array_get(" + arr.sql + ", " + is + ", '" + elem.Name + "')", typ: elem, name: name}
	return t.markUnfolded(a, v, before), nil // PostgreSQL folds a constant array's subscript
}

// anyAll translates x = ANY(arr) and x <> ALL(arr) (its negation, in
// three-valued logic as in PostgreSQL): pg_array_any.
func (t *translator) anyAll(op string, a *pg_query.A_Expr, sc *scope) (value, error) {
	anyOp := a.GetKind() == pg_query.A_Expr_Kind_AEXPR_OP_ANY
	if (op != "=" || !anyOp) && (op != "<>" || anyOp) {
		return value{}, refuse("the operator %s %s (array)", op, map[bool]string{true: "ANY", false: "ALL"}[anyOp])
	}
	x, arr, err := t.operands(a, sc)
	if err != nil {
		return value{}, err
	}
	if arr.untyped() {
		elem := x.typ
		if x.untyped() {
			elem = tText
		}
		at, err := arrayType(Type{Name: elem.Name, Typmod: -1}, 1)
		if err != nil {
			return value{}, err
		}
		if arr, err = t.coerceValue(arr, at, ctxImplicit); err != nil {
			return value{}, err
		}
	}
	if !isArray(arr.typ) {
		return value{}, pgError("42809", "op ANY/ALL (array) requires array on right side")
	}
	xs, err := t.anyOperand(op, x, elemOf(arr.typ))
	if err != nil {
		return value{}, err
	}
	sql := "pg_array_any(" + xs + ", " + arr.sql + ", '" + elemOf(arr.typ).Name + "')"
	if !anyOp {
		sql = "(NOT " + sql + ")"
	}
	return value{sql: sql, typ: tBool, name: "?column?"}, nil
}

// anyOperand is x's SQLite text for a comparison with elements of elem:
// an untyped x takes elem's type; integers of any width, and text with
// varchar, compare as their canonical texts.
func (t *translator) anyOperand(op string, x value, elem Type) (string, error) {
	switch {
	case x.untyped():
		return t.coerce(x, Type{Name: elem.Name, Typmod: -1}, ctxImplicit)
	case x.typ.Name == "bpchar" && isText(elem):
		return t.coerce(x, tText, ctxImplicit)
	case x.typ.Name == elem.Name, isInt(x.typ) && isInt(elem), isText(x.typ) && isText(elem):
		return x.sql, nil
	case isArray(x.typ):
		return "", refuse("ANY/ALL over an array of arrays")
	}
	return "", noOperator(op, x.typ, elem)
}

// sameElems reports whether PostgreSQL has the anyarray operators
// between l and r: arrays of one element type (varchar[] = text[] is
// 42883 there).
func sameElems(l, r Type) bool {
	return isArray(l) && isArray(r) && l.Name == r.Name
}

// arrayOperator translates an operator with an array operand: = and <>
// compare the canonical texts; @>, <@ and && call pg_array_op; || is
// arrayConcat; order is refused.
func (t *translator) arrayOperator(op string, l, r value) (value, error) {
	if op == "||" {
		return t.arrayConcat(l, r)
	}
	ls, rs, err := t.arraySides(op, l, r)
	switch {
	case err != nil:
		return value{}, err
	case ls == "NULL" || rs == "NULL":
		return constOf(nil, tBool, "?column?"), nil
	case op == "=" || op == "<>" || op == "!=":
		return value{sql: "(" + ls + " " + op + " " + rs + ")", typ: tBool, name: "?column?"}, nil
	}
	return value{sql: "pg_array_op('" + op + "', " + ls + ", " + rs + ")", typ: tBool, name: "?column?"}, nil
}

// arraySides is the SQLite text of both operands of an operator with an
// array operand (comparison's, for IS DISTINCT FROM, IN, NULLIF ...).
func (t *translator) arraySides(op string, l, r value) (string, string, error) {
	switch op {
	case "=", "<>", "!=", "@>", "<@", "&&":
	default:
		return "", "", refuse("the operator %s on arrays (array order)", op)
	}
	var err error
	switch {
	case l.untyped() && r.untyped():
		return "", "", pgError("42725", "operator is not unique: unknown %s unknown", op)
	case l.untyped():
		l, err = t.coerceValue(l, Type{Name: r.typ.Name, Typmod: -1}, ctxImplicit)
	case r.untyped():
		r, err = t.coerceValue(r, Type{Name: l.typ.Name, Typmod: -1}, ctxImplicit)
	}
	if err != nil {
		return "", "", err
	}
	if !sameElems(l.typ, r.typ) {
		return "", "", pgError("42883", "operator does not exist: %s %s %s", label(l.typ), op, label(r.typ))
	}
	return l.sql, r.sql, nil
}

// arrayAgg is array_agg(x [ORDER BY ...]): pg_array_agg, NULL inputs kept
// as NULL elements, NULL over no rows.
func (t *translator) arrayAgg(f *pg_query.FuncCall, sc *scope) (value, error) {
	if t.aggDepth > 0 {
		return value{}, pgError("42803", "aggregate function calls cannot be nested")
	}
	if len(f.GetArgs()) != 1 || f.GetAggStar() || f.GetAggFilter() != nil || f.GetAggDistinct() {
		return value{}, refuse("this call of array_agg (DISTINCT, FILTER, other arguments)")
	}
	t.sawAgg = true
	t.aggDepth++
	defer func() { t.aggDepth-- }()
	arg, err := t.expr(f.GetArgs()[0], sc)
	if err != nil {
		return value{}, err
	}
	if arg.untyped() {
		if arg, err = t.retype(arg, tText); err != nil {
			return value{}, err
		}
	}
	typ, err := arrayType(Type{Name: arg.typ.Name, Typmod: -1}, 1)
	if err != nil {
		return value{}, err
	}
	order, err := t.aggOrder(f.GetAggOrder(), sc)
	if err != nil {
		return value{}, err
	}
	return value{sql: "pg_array_agg(" + arg.sql + ", '" + arg.typ.Name + "'" + order + ")", typ: typ, name: "array_agg"}, nil
}

// init adds the array functions to the supported scalars (funcs.go).
func init() {
	scalars["array_append"] = arrayEditFunc("append")
	scalars["array_prepend"] = arrayEditFunc("prepend")
	scalars["array_remove"] = arrayEditFunc("remove")
	scalars["array_position"] = arrayEditFunc("position")
	scalars["array_cat"] = arrayCatFunc
	scalars["array_length"] = arrayDimFunc("array_length")
	scalars["array_upper"] = arrayDimFunc("array_upper")
	scalars["array_lower"] = arrayDimFunc("array_lower")
	scalars["cardinality"] = cardinalityFunc
	scalars["array_to_string"] = arrayToString
}

// arrayArg checks a function's array argument.
func arrayArg(fn string, a value) error {
	if a.untyped() {
		return pgError("42804", "could not determine polymorphic type because input has type unknown")
	}
	if !isArray(a.typ) {
		return pgError("42883", "function %s(%s) does not exist", fn, label(a.typ))
	}
	return nil
}

// arrayDimFunc is array_length/array_upper/array_lower(arr, dim): NULL
// for an empty array or a dimension other than 1.
func arrayDimFunc(fn string) func(t *translator, args []value) (value, error) {
	return func(t *translator, args []value) (value, error) {
		if len(args) != 2 {
			return value{}, pgError("42883", "function %s with %d arguments does not exist", fn, len(args))
		}
		if err := arrayArg(fn, args[0]); err != nil {
			return value{}, err
		}
		if !args[1].untyped() && !(isInt(args[1].typ) && intBits(args[1].typ) <= 32) {
			return value{}, pgError("42883", "function %s(%s, %s) does not exist", fn, label(args[0].typ), label(args[1].typ))
		}
		dim, err := t.coerce(args[1], tInt4, ctxImplicit)
		if err != nil {
			return value{}, err
		}
		return value{sql: "pg_array_fn('" + fn + "', " + args[0].sql + ", " + dim + ")", typ: tInt4}, nil
	}
}

// cardinalityFunc is cardinality(arr): the number of elements.
func cardinalityFunc(t *translator, args []value) (value, error) {
	if len(args) != 1 {
		return value{}, pgError("42883", "function cardinality with %d arguments does not exist", len(args))
	}
	if err := arrayArg("cardinality", args[0]); err != nil {
		return value{}, err
	}
	return value{sql: "pg_array_fn('cardinality', " + args[0].sql + ", 1)", typ: tInt4}, nil
}

// arrayToString is array_to_string(arr, delimiter [, null_string]): the
// elements' output texts joined; NULL elements skipped unless
// null_string is given (and not NULL).
func arrayToString(t *translator, args []value) (value, error) {
	if len(args) < 2 || len(args) > 3 {
		return value{}, pgError("42883", "function array_to_string with %d arguments does not exist", len(args))
	}
	if err := arrayArg("array_to_string", args[0]); err != nil {
		return value{}, err
	}
	s, err := t.textArgs("array_to_string", args[1:])
	if err != nil {
		return value{}, err
	}
	if len(s) == 1 {
		s = append(s, "NULL")
	}
	return value{sql: "pg_array_to_string(" + args[0].sql + ", " + s[0] + ", " + s[1] + ")", typ: tText}, nil
}

// arrayCatFunc is array_cat(a, b).
func arrayCatFunc(t *translator, args []value) (value, error) {
	if len(args) != 2 {
		return value{}, pgError("42883", "function array_cat with %d arguments does not exist", len(args))
	}
	return t.arrayCat(args[0], args[1])
}

// arrayEditFunc is array_append(arr, x), array_prepend(x, arr),
// array_remove(arr, x) and array_position(arr, x) on an array and an
// element of its element type (pg_array_edit).
func arrayEditFunc(op string) func(t *translator, args []value) (value, error) {
	fn := "array_" + op
	return func(t *translator, args []value) (value, error) {
		if len(args) != 2 {
			return value{}, pgError("42883", "function %s with %d arguments does not exist", fn, len(args))
		}
		arr, x := args[0], args[1]
		if op == "prepend" {
			arr, x = x, arr
		}
		if arr.untyped() || !isArray(arr.typ) {
			return value{}, refuse("%s with an argument that is not a typed array (%s)", fn, label(arr.typ))
		}
		v, err := t.arrayEdit(op, arr, x)
		v.name = fn
		return v, err
	}
}

// arrayEdit calls pg_array_edit on arr and an element x of its type (or
// an integer narrower than its integers, which PostgreSQL's anycompatible
// resolution widens; a wider one would widen the array and is refused).
func (t *translator) arrayEdit(op string, arr, x value) (value, error) {
	elem := Type{Name: elemOf(arr.typ).Name, Typmod: -1}
	widens := isInt(x.typ) && isInt(elem) && intBits(x.typ) <= intBits(elem)
	if !x.untyped() && x.typ.Name != elem.Name && !widens {
		return value{}, refuse("array_%s (or ||) of %s and %s", op, label(arr.typ), label(x.typ))
	}
	xs, err := t.coerce(x, elem, ctxImplicit)
	if err != nil {
		return value{}, err
	}
	typ := Type{Name: arr.typ.Name, Typmod: -1}
	if op == "position" {
		typ = tInt4
	}
	return value{sql: "pg_array_edit('" + op + "', " + arr.sql + ", " + xs + ", '" + elem.Name + "')", typ: typ}, nil
}

// arrayCat is array_cat(a, b) and a || b of two arrays of one type (an
// untyped side is read as the other's array type, as PostgreSQL does).
func (t *translator) arrayCat(a, b value) (value, error) {
	var err error
	switch {
	case a.untyped() && b.untyped():
		return value{}, refuse("array concatenation of two untyped values")
	case a.untyped():
		a, err = t.coerceValue(a, Type{Name: b.typ.Name, Typmod: -1}, ctxImplicit)
	case b.untyped():
		b, err = t.coerceValue(b, Type{Name: a.typ.Name, Typmod: -1}, ctxImplicit)
	}
	if err != nil {
		return value{}, err
	}
	if !isArray(a.typ) || a.typ.Name != b.typ.Name {
		return value{}, refuse("array concatenation of %s and %s", label(a.typ), label(b.typ))
	}
	elem := elemOf(a.typ).Name
	return value{sql: "pg_array_edit('cat', " + a.sql + ", " + b.sql + ", '" + elem + "')", typ: Type{Name: a.typ.Name, Typmod: -1}, name: "array_cat"}, nil
}

// arrayConcat is ||: two arrays (array_cat), an array and an element
// (array_append), an element and an array (array_prepend).
func (t *translator) arrayConcat(l, r value) (value, error) {
	var v value
	var err error
	switch {
	case isArray(l.typ) && !r.untyped() && !isArray(r.typ):
		v, err = t.arrayEdit("append", l, r)
	case isArray(r.typ) && !l.untyped() && !isArray(l.typ):
		v, err = t.arrayEdit("prepend", r, l)
	default:
		v, err = t.arrayCat(l, r)
	}
	v.name = "?column?"
	return v, err
}
