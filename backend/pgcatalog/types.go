package pgcatalog

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// The PostgreSQL types the rewriting reasons about, by pg_type name. A
// type "unknown" is an untyped literal or parameter that takes its type
// from the context (as PostgreSQL's unknown), text when nothing gives one.
const unknownType = "unknown"

// regTypes are the reg* types: integers in the catalog database, shown by
// name through their output helper (pgcat_<type>_out).
var regTypes = map[string]string{
	"regclass": "regclass", "regtype": "regtype", "regproc": "regproc", "regprocedure": "regproc",
	"regnamespace": "regnamespace", "regrole": "regrole",
}

// isReg reports whether t is a reg* type.
func isReg(t string) bool { return regTypes[t] != "" }

// isInteger reports whether t is stored as an integer (doc.go): the
// integer types, oid and its kin, and the reg* types.
func isInteger(t string) bool {
	switch t {
	case "int2", "int4", "int8", "oid", "xid", "cid", "tid":
		return true
	}
	return isReg(t)
}

// isFloat reports whether t is a floating or numeric type.
func isFloat(t string) bool { return t == "float4" || t == "float8" || t == "numeric" }

// isTextual reports whether t is stored as text (doc.go).
func isTextual(t string) bool {
	switch t {
	case "text", "name", "varchar", "bpchar", "char", "pg_node_tree", unknownType:
		return true
	}
	return false
}

// isArray reports whether t is an array type (pg_type's "_" names).
func isArray(t string) bool { return strings.HasPrefix(t, "_") }

// isVector reports whether t is int2vector or oidvector (JSON arrays in
// the catalog database, subscripted from 0 and shown as '1 2').
func isVector(t string) bool { return t == "int2vector" || t == "oidvector" }

// elemType is the element type of an array or vector type t.
func elemType(t string) string {
	switch {
	case t == "int2vector":
		return "int2"
	case t == "oidvector":
		return "oid"
	case isArray(t):
		return t[1:]
	}
	return ""
}

// arrayOf is the array type of element type t.
func arrayOf(t string) string {
	if t == unknownType || t == "" {
		t = "text"
	}
	if isArray(t) {
		return t
	}
	return "_" + t
}

// outType is the type a result column of type t shows (an untyped
// literal is text, as PostgreSQL 10 and later resolve it).
func outType(t string) string {
	if t == unknownType || t == "" {
		return "text"
	}
	return t
}

// castAliases map the names a cast may spell to pg_type's names
// (information_schema's domains to their base types).
var castAliases = map[string]string{
	"integer": "int4", "int": "int4", "smallint": "int2", "bigint": "int8", "boolean": "bool",
	"real": "float4", "double precision": "float8", "character varying": "varchar", "character": "bpchar",
	"sql_identifier": "name", "cardinal_number": "int4", "character_data": "varchar", "yes_or_no": "varchar",
	"time_stamp": "timestamptz", "decimal": "numeric",
}

// castType is the pg_type name of a cast's target, or an error for a
// qualified name outside pg_catalog and information_schema.
func castType(tn *pg_query.TypeName) (string, error) {
	names := tn.GetNames()
	if len(names) == 0 {
		return "", refuse("a cast to a type given by oid")
	}
	var parts []string
	for _, n := range names {
		parts = append(parts, n.GetString_().GetSval())
	}
	if len(parts) == 2 && parts[0] != pgCatalog && parts[0] != informationSchema {
		return "", pgErr("42704", "type %q does not exist", strings.Join(parts, "."))
	}
	if len(parts) > 2 {
		return "", refuse("the type name %s", strings.Join(parts, "."))
	}
	t := parts[len(parts)-1]
	if a, ok := castAliases[t]; ok {
		t = a
	}
	if tn.GetSetof() || tn.GetPctType() {
		return "", refuse("SETOF and %%TYPE in a cast")
	}
	if len(tn.GetArrayBounds()) > 0 {
		t = arrayOf(t)
	}
	return t, nil
}

// refuse is the 0A000 error of a construct the emulation does not support.
func refuse(format string, args ...any) error {
	return pgErr("0A000", "the catalog emulation does not support "+format, args...)
}

// commonType is the type PostgreSQL resolves two branches of UNION,
// CASE, COALESCE or VALUES to (select_common_type, for the types the
// catalog has): an untyped side takes the other's; of two string types
// the first (they convert implicitly both ways); of two integer types the
// wider.
func commonType(a, b string) string {
	switch {
	case a == b || b == unknownType:
		return a
	case a == unknownType:
		return b
	case isTextual(a) && isTextual(b):
		return a
	case isInteger(a) && isInteger(b) && !isReg(a) && !isReg(b):
		return arithType(a, b)
	}
	return a
}

// yesOrNo are information_schema's columns of its domain yes_or_no
// (varchar(3)) besides those named is_* (is_generated is character_data).
var yesOrNo = map[string]bool{
	"initially_deferred": true, "enforced": true, "nulls_distinct": true, "identity_cycle": true,
	"cycle_option": true, "with_hierarchy": true,
}

// relTypmod is a relation column's type modifier as PostgreSQL reports
// it in a result (0 none): 7 for information_schema's yes_or_no columns.
func relTypmod(rel *Relation, c RelColumn) int32 {
	if rel.Schema != informationSchema || c.Type != "varchar" || c.Name == "is_generated" {
		return 0
	}
	if strings.HasPrefix(c.Name, "is_") || yesOrNo[c.Name] {
		return 3 + 4
	}
	return 0
}
