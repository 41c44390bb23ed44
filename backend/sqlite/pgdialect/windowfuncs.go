package pgdialect

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// windowFunc translates a call of a window function over the window w.
type windowFunc func(t *translator, f *pg_query.FuncCall, w window, sc *scope) (value, error)

// windowFuncFor is the supported window function name (the aggregates
// are windowAggregate's); a function, not a map, since the translators
// call back into the expression walk.
func windowFuncFor(name string) (windowFunc, bool) {
	switch name {
	case "row_number":
		return ordinal("row_number", tInt8), true
	case "rank", "dense_rank":
		return ranking(name, tInt8), true
	case "percent_rank", "cume_dist":
		return ranking(name, tFloat8), true
	case "ntile":
		return ntile, true
	case "lag", "lead":
		return lagLead(name), true
	case "first_value", "last_value", "nth_value":
		return frameValue(name), true
	}
	return nil, false
}

// noSuchWindowFunc is PostgreSQL's 42883 for a call with arguments no
// variant of the function takes.
func noSuchWindowFunc(name string, args []value) error {
	var types []string
	for _, a := range args {
		types = append(types, label(a.typ))
	}
	return pgError("42883", "function %s(%s) does not exist", name, strings.Join(types, ", "))
}

// ranking is rank, dense_rank, percent_rank and cume_dist: functions of
// the current row's peer group, whatever the order among peers; no frame.
func ranking(name string, typ Type) windowFunc {
	return func(t *translator, f *pg_query.FuncCall, w window, sc *scope) (value, error) {
		if args, err := t.args(f.GetArgs(), sc); err != nil || len(args) > 0 {
			if err == nil {
				err = noSuchWindowFunc(name, args)
			}
			return value{}, err
		}
		return value{sql: name + "()" + w.over(nil, ""), typ: typ}, nil
	}
}

// ordinal is row_number: over the window's order completed by the
// tie-break.
func ordinal(name string, typ Type) windowFunc {
	return func(t *translator, f *pg_query.FuncCall, w window, sc *scope) (value, error) {
		if args, err := t.args(f.GetArgs(), sc); err != nil || len(args) > 0 {
			if err == nil {
				err = noSuchWindowFunc(name, args)
			}
			return value{}, err
		}
		tie, err := t.tieBreak(sc)
		if err != nil {
			return value{}, err
		}
		return value{sql: name + "()" + w.over(tie, ""), typ: typ}, nil
	}
}

// constArg is a window function's integer argument, which must be a
// constant here (PostgreSQL evaluates a non-constant one per partition or
// per row): its SQL, or "" for NULL.
func (t *translator) constArg(name string, n *pg_query.Node, sc *scope) (string, int64, error) {
	v, err := t.expr(n, sc)
	if err != nil {
		return "", 0, err
	}
	if v.untyped() && !v.null {
		if v, err = t.retype(v, tInt4); err != nil {
			return "", 0, err
		}
	}
	if v.null || v.isConst && v.konst == nil {
		return "", 0, nil
	}
	if !isInt(v.typ) || v.typ.Name == "int8" {
		return "", 0, pgError("42883", "function %s with an argument of type %s does not exist", name, label(v.typ))
	}
	k, ok := v.konst.(int64)
	if !v.isConst || !ok {
		return "", 0, refuse("%s with an argument that is not a constant", name)
	}
	return v.sql, k, nil
}

// rowCount is an expression over the window that is evaluated on every
// row, so a runtime error raised with it is raised when (and only when)
// the query has rows, as PostgreSQL raises it.
func rowCount(w window) string { return "count(*)" + w.over(nil, "") }

// ntile(n): n > 0 (22014 otherwise, on the first row), NULL for n NULL.
func ntile(t *translator, f *pg_query.FuncCall, w window, sc *scope) (value, error) {
	if len(f.GetArgs()) != 1 {
		args, _ := t.args(f.GetArgs(), sc)
		return value{}, noSuchWindowFunc("ntile", args)
	}
	sql, k, err := t.constArg("ntile", f.GetArgs()[0], sc)
	if err != nil {
		return value{}, err
	}
	switch {
	case sql == "":
		return value{sql: "CAST(NULL AS INTEGER)", typ: tInt4}, nil
	case k <= 0:
		return value{sql: "pg_raise('22014', 'argument of ntile must be greater than zero', " + rowCount(w) + ")", typ: tInt4}, nil
	}
	tie, err := t.tieBreak(sc)
	if err != nil {
		return value{}, err
	}
	return value{sql: "ntile(" + sql + ")" + w.over(tie, ""), typ: tInt4}, nil
}

