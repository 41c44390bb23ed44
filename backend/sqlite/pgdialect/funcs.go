package pgdialect

import (
	"math"
	"strings"
	"unicode/utf8"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// qualifiedName is a call's whole name, for a refusal.
func qualifiedName(f *pg_query.FuncCall) string {
	var parts []string
	for _, n := range f.GetFuncname() {
		parts = append(parts, strNode(n))
	}
	return strings.Join(parts, ".")
}

// funcName is a call's function name without the pg_catalog qualifier,
// "" when qualified otherwise.
func funcName(f *pg_query.FuncCall) string {
	names := f.GetFuncname()
	if len(names) == 2 && (strNode(names[0]) == "pg_catalog" || qualifiedName(f) == "relchain.clock_guard") {
		names = names[1:]
	}
	if len(names) != 1 {
		return ""
	}
	return strNode(names[0])
}

// funcCall translates the supported functions and aggregates.
func (t *translator) funcCall(f *pg_query.FuncCall, sc *scope) (value, error) {
	name := funcName(f)
	if f.GetOver() != nil {
		return t.windowCall(f, name, sc) // windows.go
	}
	if name == "" {
		return value{}, refuse("the function %s", qualifiedName(f))
	}
	if f.GetAggWithinGroup() || f.GetFuncVariadic() {
		return value{}, refuse("WITHIN GROUP or VARIADIC in the call of %s", name)
	}
	if _, agg := aggregates[name]; f.GetAggFilter() != nil && !agg && name != "string_agg" && name != "array_agg" {
		return value{}, pgError("42809", "FILTER specified, but %s is not an aggregate function", name)
	}
	if name == "string_agg" {
		return t.stringAgg(f, sc)
	}
	if name == "array_agg" {
		return t.arrayAgg(f, sc)
	}
	if agg, ok := aggregates[name]; ok {
		// Every supported aggregate is insensitive to its input order, so
		// an ORDER BY inside it (pggate adds one to sum) changes nothing.
		return t.aggregate(name, agg, f, sc)
	}
	if f.GetAggStar() || f.GetAggDistinct() || len(f.GetAggOrder()) > 0 {
		if _, scalar := scalars[name]; scalar {
			return value{}, pgError("42809", "%s is not an aggregate function", name)
		}
		return value{}, refuse("the aggregate %s", name)
	}
	if name == "pg_get_serial_sequence" {
		return t.serialSequenceValue(f)
	}
	if name == "clock_guard" && qualifiedName(f) == "relchain.clock_guard" && len(f.GetArgs()) == 1 {
		// pggate's guard of a run-time cast to a date/time type: the
		// dialect's date/time input never reads a clock (a clock word is
		// 22007, as the guard says), so the argument stands for itself.
		return t.expr(f.GetArgs()[0], sc)
	}
	if fn, ok := scalars[name]; ok {
		before := t.stableLeft
		args, err := t.args(f.GetArgs(), sc)
		if err != nil {
			return value{}, err
		}
		v, err := fn(t, args)
		if err == nil && strictScalars[name] && t.noFold == 0 && hasNullConst(args) {
			// PostgreSQL's planner folds a strict function with a NULL
			// constant argument to NULL (evaluate_function), so nothing
			// else in the call, or in a strict operator around it, runs:
			// mod(c, c) > octet_length(NULL) is NULL, never 22012.
			v = nullOf(v.typ)
		}
		v.name = name
		return t.markUnfolded(f, v, before), err
	}
	return value{}, refuse("the function %s", name)
}

// strictScalars are the scalar functions PostgreSQL declares strict
// (NULL for a NULL argument) among funcs.go's; concat, the array editing
// functions and the JSON builders are not.
var strictScalars = map[string]bool{
	"lower": true, "upper": true, "length": true, "char_length": true, "btrim": true, "ltrim": true,
	"rtrim": true, "replace": true, "substr": true, "substring": true, "abs": true, "octet_length": true,
	"date_trunc": true, "position": true, "mod": true, "ceil": true, "ceiling": true, "floor": true,
	"round": true, "trunc": true, "left": true, "right": true, "strpos": true,
}

// hasNullConst reports whether one of args is the NULL constant.
func hasNullConst(args []value) bool {
	for _, a := range args {
		if isNullConst(a) {
			return true
		}
	}
	return false
}

func (t *translator) args(nodes []*pg_query.Node, sc *scope) ([]value, error) {
	var out []value
	for _, n := range nodes {
		v, err := t.expr(n, sc) // t.expr marks what PostgreSQL folds (markUnfolded)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// aggregate describes a supported aggregate: the SQLite function and the
// result type for an argument type (ok false: PostgreSQL's result type is
// one the dialect does not support).
type aggregate struct {
	sqlite string
	result func(arg Type) (Type, bool)
}

var aggregates = map[string]aggregate{
	"count": {"count", func(Type) (Type, bool) { return tInt8, true }},
	"sum": {"sum", func(a Type) (Type, bool) {
		if a.Name == "int8" || a.Name == "numeric" {
			return tNumeric, true // pg_num_sum
		}
		return tInt8, a.Name == "int2" || a.Name == "int4"
	}},
	"avg": {"pg_num_avg", func(a Type) (Type, bool) {
		return tNumeric, isInt(a) || a.Name == "numeric"
	}},
	"min":      {"min", minMax},
	"max":      {"max", minMax},
	"bool_and": {"min", func(a Type) (Type, bool) { return tBool, a.Name == "bool" }},
	"bool_or":  {"max", func(a Type) (Type, bool) { return tBool, a.Name == "bool" }},
	"every":    {"min", func(a Type) (Type, bool) { return tBool, a.Name == "bool" }},
}

// minMax is min/max's result type: PostgreSQL has them for numbers,
// text (varchar resolves to text) and dates and times.
func minMax(a Type) (Type, bool) {
	switch {
	case isText(a):
		return tText, true
	case isNum(a), a.Name == "date", a.Name == "timestamp", a.Name == "timestamptz", a.Name == "bpchar":
		return Type{Name: a.Name, Typmod: -1}, true
	}
	return a, false
}

func (t *translator) aggregate(name string, agg aggregate, f *pg_query.FuncCall, sc *scope) (value, error) {
	if t.aggDepth > 0 {
		return value{}, pgError("42803", "aggregate function calls cannot be nested")
	}
	t.sawAgg = true
	filter, err := t.aggFilter(f, sc)
	if err != nil {
		return value{}, err
	}
	if f.GetAggStar() {
		if name != "count" {
			return value{}, refuse("%s(*)", name)
		}
		if filter != "" {
			return value{sql: "count(CASE WHEN " + filter + " THEN 1 END)", typ: tInt8, name: "count"}, nil
		}
		return value{sql: "count(*)", typ: tInt8, name: "count"}, nil
	}
	if len(f.GetArgs()) != 1 {
		return value{}, refuse("%s with %d arguments", name, len(f.GetArgs()))
	}
	t.aggDepth++
	arg, err := t.expr(f.GetArgs()[0], sc)
	t.aggDepth--
	if err != nil {
		return value{}, err
	}
	if arg.untyped() {
		if arg, err = t.retype(arg, tText); err != nil {
			return value{}, err
		}
	}
	res, ok := agg.result(arg.typ)
	if !ok && (arg.typ.Name == "bool" || arg.typ.Name == "bytea" || isJSON(arg.typ) || arg.typ.Name == "uuid") {
		return value{}, pgError("42883", "function %s(%s) does not exist", name, label(arg.typ))
	}
	if !ok {
		return value{}, refuse("%s(%s)", name, label(arg.typ))
	}
	distinct := ""
	if f.GetAggDistinct() {
		if err := noJSONBKey(arg.typ, "DISTINCT in aggregates"); err != nil {
			return value{}, err
		}
		distinct = "DISTINCT "
	}
	if filter != "" {
		// Every supported aggregate ignores NULL inputs: FILTER is the
		// argument where the filter holds, NULL elsewhere.
		arg.sql = "CASE WHEN " + filter + " THEN " + arg.sql + " END"
	}
	fn := agg.sqlite
	if name == "sum" && res.Name == "numeric" {
		fn = "pg_num_sum"
	}
	if fn == "min" || fn == "max" {
		return value{sql: minMaxSQL(fn, distinct, arg), typ: res, name: name}, nil
	}
	return value{sql: fn + "(" + distinct + arg.sql + ")", typ: res, name: name}, nil
}

// aggFilter translates an aggregate's FILTER (WHERE ...): a condition
// over the query's rows, without aggregates.
func (t *translator) aggFilter(f *pg_query.FuncCall, sc *scope) (string, error) {
	if f.GetAggFilter() == nil {
		return "", nil
	}
	t.aggDepth++
	defer func() { t.aggDepth-- }()
	return t.condition(f.GetAggFilter(), sc, "FILTER")
}

// scalars are the supported scalar functions.
var scalars = map[string]func(t *translator, args []value) (value, error){
	"lower":        textFunc("pg_lower", 1),
	"upper":        textFunc("pg_upper", 1),
	"length":       lengthFunc,
	"char_length":  lengthFunc,
	"btrim":        trimFunc("trim"),
	"ltrim":        trimFunc("ltrim"),
	"rtrim":        trimFunc("rtrim"),
	"replace":      textFunc("replace", 3),
	"substr":       substrFunc,
	"substring":    substrFunc,
	"concat":       concatFunc,
	"abs":          absFunc,
	"octet_length": octetLength,
	"date_trunc":   dateTrunc,
	"position":     strpos,
	"mod":          modFunc,
	"ceil":         floatFunc("ceil"),
	"ceiling":      floatFunc("ceil"),
	"floor":        floatFunc("floor"),
	"round":        floatFunc("round"),
	"trunc":        floatFunc("trunc"),
	"left":         leftRight("left"),
	"right":        leftRight("right"),
	"strpos":       strpos,
}

// textArgs coerces every argument to text (42883 for other types).
func (t *translator) textArgs(fn string, args []value) ([]string, error) {
	var out []string
	for _, a := range args {
		if a.untyped() || a.typ.Name == "bpchar" {
			// char(n) converts to text without its trailing blanks.
			var err error
			if a, err = t.coerceValue(a, tText, ctxImplicit); err != nil {
				return nil, err
			}
		}
		if !isText(a.typ) {
			return nil, pgError("42883", "function %s(%s) does not exist", fn, label(a.typ))
		}
		out = append(out, a.sql)
	}
	return out, nil
}

func textFunc(sqlite string, n int) func(t *translator, args []value) (value, error) {
	return func(t *translator, args []value) (value, error) {
		if len(args) != n {
			return value{}, refuse("%s with %d arguments", sqlite, len(args))
		}
		s, err := t.textArgs(sqlite, args)
		if err != nil {
			return value{}, err
		}
		if fn := map[string]string{"pg_lower": "lower", "pg_upper": "upper"}[sqlite]; fn != "" && t.noFold == 0 {
			if a, err := t.retype(args[0], tText); err == nil {
				if v, ok := foldText(fn, a); ok {
					return v, nil
				}
			}
		}
		if v, ok := t.foldReplace(sqlite, args); ok {
			return v, nil
		}
		return value{sql: sqlite + "(" + join(s, ", ") + ")", typ: tText}, nil
	}
}

// foldReplace is replace of constants, which PostgreSQL's planner folds
// (CAST(replace('é', 'b', 'aB') AS int4) in an UPDATE … WHERE NULL is
// 22P02 while planning). An empty search string leaves the string as it
// is (replace_text), where strings.ReplaceAll would insert between runes.
func (t *translator) foldReplace(fn string, args []value) (value, bool) {
	if fn != "replace" {
		return value{}, false
	}
	var s [3]string
	for i, a := range args {
		c, ok := t.constText(a)
		if !ok {
			return value{}, false
		}
		s[i] = c
	}
	if s[1] == "" {
		return constOf(s[0], tText, "replace"), true
	}
	return constOf(strings.ReplaceAll(s[0], s[1], s[2]), tText, "replace"), true
}

// foldLeftRight is left(s, n) or right(s, n) of constants, folded as
// PostgreSQL's planner folds them (text_left, text_right: characters,
// a negative n counting from the other end).
func (t *translator) foldLeftRight(name string, args []value) (value, bool) {
	str, ok := t.constText(args[0])
	count, err := t.coerceValue(args[1], tInt4, ctxImplicit) // right('ab', '1') too
	n, isInt := count.konst.(int64)
	if !ok || err != nil || !count.isConst || !isInt || n > math.MaxInt32 || n < math.MinInt32 {
		return value{}, false
	}
	runes := []rune(str)
	size := int64(len(runes))
	if name == "left" {
		if n < 0 {
			n += size
		}
		return constOf(string(runes[:min(max(n, 0), size)]), tText, name), true
	}
	skip := size - n
	if n < 0 {
		skip = -n
	}
	return constOf(string(runes[min(max(skip, 0), size):]), tText, name), true
}

func trimFunc(sqlite string) func(t *translator, args []value) (value, error) {
	return func(t *translator, args []value) (value, error) {
		if len(args) < 1 || len(args) > 2 {
			return value{}, refuse("%s with %d arguments", sqlite, len(args))
		}
		s, err := t.textArgs(sqlite, args)
		if err != nil {
			return value{}, err
		}
		if v, ok := foldTrim(sqlite, args, t.noFold == 0); ok {
			return v, nil
		}
		return value{sql: sqlite + "(" + join(s, ", ") + ")", typ: tText}, nil
	}
}

// foldTrim folds btrim/ltrim/rtrim of constants (immutable, strict), as
// PostgreSQL's planner does: UPDATE … SET short = btrim('-2147483648')
// WHERE false fails there while planning (the random differential run,
// seed 42).
func foldTrim(fn string, args []value, fold bool) (value, bool) {
	name := map[string]string{"trim": "btrim"}[fn]
	if name == "" {
		name = fn
	}
	var s []string
	for _, a := range args {
		if isNullConst(a) {
			return constOf(nil, tText, name), true
		}
		c, ok := constText(a)
		if !ok || !fold {
			return value{}, false
		}
		s = append(s, c)
	}
	cut := " "
	if len(s) == 2 {
		cut = s[1]
	}
	switch fn {
	case "ltrim":
		return constOf(strings.TrimLeft(s[0], cut), tText, name), true
	case "rtrim":
		return constOf(strings.TrimRight(s[0], cut), tText, name), true
	}
	return constOf(strings.Trim(s[0], cut), tText, name), true
}

func lengthFunc(t *translator, args []value) (value, error) {
	if len(args) != 1 {
		return value{}, refuse("length with %d arguments", len(args))
	}
	if args[0].typ.Name == "bytea" {
		return value{sql: "length(" + args[0].sql + ")", typ: tInt4}, nil
	}
	s, err := t.textArgs("length", args)
	if err != nil {
		return value{}, err
	}
	if t.noFold == 0 {
		if a, err := t.retype(args[0], tText); err == nil {
			if v, ok := foldText("length", a); ok {
				return v, nil
			}
		}
	}
	return value{sql: "length(" + s[0] + ")", typ: tInt4}, nil
}

// substrFunc is substr(text, from [, count]) with PostgreSQL's rules for
// starts before 1 and negative counts (pg_substr).
func substrFunc(t *translator, args []value) (value, error) {
	if len(args) < 2 || len(args) > 3 {
		return value{}, refuse("substr with %d arguments", len(args))
	}
	s, err := t.textArgs("substr", args[:1])
	if err != nil {
		return value{}, err
	}
	out := []string{s[0]}
	if len(args) == 3 && t.noFold == 0 && allConst(args) {
		if n, ok := args[2].konst.(int64); ok && n < 0 {
			// PostgreSQL folds a constant call at plan time.
			return t.planTime(value{}, pgError("22011", "negative substring length not allowed"), tText)
		}
	}
	for _, a := range args[1:] {
		sql, err := t.coerce(a, tInt4, ctxImplicit)
		if err != nil || !(isInt(a.typ) && intBits(a.typ) <= 32 || a.untyped()) {
			return value{}, pgError("42883", "function substr(text, %s) does not exist", label(a.typ))
		}
		out = append(out, sql)
	}
	for _, a := range args {
		if isNullConst(a) {
			// substr is strict: PostgreSQL folds a NULL argument's call to NULL.
			return constOf(nil, tText, "substr"), nil
		}
	}
	if v, ok := t.foldSubstr(args); ok {
		return v, nil
	}
	if len(out) == 2 {
		out = append(out, "NULL")
		return value{sql: "pg_substr(" + join(out, ", ") + ", 0)", typ: tText}, nil
	}
	return value{sql: "pg_substr(" + join(out, ", ") + ", 1)", typ: tText}, nil
}

// concatFunc is concat(...): NULLs skipped, each argument's text output.
func concatFunc(t *translator, args []value) (value, error) {
	var parts []string
	for _, a := range args {
		if a.untyped() && a.param != 0 {
			// concat's arguments are "any": a placeholder takes no type
			// from them (42P18 when nothing else types it).
			if known := t.params[a.param-1]; known.Name == "" {
				t.untypedUses = append(t.untypedUses, a.param)
				parts = append(parts, "coalesce("+a.sql+", '')")
				continue
			}
			a.typ = t.params[a.param-1]
		}
		if a.untyped() {
			var err error
			if a, err = t.retype(a, tText); err != nil {
				return value{}, err
			}
		}
		if a.typ.Name == "numeric" {
			var err error
			if a, err = t.coerceValue(a, tText, ctxAssignment); err != nil {
				return value{}, err
			}
		}
		if !concatenable(a.typ) && a.typ.Name != "bpchar" { // concat keeps char(n)'s padding
			return value{}, refuse("concat of %s", label(a.typ))
		}
		parts = append(parts, "coalesce("+a.sql+", '')")
	}
	if len(parts) == 0 {
		return value{}, refuse("concat without arguments")
	}
	return value{sql: "(" + join(parts, " || ") + ")", typ: tText}, nil
}

func absFunc(t *translator, args []value) (value, error) {
	if len(args) != 1 {
		return value{}, refuse("abs with %d arguments", len(args))
	}
	a := args[0]
	if a.typ.Name == "numeric" {
		return t.numericFn("abs", a, nil)
	}
	if a.untyped() {
		var err error
		if a, err = t.retype(a, tFloat8); err != nil {
			return value{}, err
		}
	}
	if !isNum(a.typ) {
		return value{}, pgError("42883", "function abs(%s) does not exist", label(a.typ))
	}
	if a.isConst && t.noFold == 0 {
		v, err := foldAbs(a)
		return t.planTime(v, err, a.typ)
	}
	if isInt(a.typ) {
		return value{sql: "pg_int_abs(" + a.sql + ", " + itoa(intBits(a.typ)) + ")", typ: a.typ}, nil
	}
	// SQLite's abs negates only values below zero, so it keeps -0.0;
	// PostgreSQL's is fabs. Adding +0.0 turns -0.0 into 0.0 alone.
	return value{sql: "(abs(" + a.sql + ") + 0.0)", typ: a.typ}, nil
}

// octetLength is octet_length: bytes of the UTF-8 text or of the bytea.
func octetLength(t *translator, args []value) (value, error) {
	if len(args) != 1 {
		return value{}, refuse("octet_length with %d arguments", len(args))
	}
	if args[0].typ.Name == "bpchar" { // counts char(n)'s padding
		return value{sql: "length(CAST(" + args[0].sql + " AS BLOB))", typ: tInt4}, nil
	}
	if args[0].typ.Name == "bytea" {
		return value{sql: "length(" + args[0].sql + ")", typ: tInt4}, nil
	}
	s, err := t.textArgs("octet_length", args)
	if err != nil {
		return value{}, err
	}
	if c, ok := t.constText(args[0]); ok {
		return constOf(int64(len(c)), tInt4, "octet_length"), nil // folded, as strpos
	}
	return value{sql: "length(CAST(" + s[0] + " AS BLOB))", typ: tInt4}, nil
}

// strpos is strpos(s, sub) and position(sub IN s): the character
// position of sub in s, 0 when absent, 1 for an empty sub (SQLite's instr
// on text).
func strpos(t *translator, args []value) (value, error) {
	if len(args) != 2 {
		return value{}, refuse("strpos with %d arguments", len(args))
	}
	s, err := t.textArgs("strpos", args)
	if err != nil {
		return value{}, err
	}
	if h, ok := t.constText(args[0]); ok {
		if n, ok := t.constText(args[1]); ok {
			// Folded, as PostgreSQL's planner folds an immutable
			// function of constants (mod(strpos('a', 'b'), 0) is 22012).
			pos := int64(0)
			if i := strings.Index(h, n); i >= 0 {
				pos = int64(utf8.RuneCountInString(h[:i])) + 1
			}
			return constOf(pos, tInt4, "strpos"), nil
		}
	}
	return value{sql: "instr(" + s[0] + ", " + s[1] + ")", typ: tInt4}, nil
}

// foldSubstr is substr of constants, which PostgreSQL's planner folds
// (CAST(substr('ß', 3, 2) AS int8) is 22P02 while planning): characters
// from max(start, 1) up to start + length, as text_substring counts them.
func (t *translator) foldSubstr(args []value) (value, bool) {
	str, ok := t.constText(args[0])
	if !ok {
		return value{}, false
	}
	var n [2]int64
	for i, a := range args[1:] {
		k, ok := a.konst.(int64)
		if !a.isConst || !ok {
			return value{}, false
		}
		n[i] = k
	}
	runes := []rune(str)
	from, to := max(n[0], 1), int64(len(runes))+1
	if len(args) == 3 {
		to = min(to, max(n[0]+n[1], 1))
	}
	if from >= to || from > int64(len(runes)) {
		return constOf("", tText, "substr"), true
	}
	return constOf(string(runes[from-1:to-1]), tText, "substr"), true
}

// constText is a constant text argument's value (an untyped literal, a
// text or varchar constant), when folding is on.
func (t *translator) constText(v value) (string, bool) {
	if t.noFold != 0 || !(v.untyped() || isText(v.typ)) {
		return "", false
	}
	if v.lit != nil {
		return *v.lit, true
	}
	s, ok := v.konst.(string)
	return s, ok && v.isConst
}
