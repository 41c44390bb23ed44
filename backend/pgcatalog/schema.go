package pgcatalog

import (
	"slices"
	"strings"
)

// Schema is the user schema a backend shows PostgreSQL clients: every
// object in the default schema ("public"), in a deterministic order
// (creation order where the backend knows it), relchain's own tables and
// the storage engine's never among them (New drops any object named
// relchain_… or sqlite_… that slips in, so no catalog query shows one).
type Schema struct {
	// Database is the database's name (current_database(), pg_database).
	Database string
	// User is the session's role (current_user, pg_roles, relation owners).
	User      string
	Tables    []Table
	Views     []View
	Sequences []Sequence
}

// Table is one table.
type Table struct {
	Name    string
	Columns []Column
	// PrimaryKey names the key's columns in key order (none: nil) and
	// PrimaryKeyName its constraint ("<table>_pkey" when the storage keeps
	// no name).
	PrimaryKey     []string
	PrimaryKeyName string
	Uniques        []Unique
	Indexes        []Index // indexes that back no constraint
	ForeignKeys    []ForeignKey
	Checks         []Check
	// Comment is COMMENT ON TABLE's text ("" none).
	Comment string
}

// Column is one column of a table or view.
type Column struct {
	Name string
	// Type is the PostgreSQL type as pg_type names it ("int4", "varchar",
	// "timestamptz", "_text" for text[]), Typmod its modifier as
	// PostgreSQL reports it (-1 none; varchar(n) is n+4; numeric(p,s) is
	// ((p<<16)|s)+4).
	Type    string
	Typmod  int32
	NotNull bool
	// Default is the default's PostgreSQL expression text as
	// pg_get_expr shows it ("nextval('t_id_seq'::regclass)", "0",
	// "'x'::text"); "" when none.
	Default string
	// Identity is 'a' (GENERATED ALWAYS), 'd' (BY DEFAULT) or 0.
	Identity byte
	Comment  string
}

// Unique is a UNIQUE constraint.
type Unique struct {
	Name    string
	Columns []string
}

// Index is an index that backs no constraint.
type Index struct {
	Name    string
	Unique  bool
	Columns []string // an expression index's entries are refused by the backends that build Schema: not listed
}

// ForeignKey is a FOREIGN KEY constraint.
type ForeignKey struct {
	Name       string
	Columns    []string
	RefTable   string
	RefColumns []string
	// OnUpdate and OnDelete are pg_constraint's confupdtype/confdeltype:
	// 'a' no action, 'r' restrict, 'c' cascade, 'n' set null, 'd' set
	// default.
	OnUpdate, OnDelete byte
}

// Check is a CHECK constraint: Expr its PostgreSQL expression text.
type Check struct {
	Name string
	Expr string
}

// View is a view: Definition its query's text.
type View struct {
	Name       string
	Columns    []Column
	Definition string
}

// Sequence is a sequence (a serial column's, or CREATE SEQUENCE's).
type Sequence struct {
	Name                        string
	Type                        string // int2, int4, int8
	Start, Increment, Min, Max  int64
	Cycle                       bool
	OwnedByTable, OwnedByColumn string // "" when owned by no column
}

// internalName says whether name is relchain's own object's (relchain_…)
// or SQLite's (sqlite_…, its internal tables and autoindexes), which a
// catalog never shows.
func internalName(name string) bool {
	n := strings.ToLower(name)
	return strings.HasPrefix(n, "relchain_") || strings.HasPrefix(n, "sqlite_")
}

// withoutInternal is s without relchain's and SQLite's own objects: their
// tables, views and sequences, and indexes, constraints and foreign keys
// named so or over such a table.
func withoutInternal(s *Schema) *Schema {
	out := *s
	out.Tables, out.Views, out.Sequences = nil, nil, nil
	for _, t := range s.Tables {
		if internalName(t.Name) {
			continue
		}
		t.Indexes = slices.DeleteFunc(slices.Clone(t.Indexes), func(ix Index) bool { return internalName(ix.Name) })
		t.ForeignKeys = slices.DeleteFunc(slices.Clone(t.ForeignKeys), func(fk ForeignKey) bool {
			return internalName(fk.Name) || internalName(fk.RefTable)
		})
		out.Tables = append(out.Tables, t)
	}
	for _, v := range s.Views {
		if !internalName(v.Name) {
			out.Views = append(out.Views, v)
		}
	}
	for _, q := range s.Sequences {
		if !internalName(q.Name) {
			out.Sequences = append(out.Sequences, q)
		}
	}
	return &out
}
