package pgcatalog

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// The set-returning functions, each over SQLite's json_each (whose
// arguments may read the FROM items before it, as a function in
// PostgreSQL's FROM may): in FROM unnest(array …) [WITH ORDINALITY],
// generate_series(a, b[, step]), information_schema._pg_expandarray(array)
// (columns x, n), current_schemas(bool), pg_partition_ancestors and any
// scalar function (one row); in a select list (targetSRFs) unnest,
// generate_series, generate_subscripts, _pg_expandarray and
// pg_partition_ancestors, in lockstep.

// srfCall is a FROM function's name (qualifier checked) and arguments.
func srfCall(rf *pg_query.RangeFunction) (string, []*pg_query.Node, error) {
	fns := rf.GetFunctions()
	if len(fns) != 1 || rf.GetIsRowsfrom() {
		return "", nil, refuse("ROWS FROM with several functions")
	}
	items := fns[0].GetList().GetItems()
	if len(items) != 2 || items[0].GetFuncCall() == nil {
		return "", nil, refuse("the FROM function %s", nodeName(items[0]))
	}
	if len(items[1].GetList().GetItems()) > 0 || len(rf.GetColdeflist()) > 0 {
		return "", nil, refuse("column definition lists")
	}
	fc := items[0].GetFuncCall()
	name, qual := funcName(fc)
	if qual != "" && qual != pgCatalog && !(qual == informationSchema && name == "_pg_expandarray") {
		return "", nil, pgErr("42883", "function %s.%s does not exist", qual, name)
	}
	return name, fc.GetArgs(), nil
}

// rangeFunction rewrites a function in FROM; sc holds the FROM items
// before it.
func (r *rewriter) rangeFunction(rf *pg_query.RangeFunction, sc *scope) (string, []*source, error) {
	name, args, err := srfCall(rf)
	if err != nil {
		return "", nil, err
	}
	alias := rf.GetAlias().GetAliasname()
	if alias == "" {
		alias = name
	}
	var arr val
	var cols []col
	a := r.newAlias()
	switch name {
	case "unnest", "_pg_expandarray", "current_schemas", "pg_partition_ancestors":
		var drv string
		drv, cols, err = r.fromArrays(name, args, sc, a)
		if err != nil {
			return "", nil, err
		}
		arr = val{sql: drv}
		if len(cols) == 1 && name != "current_schemas" && rf.GetAlias() != nil {
			cols[0].name = alias
		}
	case "generate_series":
		arr, cols, err = r.series(args, sc, a)
		if err != nil {
			return "", nil, err
		}
		if rf.GetAlias() != nil {
			cols[0].name = alias
		}
	case "pg_get_keywords":
		return "", nil, refuse("pg_get_keywords()")
	default:
		// A scalar function in FROM is one row (current_schema(),
		// version() …).
		if _, ok := aggregates[name]; ok {
			return "", nil, refuse("the aggregate %s in FROM", name)
		}
		v, err := r.call(name, args, sc)
		if err != nil {
			return "", nil, err
		}
		elem := v.sql
		if isArray(v.typ) || isVector(v.typ) {
			elem = "json(" + elem + ")"
		}
		arr = val{sql: "json_array(" + elem + ")"}
		colname := name
		if rf.GetAlias() != nil {
			colname = alias
		}
		cols = []col{{name: colname, typ: v.typ, sql: a + ".value", lb0: v.lb0}}
	}
	if name == "current_schemas" {
		cols[0].name = "current_schemas"
	}
	if rf.GetOrdinality() {
		cols = append(cols, col{name: "ordinality", typ: "int8", sql: "(" + a + ".key + 1)"})
	}
	src := &source{alias: alias, cols: cols}
	if err := renameCols(src, rf.GetAlias()); err != nil {
		return "", nil, err
	}
	return "json_each(" + arr.sql + ") AS " + a, []*source{src}, nil
}

