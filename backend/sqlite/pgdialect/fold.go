package pgdialect

import (
	"bytes"
	"cmp"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/relchain/relchain/backend/sqlite/pgdialect/internal/pgconv"
)

// Constant folding beyond arithmetic and casts (operators.go, coerce.go):
// PostgreSQL's eval_const_expressions also simplifies AND/OR with a
// constant, comparisons of constants, CASE with constant conditions and
// COALESCE with a leading constant, so that what remains (and whether a
// failing constant subexpression is ever evaluated) is PostgreSQL's.

// boolConst reads a translated condition's constant: 0, 1 or NULL.
func boolConst(sql string) (val int64, null, ok bool) {
	switch sql {
	case "0":
		return 0, false, true
	case "1":
		return 1, false, true
	case "NULL":
		return 0, true, true
	}
	return 0, false, false
}

// foldBool simplifies AND/OR over translated conditions as PostgreSQL
// does: a false operand makes AND false (a true one, OR true), the
// others (true in AND, false in OR) are dropped.
func foldBool(and bool, parts []string) (value, bool) {
	v, _ := foldBoolKept(and, parts)
	return v, true
}

// foldBoolKept is foldBool, and the operands it kept when two or more
// remain (nil when constants decided it or one operand is left).
func foldBoolKept(and bool, parts []string) (value, []string) {
	absorbing, neutral := int64(0), int64(1)
	if !and {
		absorbing, neutral = 1, 0
	}
	var kept []string
	for _, p := range parts {
		v, null, ok := boolConst(p)
		switch {
		case ok && !null && v == absorbing:
			return constOf(absorbing, tBool, "?column?"), nil
		case ok && !null && v == neutral:
		default:
			kept = append(kept, p)
		}
	}
	switch {
	case len(kept) == 0:
		return constOf(neutral, tBool, "?column?"), nil
	case len(kept) == 1:
		if _, null, ok := boolConst(kept[0]); ok && null {
			return constOf(nil, tBool, "?column?"), nil
		}
		return value{sql: kept[0], typ: tBool, name: "?column?"}, nil
	}
	op := " AND "
	if !and {
		op = " OR "
	}
	return value{sql: "(" + join(kept, op) + ")", typ: tBool, name: "?column?"}, kept
}

// foldBoolValue is foldBool for an AND or OR whose value is used, not a
// WHERE, ON or HAVING condition (which SQLite evaluates as jumps, from
// the left, stopping at the deciding operand). PostgreSQL computes an
// AND's operands in order up to the first false one (an OR's up to the
// first true one); SQLite computes both operands of an AND or OR value,
// so an operand after the deciding one that fails (z >= 1 AND 5 / z > 1
// where z is 0) failed on SQLite alone. The AND of k1 … kn becomes
// CASE WHEN k1 = 0 THEN 0 … WHEN kn-1 = 0 THEN 0 ELSE (k1 AND … AND kn)
// END (an OR's: = 1, 1, OR): SQLite tries the WHENs in order, so each
// operand is computed only where PostgreSQL computes it, and where none
// decided, k1 … kn-1 are true or NULL and the AND is PostgreSQL's value.
// k1 … kn-1 are computed twice there; a failure in one fails at its
// first computation, as in PostgreSQL. The form is flat: a chain of n
// operands is as deep as the AND itself (SQLite allows 1,000).
func foldBoolValue(and bool, parts []string) (value, error) {
	v, kept := foldBoolKept(and, parts)
	if kept == nil {
		return v, nil
	}
	absorbing := "0"
	if !and {
		absorbing = "1"
	}
	var b strings.Builder
	b.WriteString("(CASE")
	for _, k := range kept[:len(kept)-1] {
		if err := checkRepeated(k, "an AND or OR operand"); err != nil {
			return value{}, err
		}
		b.WriteString(" WHEN " + k + " = " + absorbing + " THEN " + absorbing)
	}
	b.WriteString(" ELSE " + v.sql + " END)")
	return value{sql: b.String(), typ: tBool, name: "?column?"}, nil
}

// maxRepeated bounds the translated text of an operand the translation
// writes twice (an AND/OR value's operand, BETWEEN's x): nested, each
// level doubles it, and a statement of a few hundred bytes would become
// gigabytes (BETWEEN nested 15 deep: 746 MB and 43 s of CheckTx).
const maxRepeated = 16 << 10

// checkRepeated refuses an operand whose translation is too large to
// write twice (maxRepeated).
func checkRepeated(sql, what string) error {
	if len(sql) > maxRepeated {
		return refuse("%s whose translation exceeds %d bytes where it is written twice (nested BETWEEN, AND or OR values): simplify the expression", what, maxRepeated)
	}
	return nil
}

