package pgcatalog

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// genericFunctions are the Functions a query on user data may call as
// well (string, arithmetic and aggregate functions): calling only these
// does not make a query a catalog query.
var genericFunctions = map[string]bool{
	"lower": true, "upper": true, "length": true, "char_length": true, "substring": true, "substr": true,
	"replace": true, "concat": true, "concat_ws": true, "left": true, "right": true, "position": true,
	"strpos": true, "btrim": true, "ltrim": true, "rtrim": true, "split_part": true, "regexp_replace": true,
	"translate": true, "starts_with": true, "quote_ident": true, "quote_literal": true,
	"coalesce": true, "nullif": true, "greatest": true, "least": true, "abs": true,
	"count": true, "max": true, "min": true, "sum": true, "bool_and": true, "bool_or": true,
	"string_agg": true, "array_agg": true, "row_number": true,
}

// rewriteFunctions are the functions the rewriting answers itself
// (set-returning functions, json_build_object, LIKE's ESCAPE).
var rewriteFunctions = map[string]bool{
	"unnest": true, "generate_series": true, "generate_subscripts": true, "_pg_expandarray": true,
	"pg_partition_ancestors": true, "like_escape": true, "json_build_object": true, "jsonb_build_object": true,
}

// Wants reports whether sql is a catalog query this package answers: one
// SELECT that names at least one catalog relation (Relations) or calls a
// catalog function (Functions but the generic ones; a cast to a reg*
// type; CURRENT_USER, CURRENT_SCHEMA …), and names no other relation and
// no other function than Functions and those the rewriting answers
// itself (unnest, generate_series, json_build_object …). SELECT INTO,
// FOR UPDATE and data-modifying WITH queries are not catalog queries.
func Wants(sql string) bool {
	sel, err := parseSelect(sql)
	if err != nil || sel.GetIntoClause() != nil || len(sel.GetLockingClause()) > 0 {
		return false // SELECT INTO writes; FOR UPDATE locks
	}
	w := &wantWalk{}
	return w.walk(sel.ProtoReflect(), nil) && w.catalog
}

// wantWalk is Wants' walk: catalog is set once a catalog relation or
// function is seen.
type wantWalk struct {
	catalog bool
}

// walk visits m with the WITH query names in scope; false ends the walk
// (a relation or function outside the catalog).
func (w *wantWalk) walk(m protoreflect.Message, scope map[string]bool) bool {
	switch n := m.Interface().(type) {
	case *pg_query.RangeVar:
		return w.relation(n, scope)
	case *pg_query.FuncCall:
		if !w.function(n) {
			return false
		}
	case *pg_query.TypeName:
		if t, err := castType(n); err == nil && isReg(t) {
			w.catalog = true
		}
	case *pg_query.SQLValueFunction:
		if svfName(n.GetOp()) == "" {
			return false
		}
		w.catalog = true
	case *pg_query.SelectStmt:
		if wc := n.GetWithClause(); wc != nil {
			return w.with(n, wc, scope)
		}
	}
	return w.children(m, scope, "")
}

func (w *wantWalk) relation(rv *pg_query.RangeVar, scope map[string]bool) bool {
	if rv.GetCatalogname() != "" {
		return false
	}
	if rv.GetSchemaname() == "" && scope[rv.GetRelname()] {
		return true
	}
	if rv.GetSchemaname() != "" && rv.GetSchemaname() != pgCatalog && rv.GetSchemaname() != informationSchema {
		return false
	}
	if _, ok := relation(rv.GetSchemaname(), rv.GetRelname()); !ok {
		return false
	}
	w.catalog = true
	return true
}

func (w *wantWalk) function(fc *pg_query.FuncCall) bool {
	name, qual := funcName(fc)
	if qual != "" && qual != pgCatalog && !(qual == informationSchema && name == "_pg_expandarray") {
		return false
	}
	if rewriteFunctions[name] {
		return true
	}
	if _, ok := Functions[name]; !ok || strings.HasPrefix(name, "pgcat_") {
		return false
	}
	if !genericFunctions[name] {
		w.catalog = true
	}
	return true
}

// with walks a SELECT with a WITH clause: a WITH query sees the ones
// before it (all of them under RECURSIVE), the rest of the statement all.
func (w *wantWalk) with(n *pg_query.SelectStmt, wc *pg_query.WithClause, outer map[string]bool) bool {
	scope := make(map[string]bool, len(outer)+len(wc.GetCtes()))
	for k := range outer {
		scope[k] = true
	}
	if wc.GetRecursive() {
		for _, c := range wc.GetCtes() {
			scope[c.GetCommonTableExpr().GetCtename()] = true
		}
	}
	for _, c := range wc.GetCtes() {
		cte := c.GetCommonTableExpr()
		if cte.GetCtequery().GetSelectStmt() == nil || !w.walk(cte.ProtoReflect(), scope) {
			return false // a data-modifying WITH query writes
		}
		scope[cte.GetCtename()] = true
	}
	return w.children(n.ProtoReflect(), scope, "with_clause")
}

// children walks m's message fields but skip.
func (w *wantWalk) children(m protoreflect.Message, scope map[string]bool, skip protoreflect.Name) bool {
	ok := true
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.Kind() != protoreflect.MessageKind, fd.Name() == skip, fd.IsMap():
		case fd.IsList():
			for i := 0; i < v.List().Len() && ok; i++ {
				ok = w.walk(v.List().Get(i).Message(), scope)
			}
		default:
			ok = w.walk(v.Message(), scope)
		}
		return ok
	})
	return ok
}