// series is generate_series(start, stop[, step]) over integers: a JSON
// array of the values built by a recursive WITH query.
func (r *rewriter) series(args []*pg_query.Node, sc *scope, a string) (val, []col, error) {
	if len(args) < 2 || len(args) > 3 {
		return val{}, nil, pgErr("42883", "function generate_series with %d arguments does not exist", len(args))
	}
	var vs []string
	typ := "int4"
	for _, n := range args {
		v, err := r.expr(n, sc)
		if err != nil {
			return val{}, nil, err
		}
		v = r.coerce(v, "int4")
		if !isInteger(v.typ) {
			return val{}, nil, refuse("generate_series over %s", v.typ)
		}
		if v.typ == "int8" {
			typ = "int8"
		}
		vs = append(vs, v.sql)
	}
	step := "1"
	if len(vs) == 3 {
		step = vs[2]
	}
	start, stop := vs[0], vs[1]
	next := "(_g.v + " + step + ")"
	sql := "(WITH RECURSIVE _g(v) AS (SELECT " + start + " WHERE (" + step + " > 0 AND " + start + " <= " + stop +
		") OR (" + step + " < 0 AND " + start + " >= " + stop + ") UNION ALL SELECT " + next + " FROM _g WHERE (" +
		step + " > 0 AND " + next + " <= " + stop + ") OR (" + step + " < 0 AND " + next + " >= " + stop +
		")) SELECT json_group_array(v) FROM _g)"
	return val{sql: sql, typ: arrayOf(typ)}, []col{{name: "generate_series", typ: typ, sql: a + ".value"}}, nil
}

// targetSRFs rewrites the set-returning calls of a select list (an
// output that is one, or a field of one): PostgreSQL runs them in
// lockstep for each input row, as many rows as the longest array (the
// shorter read NULL past their end). They become one json_each FROM item
// over the longest array, each call reading its element by position
// (srfVals). It returns that FROM item ("" without such calls).
func (r *rewriter) targetSRFs(list []*pg_query.Node, sc *scope) (string, error) {
	var calls []*pg_query.FuncCall
	for _, n := range list {
		calls = append(calls, srfCalls(n.ProtoReflect())...)
	}
	if len(calls) == 0 {
		return "", nil
	}
	for _, n := range list {
		if hasAggregate(n.ProtoReflect()) {
			return "", refuse("set-returning functions beside aggregates or window functions")
		}
	}
	arrays := make([]val, len(calls))
	var distinct []string
	seen := map[string]bool{}
	for i, fc := range calls {
		a, err := r.srfArray(fc, sc)
		if err != nil {
			return "", err
		}
		arrays[i] = a
		if !seen[a.sql] {
			seen[a.sql] = true
			distinct = append(distinct, a.sql)
		}
	}
	alias := ident(r.newAlias())
	driver := distinct[0]
	if len(distinct) > 1 {
		driver = "(SELECT _a FROM (SELECT " + strings.Join(distinct, " AS _a UNION ALL SELECT ") +
			" AS _a) ORDER BY json_array_length(_a) DESC LIMIT 1)"
	}
	for i, fc := range calls {
		elem := alias + ".value"
		if len(distinct) > 1 {
			elem = "json_extract(" + arrays[i].sql + ", '$[' || " + alias + ".key || ']')"
		}
		if arrays[i].lbMixed {
			return "", refuse("%s of an array whose lower bound varies by row", nameOf(fc))
		}
		r.srfVals[fc] = srfValue(nameOf(fc), arrays[i], elem, alias+".key")
	}
	return "json_each(" + driver + ") AS " + alias, nil
}

// srfArray is the array a set-returning call in a select list reads.
func (r *rewriter) srfArray(fc *pg_query.FuncCall, sc *scope) (val, error) {
	name, args := nameOf(fc), fc.GetArgs()
	if name == "generate_series" {
		arr, _, err := r.series(args, sc, "")
		return arr, err
	}
	want := 1
	if name == "generate_subscripts" {
		want = 2
	}
	if len(args) != want || name == "pg_get_keywords" {
		return val{}, refuse("%s with %d arguments in the select list", name, len(args))
	}
	v, err := r.expr(args[0], sc)
	if err != nil {
		return val{}, err
	}
	if name == "pg_partition_ancestors" {
		// No relation is partitioned: a relation is its only ancestor.
		v = r.coerce(v, "regclass")
		return val{sql: "json_array(" + v.sql + ")", typ: "_regclass"}, nil
	}
	if want == 2 {
		if d, err := r.expr(args[1], sc); err != nil || d.sql != "1" {
			return val{}, refuse("generate_subscripts of a dimension other than 1")
		}
	}
	v = r.coerce(v, "_text")
	if !isArray(v.typ) && !isVector(v.typ) {
		return val{}, pgErr("42883", "function %s(%s) does not exist", name, v.typ)
	}
	return v, nil
}

