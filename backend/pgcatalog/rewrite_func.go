package pgcatalog

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// funcName is a function call's name and its qualifier ("" none).
func funcName(fc *pg_query.FuncCall) (name, qual string) {
	f := fc.GetFuncname()
	name = f[len(f)-1].GetString_().GetSval()
	if len(f) > 1 {
		qual = f[len(f)-2].GetString_().GetSval()
	}
	return name, qual
}

// setReturning are the set-returning functions (FROM items only).
var setReturning = map[string]bool{
	"unnest": true, "generate_series": true, "_pg_expandarray": true, "pg_get_keywords": true,
	"generate_subscripts": true, "pg_partition_ancestors": true,
}

// aggregates maps PostgreSQL's aggregates to SQLite's (array_agg builds
// a JSON array; bool_and and bool_or over 0/1 are min and max).
var aggregates = map[string]string{
	"array_agg": "json_group_array", "string_agg": "group_concat", "bool_and": "min", "bool_or": "max",
	"count": "count", "max": "max", "min": "min", "sum": "sum",
}

func (r *rewriter) funcCall(fc *pg_query.FuncCall, sc *scope) (val, error) {
	if v, ok := r.srfVals[fc]; ok {
		return v, nil
	}
	name, qual := funcName(fc)
	if qual != "" && qual != pgCatalog {
		return val{}, pgErr("42883", "function %s.%s does not exist", qual, name)
	}
	if setReturning[name] {
		return val{}, refuse("set-returning functions in this place (%s)", name)
	}
	if name == "json_build_object" || name == "jsonb_build_object" {
		return r.jsonBuildObject(name, fc.GetArgs(), sc)
	}
	if fc.GetAggWithinGroup() || fc.GetFuncVariadic() {
		return val{}, refuse("WITHIN GROUP and VARIADIC")
	}
	agg, isAgg := aggregates[name]
	if !isAgg && (fc.GetAggDistinct() || len(fc.GetAggOrder()) > 0 || fc.GetAggFilter() != nil || fc.GetAggStar()) {
		return val{}, pgErr("42809", "%s is not an aggregate function", name)
	}
	if !isAgg {
		v, err := r.call(name, fc.GetArgs(), sc)
		if err != nil {
			return val{}, err
		}
		return r.over(v, fc, sc)
	}
	return r.aggregate(name, agg, fc, sc)
}

// funcArgs are the PostgreSQL types of catalog functions' arguments, by
// position: an untyped literal or parameter takes them (PostgreSQL's
// Describe of `format_type($1, $2)` is oid, int4); others are text.
var funcArgs = map[string][]string{
	"format_type": {"oid", "int4"}, "pg_get_expr": {"pg_node_tree", "oid", "bool"},
	"pg_get_indexdef": {"oid", "int4", "bool"}, "pg_get_constraintdef": {"oid", "bool"},
	"pg_get_viewdef": {"oid", "bool"}, "pg_get_triggerdef": {"oid", "bool"}, "pg_get_functiondef": {"oid"},
	"pg_get_function_arguments": {"oid"}, "pg_get_function_result": {"oid"},
	"pg_get_function_identity_arguments": {"oid"}, "pg_get_partkeydef": {"oid"}, "pg_get_userbyid": {"oid"},
	"pg_table_is_visible": {"oid"}, "pg_type_is_visible": {"oid"}, "pg_function_is_visible": {"oid"},
	"pg_collation_is_visible": {"oid"}, "pg_opclass_is_visible": {"oid"}, "pg_is_other_temp_schema": {"oid"},
	"obj_description": {"oid", "name"}, "col_description": {"oid", "int4"}, "shobj_description": {"oid", "name"},
	"pg_relation_size": {"regclass"}, "pg_total_relation_size": {"regclass"}, "pg_table_size": {"regclass"},
	"pg_indexes_size": {"regclass"}, "pg_relation_is_publishable": {"regclass"},
	"pg_encoding_to_char": {"int4"}, "pg_size_pretty": {"int8"}, "current_schemas": {"bool"},
	"pg_get_statisticsobjdef_columns": {"oid"},
}

