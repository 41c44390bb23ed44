package pgclass

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/relchain/relchain/sqlcheck/prescan"
)

// Classifier is the gateway's statement classifier (gateway.Classifier)
// backed by libpg_query. The zero value is ready to use.
type Classifier struct{}

// CatalogOnly reports whether sql, one PostgreSQL SELECT, reads no user
// data: every relation it names is a catalog of PostgreSQL
// (pg_catalog.x, information_schema.x, or an unqualified pg_x, which
// resolves to pg_catalog first and which the gate refuses to user
// relations) or a WITH query of the statement in scope, and every
// function it calls is a built-in one (unqualified, pg_catalog. or
// information_schema.): a user-defined function, called as public.f(...)
// on the read path, may read tables. Such a statement, refused in blocks
// for determinism only, can be answered on the read path inside a
// transaction without taking a read of user data out of the
// transaction's validation (gateway/DESIGN.md, Catalog reads
// inside transactions). Anything it cannot read is not catalog-only (fail
// closed).
func (Classifier) CatalogOnly(sql string) bool {
	if prescan.Check(sql, prescan.PostgreSQL) != nil {
		return false // beyond the bounds every parser is kept to
	}
	tree, err := pg_query.Parse(sql)
	if err != nil || len(tree.GetStmts()) != 1 {
		return false
	}
	sel := tree.GetStmts()[0].GetStmt().GetSelectStmt()
	if sel == nil {
		return false
	}
	return catalogOnlyIn(sel.ProtoReflect(), nil)
}

// catalogOnlyIn walks m with the WITH query names in scope.
func catalogOnlyIn(m protoreflect.Message, scope map[string]bool) bool {
	switch n := m.Interface().(type) {
	case *pg_query.RangeVar:
		return catalogRelation(n, scope)
	case *pg_query.FuncCall:
		if !builtinFunc(n.GetFuncname()) {
			return false
		}
	case *pg_query.SelectStmt:
		if w := n.GetWithClause(); w != nil {
			return withQueryCatalogOnly(n, w, scope)
		}
	}
	return childrenCatalogOnly(m, scope, "")
}

// withQueryCatalogOnly walks a SELECT with a WITH clause: a WITH query
// sees the ones before it (all of them under RECURSIVE), the rest of the
// statement sees all.
func withQueryCatalogOnly(n *pg_query.SelectStmt, w *pg_query.WithClause, outer map[string]bool) bool {
	scope := make(map[string]bool, len(outer)+len(w.GetCtes()))
	for k := range outer {
		scope[k] = true
	}
	if w.GetRecursive() {
		for _, c := range w.GetCtes() {
			scope[c.GetCommonTableExpr().GetCtename()] = true
		}
	}
	for _, c := range w.GetCtes() {
		cte := c.GetCommonTableExpr()
		if cte == nil || !catalogOnlyIn(cte.ProtoReflect(), scope) {
			return false
		}
		scope[cte.GetCtename()] = true
	}
	return childrenCatalogOnly(n.ProtoReflect(), scope, "with_clause")
}

// childrenCatalogOnly walks m's message fields but skip.
func childrenCatalogOnly(m protoreflect.Message, scope map[string]bool, skip protoreflect.Name) bool {
	ok := true
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.Kind() != protoreflect.MessageKind, fd.Name() == skip, fd.IsMap():
		case fd.IsList():
			for i := 0; i < v.List().Len() && ok; i++ {
				ok = catalogOnlyIn(v.List().Get(i).Message(), scope)
			}
		default:
			ok = catalogOnlyIn(v.Message(), scope)
		}
		return ok
	})
	return ok
}

func catalogRelation(r *pg_query.RangeVar, scope map[string]bool) bool {
	switch schema := r.GetSchemaname(); {
	case r.GetCatalogname() != "":
		return false
	case schema == "pg_catalog" || schema == "information_schema":
		return true
	case schema != "":
		return false
	}
	return strings.HasPrefix(r.GetRelname(), "pg_") || scope[r.GetRelname()]
}

func builtinFunc(name []*pg_query.Node) bool {
	switch len(name) {
	case 1:
		return true
	case 2:
		s := name[0].GetString_().GetSval()
		return s == "pg_catalog" || s == "information_schema"
	}
	return false
}
