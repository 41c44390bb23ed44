package pgdialect

import (
	"strconv"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// Window functions (f(...) OVER (...), WINDOW clauses): see DESIGN.md,
// "Window functions". Each call gets its own inline OVER (...) in the
// SQLite text (SQLite's gate refuses named windows). Functions whose value
// depends on the order of rows among peers (row_number, ntile, lag, lead,
// first_value/last_value/nth_value, aggregates over a ROWS frame) run over
// the window's ORDER BY completed by a tie-break on every column of the
// query's FROM items (the GROUP BY keys in a grouped query): PostgreSQL
// leaves the order of peers unspecified, so its answer is one of
// PostgreSQL's possible answers, and it is the same on every node whatever
// the physical row order.

// PostgreSQL's FRAMEOPTION_* bits (nodes/parsenodes.h).
const (
	frameNonDefault     = 0x00001
	frameRange          = 0x00002
	frameRows           = 0x00004
	frameGroups         = 0x00008
	frameStartUnbPrec   = 0x00020
	frameStartUnbFoll   = 0x00080
	frameStartCurrent   = 0x00200
	frameEndUnbFoll     = 0x00100
	frameEndCurrent     = 0x00400
	frameStartOffPrec   = 0x00800
	frameEndOffPrec     = 0x01000
	frameStartOffFoll   = 0x02000
	frameEndOffFoll     = 0x04000
	frameExcludeCurrent = 0x08000
	frameExcludeGroup   = 0x10000
	frameExcludeTies    = 0x20000
	frameExclusions     = frameExcludeCurrent | frameExcludeGroup | frameExcludeTies
	frameOffsets        = frameStartOffPrec | frameEndOffPrec | frameStartOffFoll | frameEndOffFoll
)

// windowState is what the query being translated tells its window calls:
// whether window functions may appear where the translation is, the
// WINDOW clause's definitions, and the GROUP BY items (the tie-break of a
// grouped query).
type windowState struct {
	allowed bool
	depth   int
	defs    []*pg_query.WindowDef
	groupBy []*pg_query.Node
}

// window is a translated window definition.
type window struct {
	partition []string
	order     []string // with their direction and NULL order
	orderExpr []string // without
	orderType []Type
	frame     string // "" for the default frame
	opts      int32
}

// over is an OVER clause with the window's partitioning and ORDER BY,
// the tie-break keys tie after it, and the frame given ("" for SQLite's
// default, which is PostgreSQL's).
func (w window) over(tie []string, frame string) string {
	var parts []string
	if len(w.partition) > 0 {
		parts = append(parts, "PARTITION BY "+join(w.partition, ", "))
	}
	order := append(append([]string(nil), w.order...), tie...)
	if len(order) == 0 && frame != "" {
		// Every row is a peer of every other, as without ORDER BY; SQLite's
		// gate refuses a frame in a window without one.
		order = []string{"NULL"}
	}
	if len(order) > 0 {
		parts = append(parts, "ORDER BY "+join(order, ", "))
	}
	if frame != "" {
		parts = append(parts, frame)
	}
	return " OVER (" + join(parts, " ") + ")"
}

// peerOver is an OVER clause whose partition is the current row's peer
// group (the window's partition and ORDER BY values: PARTITION BY, like
// ORDER BY, puts NULLs together and compares under the expressions'
// collations), its rows in the tie-break's order, the whole group the
// frame.
func (w window) peerOver(tie []string) string {
	peers := window{partition: append(append([]string(nil), w.partition...), w.orderExpr...), order: w.order}
	return peers.over(tie, "ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING")
}

// windowCall translates f(...) OVER (...).
func (t *translator) windowCall(f *pg_query.FuncCall, name string, sc *scope) (value, error) {
	switch {
	case t.aggDepth > 0:
		return value{}, pgError("42803", "aggregate function calls cannot contain window function calls")
	case t.win.depth > 0:
		return value{}, pgError("42P20", "window function calls cannot be nested")
	case !t.win.allowed:
		return value{}, pgError("42P20", "window functions are not allowed here")
	case name == "":
		return value{}, refuse("the function %s", qualifiedName(f))
	case f.GetAggWithinGroup() || f.GetFuncVariadic():
		return value{}, refuse("WITHIN GROUP or VARIADIC in the call of %s", name)
	case f.GetAggDistinct():
		return value{}, pgError("0A000", "DISTINCT is not implemented for window functions")
	case len(f.GetAggOrder()) > 0:
		return value{}, pgError("0A000", "aggregate ORDER BY is not implemented for window functions")
	}
	t.win.depth++
	defer func() { t.win.depth-- }()
	def, err := t.resolveWindow(f.GetOver())
	if err != nil {
		return value{}, err
	}
	w, err := t.windowDef(def, sc)
	if err != nil {
		return value{}, err
	}
	if agg, ok := aggregates[name]; ok {
		return t.windowAggregate(name, agg, f, w, sc)
	}
	if f.GetAggFilter() != nil {
		return value{}, pgError("0A000", "FILTER is not implemented for non-aggregate window functions")
	}
	if fn, ok := windowFuncFor(name); ok {
		v, err := fn(t, f, w, sc)
		v.name = name
		return v, err
	}
	if _, scalar := scalars[name]; scalar {
		return value{}, pgError("42809", "OVER specified, but %s is not a window function nor an aggregate function", name)
	}
	return value{}, refuse("the window function %s", name)
}

// resolveWindow is the definition an OVER clause stands for: OVER w is
// the WINDOW clause's w as it is; OVER (w ...) copies w by PostgreSQL's
// rules (resolveDef).
func (t *translator) resolveWindow(over *pg_query.WindowDef) (*pg_query.WindowDef, error) {
	if over.GetName() != "" {
		return findWindow(over.GetName(), t.win.defs)
	}
	return resolveDef(over, t.win.defs)
}

// findWindow is the WINDOW clause's definition named name, resolved
// against the definitions before it.
func findWindow(name string, defs []*pg_query.WindowDef) (*pg_query.WindowDef, error) {
	for i, d := range defs {
		if d.GetName() == name {
			return resolveDef(d, defs[:i])
		}
	}
	return nil, pgError("42704", "window %q does not exist", name)
}

// resolveDef applies a definition's reference to an earlier window: the
// partitioning is the base's, the ORDER BY may be added only where the
// base has none, and a base with a frame cannot be copied (42P20).
func resolveDef(w *pg_query.WindowDef, defs []*pg_query.WindowDef) (*pg_query.WindowDef, error) {
	if w.GetRefname() == "" {
		return w, nil
	}
	base, err := findWindow(w.GetRefname(), defs)
	if err != nil {
		return nil, err
	}
	switch {
	case len(w.GetPartitionClause()) > 0:
		return nil, pgError("42P20", "cannot override PARTITION BY clause of window %q", w.GetRefname())
	case len(w.GetOrderClause()) > 0 && len(base.GetOrderClause()) > 0:
		return nil, pgError("42P20", "cannot override ORDER BY clause of window %q", w.GetRefname())
	case base.GetFrameOptions()&frameNonDefault != 0:
		return nil, pgError("42P20", "cannot copy window %q because it has a frame clause", w.GetRefname())
	}
	out := &pg_query.WindowDef{
		PartitionClause: base.GetPartitionClause(), OrderClause: w.GetOrderClause(),
		FrameOptions: w.GetFrameOptions(), StartOffset: w.GetStartOffset(), EndOffset: w.GetEndOffset(),
	}
	if len(out.OrderClause) == 0 {
		out.OrderClause = base.GetOrderClause()
	}
	return out, nil
}

// windowClause checks a query's WINDOW clause as PostgreSQL does, every
// definition translated even when no call uses it, and makes it the
// definitions OVER clauses see.
func (t *translator) windowClause(defs []*pg_query.Node, sc *scope) error {
	var list []*pg_query.WindowDef
	for _, n := range defs {
		d := n.GetWindowDef()
		for _, prev := range list {
			if prev.GetName() == d.GetName() {
				return pgError("42P20", "window %q is already defined", d.GetName())
			}
		}
		r, err := resolveDef(d, list)
		if err != nil {
			return err
		}
		if _, err := t.windowDef(r, sc); err != nil {
			return err
		}
		list = append(list, d)
	}
	t.win.defs = list
	return nil
}

// windowDef translates a resolved window definition.
func (t *translator) windowDef(d *pg_query.WindowDef, sc *scope) (window, error) {
	w := window{opts: d.GetFrameOptions()}
	for _, n := range d.GetPartitionClause() {
		v, err := t.outputValue(n, sc)
		if err != nil {
			return window{}, err
		}
		if v.typ.Name == "json" {
			return window{}, pgError("42883", "could not identify an equality operator for type json")
		}
		w.partition = append(w.partition, nonPositional(v.sql))
	}
	for _, n := range d.GetOrderClause() {
		sb := n.GetSortBy()
		if len(sb.GetUseOp()) > 0 {
			return window{}, refuse("ORDER BY ... USING")
		}
		v, err := t.outputValue(sb.GetNode(), sc)
		if err != nil {
			return window{}, err
		}
		if err := orderable(v.typ); err != nil {
			return window{}, err
		}
		w.order = append(w.order, nonPositional(v.sql)+sortSuffix(sb))
		w.orderExpr = append(w.orderExpr, nonPositional(v.sql))
		w.orderType = append(w.orderType, v.typ)
	}
	var err error
	w.frame, err = t.frameClause(d, w, sc)
	return w, err
}

// frameClause translates a frame: ROWS, RANGE or GROUPS with its bounds
// and exclusion; "" for the default (RANGE UNBOUNDED PRECEDING to CURRENT
// ROW).
func (t *translator) frameClause(d *pg_query.WindowDef, w window, sc *scope) (string, error) {
	o := d.GetFrameOptions()
	if o&frameNonDefault == 0 {
		return "", nil
	}
	mode := "RANGE"
	switch {
	case o&frameRows != 0:
		mode = "ROWS"
	case o&frameGroups != 0:
		mode = "GROUPS"
		if len(w.order) == 0 {
			return "", pgError("42P20", "GROUPS mode requires an ORDER BY clause")
		}
	case o&frameOffsets != 0:
		if len(w.order) != 1 {
			return "", pgError("42P20", "RANGE with offset PRECEDING/FOLLOWING requires exactly one ORDER BY column")
		}
		if typ := w.orderType[0]; !isInt(typ) && !isFloat(typ) {
			return "", refuse("RANGE with offset PRECEDING/FOLLOWING over %s", label(typ))
		}
	}
	start, err := t.frameBound(o, d.GetStartOffset(), w, true, sc)
	if err != nil {
		return "", err
	}
	end, err := t.frameBound(o, d.GetEndOffset(), w, false, sc)
	if err != nil {
		return "", err
	}
	out := mode + " BETWEEN " + start + " AND " + end
	switch {
	case o&frameExcludeCurrent != 0:
		out += " EXCLUDE CURRENT ROW"
	case o&frameExcludeGroup != 0:
		out += " EXCLUDE GROUP"
	case o&frameExcludeTies != 0:
		out += " EXCLUDE TIES"
	}
	return out, nil
}

// frameBound is one bound of a frame. An offset must be a constant: an
// integer (int8, as PostgreSQL types it) for ROWS and GROUPS and beside an
// integer RANGE key, an integer or float beside a float key.
func (t *translator) frameBound(o int32, off *pg_query.Node, w window, start bool, sc *scope) (string, error) {
	unbPrec, unbFoll, cur, offPrec, offFoll := int32(frameStartUnbPrec), int32(frameStartUnbFoll), int32(frameStartCurrent), int32(frameStartOffPrec), int32(frameStartOffFoll)
	which := "starting"
	if !start {
		unbPrec, unbFoll, cur, offPrec, offFoll = frameStartUnbPrec<<1, frameEndUnbFoll, frameEndCurrent, frameEndOffPrec, frameEndOffFoll
		which = "ending"
	}
	switch {
	case o&unbPrec != 0:
		return "UNBOUNDED PRECEDING", nil
	case o&unbFoll != 0:
		return "UNBOUNDED FOLLOWING", nil
	case o&cur != 0:
		return "CURRENT ROW", nil
	case o&(offPrec|offFoll) == 0:
		return "CURRENT ROW", nil // BETWEEN x AND (no end): CURRENT ROW
	}
	dir := " PRECEDING"
	if o&offFoll != 0 {
		dir = " FOLLOWING"
	}
	v, err := t.expr(off, sc)
	if err != nil {
		return "", err
	}
	rangeMode := o&(frameRows|frameGroups) == 0
	if v.untyped() && !v.null {
		if v, err = t.retype(v, tInt8); err != nil {
			return "", err
		}
	}
	if rangeMode && isFloat(w.orderType[0]) && v.typ.Name == "numeric" && v.isConst {
		if v, err = t.coerceValue(v, tFloat8, ctxImplicit); err != nil { // in_range(float8, float8)
			return "", err
		}
	}
	switch {
	case v.null || v.isConst && v.konst == nil:
		return "", pgError("22004", "frame %s offset must not be null", which)
	case !v.isConst:
		return "", refuse("a window frame offset that is not a constant")
	}
	switch k := v.konst.(type) {
	case int64:
		if k < 0 && rangeMode {
			return "", pgError("22013", "invalid preceding or following size in window function")
		}
		if k < 0 {
			return "", pgError("22013", "frame %s offset must not be negative", which)
		}
		return strconv.FormatInt(k, 10) + dir, nil
	case float64:
		if !rangeMode || !isFloat(w.orderType[0]) {
			return "", refuse("a window frame offset of type %s", label(v.typ))
		}
		if k < 0 {
			return "", pgError("22013", "invalid preceding or following size in window function")
		}
		return renderFloat(k) + dir, nil
	}
	return "", refuse("a window frame offset of type %s", label(v.typ))
}

// tieBreak are the keys that make a window's order total: every column of
// the query's FROM items, compared as stored (COLLATE BINARY: 1.0 and 1.00
// differ), or the GROUP BY items of a grouped query. Rows equal on all of
// them are indistinguishable, so their order changes no result.
func (t *translator) tieBreak(sc *scope) ([]string, error) {
	var out []string
	if len(t.win.groupBy) > 0 {
		g := sc.group
		sc.group = nil
		defer func() { sc.group = g }()
		for _, n := range t.win.groupBy {
			if n.GetAConst() != nil || n.GetGroupingSet() != nil || n.GetRowExpr() != nil {
				return nil, refuse("order-sensitive window functions with GROUP BY positions or grouping sets")
			}
			v, err := t.expr(n, sc)
			if err != nil {
				return nil, refuse("order-sensitive window functions grouped by an output column name")
			}
			out = append(out, nonPositional(v.sql)+" COLLATE BINARY")
		}
		return out, nil
	}
	return fromTieBreak(sc, "order-sensitive window functions")
}

// fromTieBreak is every column of sc's FROM items, compared as stored
// (COLLATE BINARY), or NULL when there is no FROM item (one row): the
// keys that make an order total. what names the construct refused when
// a FROM item has two columns of one name.
func fromTieBreak(sc *scope, what string) ([]string, error) {
	var out []string
	for _, r := range sc.rels {
		if r.merged {
			continue // the joined tables' own columns are there too
		}
		if dupNames(r.cols) {
			return nil, refuse("%s over a FROM item with two columns of the same name", what)
		}
		for _, c := range r.cols {
			out = append(out, r.value(c).sql+" COLLATE BINARY")
		}
	}
	if len(out) == 0 {
		out = append(out, "NULL") // no FROM: one row
	}
	return out, nil
}
