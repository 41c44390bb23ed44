package pgdialect

// bitwiseOps are PostgreSQL's bitwise AND and OR of integers (int2and,
// int4or, int8or ...), which SQLite's & and | compute alike on 64-bit
// integers.
var bitwiseOps = map[string]bool{"&": true, "|": true}

// bitwise translates int & int and int | int. PostgreSQL has them for
// int2, int4 and int8 with the wider operand's type (an untyped side
// takes the other's); the result of two values in a type's range is in
// its range, so no overflow check is needed. Other types (numeric,
// float, bool, text) have no such operator (42883); bit strings and inet
// are not supported types.
func (t *translator) bitwise(op string, l, r value) (value, error) {
	if l.untyped() && r.untyped() {
		return value{}, pgError("42725", "operator is not unique: unknown %s unknown", op)
	}
	l, r, err := t.unify(l, r)
	if err != nil {
		return value{}, err
	}
	if !isInt(l.typ) || !isInt(r.typ) {
		return value{}, pgError("42883", "operator does not exist: %s %s %s", label(l.typ), op, label(r.typ))
	}
	res := widerNum(l.typ, r.typ)
	if isNullConst(l) || isNullConst(r) {
		return nullOf(res), nil
	}
	return value{sql: "(" + l.sql + " " + op + " " + r.sql + ")", typ: res, name: "?column?"}, nil
}
