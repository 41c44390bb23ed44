package pgdialect

import (
	"fmt"
	"strconv"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/relchain/relchain/backend/sqlite/pgdialect/internal/pgconv"
)

// aExpr translates operator expressions.
func (t *translator) aExpr(a *pg_query.A_Expr, sc *scope) (value, error) {
	before := t.stableLeft
	v, err := t.aExprKind(a, sc)
	if err != nil {
		return value{}, err
	}
	return t.markUnfolded(a, v, before), nil
}

func (t *translator) aExprKind(a *pg_query.A_Expr, sc *scope) (value, error) {
	if len(a.GetName()) != 1 {
		return value{}, refuse("qualified operators (OPERATOR(...))")
	}
	op := strNode(a.GetName()[0])
	switch a.GetKind() {
	case pg_query.A_Expr_Kind_AEXPR_OP:
		return t.operator(op, a, sc)
	case pg_query.A_Expr_Kind_AEXPR_LIKE, pg_query.A_Expr_Kind_AEXPR_ILIKE:
		return t.like(op, a, sc)
	case pg_query.A_Expr_Kind_AEXPR_IN:
		return t.inList(op, a, sc)
	case pg_query.A_Expr_Kind_AEXPR_BETWEEN, pg_query.A_Expr_Kind_AEXPR_NOT_BETWEEN:
		return t.between(a, sc)
	case pg_query.A_Expr_Kind_AEXPR_DISTINCT, pg_query.A_Expr_Kind_AEXPR_NOT_DISTINCT:
		return t.distinct(a, sc)
	case pg_query.A_Expr_Kind_AEXPR_NULLIF:
		return t.nullif(a, sc)
	case pg_query.A_Expr_Kind_AEXPR_OP_ANY, pg_query.A_Expr_Kind_AEXPR_OP_ALL:
		return t.anyAll(op, a, sc)
	}
	return value{}, refuse("the operator %s (%s)", op, a.GetKind())
}

func (t *translator) operands(a *pg_query.A_Expr, sc *scope) (value, value, error) {
	l, err := t.expr(a.GetLexpr(), sc) // t.expr marks what PostgreSQL folds (markUnfolded)
	if err != nil {
		return value{}, value{}, err
	}
	r, err := t.expr(a.GetRexpr(), sc)
	return l, r, err
}

func (t *translator) operator(op string, a *pg_query.A_Expr, sc *scope) (value, error) {
	if a.GetLexpr() == nil {
		return t.unary(op, a.GetRexpr(), sc)
	}
	l, r, err := t.operands(a, sc)
	if err != nil {
		return value{}, err
	}
	if isJSON(l.typ) || isJSON(r.typ) || op == "->" || op == "->>" || op == "#>" || op == "#>>" || op == "?" || op == "?|" || op == "?&" {
		if v, ok, err := t.jsonOperator(op, l, r); ok || err != nil {
			return v, err
		}
	}
	if isArray(l.typ) || isArray(r.typ) || op == "@>" || op == "<@" || op == "&&" {
		return t.arrayOperator(op, l, r)
	}
	switch op {
	case "=", "<>", "<", ">", "<=", ">=":
		return t.compare(op, l, r)
	case "+", "-", "*", "/", "%":
		if (l.pgConst || r.pgConst) && constish(l) && constish(r) && !isNullConst(l) && !isNullConst(r) && t.noFold == 0 {
			return value{}, refuseUnfolded("the operator " + op)
		}
		return t.arithmetic(op, l, r)
	case "||":
		return t.concat(l, r)
	}
	if bitwiseOps[op] {
		return t.bitwise(op, l, r)
	}
	return value{}, refuse("the operator %s", op)
}

// unify gives two operands one type as PostgreSQL's operator resolution
// does for the supported types: an untyped side takes the other's type
// (both untyped: text); a numeric literal becomes float8 beside a float.
func (t *translator) unify(l, r value) (value, value, error) {
	var err error
	switch {
	case l.untyped() && r.untyped():
		l, err = t.retype(l, tText)
		if err == nil {
			r, err = t.retype(r, tText)
		}
	case l.num != "" && isFloat(r.typ):
		l, err = t.retype(l, tFloat8)
	case r.num != "" && isFloat(l.typ):
		r, err = t.retype(r, tFloat8)
	case l.untyped():
		l, err = t.retype(l, r.typ)
	case r.untyped():
		r, err = t.retype(r, l.typ)
	}
	return l, r, err
}

