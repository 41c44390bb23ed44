package pgcatalog

import "fmt"

// The renderers below print a Schema's objects as PostgreSQL's catalog
// functions print them (format_type, pg_get_constraintdef,
// pg_get_indexdef), for a caller that writes the schema as PostgreSQL DDL
// (the SQLite backend's dump of a postgres-dialect database) without an
// Engine.

// FormatType is format_type of the built-in type PostgreSQL names name
// (pg_type.typname: "int4", "_text") with modifier typmod (-1 none):
// "integer", "character varying(20)", "numeric(10,2)", "text[]". It is
// false for a type the catalog does not know.
func FormatType(name string, typmod int32) (string, bool) {
	oid := typeOid(name)
	if oid == 0 {
		return "", false
	}
	return (&model{}).formatType(oid, int64(typmod), true), true
}

// QuoteIdent is quote_ident: name bare when PostgreSQL would print it so,
// else double-quoted.
func QuoteIdent(name string) string { return quoteIdent(name) }

// PrimaryKeyDef is pg_get_constraintdef of a primary key on cols.
func PrimaryKeyDef(cols []string) string { return "PRIMARY KEY (" + identList(cols) + ")" }

// UniqueDef is pg_get_constraintdef of a UNIQUE constraint.
func UniqueDef(u Unique) string { return "UNIQUE (" + identList(u.Columns) + ")" }

// ForeignKeyDef is pg_get_constraintdef of a foreign key.
func ForeignKeyDef(fk ForeignKey) string {
	s := fmt.Sprintf("FOREIGN KEY (%s) REFERENCES %s(%s)", identList(fk.Columns), quoteIdent(fk.RefTable),
		identList(fk.RefColumns))
	if a := fkActionText(fkAction(fk.OnUpdate)); a != "NO ACTION" {
		s += " ON UPDATE " + a
	}
	if a := fkActionText(fkAction(fk.OnDelete)); a != "NO ACTION" {
		s += " ON DELETE " + a
	}
	return s
}

// IndexDef is pg_get_indexdef(oid, 0, true) of index ix of table: its
// CREATE INDEX statement, the table unqualified.
func IndexDef(table string, ix Index) string {
	unique := ""
	if ix.Unique {
		unique = "UNIQUE "
	}
	return fmt.Sprintf("CREATE %sINDEX %s ON %s USING btree (%s)", unique, quoteIdent(ix.Name), quoteIdent(table),
		identList(ix.Columns))
}