// call rewrites a call of one of Functions.
func (r *rewriter) call(name string, args []*pg_query.Node, sc *scope) (val, error) {
	res, ok := Functions[name]
	if !ok || strings.HasPrefix(name, "pgcat_") {
		return val{}, pgErr("42883", "function %s does not exist", name)
	}
	vs := make([]val, len(args))
	for i, a := range args {
		if a.GetNamedArgExpr() != nil {
			return val{}, refuse("named arguments")
		}
		v, err := r.expr(a, sc)
		if err != nil {
			return val{}, err
		}
		t := "text"
		if ts := funcArgs[name]; i < len(ts) {
			t = ts[i]
		}
		vs[i] = r.coerce(v, t)
	}
	if name == "position" {
		name = "strpos" // PostgreSQL's position(string, substring), as strpos
	}
	out := val{sql: sqlFuncName(name) + "(" + joinSQL(vs) + ")", typ: resultType(res, vs)}
	if (name == "array_upper" || name == "array_lower") && len(vs) > 0 {
		// The catalog's arrays are JSON, numbered from 1: a vector or a
		// vector cast to an array is numbered from 0.
		switch a := vs[0]; {
		case a.lbMixed:
			return val{}, refuse("%s of an array whose lower bound varies by row", name)
		case isVector(a.typ) || a.lb0:
			out.sql = "(" + out.sql + " - 1)"
		}
	}
	return out, nil
}

// sqlFuncName quotes a function name that is an SQLite keyword.
func sqlFuncName(name string) string {
	switch name {
	case "left", "right", "user", "replace":
		return ident(name)
	}
	return name
}

// resultType is a call's result type.
func resultType(res FuncResult, args []val) string {
	t := res.Type
	if res.SameAs >= 0 && res.Type == "" {
		t = unknownType
		if res.SameAs < len(args) {
			t = args[res.SameAs].typ
		}
	}
	if res.ArrayOf {
		return arrayOf(t)
	}
	return t
}

// aggregate rewrites an aggregate call with DISTINCT, ORDER BY and
// FILTER, and OVER.
func (r *rewriter) aggregate(name, agg string, fc *pg_query.FuncCall, sc *scope) (val, error) {
	var b strings.Builder
	b.WriteString(agg + "(")
	if fc.GetAggDistinct() {
		b.WriteString("DISTINCT ")
	}
	var vs []val
	if fc.GetAggStar() {
		b.WriteString("*")
	}
	for _, a := range fc.GetArgs() {
		v, err := r.expr(a, sc)
		if err != nil {
			return val{}, err
		}
		vs = append(vs, r.coerce(v, "text"))
	}
	b.WriteString(joinSQL(vs))
	if len(fc.GetAggOrder()) > 0 {
		keys, err := r.sortList(fc.GetAggOrder(), sc)
		if err != nil {
			return val{}, err
		}
		b.WriteString(" ORDER BY " + keys)
	}
	b.WriteString(")")
	if f := fc.GetAggFilter(); f != nil {
		c, err := r.boolExpr(f, sc, "FILTER")
		if err != nil {
			return val{}, err
		}
		b.WriteString(" FILTER (WHERE " + c + ")")
	}
	typ := resultType(Functions[name], vs)
	switch {
	case name == "sum" && len(vs) == 1 && (vs[0].typ == "float4" || vs[0].typ == "float8"):
		typ = "float8"
	case name == "sum" && len(vs) == 1 && (!isInteger(vs[0].typ) || vs[0].typ == "int8"):
		typ = "numeric"
	case name == "bool_and" || name == "bool_or":
		typ = "bool"
	case (name == "max" || name == "min") && typ == "name":
		typ = "text" // name has no max or min: PostgreSQL takes text's
	}
	return r.over(val{sql: b.String(), typ: typ}, fc, sc)
}