// srfValue is a set-returning call's value in the row of position key.
func srfValue(name string, arr val, elem, key string) val {
	arrType := arr.typ
	base := "1"
	if isVector(arrType) || arr.lb0 {
		base = "0"
	}
	switch name {
	case "generate_subscripts":
		return val{sql: "(" + key + " + " + base + ")", typ: "int4"}
	case "_pg_expandarray":
		x := col{name: "x", typ: elemType(arrType), sql: elem}
		n := col{name: "n", typ: "int4", sql: "(" + key + " + 1)"}
		return val{sql: "('(' || coalesce(" + elem + ", '') || ',' || (" + key + " + 1) || ')')", typ: "record", fields: []col{x, n}}
	}
	return val{sql: elem, typ: elemType(arrType)}
}

// fromArrays rewrites unnest(a, b …), _pg_expandarray(a),
// current_schemas(b) and pg_partition_ancestors(r) in FROM: the json_each
// argument (the longest array when several run in lockstep) and the
// columns.
func (r *rewriter) fromArrays(name string, args []*pg_query.Node, sc *scope, a string) (string, []col, error) {
	if len(args) == 0 || len(args) > 1 && name != "unnest" {
		return "", nil, pgErr("42883", "function %s with %d arguments does not exist", name, len(args))
	}
	var arrays []val
	for _, n := range args {
		var v val
		var err error
		switch name {
		case "current_schemas":
			v, err = r.call("current_schemas", args, sc)
		case "pg_partition_ancestors":
			// No relation is partitioned: a relation is its only ancestor.
			if v, err = r.expr(n, sc); err == nil {
				v = r.coerce(v, "regclass")
				v = val{sql: "json_array(" + v.sql + ")", typ: "_regclass"}
			}
		default:
			if v, err = r.expr(n, sc); err == nil {
				v = r.coerce(v, "_text")
			}
		}
		if err != nil {
			return "", nil, err
		}
		if !isArray(v.typ) && !isVector(v.typ) {
			return "", nil, pgErr("42883", "function %s(%s) does not exist", name, v.typ)
		}
		arrays = append(arrays, v)
	}
	if name == "_pg_expandarray" {
		return arrays[0].sql, []col{{name: "x", typ: elemType(arrays[0].typ), sql: a + ".value"},
			{name: "n", typ: "int4", sql: "(" + a + ".key + 1)"}}, nil
	}
	if len(arrays) == 1 {
		return arrays[0].sql, []col{{name: name, typ: elemType(arrays[0].typ), sql: a + ".value"}}, nil
	}
	var cols []col
	var sqls []string
	for _, v := range arrays {
		sqls = append(sqls, v.sql)
		cols = append(cols, col{name: name, typ: elemType(v.typ), sql: "json_extract(" + v.sql + ", '$[' || " + a + ".key || ']')"})
	}
	drv := "(SELECT _a FROM (SELECT " + strings.Join(sqls, " AS _a UNION ALL SELECT ") +
		" AS _a) ORDER BY json_array_length(_a) DESC LIMIT 1)"
	return drv, cols, nil
}

// hasAggregate reports whether m calls an aggregate or a window function
// outside a subquery (PostgreSQL runs a select list's set-returning
// calls after grouping and windows).
func hasAggregate(m protoreflect.Message) bool {
	switch n := m.Interface().(type) {
	case *pg_query.SubLink:
		return false
	case *pg_query.FuncCall:
		if _, ok := aggregates[nameOf(n)]; ok || n.GetOver() != nil {
			return true
		}
	}
	found := false
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.Kind() != protoreflect.MessageKind, fd.IsMap():
		case fd.IsList():
			for i := 0; i < v.List().Len() && !found; i++ {
				found = hasAggregate(v.List().Get(i).Message())
			}
		default:
			found = hasAggregate(v.Message())
		}
		return !found
	})
	return found
}

// srfCalls are the set-returning calls in m outside subqueries (and not
// inside another set-returning call's arguments).
func srfCalls(m protoreflect.Message) []*pg_query.FuncCall {
	switch n := m.Interface().(type) {
	case *pg_query.SubLink:
		return nil
	case *pg_query.FuncCall:
		if setReturning[nameOf(n)] {
			return []*pg_query.FuncCall{n}
		}
	}
	var out []*pg_query.FuncCall
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.Kind() != protoreflect.MessageKind, fd.IsMap():
		case fd.IsList():
			for i := 0; i < v.List().Len(); i++ {
				out = append(out, srfCalls(v.List().Get(i).Message())...)
			}
		default:
			out = append(out, srfCalls(v.Message())...)
		}
		return true
	})
	return out
}