// retype coerces an untyped value to typ (varchar loses its length: an
// untyped literal compared to varchar(n) is text).
func (t *translator) retype(v value, typ Type) (value, error) {
	switch typ.Name {
	case "varchar", "unknown":
		typ = tText
	case "bpchar", "numeric":
		typ = Type{Name: typ.Name, Typmod: -1}
	}
	out, err := t.coerceValue(v, typ, ctxImplicit)
	out.name = v.name
	return out, err
}

// comparable reports whether PostgreSQL has a comparison between the two
// supported types, and the SQLite text of each side to compare.
func comparable(l, r value) (string, string, bool) {
	switch {
	case l.typ.Name == r.typ.Name && (l.typ.Name == "numeric" || l.typ.Name == "bpchar"):
		return withRtrim(l), withRtrim(r), true
	case isNum(l.typ) && isNum(r.typ):
		if isFloat(l.typ) != isFloat(r.typ) {
			return asReal(l), asReal(r), true
		}
		return l.sql, r.sql, true
	case isText(l.typ) && isText(r.typ):
		return l.sql, r.sql, true
	case l.typ.Name == r.typ.Name && l.typ.Name != "json":
		return l.sql, r.sql, true
	}
	return "", "", false
}

func asReal(v value) string {
	if isInt(v.typ) {
		return "CAST(" + v.sql + " AS REAL)"
	}
	return v.sql
}

func (t *translator) compare(op string, l, r value) (value, error) {
	ls, rs, err := t.comparison(op, l, r)
	if err != nil {
		return value{}, err
	}
	if ls == "NULL" || rs == "NULL" {
		return constOf(nil, tBool, "?column?"), nil
	}
	if zoneDependent(l.typ, r.typ) && constish(l) && constish(r) {
		t.stableLeft++ // stable: PostgreSQL does not fold it
	}
	if t.noFold == 0 && !zoneDependent(l.typ, r.typ) {
		lv, rv, _ := t.unify(l, r)
		lv, rv, _ = t.datetimeSides(lv, rv)
		lv, rv, _ = t.mixedSides(lv, rv)
		if v, ok := foldCompare(op, lv, rv); ok {
			return v, nil
		}
	}
	return value{sql: "(" + ls + " " + op + " " + rs + ")", typ: tBool, name: "?column?"}, nil
}

// zoneDependent reports whether comparing a and b converts a date or a
// timestamp to timestamptz: the conversion reads TimeZone, so PostgreSQL
// marks it stable and its planner does not fold it (a CASE arm under
// TIMESTAMPTZ '…' = DATE '…' is folded there, errors and all).
func zoneDependent(a, b Type) bool {
	return a.Name != b.Name && (a.Name == "timestamptz" || b.Name == "timestamptz") &&
		datetimeRank[a.Name] > 0 && datetimeRank[b.Name] > 0
}

// comparison is the SQLite text of both sides of a comparison.
func (t *translator) comparison(op string, l, r value) (string, string, error) {
	if isArray(l.typ) || isArray(r.typ) {
		return t.arraySides(op, l, r)
	}
	if (l.untyped() && r.typ.Name == "json") || (r.untyped() && l.typ.Name == "json") {
		// json has no comparison operators and no implicit cast to a
		// type that has: 42883 before the literal is read as json.
		return "", "", pgError("42883", "operator does not exist: %s", opSides(op, "unknown", "json", l.untyped()))
	}
	l, r, err := t.unify(l, r)
	if err != nil {
		return "", "", err
	}
	if l.typ.Name == "jsonb" && r.typ.Name == "jsonb" {
		return t.jsonbSides(op, l, r)
	}
	if l, r, err = t.datetimeSides(l, r); err != nil {
		return "", "", err
	}
	if l, r, err = t.mixedSides(l, r); err != nil {
		return "", "", err
	}
	ls, rs, ok := comparable(l, r)
	if !ok {
		return "", "", noOperator(op, l.typ, r.typ)
	}
	return ls, rs, nil
}

func noOperator(op string, l, r Type) error {
	if (l.Name == r.Name && l.Name != "json") || (isNum(l) && isNum(r)) {
		return refuse("the operator %s on %s and %s", op, label(l), label(r))
	}
	if (l.Name == "date" || l.Name == "timestamp" || l.Name == "timestamptz") && (r.Name == "date" || r.Name == "timestamp" || r.Name == "timestamptz") {
		return refuse("comparisons across date, timestamp and timestamptz")
	}
	return pgError("42883", "operator does not exist: %s %s %s", label(l), op, label(r))
}

var intOps = map[string]string{"+": "pg_int_add", "-": "pg_int_sub", "*": "pg_int_mul", "/": "pg_int_div", "%": "pg_int_mod"}
var floatOps = map[string]string{"+": "pg_float_add", "-": "pg_float_sub", "*": "pg_float_mul", "/": "pg_float_div"}

