package pggate

import (
	"errors"
	"fmt"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// maxSeriesRows bounds the rows generate_series may produce in one
// statement (the product of the spans of all its calls), and maxPadLength
// the length lpad and rpad may produce: PostgreSQL has no deterministic
// instruction counter, so the work of a statement must be bounded by its
// text.
const (
	maxSeriesRows = 1_000_000
	maxPadLength  = 1_000_000
)

// clockFuncs are the clock functions rewritten to the block's time, with
// the type of their value.
var clockFuncs = map[string]siteKind{
	"now":                   kindTimestamptz,
	"transaction_timestamp": kindTimestamptz,
	"statement_timestamp":   kindTimestamptz,
	"clock_timestamp":       kindTimestamptz,
}

// funcCall checks a function call: a built-in function of the allowlist,
// a clock function or random() (recorded as call sites to rewrite), or a
// user-defined function called as public.name(...).
func (w *walker) funcCall(f *pg_query.FuncCall, wrapper *pg_query.Node) error {
	names := stringsOf(f.GetFuncname())
	if handled, err := w.sessionCall(names, f, wrapper); handled {
		return err
	}
	if w.policy == readPolicy {
		return w.readFuncCall(names, f, wrapper)
	}
	var name string
	switch {
	case len(names) == 1:
		name = names[0]
	case len(names) == 2 && names[0] == "pg_catalog":
		name = names[1]
	case len(names) == 2 && names[0] == "relchain" && seqFuncs[names[1]]:
		name = names[1] // the rewrite's own output (sequence.go)
	case len(names) == 2 && names[0] == "public":
		return w.userCall(f, names[1])
	default:
		return fmt.Errorf("function %s is not allowed: only built-in functions (unqualified or pg_catalog.) and user-defined functions called as public.name(...) are", strings.Join(names, "."))
	}
	if seqFuncs[name] {
		return w.seqCall(f, name)
	}
	if kind, ok := clockFuncs[name]; ok {
		return w.envCall(f, wrapper, name+"()", kind, -1)
	}
	if name == "random" {
		return w.randomCall(f, wrapper)
	}
	if !allowedFuncs[name] {
		if why, ok := funcReasons[name]; ok {
			return fmt.Errorf("function %s is not allowed: %s", name, why)
		}
		if strings.HasPrefix(name, "pg_") && strings.HasSuffix(name, "_size") {
			return fmt.Errorf("function %s is not allowed: sizes on disk differ between nodes", name)
		}
		return fmt.Errorf("function %s is not allowed: it is not on the gate's allowlist of deterministic functions (user-defined functions are called schema-qualified, as public.%s(...))", name, name)
	}
	if f.GetOver() != nil {
		return fmt.Errorf("window function %s(...) OVER is not supported by the gate yet", name)
	}
	if f.GetAggWithinGroup() {
		return fmt.Errorf("%s(...) WITHIN GROUP is not supported by the gate yet", name)
	}
	if orderedAggs[name] && len(f.GetAggOrder()) == 0 {
		return fmt.Errorf("aggregate %s without ORDER BY inside the call is not allowed: its result depends on row order, which differs between nodes", name)
	}
	if err := w.canonicalOrder(name, f); err != nil {
		return err
	}
	if err := w.grows(name, f.GetArgs()); err != nil {
		return err
	}
	switch name {
	case "generate_series":
		w.rowSource("a set-returning function")
		return w.checkSeries(f.GetArgs())
	case "unnest":
		w.rowSource("a set-returning function")
	case "lpad", "rpad":
		return w.checkPad(name, f.GetArgs())
	case "age":
		if len(f.GetArgs()) != 2 {
			return fmt.Errorf("function age is not allowed: %s", funcReasons["age"])
		}
	}
	return nil
}

// userCall checks a call of a user-defined function public.name(...). The
// function itself passed the gate when it was created (CREATE FUNCTION
// accepts only schema public); requiring the qualifier means an unknown
// name can never resolve to a built-in function of pg_catalog outside the
// allowlist.
func (w *walker) userCall(f *pg_query.FuncCall, name string) error {
	if strings.HasPrefix(name, "pg_") {
		return fmt.Errorf("function public.%s is not allowed: names starting with pg_ belong to the system", name)
	}
	if f.GetOver() != nil {
		return fmt.Errorf("window function public.%s(...) OVER is not supported by the gate yet", name)
	}
	if f.GetAggWithinGroup() {
		return fmt.Errorf("public.%s(...) WITHIN GROUP is not supported by the gate yet", name)
	}
	w.callsUser = true
	if f != w.callee {
		w.rowSource("a call of a user-defined function (it may return a set)")
	}
	return nil
}

// plainCall reports whether f is a plain call without arguments: no *,
// DISTINCT, ORDER BY, FILTER, OVER or VARIADIC.
func plainCall(f *pg_query.FuncCall) bool {
	return len(f.GetArgs()) == 0 && !f.GetAggStar() && !f.GetAggDistinct() && len(f.GetAggOrder()) == 0 &&
		f.GetAggFilter() == nil && f.GetOver() == nil && !f.GetFuncVariadic() && !f.GetAggWithinGroup()
}

// envCall records a clock call site.
func (w *walker) envCall(f *pg_query.FuncCall, wrapper *pg_query.Node, what string, kind siteKind, typmod int32) error {
	if f != nil && !plainCall(f) {
		return fmt.Errorf("%s is allowed only as a plain call without arguments", what)
	}
	if w.noEnv != "" {
		return fmt.Errorf("%s is not allowed here: %s", what, w.noEnv)
	}
	if wrapper == nil {
		return fmt.Errorf("%s is not allowed in this position: it cannot be rewritten here", what)
	}
	w.sites = append(w.sites, site{node: wrapper, kind: kind, typmod: typmod})
	return nil
}

// randomCall records a random() call site.
func (w *walker) randomCall(f *pg_query.FuncCall, wrapper *pg_query.Node) error {
	if len(f.GetArgs()) > 0 {
		return errors.New("random(min, max) is not allowed: only random() is rewritten to block-seeded values; scale it, as in floor(min + random() * (max - min + 1))")
	}
	if w.returning > 0 {
		return errors.New("random() in RETURNING is not allowed: it is evaluated once per returned row, in an order that can differ between nodes")
	}
	if err := w.envCall(f, wrapper, "random()", kindRandom, -1); err != nil {
		return err
	}
	w.sites[len(w.sites)-1].rnd = w.randoms
	w.randoms++
	return nil
}

// sqlValueFunction checks CURRENT_DATE, CURRENT_TIMESTAMP and the like:
// the clock values are rewritten, the session values rejected.
func (w *walker) sqlValueFunction(f *pg_query.SQLValueFunction, wrapper *pg_query.Node) error {
	name := strings.ToLower(strings.TrimPrefix(f.GetOp().String(), "SVFOP_"))
	name = strings.TrimSuffix(name, "_n")
	typmod := int32(-1)
	var kind siteKind
	switch f.GetOp() {
	case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_DATE:
		kind = kindDate
	case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_TIME:
		kind = kindTimetz
	case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_TIME_N:
		kind, typmod = kindTimetz, f.GetTypmod()
	case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_TIMESTAMP:
		kind = kindTimestamptz
	case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_TIMESTAMP_N:
		kind, typmod = kindTimestamptz, f.GetTypmod()
	case pg_query.SQLValueFunctionOp_SVFOP_LOCALTIME:
		kind = kindTime
	case pg_query.SQLValueFunctionOp_SVFOP_LOCALTIME_N:
		kind, typmod = kindTime, f.GetTypmod()
	case pg_query.SQLValueFunctionOp_SVFOP_LOCALTIMESTAMP:
		kind = kindTimestamp
	case pg_query.SQLValueFunctionOp_SVFOP_LOCALTIMESTAMP_N:
		kind, typmod = kindTimestamp, f.GetTypmod()
	default:
		return fmt.Errorf("%s is not allowed: it is a node-local session value", name)
	}
	if typmod < -1 {
		return fmt.Errorf("%s with a negative precision is not allowed", name)
	}
	return w.envCall(nil, wrapper, name, kind, typmod)
}

// checkSeries allows generate_series only over constant integer bounds,
// and only as long as the product of the spans of all generate_series
// calls of the statement is at most maxSeriesRows: its work must be
// bounded and known from the text (joined, the series multiply).
func (w *walker) checkSeries(args []*pg_query.Node) error {
	bad := fmt.Errorf("generate_series is allowed only with constant integer bounds spanning at most %d rows", maxSeriesRows)
	if len(args) < 2 || len(args) > 3 {
		return bad
	}
	v := []int64{0, 0, 1}
	for i, a := range args {
		iv := a.GetAConst().GetIval()
		if iv == nil {
			return bad
		}
		v[i] = int64(iv.GetIval())
	}
	start, stop, step := v[0], v[1], v[2]
	if step == 0 {
		return errors.New("generate_series with step 0 is not allowed")
	}
	var n int64
	switch {
	case step > 0 && stop >= start:
		n = (stop-start)/step + 1
	case step < 0 && stop <= start:
		n = (start-stop)/(-step) + 1
	}
	if n > maxSeriesRows {
		return bad
	}
	w.series *= float64(n)
	if w.series > maxSeriesRows {
		return fmt.Errorf("the generate_series calls of this statement span more than %d rows together (their spans multiply when joined)", maxSeriesRows)
	}
	return nil
}

// checkPad allows lpad and rpad only with a constant length, and only as
// long as the lengths of all the statement's lpad and rpad calls add up to
// at most maxPadLength: each builds a string of that length from a few
// characters of text, so many of them (joined with ||, say) would build
// gigabytes from a statement text of a megabyte.
func (w *walker) checkPad(name string, args []*pg_query.Node) error {
	if len(args) >= 2 {
		if iv := args[1].GetAConst().GetIval(); iv != nil && iv.GetIval() <= maxPadLength {
			w.padded += max(int64(iv.GetIval()), 0)
			if w.padded > maxPadLength {
				return fmt.Errorf("%s is not allowed here: the lengths of this statement's lpad and rpad calls add up to more than %d", name, maxPadLength)
			}
			return nil
		}
	}
	return fmt.Errorf("%s is allowed only with a constant integer length of at most %d", name, maxPadLength)
}
