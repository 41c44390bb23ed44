package pgcatalog

import (
	"fmt"
	"strconv"
)

// fillInfoSchema adds information_schema's rows for the Schema.
func fillInfoSchema(w *writer, m *model) {
	db, user := m.s.Database, m.s.User
	for _, ns := range []string{pgCatalog, "public", informationSchema, "pg_toast"} {
		owner := bootstrapRoleName
		if ns == "public" {
			owner = user
		}
		w.insert("information_schema.schemata", row{"catalog_name": db, "schema_name": ns, "schema_owner": owner})
	}
	w.insert("information_schema.enabled_roles", row{"role_name": user})
	w.insert("information_schema.character_sets", row{"character_set_catalog": nil, "character_set_schema": nil,
		"character_set_name": "UTF8", "character_repertoire": "UCS", "form_of_use": "UTF8",
		"default_collate_catalog": db, "default_collate_schema": pgCatalog, "default_collate_name": "ucs_basic"})
	for _, r := range m.rels {
		switch r.kind {
		case "r", "v":
			fillInfoTable(w, m, r)
		case "S":
			fillInfoSequence(w, m, r)
		}
	}
	for _, c := range m.cons {
		fillInfoConstraint(w, m, c)
	}
}

// fillInfoTable adds a table's or view's tables, columns, views,
// table_privileges and NOT NULL check rows.
func fillInfoTable(w *writer, m *model, r *relObj) {
	db := m.s.Database
	typ := "BASE TABLE"
	if r.kind == "v" {
		typ = "VIEW"
		w.insert("information_schema.views", row{"table_catalog": db, "table_schema": "public", "table_name": r.name,
			"view_definition": r.view.Definition, "check_option": "NONE", "is_updatable": "YES",
			"is_insertable_into": "YES", "is_trigger_updatable": "NO", "is_trigger_deletable": "NO",
			"is_trigger_insertable_into": "NO"})
	}
	w.insert("information_schema.tables", row{"table_catalog": db, "table_schema": "public", "table_name": r.name,
		"table_type": typ, "is_insertable_into": "YES", "is_typed": "NO"})
	for i, c := range r.cols {
		fillInfoColumn(w, m, r, i+1, c)
		if c.NotNull && r.kind == "r" {
			fillNotNull(w, m, r, i+1, c)
		}
	}
	for _, p := range []string{"INSERT", "SELECT", "UPDATE", "DELETE", "TRUNCATE", "REFERENCES", "TRIGGER"} {
		w.insert("information_schema.table_privileges", row{"grantor": m.s.User, "grantee": m.s.User,
			"table_catalog": db, "table_schema": "public", "table_name": r.name, "privilege_type": p,
			"is_grantable": "YES", "with_hierarchy": yesNo(p == "SELECT")})
	}
}

func yesNo(b bool) string {
	if b {
		return "YES"
	}
	return "NO"
}

// fillNotNull adds a NOT NULL column's check constraint as
// information_schema shows it ("2200_<table oid>_<attnum>_not_null").
func fillNotNull(w *writer, m *model, r *relObj, num int, c Column) {
	name := fmt.Sprintf("%d_%d_%d_not_null", nsPublic, r.oid, num)
	db := m.s.Database
	w.insert("information_schema.table_constraints", row{"constraint_catalog": db, "constraint_schema": "public",
		"constraint_name": name, "table_catalog": db, "table_schema": "public", "table_name": r.name,
		"constraint_type": "CHECK", "is_deferrable": "NO", "initially_deferred": "NO", "enforced": "YES"})
	w.insert("information_schema.check_constraints", row{"constraint_catalog": db, "constraint_schema": "public",
		"constraint_name": name, "check_clause": c.Name + " IS NOT NULL"})
}

