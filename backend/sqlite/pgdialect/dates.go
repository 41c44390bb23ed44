package pgdialect

import (
	"fmt"

	"github.com/relchain/relchain/backend/sqlite/pgdialect/internal/pgconv"
)

// dateArithmetic is PostgreSQL's date + integer, integer + date and
// date - integer (a date), and date - date (int4 days); ok false for any
// other operands. Constants fold; otherwise pg_date_add / pg_date_diff.
func (t *translator) dateArithmetic(op string, l, r value) (value, bool, error) {
	switch {
	case l.typ.Name == "date" && r.typ.Name == "date" && op == "-":
		if isNullConst(l) || isNullConst(r) {
			return nullOf(tInt4), true, nil
		}
		if l.isConst && r.isConst && t.noFold == 0 {
			d, err := pgconv.DateDiff(l.konst.(string), r.konst.(string))
			v, err := t.planTime(constOf(d, tInt4, "?column?"), convError(err), tInt4)
			return v, true, err
		}
		return value{sql: fmt.Sprintf("pg_date_diff(%s, %s)", l.sql, r.sql), typ: tInt4, name: "?column?"}, true, nil
	case isInt(l.typ) && r.typ.Name == "date" && op == "+":
		l, r = r, l
	case l.typ.Name != "date" || !isInt(r.typ) || (op != "+" && op != "-"):
		return value{}, false, nil
	}
	if intBits(r.typ) > 32 {
		return value{}, true, pgError("42883", "operator does not exist: date %s bigint", op)
	}
	date := Type{Name: "date", Typmod: -1}
	if isNullConst(l) || isNullConst(r) {
		return nullOf(date), true, nil
	}
	days := r.sql
	if op == "-" {
		days = fmt.Sprintf("pg_int_sub(0, %s, 64)", r.sql)
	}
	if l.isConst && r.isConst && t.noFold == 0 {
		n := r.konst.(int64)
		if op == "-" {
			n = -n
		}
		d, err := pgconv.DateAdd(l.konst.(string), n)
		if err != nil {
			v, err := t.planTime(value{}, convError(err), date)
			return v, true, err
		}
		return constOf(d, date, "?column?"), true, nil
	}
	return value{sql: fmt.Sprintf("pg_date_add(%s, %s)", l.sql, days), typ: date, name: "?column?"}, true, nil
}