// foldCompare compares two constants of comparable types.
func foldCompare(op string, l, r value) (value, bool) {
	if !l.isConst || !r.isConst {
		return value{}, false
	}
	if l.konst == nil || r.konst == nil {
		return constOf(nil, tBool, "?column?"), true
	}
	if l.typ.Name == "jsonb" && r.typ.Name == "jsonb" {
		return foldJSONBCompare(op, l, r)
	}
	lk, rk := l.konst, r.konst
	if l.typ.Name == "numeric" || l.typ.Name == "bpchar" {
		// RTRIM: char(n)'s padding and numeric's display scale
		// (pgconv.EncodeNumeric) are trailing spaces that do not count.
		lk, rk = trimKonst(lk), trimKonst(rk)
	}
	c, ok := compareConsts(lk, rk)
	if !ok {
		return value{}, false
	}
	res := map[string]bool{"=": c == 0, "<>": c != 0, "<": c < 0, ">": c > 0, "<=": c <= 0, ">=": c >= 0}[op]
	return constOf(map[bool]int64{false: 0, true: 1}[res], tBool, "?column?"), true
}

func compareConsts(a, b any) (int, bool) {
	switch x := a.(type) {
	case int64:
		if y, ok := b.(int64); ok {
			return cmp.Compare(x, y), true
		}
		if y, ok := b.(float64); ok {
			return cmp.Compare(float64(x), y), true
		}
	case float64:
		if y, ok := b.(float64); ok {
			return cmp.Compare(x, y), true
		}
		if y, ok := b.(int64); ok {
			return cmp.Compare(x, float64(y)), true
		}
	case string:
		if y, ok := b.(string); ok {
			return cmp.Compare(x, y), true
		}
	case []byte:
		if y, ok := b.([]byte); ok {
			return bytes.Compare(x, y), true
		}
	}
	return 0, false
}

// foldAbs is abs of a constant integer or float.
func foldAbs(a value) (value, error) {
	if a.konst == nil {
		return constOf(nil, a.typ, "abs"), nil
	}
	if f, ok := a.konst.(float64); ok { // fabs, as PostgreSQL: abs(-0) is +0
		return constOf(math.Abs(f), a.typ, "abs"), nil
	}
	r, err := pgconv.IntAbs(a.konst.(int64), a.typ.Name)
	if err != nil {
		return value{}, convError(err)
	}
	return constOf(r, a.typ, "abs"), nil
}

// foldNullif folds NULLIF(NULL, x) to NULL (x unevaluated, as
// PostgreSQL's planner leaves it) and NULLIF of two constants.
func foldNullif(l, r value, fold bool) (value, bool) {
	switch {
	case isNullConst(l):
		return value{sql: "NULL", typ: l.typ, name: "nullif", isConst: true}, true
	case !fold || !l.isConst || !r.isConst:
		return value{}, false
	case r.konst == nil:
		l.name, l.weak = "nullif", false
		return l, true
	}
	if c, ok := compareConsts(l.konst, r.konst); ok {
		if c == 0 {
			return value{sql: "NULL", typ: l.typ, name: "nullif", isConst: true}, true
		}
		l.name, l.weak = "nullif", false
		return l, true
	}
	return value{}, false
}

// foldText computes length, lower and upper of a constant text.
func foldText(fn string, a value) (value, bool) {
	s, ok := a.konst.(string)
	if !a.isConst || !ok && a.konst != nil {
		return value{}, false
	}
	if a.konst == nil {
		typ := tText
		if fn == "length" {
			typ = tInt4
		}
		return constOf(nil, typ, fn), true
	}
	switch fn {
	case "length":
		return constOf(int64(utf8.RuneCountInString(s)), tInt4, fn), true
	case "lower":
		return constOf(strings.Map(asciiLower, s), tText, fn), true
	}
	return constOf(strings.Map(asciiUpper, s), tText, fn), true
}

func asciiLower(r rune) rune {
	if r >= 'A' && r <= 'Z' {
		return r + 32
	}
	return r
}

func asciiUpper(r rune) rune {
	if r >= 'a' && r <= 'z' {
		return r - 32
	}
	return r
}

// allConst reports that every argument is a constant (literals included).
func allConst(args []value) bool {
	for _, a := range args {
		if !a.isConst && a.lit == nil && !a.null {
			return false
		}
	}
	return true
}

// planTime defers an error PostgreSQL raises while planning, folding a
// constant: its parse analysis of the whole statement comes first, so the
// translation goes on with a NULL in the constant's place, and Translate
// returns the first such error once the rest is accepted. A refusal
// (0A000) is not deferred.
func (t *translator) planTime(v value, err error, typ Type) (value, error) {
	if err == nil || errIs(err, "0A000") {
		return v, err
	}
	if t.deferred == nil {
		t.deferred = err
	}
	return constOf(nil, typ, "?column?"), nil
}

func trimKonst(v any) any {
	if s, ok := v.(string); ok {
		return strings.TrimRight(s, " ")
	}
	return v
}