// fillInfoColumn adds one information_schema.columns row.
func fillInfoColumn(w *writer, m *model, r *relObj, num int, c Column) {
	db := m.s.Database
	cr := row{"table_catalog": db, "table_schema": "public", "table_name": r.name, "column_name": c.Name,
		"ordinal_position": num, "is_nullable": yesNo(!c.NotNull), "data_type": infoDataType(c.Type),
		"udt_catalog": db, "udt_schema": pgCatalog, "udt_name": c.Type, "dtd_identifier": strconv.Itoa(num),
		"is_self_referencing": "NO", "is_identity": yesNo(c.Identity != 0), "identity_cycle": "NO",
		"is_generated": "NEVER", "is_updatable": yesNo(r.kind == "r" || r.kind == "v")}
	if c.Default != "" {
		cr["column_default"] = c.Default
	}
	for k, v := range typeFacets(c.Type, int64(c.Typmod)) {
		cr[k] = v
	}
	if c.Identity != 0 {
		fillIdentity(cr, m, r, c)
	}
	w.insert("information_schema.columns", cr)
}

// fillIdentity sets an identity column's identity_* from its sequence.
func fillIdentity(cr row, m *model, r *relObj, c Column) {
	cr["identity_generation"] = map[byte]string{'a': "ALWAYS", 'd': "BY DEFAULT"}[c.Identity]
	for _, s := range m.s.Sequences {
		if s.OwnedByTable == r.name && s.OwnedByColumn == c.Name {
			cr["identity_start"], cr["identity_increment"] = strconv.FormatInt(s.Start, 10), strconv.FormatInt(s.Increment, 10)
			cr["identity_maximum"], cr["identity_minimum"] = strconv.FormatInt(s.Max, 10), strconv.FormatInt(s.Min, 10)
			cr["identity_cycle"] = yesNo(s.Cycle)
		}
	}
}

// infoDataType is information_schema's data_type of a pg_type name.
func infoDataType(name string) string {
	t := typesByName[name]
	switch {
	case t == nil:
		return "USER-DEFINED"
	case t.category == "A":
		return "ARRAY"
	}
	return t.fmtNull
}

// typeFacets are the length, precision and scale columns
// information_schema gives a type with typmod.
func typeFacets(name string, typmod int64) row {
	switch name {
	case "varchar", "bpchar", "text":
		if typmod >= 4 {
			return row{"character_maximum_length": typmod - 4, "character_octet_length": 4 * (typmod - 4)}
		}
		return row{"character_octet_length": 1073741824}
	case "bit", "varbit":
		if typmod >= 0 {
			return row{"character_maximum_length": typmod}
		}
	case "int2", "int4", "int8":
		return row{"numeric_precision": map[string]int{"int2": 16, "int4": 32, "int8": 64}[name],
			"numeric_precision_radix": 2, "numeric_scale": 0}
	case "float4", "float8":
		return row{"numeric_precision": map[string]int{"float4": 24, "float8": 53}[name], "numeric_precision_radix": 2}
	case "numeric":
		if typmod >= 4 {
			return row{"numeric_precision": ((typmod - 4) >> 16) & 0xffff, "numeric_precision_radix": 10,
				"numeric_scale": (typmod - 4) & 0xffff}
		}
		return row{"numeric_precision_radix": 10}
	case "date":
		return row{"datetime_precision": 0}
	case "time", "timetz", "timestamp", "timestamptz", "interval":
		return row{"datetime_precision": datetimePrecision(name, typmod)}
	}
	return row{}
}

func datetimePrecision(name string, typmod int64) int64 {
	if name == "interval" && typmod >= 0 {
		typmod &= 0xffff
		if typmod == 0xffff {
			return 6
		}
	}
	if typmod < 0 {
		return 6
	}
	return typmod
}

