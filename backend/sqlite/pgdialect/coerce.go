package pgdialect

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/relchain/relchain/backend/sqlite/pgdialect/internal/pgconv"
)

const (
	ctxImplicit   = pgconv.Implicit
	ctxAssignment = pgconv.Assignment
	ctxExplicit   = pgconv.Explicit
)

// label is PostgreSQL's name of a type in messages.
func label(t Type) string {
	if t.Name == "varchar" && t.Typmod >= 4 {
		return fmt.Sprintf("character varying(%d)", t.Typmod-4)
	}
	return pgconv.Label(t.Name)
}

// coerce converts v to type to in context ctx as PostgreSQL would:
// literals at translation time, placeholders by typing them, other
// expressions through pgruntime's pg_cast/pg_assign where the stored value
// changes.
func (t *translator) coerce(v value, to Type, ctx pgconv.Context) (string, error) {
	out, err := t.coerceValue(v, to, ctx)
	return out.sql, err
}

// coerceValue is coerce keeping a constant's value: a constant converts
// now, with the error PostgreSQL raises when it folds it at plan time.
func (t *translator) coerceValue(v value, to Type, ctx pgconv.Context) (value, error) {
	switch {
	case v.null:
		return constOf(nil, to, v.name), nil
	case isNullConst(v):
		// A typed NULL (a strict operator's result on a NULL constant,
		// a CASE of NULLs, text): PostgreSQL's planner folds a strict
		// cast of NULL to NULL, so what compares with it folds too
		// (random 7003/9674), once the cast is allowed (random 7201/3988:
		// CASE WHEN true THEN NULL END is text, 42804 into an integer).
		if err := castAllowed(v.typ, to, ctx); err != nil {
			return value{}, err
		}
		return constOf(nil, to, v.name), nil
	case v.lit != nil && to.Typmod != -1 && (to.Name == "numeric" || to.Name == "varchar" || to.Name == "bpchar"):
		return t.literalWithTypmod(*v.lit, to, ctx)
	case v.lit != nil:
		return t.fold(*v.lit, "unknown", to, ctx)
	case (v.isConst && v.konst != nil || v.pgConst) && t.noFold == 0 && stableCast(v.typ, to):
		// A stable cast (volatility.go) is left to run time, as
		// PostgreSQL's planner leaves it; a strict cast of NULL is NULL.
		t.stableLeft++
	case v.isConst && t.noFold == 0:
		if err := castAllowed(v.typ, to, ctx); err != nil {
			return value{}, err
		}
		out, err := t.fold(v.konst, v.typ.Name, to, ctx)
		return t.planTime(out, err, to)
	}
	sql, err := t.coerceExpr(v, to, ctx)
	if err == nil && v.pgConst && t.noFold == 0 && sql != v.sql && !stableCast(v.typ, to) {
		return value{}, refuseUnfolded("a conversion to " + label(to))
	}
	return value{sql: sql, typ: to, name: v.name}, err
}

// literalWithTypmod reads a literal as numeric(p,s), varchar(n) or
// char(n) as PostgreSQL does: its parse analysis runs the input function
// without the typmod (22P02 now) and applies the typmod as a length
// coercion its planner folds, so '1e3'::numeric(3,1)'s 22003 comes after
// the whole statement's parse analysis (a 42883 in the WHERE first), and
// where the planner does not fold (a dropped CASE arm) at run time.
func (t *translator) literalWithTypmod(lit string, to Type, ctx pgconv.Context) (value, error) {
	base, err := t.fold(lit, "unknown", Type{Name: to.Name, Typmod: -1}, ctx)
	if err != nil {
		return value{}, err
	}
	if t.noFold != 0 {
		sql, err := t.coerceExpr(base, to, ctx)
		return value{sql: sql, typ: to, name: base.name}, err
	}
	out, err := t.fold(base.konst, to.Name, to, ctx)
	return t.planTime(out, err, to)
}

// fold converts a constant now (a literal's input function, a constant's
// cast) as PostgreSQL's planner does.
func (t *translator) fold(konst any, from string, to Type, ctx pgconv.Context) (value, error) {
	out, err := pgconv.Convert(konst, from, to.Name, to.Typmod, ctx)
	if err != nil {
		return value{}, convError(err)
	}
	return constOf(out, to, "?column?"), nil
}

