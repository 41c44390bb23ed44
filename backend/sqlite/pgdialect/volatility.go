package pgdialect

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"
)

// PostgreSQL's planner (eval_const_expressions) folds a function, operator
// or cast over constants only when it is immutable; a stable one is left
// to run time, where it runs for the rows actually evaluated, so its
// errors, and those of what is built on it, come only from such rows. A
// strict one with a NULL constant argument is NULL whatever its
// volatility. The translator folds the same way: the volatilities below
// are pg_proc's (PostgreSQL 15) for the casts and functions it folds.
//
// Stable among the supported types:
//   - the I/O functions of date, timestamp and timestamptz (date_in,
//     date_out, timestamp_in, …: DateStyle and TimeZone), so every cast
//     between them and text, varchar or char(n), and the assignment of one
//     to a text column; the I/O casts of the other types (int4out,
//     numeric_in, boolin, uuid_out, json_in, jsonb_out, byteaout, …) are
//     immutable;
//   - the casts between timestamptz and date or timestamp (timestamptz,
//     date(timestamptz), timestamp(timestamptz): TimeZone); date to
//     timestamp and back are immutable;
//   - array_in and array_out, so every cast between an array and text; a
//     cast between arrays folds as its element cast does
//     (ArrayCoerceExpr);
//   - date_trunc(text, timestamptz) (date_trunc on timestamp is immutable),
//     to_char, concat, to_json(b), json(b)_build_*, and text || a date or
//     timestamp (textanycat, inlined as text || x::text, x's output stable).

// stableCast reports whether PostgreSQL's cast from from to to is stable,
// so that its planner does not fold it over a constant.
func stableCast(from, to Type) bool {
	switch {
	case from.Name == to.Name:
		return false // a length coercion (varchar(n), numeric(p,s)): immutable
	case isArray(from) && isArray(to):
		return stableCast(elemOf(from), elemOf(to))
	case isArray(from) || isArray(to):
		return true // array_in, array_out
	case isDatetime(from) && isDatetime(to):
		return from.Name == "timestamptz" || to.Name == "timestamptz"
	}
	return isDatetime(from) || isDatetime(to) // their I/O functions
}

// isDatetime reports date, timestamp and timestamptz.
func isDatetime(t Type) bool {
	return t.Name == "date" || t.Name == "timestamp" || t.Name == "timestamptz"
}

// Immutable constructs the translator leaves to run time over constants
// (json(b)_array_length, cardinality, LIKE, &, ->> … of constants):
// PostgreSQL's planner folds them, so what is built on them folds too,
// and an error there (a division by zero, a cast, an assignment's
// length check) is raised while planning, whatever the rows. Their
// value is not known here, so such a value is marked pgConst and an
// operation on it that PostgreSQL would fold and that can fail is
// refused (refuseUnfolded). A stable construct inside (stableLeft moved
// while it was translated) keeps PostgreSQL from folding it: not marked.

// stableFuncs are the stable functions among those the translator knows
// (pg_proc's provolatile 's'); now() and the like stand for the block's
// time, a literal, but are left out all the same.
var stableFuncs = map[string]bool{
	"concat": true, "array_to_string": true, "to_json": true, "to_jsonb": true, "json_build_object": true,
	"jsonb_build_object": true, "json_build_array": true, "jsonb_build_array": true, "now": true,
	"to_char": true, "transaction_timestamp": true, "statement_timestamp": true,
}

// markUnfolded marks v, the translation of n begun when stableLeft was
// before, pgConst when PostgreSQL's planner folds n and the translator
// did not.
func (t *translator) markUnfolded(n proto.Message, v value, before int) value {
	if t.noFold == 0 && !v.isConstant() && !isNullConst(v) && t.stableLeft == before && pgFoldable(n) {
		v.pgConst = true
		t.pgConsts++
	}
	return v
}

// pgFoldable reports whether PostgreSQL's planner folds n whatever the
// types: no column, subquery, parameter, aggregate, window, volatile or
// stable function (the gate's relchain functions included).
func pgFoldable(n proto.Message) bool {
	switch x := n.(type) {
	case *pg_query.ColumnRef, *pg_query.SubLink, *pg_query.ParamRef, *pg_query.SQLValueFunction:
		return false
	case *pg_query.FuncCall:
		names := x.GetFuncname()
		name := ""
		if len(names) > 0 {
			name = strNode(names[len(names)-1])
		}
		_, agg := aggregates[name]
		if agg || name == "string_agg" || name == "array_agg" || stableFuncs[name] || x.GetOver() != nil ||
			x.GetAggStar() || len(names) > 1 && strNode(names[0]) == "relchain" || volatileFuncs[name] {
			return false
		}
	}
	return childrenAll(n, pgFoldable)
}

// refuseUnfolded refuses an operation on a pgConst value.
func refuseUnfolded(what string) error {
	return refuse("%s of an expression PostgreSQL folds to a constant and this translator does not (an error there is raised while planning, whatever the rows)", what)
}

// constish reports a constant PostgreSQL's planner sees: folded here or
// pgConst.
func constish(v value) bool { return v.isConstant() || v.pgConst }