// arithmetic calls the runtime's checked operators: PostgreSQL's result
// type, overflow (22003) and division by zero (22012) errors.
func (t *translator) arithmetic(op string, l, r value) (value, error) {
	if l.untyped() && r.untyped() {
		return value{}, pgError("42725", "operator is not unique: unknown %s unknown", op)
	}
	if err := unknownArithmetic(op, l, r); err != nil {
		return value{}, err
	}
	l, r, err := t.unify(l, r)
	if err != nil {
		return value{}, err
	}
	if v, ok, err := t.dateArithmetic(op, l, r); ok || err != nil {
		return v, err
	}
	if !isNum(l.typ) || !isNum(r.typ) {
		if l.typ.Name == "date" || l.typ.Name == "timestamp" || l.typ.Name == "timestamptz" {
			return value{}, refuse("date and time arithmetic")
		}
		return value{}, pgError("42883", "operator does not exist: %s %s %s", label(l.typ), op, label(r.typ))
	}
	res := widerNum(l.typ, r.typ)
	if (isNullConst(l) || isNullConst(r)) && t.noFold == 0 && (res.Name == "numeric" || l.typ.Name == "numeric" || r.typ.Name == "numeric") {
		// A strict operator with a NULL constant folds to NULL:
		// NULL + (c / c) never divides. PostgreSQL folds the operands
		// first, so a constant's implicit cast to a float operator's type
		// fails there (NULL::float8 * 1e310: 22003, random
		// 1796455105833389528/4631).
		if _, ok := floatOps[op]; ok || !isFloat(res) {
			if err := t.foldOperandCasts(res, l, r); err != nil {
				return value{}, err
			}
			return nullOf(Type{Name: res.Name, Typmod: -1}), nil
		}
	}
	if res.Name == "numeric" || l.typ.Name == "numeric" || r.typ.Name == "numeric" {
		res = Type{Name: res.Name, Typmod: -1}
		if l, err = t.coerceValue(l, res, ctxImplicit); err != nil {
			return value{}, err
		}
		if r, err = t.coerceValue(r, res, ctxImplicit); err != nil {
			return value{}, err
		}
	}
	if res.Name == "numeric" {
		return t.numericArith(op, l, r)
	}
	if _, ok := floatOps[op]; !ok && isFloat(res) {
		return value{}, pgError("42883", "operator does not exist: %s %s %s", label(l.typ), op, label(r.typ))
	}
	if isNullConst(l) || isNullConst(r) {
		return nullOf(res), nil
	}
	if l.isConst && r.isConst && t.noFold == 0 {
		v, err := foldArithmetic(op, l, r, res)
		return t.planTime(v, err, res)
	}
	if isInt(res) {
		return value{sql: fmt.Sprintf("%s(%s, %s, %d)", intOps[op], l.sql, r.sql, intBits(res)), typ: res, name: "?column?"}, nil
	}
	fn, ok := floatOps[op]
	if !ok {
		return value{}, pgError("42883", "operator does not exist: %s %s %s", label(l.typ), op, label(r.typ))
	}
	bits := 64
	if res.Name == "float4" {
		bits = 32
	}
	return value{sql: fmt.Sprintf("%s(%s, %s, %d)", fn, l.sql, r.sql, bits), typ: res, name: "?column?"}, nil
}

// unknownArithmetic resolves an arithmetic operator with one untyped
// operand (a string literal, NULL, a parameter) as PostgreSQL's operator
// resolution does, before the literal is read as the other side's type:
// the operator on two of the known type (binary_oper_exact) when it
// exists, else the candidates whose known side accepts the type
// (func_select_candidate). So an untyped operand beside a type without
// the operator is 42883 even when its text is not of that type (uuid +
// 'x'), float % 'x' is 42883 (no float %, and float does not convert to
// numeric implicitly), and unknown - text is jsonb - text (jsonb's
// delete, which the dialect refuses), not 42883.
func unknownArithmetic(op string, l, r value) error {
	known, left := r.typ, true
	if r.untyped() {
		known, left = l.typ, false
	} else if !l.untyped() {
		return nil
	}
	switch {
	case isNum(known) && (op != "%" || !isFloat(known)):
		return nil // the operator on two of the known type
	case datetimeRank[known.Name] > 0 && op == "+" && known.Name == "date":
		// date + integer, date + interval, date + time ...: no choice.
		return pgError("42725", "operator is not unique: %s", opSides(op, "unknown", label(known), left))
	case datetimeRank[known.Name] > 0 && (op == "+" || op == "-"):
		return nil // date - date, date - integer, or refused by name
	case op == "-" && left && (isText(known) || known.Name == "bpchar"):
		return refuse("the operator - on an untyped operand and %s (PostgreSQL reads it as jsonb - text, jsonb's delete)", label(known))
	}
	return pgError("42883", "operator does not exist: %s", opSides(op, "unknown", label(known), left))
}