// coerceExpr converts a non-constant expression.
func (t *translator) coerceExpr(v value, to Type, ctx pgconv.Context) (string, error) {
	switch {
	case v.null:
		return "NULL", nil
	case v.param != 0:
		typ := to
		if ctx == ctxExplicit {
			// PostgreSQL types $1 in $1::varchar(3) varchar: the
			// value is bound whole, then the cast truncates it.
			typ.Typmod = -1
		}
		if err := t.param(v.param, typ); err != nil {
			return "", err
		}
		if ctx == ctxAssignment {
			return fmt.Sprintf("pg_assign(%s, '%s', '%s', %d)", v.sql, to.Name, to.Name, to.Typmod), nil
		}
		return runtimeCast(v.sql, typ, to, ctx), nil // the typmod applied by the cast
	}
	return t.coerceTyped(v, to, ctx)
}

// castAllowed checks that PostgreSQL casts from to to in context ctx.
func castAllowed(from, to Type, ctx pgconv.Context) error {
	need, ok := pgconv.CastContext(from.Name, to.Name)
	if !ok && (isArray(from) || isArray(to)) {
		return refuse("the cast from %s to %s", label(from), label(to))
	}
	if !ok && ctx == ctxExplicit {
		if from.Name == "jsonb" && (isNum(to) || to.Name == "bool") {
			return refuse("the cast from jsonb to %s", label(to))
		}
		if to.Name == "text" || to.Name == "varchar" || to.Name == "bpchar" {
			return refuse("the cast from %s to %s", label(from), label(to))
		}
		return pgError("42846", "cannot cast type %s to %s", label(from), label(to))
	}
	if !ok || need > ctx {
		if ctx == ctxAssignment {
			return pgError("42804", "expression is of type %s but the target is of type %s", label(from), label(to))
		}
		return pgError("42846", "cannot cast type %s to %s implicitly", label(from), label(to))
	}
	return nil
}

// coerceTyped converts a typed expression.
func (t *translator) coerceTyped(v value, to Type, ctx pgconv.Context) (string, error) {
	if err := castAllowed(v.typ, to, ctx); err != nil {
		return "", err
	}
	switch {
	case v.typ == to && (to.Name != "varchar" || ctx == ctxImplicit):
		return v.sql, nil
	case isInt(v.typ) && isInt(to) && intBits(v.typ) <= intBits(to):
		return v.sql, nil
	case isInt(v.typ) && to.Name == "float8":
		return "CAST(" + v.sql + " AS REAL)", nil
	case isText(v.typ) && to.Name == "text", isText(v.typ) && to.Name == "varchar" && to.Typmod < 0:
		return v.sql, nil
	case v.typ.Name == "numeric" && to.Name == "numeric" && to.Typmod < 0:
		return v.sql, nil
	case v.typ.Name == "bpchar" && to.Name == "bpchar" && to.Typmod < 0 && ctx != ctxAssignment:
		return v.sql, nil
	}
	return runtimeCast(v.sql, v.typ, to, ctx), nil
}

// runtimeCast is the call of pgruntime's conversion: pg_assign for an
// assignment, pg_cast otherwise (pg_cast truncates varchar, pg_assign
// errs).
func runtimeCast(sql string, from, to Type, ctx pgconv.Context) string {
	fn := "pg_cast"
	if ctx == ctxAssignment {
		fn = "pg_assign"
	}
	if from == to && to.Name != "varchar" {
		return sql
	}
	return fmt.Sprintf("%s(%s, '%s', '%s', %d)", fn, sql, from.Name, to.Name, to.Typmod)
}

// convError turns a pgconv error into the translation's.
func convError(err error) error {
	if ce, ok := err.(*pgconv.Error); ok {
		return &Error{Code: ce.Code, Message: ce.Message}
	}
	return err
}

// renderLiteral is the SQLite literal of a stored value.
func renderLiteral(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return renderFloat(x)
	case string:
		return quoteString(x)
	case []byte:
		return fmt.Sprintf("X'%X'", x)
	}
	panic(fmt.Sprintf("pgdialect: literal of type %T", v))
}

// renderFloat is an SQLite REAL literal that reads back as exactly f.
func renderFloat(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "9e999"
	case math.IsInf(f, -1):
		return "-9e999"
	}
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if !strings.ContainsAny(s, ".eEn") {
		s += ".0"
	}
	if strings.HasPrefix(s, "-") {
		return "(" + s + ")"
	}
	return s
}