// lagLead is lag/lead(x [, offset [, default]]): the result is x's type,
// or x's and the default's common type (anycompatible); a negative offset
// looks the other way, a NULL one gives NULL.
func lagLead(name string) windowFunc {
	return func(t *translator, f *pg_query.FuncCall, w window, sc *scope) (value, error) {
		n := f.GetArgs()
		if len(n) < 1 || len(n) > 3 {
			args, _ := t.args(n, sc)
			return value{}, noSuchWindowFunc(name, args)
		}
		x, err := t.expr(n[0], sc)
		if err != nil {
			return value{}, err
		}
		fn, off := name, "1"
		if len(n) > 1 {
			sql, k, err := t.constArg(name, n[1], sc)
			if err != nil {
				return value{}, err
			}
			if sql == "" {
				off = ""
			} else if off = itoa64(k); k < 0 {
				fn, off = map[string]string{"lag": "lead", "lead": "lag"}[name], itoa64(-k)
			}
		}
		vals := []value{x}
		if len(n) > 2 {
			d, err := t.expr(n[2], sc)
			if err != nil {
				return value{}, err
			}
			vals = append(vals, d)
		}
		if allUntyped(vals) {
			return value{}, errPolymorphic
		}
		typ, err := commonType(strings.ToUpper(name), vals)
		if err != nil {
			// No anycompatible type: no variant of the function applies.
			return value{}, pgError("42883", "function %s(%s, integer, %s) does not exist", name, label(vals[0].typ), label(vals[1].typ))
		}
		typ.Typmod = -1 // a polymorphic function's result has no typmod
		conv, err := t.coerceAll(vals, typ)
		if err != nil {
			return value{}, err
		}
		if off == "" {
			return value{sql: "(CASE WHEN " + rowCount(w) + " > 0 THEN NULL END)", typ: typ}, nil
		}
		tie, err := t.tieBreak(sc)
		if err != nil {
			return value{}, err
		}
		args := conv[0] + ", " + off
		if len(conv) > 1 {
			args += ", " + conv[1]
		}
		return value{sql: fn + "(" + args + ")" + w.over(tie, ""), typ: typ}, nil
	}
}

// errPolymorphic is PostgreSQL's error for an anyelement argument that
// only untyped literals give.
var errPolymorphic = pgError("42804", "could not determine polymorphic type because input has type unknown")

func allUntyped(vals []value) bool {
	for _, v := range vals {
		if !v.untyped() {
			return false
		}
	}
	return true
}

func itoa64(k int64) string { return strings.TrimSpace(renderLiteral(k)) }

