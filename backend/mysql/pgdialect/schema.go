package pgdialect

import "maps"

// schemaChange is what one DDL translation does to the schema: the table
// it creates (CREATE TABLE, with its columns as MariaDB stores them) and
// the tables it drops.
type schemaChange struct {
	create string
	cols   []Column
	drop   []string
	// relations are the indexes it makes (CREATE TABLE's constraints',
	// by PostgreSQL's names; CREATE INDEX's), on the table on (create's
	// when "").
	relations []string
	on        string
}

// storedColumns are a new table's columns as SchemaCatalog reads them back
// from MariaDB: a varchar(n) column's MaxChars is n; a nullable column has a DEFAULT (MariaDB's
// information_schema shows NULL's: its COLUMN_DEFAULT is 'NULL').
func storedColumns(defs []*colDef) []Column {
	out := make([]Column, len(defs))
	for i, d := range defs {
		c := d.col
		c.Default = c.Default || !c.NotNull
		if c.Type.Name == "varchar" && c.Type.Typmod >= 4 {
			c.MaxChars = int(c.Type.Typmod - 4)
		}
		out[i] = c
	}
	return out
}

// Schema is a Catalog kept in memory from the DDL statements a network
// committed, in order (Apply): what SchemaCatalog reads from the MariaDB
// database those statements built, without a MariaDB server. A validator
// of a network over several engines that does not run MariaDB judges
// every statement by MariaDB's translation on it, so that a statement
// MariaDB's translation refuses fails on every node (app's shadow gate).
// A Schema is not safe for concurrent use.
type Schema struct {
	tables    map[string][]Column
	relations map[string]string // an index's name (PostgreSQL's) → its table
}

// NewSchema is an empty schema.
func NewSchema() *Schema {
	return &Schema{tables: make(map[string][]Column), relations: make(map[string]string)}
}

// Columns implements Catalog.
func (s *Schema) Columns(table string) ([]Column, bool) {
	cols, ok := s.tables[table]
	return cols, ok
}

// Apply makes the schema what it is after tr (a translation on s) ran on
// MariaDB: a created table is added with its constraints' indexes
// (CREATE TABLE IF NOT EXISTS of a table that exists leaves it), a created
// index added, a dropped table removed with its indexes; other statements
// change nothing.
func (s *Schema) Apply(tr *Translation) {
	for _, name := range tr.schema.drop {
		delete(s.tables, name)
		maps.DeleteFunc(s.relations, func(_, table string) bool { return table == name })
	}
	c := tr.schema
	if c.create != "" {
		if _, ok := s.tables[c.create]; ok {
			return // IF NOT EXISTS of a table that stands
		}
		s.tables[c.create] = append([]Column(nil), c.cols...)
	}
	on := c.on
	if on == "" {
		on = c.create
	}
	for _, r := range c.relations {
		if _, ok := s.relations[r]; !ok {
			s.relations[r] = on
		}
	}
}
