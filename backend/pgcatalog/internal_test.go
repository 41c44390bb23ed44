package pgcatalog

import (
	"context"
	"errors"
	"testing"
)

// TestInternalObjectsHidden checks that relchain's own tables and SQLite's
// internal objects, should a backend pass them in its Schema, show in no
// catalog relation and resolve by no name.
func TestInternalObjectsHidden(t *testing.T) {
	s := testSchema()
	s.Tables[0].Indexes = append(s.Tables[0].Indexes, Index{Name: "sqlite_autoindex_authors_1", Columns: []string{"email"}})
	s.Tables = append(s.Tables,
		Table{Name: "relchain_meta", Columns: []Column{{Name: "k", Type: "text", Typmod: -1}}, PrimaryKey: []string{"k"}},
		Table{Name: "sqlite_sequence", Columns: []Column{{Name: "name", Type: "text", Typmod: -1}},
			ForeignKeys: []ForeignKey{{Name: "f", Columns: []string{"name"}, RefTable: "relchain_meta", RefColumns: []string{"k"}}}},
		Table{Name: "notes", Columns: []Column{{Name: "k", Type: "text", Typmod: -1}},
			ForeignKeys: []ForeignKey{{Name: "notes_k_fkey", Columns: []string{"k"}, RefTable: "relchain_meta", RefColumns: []string{"k"}}}})
	s.Views = append(s.Views, View{Name: "RELCHAIN_v", Definition: " SELECT 1;", Columns: []Column{{Name: "x", Type: "int4", Typmod: -1}}})
	s.Sequences = append(s.Sequences, Sequence{Name: "relchain_seq", Type: "int8", Start: 1, Increment: 1, Min: 1, Max: 9})
	e, err := New(s)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for _, c := range []struct{ sql, want string }{
		{`SELECT count(*) FROM pg_class WHERE lower(relname) LIKE 'relchain%' OR relname LIKE 'sqlite%'`, "i:0"},
		{`SELECT count(*) FROM information_schema.tables WHERE lower(table_name) LIKE 'relchain%' OR table_name LIKE 'sqlite%'`, "i:0"},
		{`SELECT count(*) FROM pg_type WHERE lower(typname) LIKE '%relchain%' OR typname LIKE '%sqlite%'`, "i:0"},
		{`SELECT count(*) FROM pg_constraint WHERE confrelid <> 0 AND conname <> 'books_author_id_fkey'`, "i:0"},
		{`SELECT count(*) FROM pg_indexes WHERE indexname LIKE 'sqlite%'`, "i:0"},
		{`SELECT string_agg(relname, ',' ORDER BY relname) FROM pg_class WHERE relnamespace = 2200 AND relkind = 'r'`, "s:authors,books,notes"},
	} {
		res, err := e.Query(context.Background(), c.sql, nil)
		if err != nil {
			t.Errorf("%s: %v", c.sql, err)
			continue
		}
		if got := rowsText(res.Rows); got != c.want {
			t.Errorf("%s: got %s, want %s", c.sql, got, c.want)
		}
	}
	for _, q := range []string{`SELECT * FROM sqlite_master`, `SELECT * FROM pg_catalog.sqlite_schema`,
		`SELECT 'relchain_meta'::regclass`} {
		_, err := e.Query(context.Background(), q, nil)
		var pe *Error
		if !errors.As(err, &pe) || (pe.Code != "42P01") {
			t.Errorf("%s: got %v, want 42P01", q, err)
		}
	}
}