// opSides is "u op k" when the untyped operand is on the left, else
// "k op u": an operator's name with its operands' types in error texts.
func opSides(op, u, k string, left bool) string {
	if left {
		return u + " " + op + " " + k
	}
	return k + " " + op + " " + u
}

func (t *translator) unary(op string, n *pg_query.Node, sc *scope) (value, error) {
	v, err := t.expr(n, sc)
	if err != nil {
		return value{}, err
	}
	if v.untyped() && op == "+" {
		// Prefix + exists on the numeric types only: float8, their
		// preferred type, wins (+ NULL and + '1' are float8).
		if v, err = t.retype(v, tFloat8); err != nil {
			return value{}, err
		}
	}
	if v.untyped() {
		// Prefix - also exists on interval: two categories, no choice.
		return value{}, pgError("42725", "operator is not unique: %s unknown", op)
	}
	if !isNum(v.typ) || (op != "-" && op != "+") {
		return value{}, refuse("the prefix operator %s on %s", op, label(v.typ))
	}
	if op == "-" && v.pgConst && t.noFold == 0 {
		return value{}, refuseUnfolded("the prefix operator -")
	}
	if op == "+" {
		return value{sql: v.sql, typ: v.typ, name: "?column?"}, nil
	}
	if v.typ.Name == "numeric" {
		out, err := t.numericFn("neg", v, nil)
		out.name = "?column?"
		return out, err
	}
	if isFloat(v.typ) {
		return negateFloat(v), nil
	}
	if v.isConst && t.noFold == 0 {
		res := Type{Name: v.typ.Name, Typmod: -1}
		out, err := foldArithmetic("-", constOf(int64(0), v.typ, ""), v, res)
		return t.planTime(out, err, res)
	}
	return value{sql: fmt.Sprintf("pg_int_sub(0, %s, %d)", v.sql, intBits(v.typ)), typ: v.typ, name: "?column?"}, nil
}

// negateFloat is PostgreSQL's float4um/float8um: the sign flipped, so -0
// of 0 is -0 and of -0 is 0. SQLite's prefix - subtracts from the
// integer 0 (0 - 0.0 is +0.0); multiplying by -1.0 flips the sign of
// every float, zeros and infinities included. A constant folds (Go's
// unary minus flips the sign bit too).
func negateFloat(v value) value {
	if f, ok := v.konst.(float64); ok && v.isConst {
		return constOf(-f, v.typ, "?column?")
	}
	return value{sql: "(" + v.sql + " * -1.0)", typ: v.typ, name: "?column?"}
}

// concatenable are the types whose text output || uses as SQLite stores
// them.
func concatenable(t Type) bool {
	return isText(t) || isInt(t) || t.Name == "date" || t.Name == "timestamp" || t.Name == "timestamptz" || t.Name == "json" || t.Name == "uuid" || t.Name == "unknown"
}

func (t *translator) concat(l, r value) (value, error) {
	// text || text is textcat, immutable, which PostgreSQL's planner
	// folds on constants (so an assignment of the result is checked while
	// planning, 22001); with an integer operand it is anytextcat, an SQL
	// function the planner inlines as int::text || text, folded too.
	for _, v := range []*value{&l, &r} {
		if v.typ.Name == "bpchar" || v.typ.Name == "numeric" {
			// || takes text: char(n) without its blanks, numeric's
			// output text.
			out, err := t.coerceValue(*v, tText, ctxAssignment)
			if err != nil {
				return value{}, err
			}
			*v = out
		}
	}
	if (l.untyped() || isText(l.typ)) && (r.untyped() || isText(r.typ)) {
		var err error
		if l, r, err = t.unify(l, r); err != nil {
			return value{}, err
		}
	}
	if !isText(l.typ) && !isText(r.typ) && !(l.untyped() || r.untyped()) {
		return value{}, pgError("42883", "operator does not exist: %s || %s", label(l.typ), label(r.typ))
	}
	for _, v := range []*value{&l, &r} {
		if v.untyped() {
			s, err := t.coerce(*v, tText, ctxImplicit)
			if err != nil {
				return value{}, err
			}
			v.sql, v.typ = s, tText
		}
		if !concatenable(v.typ) {
			return value{}, refuse("|| on %s", label(v.typ))
		}
	}
	if isNullConst(l) || isNullConst(r) {
		return constOf(nil, tText, "?column?"), nil // || is strict: PostgreSQL folds it
	}
	if (isDatetime(l.typ) || isDatetime(r.typ)) && constish(l) && constish(r) {
		t.stableLeft++ // textanycat over a date/time output: stable
	}
	if ls, ok := constText(l); ok && t.noFold == 0 {
		if rs, ok := constText(r); ok {
			return constOf(ls+rs, tText, "?column?"), nil
		}
	}
	return value{sql: "(" + l.sql + " || " + r.sql + ")", typ: tText, name: "?column?"}, nil
}

