package pgcatalog

import (
	"regexp"
	"strconv"
	"strings"

	sqlite3 "github.com/ncruces/go-sqlite3"
)

// regFuncs are the reg* types' input (name → oid) and output (oid →
// name) functions; an oid with no object prints as its number, 0 as "-".
func regFuncs(m *model) []scalar {
	in := func(f func(string) (int64, error)) goFunc {
		return strict(func(a []sqlite3.Value) (any, error) {
			if a[0].Type() == sqlite3.INTEGER {
				return a[0].Int64(), nil
			}
			return f(a[0].Text())
		})
	}
	out := func(f func(int64) (string, bool)) goFunc {
		return strict(func(a []sqlite3.Value) (any, error) { return regOut(a[0].Int64(), f), nil })
	}
	return []scalar{
		{"pgcat_regclass_in", 1, in(m.regclassIn)}, {"pgcat_regclass_out", 1, out(m.regclassOut)},
		{"pgcat_regtype_in", 1, in(m.regtypeIn)}, {"pgcat_regtype_out", 1, out(m.regtypeOut)},
		{"pgcat_regproc_in", 1, in(regprocIn)}, {"pgcat_regproc_out", 1, out(regprocOut)},
		{"pgcat_regnamespace_in", 1, in(regnamespaceIn)}, {"pgcat_regnamespace_out", 1, out(regnamespaceOut)},
		{"pgcat_regrole_in", 1, in(m.regroleIn)}, {"pgcat_regrole_out", 1, out(m.regroleOut)},
	}
}

// regOut prints oid by f: "-" for 0, the number when f knows no object.
func regOut(oid int64, f func(int64) (string, bool)) string {
	if oid == 0 {
		return "-"
	}
	if s, ok := f(oid); ok {
		return s
	}
	return strconv.FormatInt(oid, 10)
}

// splitName splits a possibly schema-qualified, possibly quoted name
// into its schema ("" none) and name, folding unquoted parts to lower
// case as PostgreSQL does.
func splitName(s string) (schema, name string) {
	var parts []string
	var b strings.Builder
	quoted := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' && quoted && i+1 < len(s) && s[i+1] == '"':
			b.WriteByte('"')
			i++
		case c == '"':
			quoted = !quoted
		case c == '.' && !quoted:
			parts, b = append(parts, b.String()), strings.Builder{}
		case quoted:
			b.WriteByte(c)
		default:
			b.WriteString(strings.ToLower(string(c)))
		}
	}
	parts = append(parts, strings.TrimSpace(b.String()))
	if len(parts) == 1 {
		return "", parts[0]
	}
	return parts[len(parts)-2], parts[len(parts)-1]
}

// numericOid is s as an oid when s is a number.
func numericOid(s string) (int64, bool) {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	return n, err == nil
}

// regclassIn is a relation's oid by name, searching pg_catalog then
// public when unqualified; 42P01 when none.
func (m *model) regclassIn(s string) (int64, error) {
	if n, ok := numericOid(s); ok {
		return n, nil
	}
	schema, name := splitName(s)
	for _, r := range catalogRels {
		if r.name == name && (schema == r.schema || schema == "" && r.schema == pgCatalog) {
			return r.oid, nil
		}
	}
	if r := m.relByName[name]; r != nil && (schema == "" || schema == "public") {
		return r.oid, nil
	}
	return 0, pgError("42P01", "relation %q does not exist", s)
}

// regclassOut is a relation's name, qualified when not on the search
// path.
func (m *model) regclassOut(oid int64) (string, bool) {
	if r := m.relByOid[oid]; r != nil {
		return quoteIdent(r.name), true
	}
	for _, r := range catalogRels {
		if r.oid == oid && r.schema == pgCatalog {
			return r.name, true
		} else if r.oid == oid {
			return r.schema + "." + r.name, true
		}
	}
	return "", false
}

// typeAliases are SQL's type names for pg_type's.
var typeAliases = map[string]string{
	"integer": "int4", "int": "int4", "smallint": "int2", "bigint": "int8", "boolean": "bool",
	"real": "float4", "float": "float8", "double precision": "float8", "character varying": "varchar",
	"character": "bpchar", "char": "bpchar", `"char"`: "char", "decimal": "numeric", "dec": "numeric",
	"timestamp with time zone": "timestamptz", "timestamp without time zone": "timestamp",
	"time with time zone": "timetz", "time without time zone": "time", "bit varying": "varbit",
}

// typmodPart is a type name's modifier ("(20)", "(10,2)").
var typmodPart = regexp.MustCompile(`\s*\([0-9, ]*\)`)

// regtypeIn is a type's oid by SQL or pg_type name ("integer", "int4",
// "text[]", "character varying(20)", a table's row type); 42704 else.
func (m *model) regtypeIn(s string) (int64, error) {
	if n, ok := numericOid(s); ok {
		return n, nil
	}
	name := strings.TrimSpace(typmodPart.ReplaceAllString(s, ""))
	name = strings.TrimPrefix(name, "pg_catalog.")
	array := strings.HasSuffix(name, "[]")
	name = strings.TrimSuffix(name, "[]")
	if a, ok := typeAliases[strings.ToLower(name)]; ok {
		name = a
	} else if !strings.HasPrefix(name, `"`) {
		name = strings.ToLower(name)
	}
	if t := typesByName[strings.Trim(name, `"`)]; t != nil {
		if array {
			return t.array, nil
		}
		return t.oid, nil
	}
	if _, n := splitName(name); m.relByName[n] != nil && m.relByName[n].rowType != 0 {
		if array {
			return m.relByName[n].arrayType, nil
		}
		return m.relByName[n].rowType, nil
	}
	return 0, pgError("42704", "type %q does not exist", s)
}

// regtypeOut is format_type(oid, NULL) for a known type.
func (m *model) regtypeOut(oid int64) (string, bool) {
	if typesByOid[oid] == nil && m.rowTypeRel(oid) == nil {
		return "", false
	}
	return m.formatType(oid, -1, false), true
}

func regprocIn(s string) (int64, error) {
	if p := procsByName[strings.TrimPrefix(strings.TrimSpace(s), "pg_catalog.")]; p != nil {
		return p.oid, nil
	}
	return 0, pgError("42883", "function %q does not exist", s)
}

func regprocOut(oid int64) (string, bool) {
	if p := procsByOid[oid]; p != nil {
		return p.name, true
	}
	return "", false
}

// namespaces are the schemas by oid.
var namespaces = map[int64]string{nsPgCatalog: pgCatalog, nsPublic: "public", nsInfoSchema: informationSchema,
	nsPgToast: "pg_toast"}

func regnamespaceIn(s string) (int64, error) {
	_, name := splitName(s)
	for oid, n := range namespaces {
		if n == name {
			return oid, nil
		}
	}
	return 0, pgError("3F000", "schema %q does not exist", s)
}

func regnamespaceOut(oid int64) (string, bool) {
	n, ok := namespaces[oid]
	return n, ok
}

func (m *model) regroleIn(s string) (int64, error) {
	_, name := splitName(s)
	switch name {
	case m.s.User:
		return roleOid(m.s), nil
	case bootstrapRoleName:
		return bootstrapRole, nil
	}
	return 0, pgError("42704", "role %q does not exist", s)
}

func (m *model) regroleOut(oid int64) (string, bool) {
	name := m.userName(oid)
	return quoteIdent(name), !strings.HasPrefix(name, "unknown (OID=")
}
