package pgdialect

import (
	"reflect"
	"testing"
)

// apply translates sql on s and applies it, failing the test on an error.
func apply(t *testing.T, s *Schema, sql string) {
	t.Helper()
	tr, err := Translate(sql, s)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	s.Apply(tr)
}

// The in-memory schema follows CREATE TABLE, IF NOT EXISTS and DROP TABLE
// as MariaDB's information_schema does (TestDifferential compares the
// two on a real MariaDB for every statement of the corpus).
func TestSchemaFollowsDDL(t *testing.T) {
	s := NewSchema()
	apply(t, s, "CREATE TABLE a (k varchar(40) PRIMARY KEY, v varchar(10) NOT NULL DEFAULT 'x', n int4)")
	want := []Column{
		{Name: "k", Type: Type{Name: "varchar", Typmod: 44}, NotNull: true, MaxChars: 40},
		{Name: "v", Type: Type{Name: "varchar", Typmod: 14}, NotNull: true, Default: true, MaxChars: 10},
		{Name: "n", Type: tInt4, Default: true},
	}
	if got, ok := s.Columns("a"); !ok || !reflect.DeepEqual(got, want) {
		t.Fatalf("columns of a: %+v, %v; want %+v", got, ok, want)
	}
	apply(t, s, "CREATE TABLE IF NOT EXISTS a (z int8 PRIMARY KEY)")
	if got, _ := s.Columns("a"); len(got) != 3 {
		t.Fatalf("IF NOT EXISTS replaced the table: %+v", got)
	}
	apply(t, s, "CREATE INDEX a_n ON a (n)")
	apply(t, s, "CREATE TABLE b (id int8, PRIMARY KEY (id))")
	if got, _ := s.Columns("b"); len(got) != 1 || !got[0].NotNull {
		t.Fatalf("a table PRIMARY KEY's column is NOT NULL: %+v", got)
	}
	apply(t, s, "DROP TABLE a, b")
	if _, ok := s.Columns("a"); ok {
		t.Fatal("a is still there after DROP TABLE")
	}
	if _, err := Translate("SELECT n FROM a", s); err == nil {
		t.Fatal("a statement on a dropped table translates")
	}
}

// The in-memory schema keeps PostgreSQL's relation namespace as the
// translation on MariaDB's information_schema reads it (namespace.case
// compares the two): constraints' and CREATE INDEX's index names, gone
// with their table.
func TestSchemaKeepsTheRelationNamespace(t *testing.T) {
	s := NewSchema()
	apply(t, s, "CREATE TABLE a (k varchar(40) PRIMARY KEY, e varchar(10) UNIQUE, n int4)")
	apply(t, s, "CREATE TABLE b (id int4, CONSTRAINT b_key PRIMARY KEY (id))")
	apply(t, s, "CREATE INDEX a_n ON a (n)")
	for _, name := range []string{"a_pkey", "a_e_key", "a_n", "b_key", "a", "b"} {
		if !s.RelationTaken(name) {
			t.Errorf("%s: not taken", name)
		}
		if _, err := Translate("CREATE INDEX "+name+" ON b (id)", s); err == nil {
			t.Errorf("CREATE INDEX %s translates", name)
		}
	}
	if s.RelationTaken("b_pkey") {
		t.Error("b_pkey is taken, though b's primary key is b_key")
	}
	apply(t, s, "DROP TABLE a")
	for _, name := range []string{"a_pkey", "a_e_key", "a_n"} {
		if s.RelationTaken(name) {
			t.Errorf("%s: still taken after DROP TABLE a", name)
		}
	}
	apply(t, s, "CREATE INDEX a_pkey ON b (id)")
}