// constText is the text of a text constant, a string literal or an
// integer constant (int2/int4/int8out: immutable).
func constText(v value) (string, bool) {
	if v.lit != nil {
		return *v.lit, true
	}
	if !v.isConst {
		return "", false
	}
	switch k := v.konst.(type) {
	case string:
		return k, isText(v.typ)
	case int64:
		return strconv.FormatInt(k, 10), v.typ.Name == "int2" || v.typ.Name == "int4" || v.typ.Name == "int8"
	}
	return "", false
}

// foldOperandCasts casts the numeric constants among operands to res,
// a float type, as PostgreSQL's planner does before it folds a strict
// operator with a NULL operand: an out-of-range value fails (22003).
func (t *translator) foldOperandCasts(res Type, operands ...value) error {
	if !isFloat(res) {
		return nil
	}
	for _, v := range operands {
		if v.isConst && !isNullConst(v) && v.typ.Name == "numeric" {
			if _, err := t.coerceValue(v, Type{Name: res.Name, Typmod: -1}, ctxImplicit); err != nil {
				return err
			}
		}
	}
	return nil
}

// isNullConst reports a NULL constant (typed or not): PostgreSQL folds a
// strict operator with a NULL constant operand to NULL at plan time,
// without evaluating the other operand (which may fail on every row).
func isNullConst(v value) bool { return v.null || v.sql == "NULL" }

func nullOf(t Type) value { return value{sql: "NULL", typ: t, name: "?column?"} }

// foldArithmetic computes an operator on two constants now, as
// PostgreSQL's planner does (its errors raised whatever the rows).
func foldArithmetic(op string, l, r value, res Type) (value, error) {
	if l.konst == nil || r.konst == nil {
		return nullOf(res), nil
	}
	if isInt(res) {
		out, err := pgconv.IntOp(op[0], l.konst.(int64), r.konst.(int64), res.Name)
		if err != nil {
			return value{}, convError(err)
		}
		return constOf(out, res, "?column?"), nil
	}
	if _, ok := floatOps[op]; !ok {
		return value{}, pgError("42883", "operator does not exist: %s %s %s", label(l.typ), op, label(r.typ))
	}
	out, err := pgconv.FloatOp(op[0], asFloat(l.konst), asFloat(r.konst), res.Name == "float4")
	if err != nil {
		return value{}, convError(err)
	}
	return constOf(out, res, "?column?"), nil
}

func asFloat(v any) float64 {
	if i, ok := v.(int64); ok {
		return float64(i)
	}
	return v.(float64)
}

// mixedSides converts the sides of a comparison across numeric and the
// other number types, and across char(n) and the other string types, as
// PostgreSQL's operator resolution does: an integer beside a numeric
// becomes numeric, a numeric beside a float float8; char(n) beside text
// is text without its trailing blanks, beside varchar both are char.
func (t *translator) mixedSides(l, r value) (value, value, error) {
	var err error
	switch {
	case l.typ.Name == "numeric" && r.typ.Name == "numeric", l.typ.Name == "bpchar" && r.typ.Name == "bpchar":
	case l.typ.Name == "numeric" && isNum(r.typ), r.typ.Name == "numeric" && isNum(l.typ):
		to := tNumeric
		if isFloat(l.typ) || isFloat(r.typ) {
			to = tFloat8
		}
		if l, err = t.coerceValue(l, to, ctxImplicit); err == nil {
			r, err = t.coerceValue(r, to, ctxImplicit)
		}
	case l.typ.Name == "bpchar" && r.typ.Name == "varchar", l.typ.Name == "varchar" && r.typ.Name == "bpchar":
		l.typ, r.typ = Type{Name: "bpchar", Typmod: -1}, Type{Name: "bpchar", Typmod: -1}
	case l.typ.Name == "bpchar" && r.typ.Name == "text":
		l, err = t.coerceValue(l, tText, ctxImplicit)
	case r.typ.Name == "bpchar" && l.typ.Name == "text":
		r, err = t.coerceValue(r, tText, ctxImplicit)
	}
	return l, r, err
}