// sortList rewrites ORDER BY items over a scope (aggregates, windows).
func (r *rewriter) sortList(items []*pg_query.Node, sc *scope) (string, error) {
	var keys []string
	for _, n := range items {
		sb := n.GetSortBy()
		if sb.GetUseOp() != nil {
			return "", refuse("ORDER BY … USING")
		}
		v, err := r.expr(sb.GetNode(), sc)
		if err != nil {
			return "", err
		}
		keys = append(keys, v.sql+sortDirection(sb))
	}
	return strings.Join(keys, ", "), nil
}

// over adds a window to a call: OVER (PARTITION BY … ORDER BY …) with
// the default frame.
func (r *rewriter) over(v val, fc *pg_query.FuncCall, sc *scope) (val, error) {
	w := fc.GetOver()
	if w == nil {
		if nameOf(fc) == "row_number" {
			return val{}, pgErr("42809", "window function row_number requires an OVER clause")
		}
		return v, nil
	}
	w, err := sc.window(w)
	if err != nil {
		return val{}, err
	}
	const defaultFrame = 1058 // FRAMEOPTION_DEFAULTS: RANGE UNBOUNDED PRECEDING … CURRENT ROW
	if w.GetFrameOptions() != defaultFrame {
		return val{}, refuse("window frames")
	}
	var parts []string
	if len(w.GetPartitionClause()) > 0 {
		var ps []val
		for _, n := range w.GetPartitionClause() {
			p, err := r.expr(n, sc)
			if err != nil {
				return val{}, err
			}
			ps = append(ps, p)
		}
		parts = append(parts, "PARTITION BY "+joinSQL(ps))
	}
	if len(w.GetOrderClause()) > 0 {
		keys, err := r.sortList(w.GetOrderClause(), sc)
		if err != nil {
			return val{}, err
		}
		parts = append(parts, "ORDER BY "+keys)
	}
	return val{sql: v.sql + " OVER (" + strings.Join(parts, " ") + ")", typ: v.typ}, nil
}

func nameOf(fc *pg_query.FuncCall) string { n, _ := funcName(fc); return n }

// jsonBuildObject is json_build_object(k, v, …) built as PostgreSQL's
// text of it ('{"a" : 1, "b" : true}').
func (r *rewriter) jsonBuildObject(name string, args []*pg_query.Node, sc *scope) (val, error) {
	if len(args)%2 != 0 {
		return val{}, pgErr("22023", "argument list must have even number of elements")
	}
	var pairs []string
	for i := 0; i < len(args); i += 2 {
		k, err := r.expr(args[i], sc)
		if err != nil {
			return val{}, err
		}
		v, err := r.expr(args[i+1], sc)
		if err != nil {
			return val{}, err
		}
		k, v = r.coerce(k, "text"), r.coerce(v, "text")
		pairs = append(pairs, "json_quote("+textOf(k)+") || ' : ' || "+jsonText(v))
	}
	sql := "'{}'"
	if len(pairs) > 0 {
		sql = "('{' || " + strings.Join(pairs, " || ', ' || ") + " || '}')"
	}
	return val{sql: sql, typ: name[:len(name)-len("_build_object")]}, nil
}

// jsonText is a value's JSON text as json_build_object writes it.
func jsonText(v val) string {
	switch {
	case v.typ == "bool":
		return "coalesce(CASE " + v.sql + " WHEN 1 THEN 'true' WHEN 0 THEN 'false' END, 'null')"
	case isReg(v.typ):
		return "json_quote(" + textOf(v) + ")"
	case isArray(v.typ) || isVector(v.typ) || v.typ == "json" || v.typ == "jsonb":
		return "coalesce(json(" + v.sql + "), 'null')"
	}
	return "json_quote(" + v.sql + ")"
}
