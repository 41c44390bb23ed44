package pgcatalog

import (
	"fmt"
	"strings"

	sqlite3 "github.com/ncruces/go-sqlite3"
)

// describeFuncs are the functions that print the Schema's objects:
// format_type, pg_get_*, the visibility tests and the descriptions.
func describeFuncs(m *model) []scalar {
	null := constant(nil)
	return []scalar{
		{"format_type", 2, formatTypeFunc(m)},
		{"pg_get_expr", -1, strict(func(a []sqlite3.Value) (any, error) { return a[0].Text(), nil })},
		{"pg_get_indexdef", -1, strict(func(a []sqlite3.Value) (any, error) {
			return nullUnless(m.indexDef(a[0].Int64(), int(argInt(a, 1, 0))))
		})},
		{"pg_get_constraintdef", -1, strict(func(a []sqlite3.Value) (any, error) {
			return nullUnless(m.constraintDef(a[0].Int64()))
		})},
		{"pg_get_viewdef", -1, strict(func(a []sqlite3.Value) (any, error) { return m.viewDefOf(a[0]) })},
		{"pg_get_triggerdef", -1, null}, {"pg_get_functiondef", -1, null}, {"pg_get_partkeydef", -1, null},
		{"pg_get_statisticsobjdef_columns", -1, null},
		{"pg_get_function_arguments", 1, strict(m.functionArgs)},
		{"pg_get_function_identity_arguments", 1, strict(m.functionArgs)},
		{"pg_get_function_result", 1, strict(m.functionResult)},
		{"pg_get_userbyid", 1, strict(func(a []sqlite3.Value) (any, error) { return m.userName(a[0].Int64()), nil })},
		{"pg_get_serial_sequence", 2, strict(m.serialSequence)},
		{"pg_table_is_visible", 1, strict(func(a []sqlite3.Value) (any, error) { return m.relVisible(a[0].Int64()), nil })},
		{"pg_type_is_visible", 1, strict(constant(true))}, {"pg_function_is_visible", 1, strict(constant(true))},
		{"pg_collation_is_visible", 1, strict(constant(true))}, {"pg_opclass_is_visible", 1, strict(constant(true))},
		{"pg_is_other_temp_schema", 1, strict(constant(false))},
		{"obj_description", -1, strict(m.objDescription)},
		{"col_description", 2, strict(func(a []sqlite3.Value) (any, error) {
			return m.description(a[0].Int64(), classPgClass, int(a[1].Int64())), nil
		})},
		{"shobj_description", 2, strict(constant(nil))},
	}
}

// nullUnless is s, or NULL when ok is false.
func nullUnless(s string, ok bool) (any, error) {
	if !ok {
		return nil, nil
	}
	return s, nil
}

// formatTypeFunc is format_type(oid, typmod): NULL for a NULL oid.
func formatTypeFunc(m *model) goFunc {
	return func(a []sqlite3.Value) (any, error) {
		if a[0].Type() == sqlite3.NULL {
			return nil, nil
		}
		return m.formatType(a[0].Int64(), a[1].Int64(), a[1].Type() != sqlite3.NULL), nil
	}
}

// viewDefOf is pg_get_viewdef of an oid or a view's name.
func (m *model) viewDefOf(v sqlite3.Value) (any, error) {
	oid := v.Int64()
	if v.Type() == sqlite3.TEXT {
		r, err := m.regclassIn(v.Text())
		if err != nil {
			return nil, err
		}
		oid = r
	}
	return nullUnless(m.viewDef(oid))
}

// functionArgs is pg_get_function_arguments of a built-in procedure.
func (m *model) functionArgs(a []sqlite3.Value) (any, error) {
	p := procsByOid[a[0].Int64()]
	if p == nil {
		return nil, nil
	}
	names := make([]string, len(p.args))
	for i, t := range p.args {
		names[i] = m.formatType(t, -1, false)
	}
	return strings.Join(names, ", "), nil
}

// functionResult is pg_get_function_result of a built-in procedure.
func (m *model) functionResult(a []sqlite3.Value) (any, error) {
	p := procsByOid[a[0].Int64()]
	if p == nil {
		return nil, nil
	}
	return m.formatType(p.ret, -1, false), nil
}

// userName is pg_get_userbyid: a role's name or "unknown (OID=n)".
func (m *model) userName(oid int64) string {
	switch {
	case oid == roleOid(m.s):
		return m.s.User
	case oid == bootstrapRole:
		return bootstrapRoleName
	}
	return fmt.Sprintf("unknown (OID=%d)", oid)
}

// serialSequence is pg_get_serial_sequence(table, column): the sequence
// a column owns, schema-qualified, or NULL.
func (m *model) serialSequence(a []sqlite3.Value) (any, error) {
	oid, err := m.regclassIn(a[0].Text())
	if err != nil {
		return nil, err
	}
	t := m.relByOid[oid]
	if t == nil {
		return nil, nil
	}
	col := a[1].Text()
	if _, _, ok := t.attnum(col); !ok {
		return nil, pgError("42703", "column %q of relation %q does not exist", col, t.name)
	}
	for _, s := range m.s.Sequences {
		if s.OwnedByTable == t.name && s.OwnedByColumn == col {
			return "public." + quoteIdent(s.Name), nil
		}
	}
	return nil, nil
}

// relVisible is pg_table_is_visible: true for every relation known
// (all live in pg_catalog, information_schema or public), NULL else.
func (m *model) relVisible(oid int64) any {
	if m.relByOid[oid] != nil {
		return true
	}
	for _, r := range catalogRels {
		if r.oid == oid {
			return r.schema == pgCatalog
		}
	}
	return nil
}

// objDescription is obj_description(oid[, catalog]).
func (m *model) objDescription(a []sqlite3.Value) (any, error) {
	class := int64(classPgClass)
	if len(a) > 1 {
		c, err := m.regclassIn(a[1].Text())
		if err != nil {
			return nil, err
		}
		class = c
	}
	return m.description(a[0].Int64(), class, 0), nil
}

// description is a comment (pg_description) or NULL.
func (m *model) description(oid, class int64, sub int) any {
	if class == 3079 && oid == 13559 && sub == 0 {
		return "PL/pgSQL procedural language"
	}
	r := m.relByOid[oid]
	if class != classPgClass || r == nil {
		return nil
	}
	text := r.comment
	if sub > 0 && sub <= len(r.cols) {
		text = r.cols[sub-1].Comment
	} else if sub != 0 {
		text = ""
	}
	if text == "" {
		return nil
	}
	return text
}
