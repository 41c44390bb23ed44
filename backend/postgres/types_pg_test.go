package postgres_test

import (
	"reflect"
	"testing"

	"github.com/relchain/relchain/backend/postgres/pgtest"
)

// Describe and Query report PostgreSQL's type modifiers and name arrays
// of the vocabulary's types (issue 33: numeric(8,2) reached Django as
// max_digits=65535, int4[] as text).
func TestTypesCarryTypmodsAndArrays(t *testing.T) {
	b := mustOpen(t, pgtest.DSN(t))
	t.Cleanup(func() { b.Close() })
	block(t, b, 1, `CREATE TABLE ty (id int4 PRIMARY KEY, n numeric(8,2), v varchar(20), c char(5), ts timestamp(3),
		tt timetz, a int4[], at timestamptz[], t text)`)
	wantTypes := []string{"int4", "numeric", "varchar", "bpchar", "timestamp", "timetz", "_int4", "_timestamptz", "text"}
	wantMods := []int32{-1, 8<<16 | 2 + 4, 24, 9, 3, -1, -1, -1, -1}
	d, err := b.Describe(ctx(t), `SELECT * FROM ty`)
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	var mods []int32
	for _, c := range d.Columns {
		types = append(types, c.Type)
		m := int32(-1)
		if c.Typmod != nil {
			m = *c.Typmod
		}
		mods = append(mods, m)
	}
	if !reflect.DeepEqual(types, wantTypes) || !reflect.DeepEqual(mods, wantMods) {
		t.Errorf("Describe: types %q typmods %v, want %q %v", types, mods, wantTypes, wantMods)
	}
	rows, _, err := b.Query(ctx(t), `SELECT * FROM ty`, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(rows.Types, wantTypes) || !reflect.DeepEqual(rows.Typmods, wantMods) {
		t.Errorf("Query: types %q typmods %v, want %q %v", rows.Types, rows.Typmods, wantTypes, wantMods)
	}
	rows, err = b.QueryLatest(ctx(t), `SELECT 1 AS one`, nil)
	if err != nil || rows.Typmods != nil {
		t.Errorf("QueryLatest of a column without typmod: typmods %v, %v; want none", rows.Typmods, err)
	}
}