// fillInfoSequence adds a sequence's row (identity columns' sequences
// are not listed, as in PostgreSQL).
func fillInfoSequence(w *writer, m *model, r *relObj) {
	q := r.seq
	if t := m.relByName[q.OwnedByTable]; t != nil {
		if _, c, ok := t.attnum(q.OwnedByColumn); ok && c.Identity != 0 {
			return
		}
	}
	sr := row{"sequence_catalog": m.s.Database, "sequence_schema": "public", "sequence_name": r.name,
		"data_type": infoDataType(q.Type), "start_value": strconv.FormatInt(q.Start, 10),
		"minimum_value": strconv.FormatInt(q.Min, 10), "maximum_value": strconv.FormatInt(q.Max, 10),
		"increment": strconv.FormatInt(q.Increment, 10), "cycle_option": yesNo(q.Cycle)}
	for k, v := range typeFacets(q.Type, -1) {
		sr[k] = v
	}
	w.insert("information_schema.sequences", sr)
}

// constraintTypes are table_constraints' constraint_type by contype.
var constraintTypes = map[string]string{"p": "PRIMARY KEY", "u": "UNIQUE", "f": "FOREIGN KEY", "c": "CHECK"}

// fillInfoConstraint adds a constraint's rows: table_constraints,
// key_column_usage, constraint_column_usage, constraint_table_usage,
// referential_constraints and check_constraints.
func fillInfoConstraint(w *writer, m *model, c *consObj) {
	db := m.s.Database
	id := row{"constraint_catalog": db, "constraint_schema": "public", "constraint_name": c.name}
	tc := with(id, row{"table_catalog": db, "table_schema": "public", "table_name": c.table.name,
		"constraint_type": constraintTypes[c.typ], "is_deferrable": "NO", "initially_deferred": "NO",
		"enforced": "YES"})
	if c.typ == "u" {
		tc["nulls_distinct"] = "YES"
	}
	w.insert("information_schema.table_constraints", tc)
	if c.typ == "c" {
		w.insert("information_schema.check_constraints", with(id, row{"check_clause": "(" + c.check + ")"}))
	} else {
		fillKeyColumns(w, m, c, id)
	}
	used, usedCols := c.table, c.cols
	if c.typ == "f" {
		used, usedCols = c.ref, c.fk.RefColumns
		fillReferential(w, m, c, id)
	}
	for _, col := range usedCols {
		w.insert("information_schema.constraint_column_usage", with(id, row{"table_catalog": db,
			"table_schema": "public", "table_name": used.name, "column_name": col}))
	}
	if c.typ != "c" {
		w.insert("information_schema.constraint_table_usage", with(id, row{"table_catalog": db,
			"table_schema": "public", "table_name": used.name}))
	}
}

// with is a copy of a with b's columns added.
func with(a, b row) row {
	out := row{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}

// fillKeyColumns adds a key's or foreign key's key_column_usage rows.
func fillKeyColumns(w *writer, m *model, c *consObj, id row) {
	for i, col := range c.cols {
		kr := with(id, row{"table_catalog": m.s.Database, "table_schema": "public", "table_name": c.table.name,
			"column_name": col, "ordinal_position": i + 1})
		if c.typ == "f" {
			kr["position_in_unique_constraint"] = positionIn(c, i)
		}
		w.insert("information_schema.key_column_usage", kr)
	}
}

// positionIn is the 1-based position of a foreign key's i-th referenced
// column in the referenced key (nil when no key matches).
func positionIn(c *consObj, i int) any {
	if c.index == nil {
		return nil
	}
	for j, k := range c.index.index.cols {
		if k == c.fk.RefColumns[i] {
			return j + 1
		}
	}
	return nil
}

// fillReferential adds a foreign key's referential_constraints row.
func fillReferential(w *writer, m *model, c *consObj, id row) {
	rr := with(id, row{"unique_constraint_catalog": nil, "unique_constraint_schema": nil,
		"unique_constraint_name": nil, "match_option": "NONE",
		"update_rule": fkActionText(fkAction(c.fk.OnUpdate)), "delete_rule": fkActionText(fkAction(c.fk.OnDelete))})
	if c.index != nil && c.index.index.cons != nil {
		rr["unique_constraint_catalog"], rr["unique_constraint_schema"] = m.s.Database, "public"
		rr["unique_constraint_name"] = c.index.index.cons.name
	}
	w.insert("information_schema.referential_constraints", rr)
}
