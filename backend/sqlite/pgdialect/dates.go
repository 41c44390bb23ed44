package pgdialect

import (
	"fmt"
	"strings"

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

// datetimeSides brings a comparison of date, timestamp and timestamptz to
// one type, as PostgreSQL's cross-type operators do: the lower of date <
// timestamp < timestamptz is cast up (the session zone is UTC), and the
// canonical texts compare in time order.
func (t *translator) datetimeSides(l, r value) (value, value, error) {
	lr, rr := datetimeRank[l.typ.Name], datetimeRank[r.typ.Name]
	if lr == 0 || rr == 0 || lr == rr {
		return l, r, nil
	}
	var err error
	if lr < rr {
		l, err = t.coerceValue(l, Type{Name: r.typ.Name, Typmod: -1}, ctxImplicit)
	} else {
		r, err = t.coerceValue(r, Type{Name: l.typ.Name, Typmod: -1}, ctxImplicit)
	}
	return l, r, err
}

// dateTrunc is date_trunc(unit, timestamp|timestamptz|date) with a
// constant unit: a date is cast to timestamptz first, as PostgreSQL
// resolves it (pg_date_trunc). date_trunc on timestamp is immutable,
// folded on a constant (an unknown unit is 22023 while planning);
// on timestamptz it is stable, left to run time with its errors, as
// PostgreSQL's planner leaves it (volatility.go).
func dateTrunc(t *translator, args []value) (value, error) {
	if len(args) != 2 || args[0].lit == nil {
		return value{}, refuse("date_trunc without a constant unit, or with a time zone")
	}
	unit := strings.ToLower(*args[0].lit)
	v := args[1]
	if v.untyped() || v.typ.Name == "date" {
		var err error
		if v, err = t.coerceValue(v, Type{Name: "timestamptz", Typmod: -1}, ctxImplicit); err != nil {
			return value{}, err
		}
	}
	if v.typ.Name != "timestamp" && v.typ.Name != "timestamptz" {
		return value{}, pgError("42883", "function date_trunc(unknown, %s) does not exist", label(v.typ))
	}
	typ := Type{Name: v.typ.Name, Typmod: -1}
	if constish(v) && typ.Name == "timestamptz" && !isNullConst(v) {
		t.stableLeft++ // stable: left to run time, as PostgreSQL leaves it
	}
	if v.isConst && t.noFold == 0 && (v.konst == nil || typ.Name == "timestamp") {
		if v.konst == nil {
			return constOf(nil, typ, "date_trunc"), nil
		}
		out, err := pgconv.DateTrunc(unit, v.konst.(string), typ.Name)
		return t.planTime(constOf(out, typ, "date_trunc"), convError(err), typ)
	}
	return value{sql: fmt.Sprintf("pg_date_trunc(%s, %s, '%s')", quoteString(unit), v.sql, typ.Name), typ: typ}, nil
}
