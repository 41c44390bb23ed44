package pgdialect

import (
	"reflect"
	"strings"
	"testing"
)

var arrayCatalog = staticCatalog{
	"a": {col("id", "int4", -1), col("tags", "_text", -1), col("names", "_varchar", 7), col("nums", "_int8", -1)},
}

// TestArrayDeclaredTypesRoundTrip: an array column's declared type reads
// back as the array type (the Catalog sees it), other "_" names do not.
func TestArrayDeclaredTypesRoundTrip(t *testing.T) {
	for _, typ := range []Type{{"_text", -1}, {"_varchar", 24}, {"_int2", -1}, {"_int4", -1}, {"_int8", -1},
		{"_bool", -1}, {"_date", -1}, {"_timestamp", -1}, {"_timestamptz", -1}} {
		got, ok := ParseDeclaredType(DeclaredType(typ))
		if !ok || got != typ {
			t.Errorf("%v: declared %q reads back as %v %v", typ, DeclaredType(typ), got, ok)
		}
	}
	for _, d := range []string{"_numeric text", "_json text", "__text", "_"} {
		if got, ok := ParseDeclaredType(d); ok {
			t.Errorf("%q reads back as %v, want no type", d, got)
		}
	}
}

// TestArrayParamsAndColumns: placeholders beside arrays are typed as the
// array type (so the gateway announces _text's OID), results carry it.
func TestArrayParamsAndColumns(t *testing.T) {
	cases := []struct {
		sql    string
		params []Type
		cols   []ResultColumn
	}{
		{"INSERT INTO a (id, tags) VALUES (1, $1) RETURNING tags", []Type{{"_text", -1}}, []ResultColumn{{"tags", Type{"_text", -1}}}},
		{"SELECT id FROM a WHERE id = ANY($1)", []Type{{"_int4", -1}}, []ResultColumn{{"id", Type{"int4", -1}}}},
		{"SELECT names, names[1], tags @> $1 FROM a", []Type{{"_text", -1}}, []ResultColumn{
			{"names", Type{"_varchar", 7}}, {"names", Type{"varchar", 7}}, {"?column?", Type{"bool", -1}}}},
		{"SELECT * FROM unnest($1::int8[], ARRAY['a']) AS u(n, s)", []Type{{"_int8", -1}}, []ResultColumn{{"n", Type{"int8", -1}}, {"s", Type{"text", -1}}}},
		{"SELECT ARRAY[1, 2], array_agg(id ORDER BY id), cardinality(array_agg(id ORDER BY id)), '{a}'::text[] FROM a", nil, []ResultColumn{
			{"array", Type{"_int4", -1}}, {"array_agg", Type{"_int4", -1}}, {"cardinality", Type{"int4", -1}}, {"text", Type{"_text", -1}}}},
	}
	for _, c := range cases {
		tr, err := Translate(c.sql, arrayCatalog)
		if err != nil {
			t.Errorf("%s: %v", c.sql, err)
			continue
		}
		if !reflect.DeepEqual(tr.Params, c.params) || !reflect.DeepEqual(tr.Columns, c.cols) {
			t.Errorf("%s\n got params %v columns %v\nwant params %v columns %v", c.sql, tr.Params, tr.Columns, c.params, c.cols)
		}
	}
}

// TestArrayRefusals: what arrays cannot do here is refused by name, never
// answered by the stored text's order.
func TestArrayRefusals(t *testing.T) {
	cases := []struct{ sql, code, mention string }{
		{"SELECT id FROM a ORDER BY tags", "0A000", "ORDER BY an array"},
		{"SELECT id FROM a WHERE tags < '{b}'", "0A000", "array order"},
		{"SELECT id FROM a WHERE tags BETWEEN '{a}' AND '{b}'", "0A000", "array order"},
		{"SELECT max(tags) FROM a", "0A000", "max(text[])"},
		{"SELECT greatest(tags, '{z}') FROM a", "0A000", "greatest of arrays"},
		{"SELECT tags[1:2] FROM a", "0A000", "slices"},
		{"SELECT tags[1][1] FROM a", "0A000", "multi-dimensional"},
		{"SELECT tags || names FROM a", "0A000", "concatenation"},
		{"SELECT nums::int4[] FROM a", "0A000", "cast"},
		{"SELECT names = tags FROM a", "42883", "character varying[] = text[]"},
		{"SELECT 1 < ANY(nums) FROM a", "0A000", "ANY"},
		{"CREATE TABLE u (x float8[])", "0A000", "arrays of double precision"},
		{"SELECT array_length('{1}', 1)", "42804", "polymorphic"},
		{"SELECT ARRAY[]", "42P18", "empty array"},
		{"SELECT a.id, x FROM a, unnest(a.tags) AS x", "0A000", "LATERAL"},
		{"SELECT unnest(tags) FROM a", "0A000", "unnest"},
		{"SELECT * FROM unnest(ARRAY[1], ARRAY[2])", "0A000", "AS u(a, b)"},
		{"SELECT * FROM unnest('{1}')", "0A000", "typed arrays"},
	}
	for _, c := range cases {
		_, err := Translate(c.sql, arrayCatalog)
		e, ok := err.(*Error)
		if !ok || e.Code != c.code || !strings.Contains(e.Message, c.mention) {
			t.Errorf("%s: got %v, want %s mentioning %q", c.sql, err, c.code, c.mention)
		}
	}
}
