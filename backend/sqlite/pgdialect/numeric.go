package pgdialect

import (
	"fmt"
	"strconv"

	"github.com/relchain/relchain/backend/sqlite/pgdialect/internal/pgconv"
)

// numericArith is an operator on two numeric values: folded now when
// both are constants (PostgreSQL's planner does), else the runtime's
// pg_num_op with PostgreSQL's result scales.
func (t *translator) numericArith(op string, l, r value) (value, error) {
	if isNullConst(l) || isNullConst(r) {
		return nullOf(tNumeric), nil
	}
	if l.isConst && r.isConst && t.noFold == 0 {
		a, errA := pgconv.DecodeNumeric(l.konst.(string))
		b, errB := pgconv.DecodeNumeric(r.konst.(string))
		if errA != nil || errB != nil {
			return value{}, refuse("the numeric constants %s %s %s", l.sql, op, r.sql)
		}
		n, err := pgconv.NumericOp(op[0], a, b)
		if err != nil {
			return t.planTime(value{}, convError(err), tNumeric)
		}
		return constOf(pgconv.EncodeNumeric(n), tNumeric, "?column?"), nil
	}
	return value{sql: fmt.Sprintf("pg_num_op('%s', %s, %s)", op, l.sql, r.sql), typ: tNumeric, name: "?column?"}, nil
}

// numericFn is a function of a numeric value (neg, abs, round, trunc,
// ceil, floor) with an optional integer argument (places), folded now on
// constants, else the runtime's pg_num_fn.
func (t *translator) numericFn(name string, v value, places *value) (value, error) {
	n := "0"
	if places != nil {
		s, err := t.coerce(*places, tInt4, ctxImplicit)
		if err != nil || !(isInt(places.typ) && intBits(places.typ) <= 32 || places.untyped()) {
			return value{}, pgError("42883", "function %s(numeric, %s) does not exist", name, label(places.typ))
		}
		n = s
		if isNullConst(*places) || s == "NULL" {
			return nullOf(tNumeric), nil
		}
	}
	if isNullConst(v) {
		return nullOf(tNumeric), nil
	}
	if p, ok := constInt(n); v.isConst && ok && t.noFold == 0 {
		x, err := pgconv.DecodeNumeric(v.konst.(string))
		if err == nil {
			x, err = pgconv.NumericFn(name, x, p)
		}
		if err != nil {
			return t.planTime(value{}, convError(err), tNumeric)
		}
		return constOf(pgconv.EncodeNumeric(x), tNumeric, name), nil
	}
	return value{sql: fmt.Sprintf("pg_num_fn('%s', %s, %s)", name, v.sql, n), typ: tNumeric, name: name}, nil
}

// constInt reads an integer literal of translated SQL.
func constInt(sql string) (int64, bool) {
	i, err := strconv.ParseInt(sql, 10, 64)
	return i, err == nil
}

// numericArg converts a function's argument to numeric as PostgreSQL
// resolves round/trunc/ceil/floor/abs on integers (numeric variants).
func (t *translator) numericArg(fn string, a value) (value, error) {
	if a.typ.Name == "numeric" {
		return a, nil
	}
	if !isInt(a.typ) {
		return value{}, pgError("42883", "function %s(%s) does not exist", fn, label(a.typ))
	}
	return t.coerceValue(a, tNumeric, ctxImplicit)
}