// frameValue is first_value, last_value and nth_value(x, n): the first,
// last or n-th row of the frame. The frame's rows are taken in the
// window's order completed by the tie-break, which is exact for a ROWS
// frame (without EXCLUDE GROUP or TIES), and for a RANGE or GROUPS frame
// (whole peer groups) where the frame reaches the partition's end it is
// read from: first_value and nth_value from UNBOUNDED PRECEDING (the n-th
// row when the frame has n rows), last_value to UNBOUNDED FOLLOWING; or
// the current row's peer group: last_value to CURRENT ROW (the default
// frame), first_value from CURRENT ROW. Other frames are refused.
func frameValue(name string) windowFunc {
	return func(t *translator, f *pg_query.FuncCall, w window, sc *scope) (value, error) {
		n := f.GetArgs()
		if want := map[string]int{"nth_value": 2}[name]; len(n) != max(want, 1) {
			args, _ := t.args(n, sc)
			return value{}, noSuchWindowFunc(name, args)
		}
		x, err := t.expr(n[0], sc)
		if err != nil {
			return value{}, err
		}
		if x.untyped() {
			return value{}, errPolymorphic
		}
		x.typ.Typmod = -1 // a polymorphic function's result has no typmod
		nth, k := "", int64(1)
		if name == "nth_value" {
			if nth, k, err = t.constArg(name, n[1], sc); err != nil {
				return value{}, err
			}
			switch {
			case nth == "":
				return value{sql: "(CASE WHEN " + rowCount(w) + " > 0 THEN NULL END)", typ: x.typ}, nil
			case k <= 0:
				return value{sql: "pg_raise('22016', 'argument of nth_value must be greater than zero', " + rowCount(w) + ")", typ: x.typ}, nil
			}
			nth = ", " + nth
		}
		tie, err := t.tieBreak(sc)
		if err != nil {
			return value{}, err
		}
		call := name + "(" + x.sql + nth + ")"
		o := w.opts
		if o&frameNonDefault != 0 && o&frameRows != 0 {
			if o&(frameExcludeGroup|frameExcludeTies) != 0 {
				return value{}, refuse("%s over a ROWS frame with EXCLUDE GROUP or EXCLUDE TIES", name)
			}
			return value{sql: call + w.over(tie, w.frame), typ: x.typ}, nil
		}
		whole := "ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING"
		fromStart := o&frameNonDefault == 0 || o&frameStartUnbPrec != 0
		toEnd := len(w.order) == 0 || o&frameNonDefault != 0 && o&frameEndUnbFoll != 0
		toPeerEnd := o&frameNonDefault == 0 || o&frameEndCurrent != 0
		fromPeerStart := o&frameNonDefault != 0 && o&frameStartCurrent != 0
		switch {
		case o&frameExclusions != 0:
		case name == "last_value" && toPeerEnd && !toEnd, name == "first_value" && fromPeerStart && !fromStart:
			// The frame ends (starts) with the current row's peer group:
			// its last (first) row.
			return value{sql: call + w.peerOver(tie), typ: x.typ}, nil
		case name == "last_value" && (toEnd || len(w.order) == 0):
			return value{sql: call + w.over(tie, whole), typ: x.typ}, nil
		case name == "first_value" && (fromStart || len(w.order) == 0):
			return value{sql: call + w.over(tie, whole), typ: x.typ}, nil
		case name == "nth_value" && (fromStart || len(w.order) == 0):
			frame := "count(*)" + w.over(nil, w.frame)
			return value{sql: "(CASE WHEN " + frame + " >= " + itoa64(k) + " THEN " + call + w.over(tie, whole) + " END)", typ: x.typ}, nil
		}
		return value{}, refuse("%s over a RANGE or GROUPS frame with an offset at the end it reads from, or with EXCLUDE: the order of peer rows is not defined; use ROWS", name)
	}
}

// windowAggregate is an aggregate over a window: PostgreSQL's typing of
// the aggregate (funcs.go); a ROWS frame cuts through peer groups, so it
// is read in the window's order completed by the tie-break; RANGE and
// GROUPS frames are whole peer groups, independent of the order among
// peers.
func (t *translator) windowAggregate(name string, agg aggregate, f *pg_query.FuncCall, w window, sc *scope) (value, error) {
	filter := ""
	if f.GetAggFilter() != nil {
		var err error
		if filter, err = t.condition(f.GetAggFilter(), sc, "FILTER"); err != nil {
			return value{}, err
		}
	}
	var call string
	var res Type
	switch {
	case f.GetAggStar() && name != "count":
		return value{}, refuse("%s(*)", name)
	case f.GetAggStar() && filter != "":
		call, res = "count(CASE WHEN "+filter+" THEN 1 END)", tInt8
	case f.GetAggStar():
		call, res = "count(*)", tInt8
	case len(f.GetArgs()) != 1:
		return value{}, refuse("%s with %d arguments", name, len(f.GetArgs()))
	default:
		arg, err := t.expr(f.GetArgs()[0], sc)
		if err != nil {
			return value{}, err
		}
		if arg.untyped() {
			if arg, err = t.retype(arg, tText); err != nil {
				return value{}, err
			}
		}
		var ok bool
		res, ok = agg.result(arg.typ)
		if !ok && (arg.typ.Name == "bool" || arg.typ.Name == "bytea" || arg.typ.Name == "json") {
			return value{}, pgError("42883", "function %s(%s) does not exist", name, label(arg.typ))
		}
		if !ok {
			return value{}, refuse("%s(%s)", name, label(arg.typ))
		}
		if filter != "" {
			arg.sql = "CASE WHEN " + filter + " THEN " + arg.sql + " END"
		}
		fn := agg.sqlite
		if name == "sum" && res.Name == "numeric" {
			fn = "pg_num_sum"
		}
		call = fn + "(" + arg.sql + ")"
	}
	var tie []string
	if o := w.opts; o&frameNonDefault != 0 && o&frameRows != 0 {
		if o&(frameExcludeGroup|frameExcludeTies) != 0 {
			return value{}, refuse("aggregates over a ROWS frame with EXCLUDE GROUP or EXCLUDE TIES")
		}
		var err error
		if tie, err = t.tieBreak(sc); err != nil {
			return value{}, err
		}
	}
	return value{sql: call + w.over(tie, w.frame), typ: res, name: name}, nil
}
