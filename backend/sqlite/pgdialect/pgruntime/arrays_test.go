package pgruntime_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/relchain/relchain/backend/sqlite/pgdialect"
	"github.com/relchain/relchain/backend/sqlite/pgdialect/pgruntime"
)

// TestArrayParamAndValue: an array parameter is PostgreSQL's array text,
// read by array_in into the canonical stored text; an array result is
// that text.
func TestArrayParamAndValue(t *testing.T) {
	cases := []struct {
		typ  pgdialect.Type
		in   any
		want any
		code string
	}{
		{pgdialect.Type{Name: "_text", Typmod: -1}, `{ a ,"b c",NULL,"null"}`, `{a,"b c",NULL,"null"}`, ""},
		{pgdialect.Type{Name: "_int4", Typmod: -1}, `{1,+2}`, `{1,2}`, ""},
		{pgdialect.Type{Name: "_int2", Typmod: -1}, `{70000}`, nil, "22003"},
		{pgdialect.Type{Name: "_varchar", Typmod: 6}, `{abc}`, nil, "22001"},
		{pgdialect.Type{Name: "_bool", Typmod: -1}, `{true,0}`, `{t,f}`, ""},
		{pgdialect.Type{Name: "_text", Typmod: -1}, `a,b`, nil, "22P02"},
		{pgdialect.Type{Name: "_text", Typmod: -1}, int64(1), nil, "22P02"},
	}
	for _, c := range cases {
		got, err := pgruntime.Param(c.typ, c.in)
		code, _ := pgruntime.SQLState(err)
		if code != c.code || (err == nil && got != c.want) {
			t.Errorf("Param(%v, %v) = %v, %v; want %v, %s", c.typ, c.in, got, err, c.want, c.code)
		}
	}
	v, err := pgruntime.Value(pgdialect.Type{Name: "_int8", Typmod: -1}, "{1,NULL}")
	if err != nil || v != "{1,NULL}" {
		t.Errorf("Value of an int8[]: %v, %v", v, err)
	}
}

// TestArrayFunctions runs the runtime's array functions on SQLite.
func TestArrayFunctions(t *testing.T) {
	d := mustOpen(t)
	cases := []struct{ sql, want string }{
		{"SELECT pg_array_make('text', 'a', NULL, 'b c'), pg_array_make('bool', 1, 0), pg_array_make('int4')", `{a,NULL,"b c"}|{t,f}|{}`},
		{"SELECT pg_array_get('{1,2}', 2, 'int4') + 1, pg_array_get('{1,2}', 3, 'int4'), pg_array_get('{t}', 1, 'bool')", "3|NULL|1"},
		{"SELECT pg_array_any(2, '{1,2}', 'int4'), pg_array_any(3, '{1,NULL}', 'int4'), pg_array_any(NULL, '{}', 'int4')", "1|NULL|0"},
		{"SELECT pg_array_op('@>', '{a,b}', '{b}'), pg_array_op('@>', '{a,NULL}', '{NULL}'), pg_array_op('&&', '{a}', '{b}')", "1|0|0"},
		{"SELECT pg_array_to_string('{a,NULL,c}', ',', NULL), pg_array_to_string('{a,NULL}', ',', '*')", "a,c|a,*"},
		{"SELECT pg_array_fn('array_length', '{}', 1), pg_array_fn('cardinality', '{x,y}', 1)", "NULL|2"},
		{"SELECT pg_array_edit('append', NULL, 1, 'int4'), pg_array_edit('prepend', '{b}', 'a b', 'text'), pg_array_edit('cat', '{1}', NULL, 'int4'), pg_array_edit('cat', NULL, NULL, 'int4')", `{1}|{"a b",b}|{1}|NULL`},
		{"SELECT pg_array_edit('remove', '{1,NULL,1}', 1, 'int4'), pg_array_edit('remove', '{1,NULL}', NULL, 'int4'), pg_array_edit('position', '{a,NULL}', NULL, 'text'), pg_array_edit('position', '{a}', 'b', 'text')", "{NULL}|{1}|2|NULL"},
	}
	for _, c := range cases {
		st, _, err := d.c.Prepare(c.sql)
		if err != nil {
			t.Fatalf("%s: %v", c.sql, err)
		}
		var parts []string
		for st.Step() {
			for i := 0; i < st.ColumnCount(); i++ {
				parts = append(parts, fmt.Sprint(columnValue(st, i)))
			}
		}
		if err := st.Close(); err != nil {
			t.Fatalf("%s: %v", c.sql, err)
		}
		if got := strings.ReplaceAll(strings.Join(parts, "|"), "<nil>", "NULL"); got != c.want {
			t.Errorf("%s = %q, want %q", c.sql, got, c.want)
		}
	}
}
