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
