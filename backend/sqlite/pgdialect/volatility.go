package pgdialect

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
