package pgdialect

import (
	"math/big"
	"strconv"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// typeCast translates CAST(x AS t) and x::t.
func (t *translator) typeCast(c *pg_query.TypeCast) (val, error) {
	to, err := typeOf(c.GetTypeName())
	if err != nil {
		return val{}, err
	}
	v, err := t.exprAny(c.GetArg())
	if err != nil {
		return val{}, err
	}
	if err := settled(v, to); err != nil {
		return val{}, err
	}
	if v.untyped() {
		if v.str != nil && to.Name == "varchar" && to.Typmod >= 4 {
			// an explicit cast truncates to the length (PostgreSQL's
			// varchar(varchar, int4, isExplicit)); storing fails instead
			s := truncateRunes(*v.str, int(to.Typmod-4))
			v.str = &s
		}
		return t.coerce(v, to)
	}
	return t.castTo(v, to)
}

// truncateRunes is s's first n characters.
func truncateRunes(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

// castTo converts a typed value (PostgreSQL's explicit cast).
func (t *translator) castTo(v val, to Type) (val, error) {
	from := v.typ
	if from != to {
		t.canFail() // out of range, bad input
	}
	if isNullConst(v) {
		// The cast must exist (analysis, before folding): check it on
		// a stand-in of v's type.
		t.noFold++
		_, err := t.castTo(typed("NULL", from), to)
		t.noFold--
		if isText(from) {
			err = nil // text casts to every type (its I/O functions)
		}
		return nullOf(to), err
	}
	if v.ival != nil && intRank(to) > 0 && t.noFold == 0 {
		lo, hi := intRange(to.Name)
		if *v.ival < lo || *v.ival > hi {
			return t.planError(pgError("22003", "%s out of range", to.Name), to), nil
		}
		return intConst(*v.ival, to), nil
	}
	switch {
	case from == to || (from.Name == to.Name && to.Typmod < 0 && to.Name != "numeric"):
		return typed(v.sql, to), nil
	case intRank(from) > 0 && intRank(to) > 0:
		out := typed(v.sql, to)
		if intRank(to) < intRank(from) {
			return t.checkRange(out)
		}
		return out, nil
	case (intRank(from) > 0 || from.Name == "numeric") && to.Name == "numeric":
		if p, s, ok := numericPS(to); ok && v.ival != nil && t.noFold == 0 && len(strconv.FormatUint(absU(*v.ival), 10)) > int(p-s) && *v.ival != 0 {
			// Folded at planning, as PostgreSQL does.
			return t.planError(pgError("22003", "numeric field overflow"), to), nil
		}
		return t.foldNumericCast(v, castNumeric(v, to)), nil
	case from.Name == "numeric" && intRank(to) > 0:
		if x := ratOf(v); x != nil && t.noFold == 0 {
			return t.foldIntCast(roundRat(x, 0), to), nil
		}
		out := typed("CAST(ROUND("+v.sql+") AS SIGNED)", to)
		return t.checkRange(out)
	case (intRank(from) > 0 || from.Name == "numeric") && to.Name == "float8":
		return typed("CAST("+v.sql+" AS DOUBLE)", tFloat8), nil
	case to.Name == "text" || (to.Name == "varchar" && to.Typmod < 0):
		s, err := t.asText(v)
		if err != nil {
			return val{}, err
		}
		s.typ = to
		return s, nil
	case from.Name == "bool" && to.Name == "int4":
		return typed("CAST("+v.sql+" AS SIGNED)", to), nil
	case from.Name == "int4" && to.Name == "bool":
		return typed("("+v.sql+" <> 0)", tBool), nil
	}
	return val{}, refuse("casts from %s to %s", typeString(from), typeString(to))
}

// absU is |n| (-2^63 included).
func absU(n int64) uint64 {
	if n < 0 {
		return uint64(-(n + 1)) + 1
	}
	return uint64(n)
}

// castNumeric casts an integer or numeric to numeric[(p, s)].
func castNumeric(v val, to Type) val {
	if _, s, ok := numericPS(to); ok {
		out := typed("CAST("+v.sql+" AS "+castSQL(to)+")", to)
		out.scale = int(s)
		return out
	}
	if v.typ.Name == "numeric" {
		out := v
		out.typ, out.pendingDiv = to, false
		return out
	}
	out := typed("CAST("+v.sql+" AS DECIMAL(20,0))", to)
	out.scale = 0
	return out
}

// funcName is a function call's name (pg_catalog.x is x; another schema
// is refused).
func funcName(f *pg_query.FuncCall) (string, error) {
	names := f.GetFuncname()
	name := strNode(names[len(names)-1])
	if len(names) == 2 && strNode(names[0]) != "pg_catalog" {
		return "", refuse("the function %s.%s", strNode(names[0]), name)
	}
	return name, nil
}

// funcCall translates the supported functions and aggregates.
func (t *translator) funcCall(f *pg_query.FuncCall) (val, error) {
	name, err := funcName(f)
	if err != nil {
		return val{}, err
	}
	orderedAgg := len(f.GetAggOrder()) > 0 && (name == "count" || name == "sum" || name == "min" || name == "max")
	if f.GetOver() != nil || f.GetAggFilter() != nil || (len(f.GetAggOrder()) > 0 && !orderedAgg) || f.GetAggWithinGroup() || f.GetFuncVariadic() {
		return val{}, refuse("window functions, FILTER, ordered and variadic calls")
	}
	switch name {
	case "count", "sum", "min", "max":
		return t.aggregate(name, f)
	}
	if f.GetAggDistinct() || f.GetAggStar() {
		return val{}, pgError("42809", "DISTINCT or * specified, but %s is not an aggregate function", name)
	}
	var args []val
	for _, a := range f.GetArgs() {
		v, err := t.expr(a)
		if err != nil {
			return val{}, err
		}
		args = append(args, v)
	}
	return t.scalarFunc(name, f, args)
}

// scalarFunc translates the supported functions, all strict: a NULL
// constant argument makes the call NULL (PostgreSQL folds it).
func (t *translator) scalarFunc(name string, f *pg_query.FuncCall, args []val) (val, error) {
	t.canFail() // abs's overflow, substr's negative count, repeat's size
	v, err := t.scalarCall(name, f, args)
	if err == nil && anyNull(args...) {
		return nullOf(v.typ), nil
	}
	return v, err
}

// scalarCall translates left, length, abs and the others.
func (t *translator) scalarCall(name string, f *pg_query.FuncCall, args []val) (val, error) {
	var err error
	switch {
	case name == "left" && len(args) == 2:
		n := f.GetArgs()[1].GetAConst().GetIval()
		if n == nil || n.GetIval() < 0 {
			return val{}, refuse("left() with a count other than a non-negative integer constant")
		}
		if args[0], err = t.coerce(args[0], tText); err != nil || !isText(args[0].typ) {
			return val{}, refuse("left() of a value other than text")
		}
		out := typed("LEFT("+args[0].sql+", "+strconv.Itoa(int(n.GetIval()))+")", tText)
		out.maxLen = max(int(n.GetIval()), 1)
		if args[0].maxLen > 0 {
			out.maxLen = min(out.maxLen, args[0].maxLen)
		}
		return out, nil
	case (name == "length" || name == "char_length") && len(args) == 1:
		if args[0], err = t.coerce(args[0], tText); err != nil || !isText(args[0].typ) {
			return val{}, refuse("%s() of a value other than text", name)
		}
		return typed("CHAR_LENGTH("+args[0].sql+")", tInt4), nil
	case name == "repeat" && len(args) == 2:
		return t.repeat(f, args)
	case name == "substr" && (len(args) == 2 || len(args) == 3):
		return t.substr(args)
	case (name == "upper" || name == "lower") && len(args) == 1:
		if args[0], err = t.coerce(args[0], tText); err != nil || !isText(args[0].typ) {
			return val{}, refuse("%s() of a value other than text", name)
		}
		out := typed(asciiCase(args[0].sql, name == "upper"), tText)
		out.maxLen = args[0].maxLen
		return out, nil
	case name == "rtrim" && len(args) == 1:
		if args[0], err = t.coerce(args[0], tText); err != nil || !isText(args[0].typ) {
			return val{}, refuse("rtrim() of a value other than text")
		}
		out := typed("RTRIM("+args[0].sql+")", tText)
		out.maxLen = args[0].maxLen
		return out, nil
	case name == "abs" && len(args) == 1 && !args[0].untyped() && isNumber(args[0].typ):
		if c := args[0].ival; c != nil {
			// Folded at planning, as PostgreSQL does.
			v, _, err := t.foldInt("-", intConst(0, args[0].typ), args[0], args[0].typ)
			if *c >= 0 || err != nil || v.ival == nil {
				return intConst(*c, args[0].typ), err
			}
			return v, nil
		}
		out := args[0]
		out.sql, out.ival, out.notNull = "ABS("+out.sql+")", nil, false
		if out.typ.Name == "numeric" {
			out.typ = tNumeric // a function's result has no typmod
		}
		if out.nval != nil {
			out.nval = new(big.Rat).Abs(out.nval)
		}
		return t.checkRange(out)
	}
	return val{}, refuse("the function %s with %d arguments", name, len(args))
}

// asciiCase is upper/lower under PostgreSQL's C collation: ASCII letters
// only (MariaDB's UPPER would map every letter), by a REPLACE per letter
// (case-sensitive under the binary collation).
func asciiCase(sql string, upper bool) string {
	for c := 'a'; c <= 'z'; c++ {
		from, to := string(c), strings.ToUpper(string(c))
		if !upper {
			from, to = to, from
		}
		sql = "REPLACE(" + sql + ", '" + from + "', '" + to + "')"
	}
	return sql
}

// repeat translates repeat(text, int4) (a count below 1 is ” on both).
func (t *translator) repeat(f *pg_query.FuncCall, args []val) (val, error) {
	s, err := t.coerce(args[0], tText)
	if err != nil || !isText(s.typ) {
		return val{}, refuse("repeat() of a value other than text")
	}
	n, err := t.coerce(args[1], tInt4)
	if err != nil || (n.typ.Name != "int4" && n.typ.Name != "int2") {
		return val{}, refuse("repeat() with a count other than int4")
	}
	out := typed("REPEAT("+s.sql+", "+n.sql+")", tText)
	if c := f.GetArgs()[1].GetAConst().GetIval(); c != nil && s.maxLen > 0 {
		out.maxLen = max(s.maxLen*int(c.GetIval()), 1)
	}
	return out, nil
}

// substr translates substr(text, from [, count]) with PostgreSQL's
// positions before 1 (they count towards the length) and its error on
// a negative count (class 22, by an overflowing BIGINT addition).
func (t *translator) substr(args []val) (val, error) {
	s, err := t.coerce(args[0], tText)
	if err != nil || !isText(s.typ) {
		return val{}, refuse("substr() of a value other than text")
	}
	var ns []string
	for _, a := range args[1:] {
		a, err := t.coerce(a, tInt4)
		if err != nil {
			return val{}, err
		}
		if a.typ.Name != "int4" && a.typ.Name != "int2" {
			return val{}, pgError("42883", "function substr(text, %s) does not exist", a.typ.Name)
		}
		ns = append(ns, a.sql)
	}
	if len(args) == 3 && args[2].ival != nil && *args[2].ival < 0 {
		if args[0].str != nil && args[1].ival != nil && t.noFold == 0 {
			// PostgreSQL's planner folds substr over constants: a
			// negative length fails 22011 even where no row is read
			return t.planError(pgError("22011", "negative substring length not allowed"), tText), nil
		}
		// MariaDB would fold the translation's overflow below at once,
		// failing where PostgreSQL reads no row
		return val{}, refuse("substr with a negative constant length over a value that is not a constant")
	}
	from := "GREATEST(" + ns[0] + ", 1)"
	out := typed("SUBSTRING("+s.sql+", "+from+")", tText)
	if len(ns) == 2 {
		n := "(CASE WHEN " + ns[1] + " < 0 THEN 9223372036854775807 + ABS(" + ns[1] + ") ELSE " + ns[1] + " END)"
		out.sql = "SUBSTRING(" + s.sql + ", " + from + ", GREATEST(" + ns[0] + " + " + n + ", 1) - " + from + ")"
	}
	out.maxLen = s.maxLen
	return out, nil
}

// aggregate translates count, sum, min and max with PostgreSQL's result
// types (sum(int2/int4) is int8, sum(int8) numeric).
func (t *translator) aggregate(name string, f *pg_query.FuncCall) (val, error) {
	if name == "count" && f.GetAggStar() {
		t.sawAgg = true
		return typed("COUNT(*)", tInt8), nil
	}
	if len(f.GetArgs()) != 1 || t.aggDepth > 0 {
		return val{}, refuse("%s with these arguments", name)
	}
	t.aggDepth++
	v, err := t.expr(f.GetArgs()[0])
	if err == nil {
		err = t.aggOrder(f)
	}
	t.aggDepth--
	if err != nil {
		return val{}, err
	}
	t.sawAgg = true
	if v, err = t.coerce(v, tText); err != nil {
		return val{}, err
	}
	distinct := ""
	if f.GetAggDistinct() {
		distinct = "DISTINCT "
	}
	call := strings.ToUpper(name) + "(" + distinct + v.sql + ")"
	switch {
	case name == "count":
		return typed(call, tInt8), nil
	case name == "sum" && (v.typ.Name == "int2" || v.typ.Name == "int4"):
		return typed(call, tInt8), nil
	case name == "sum" && (v.typ.Name == "int8" || v.typ.Name == "numeric"):
		out := typed(call, tNumeric)
		out.scale = lscale(v)
		return out, nil
	case name == "sum":
		return val{}, refuse("sum of %s", v.typ.Name)
	case v.typ.Name == "bool" || v.typ.Name == "bytea":
		return val{}, pgError("42883", "function %s(%s) does not exist", name, v.typ.Name)
	}
	typ := v.typ
	if isText(typ) {
		typ = tText // min(varchar) is min(text)
	}
	if typ.Name == "numeric" {
		typ = tNumeric // an aggregate's result has no typmod
	}
	out := typed(call, typ)
	out.scale, out.maxLen = v.scale, v.maxLen
	return out, nil
}

// aggOrder checks the ORDER BY inside an aggregate call (pggate's
// rewrite adds one to sum: sum(x ORDER BY x)). Every aggregate the
// dialect supports (count, sum of integers and numeric, min, max) is
// insensitive to its input order, so the ORDER BY changes nothing and is
// dropped; its expressions are still translated, so that one PostgreSQL
// rejects (an unknown column) fails here too.
func (t *translator) aggOrder(f *pg_query.FuncCall) error {
	for _, it := range f.GetAggOrder() {
		sb := it.GetSortBy()
		if sb == nil || sb.GetSortbyDir() == pg_query.SortByDir_SORTBY_USING {
			return refuse("this ORDER BY inside an aggregate")
		}
		if _, err := t.expr(sb.GetNode()); err != nil {
			return err
		}
	}
	return nil
}

// subLink translates a scalar subquery, EXISTS and IN (subquery).
func (t *translator) subLink(s *pg_query.SubLink) (val, error) {
	sel := s.GetSubselect().GetSelectStmt()
	if sel == nil {
		return val{}, refuse("this subquery")
	}
	saved := t.grouped
	t.grouped = nil
	sql, cols, err := t.selectSQL(sel, nil)
	t.grouped = saved
	if err != nil {
		return val{}, err
	}
	switch s.GetSubLinkType() {
	case pg_query.SubLinkType_EXISTS_SUBLINK:
		return typed("EXISTS ("+sql+")", tBool), nil
	case pg_query.SubLinkType_EXPR_SUBLINK:
		if len(cols) != 1 {
			return val{}, pgError("42601", "subquery must return only one column")
		}
		out := typed("("+sql+")", cols[0].Type)
		out.scale = t.lastScale
		return out, nil
	case pg_query.SubLinkType_ANY_SUBLINK:
		if len(s.GetOperName()) > 0 && strNode(s.GetOperName()[0]) != "=" {
			return val{}, refuse("ANY with an operator other than =")
		}
		l, err := t.expr(s.GetTestexpr())
		if err != nil {
			return val{}, err
		}
		if len(cols) != 1 || l.untyped() || !comparable(l.typ, cols[0].Type) {
			return val{}, refuse("IN (subquery) with these types")
		}
		return typed("("+l.sql+" IN ("+sql+"))", tBool), nil
	}
	return val{}, refuse("this kind of subquery (%s)", s.GetSubLinkType().String())
}
