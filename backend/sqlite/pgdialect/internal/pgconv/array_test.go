package pgconv

import "testing"

func TestArrayIn(t *testing.T) {
	cases := []struct{ in, elem, want, code string }{
		{`{a,"b c",NULL}`, "text", `{a,"b c",NULL}`, ""},
		{` { a , b b ,"",null,"NULL", "x\"y" } `, "text", `{a,"b b","",NULL,"NULL","x\"y"}`, ""},
		{`{}`, "text", `{}`, ""},
		{`{1, 02,-3}`, "int4", `{1,2,-3}`, ""},
		{`{t,false,yes}`, "bool", `{t,f,t}`, ""},
		{`{a,}`, "text", ``, "22P02"},
		{`{a`, "text", ``, "22P02"},
		{`a`, "text", ``, "22P02"},
		{`{{1},{2}}`, "int4", ``, "0A000"},
		{`[1:2]={1,2}`, "int4", ``, "0A000"},
		{`{x}`, "int4", ``, "22P02"},
		{`{99999}`, "int2", ``, "22003"},
		{`{a\,b,"c\\d"}`, "text", `{"a,b","c\\d"}`, ""},
		{`{"a" b}`, "text", ``, "22P02"},
		{`{a "b"}`, "text", ``, "22P02"},
		{`{"a"\b}`, "text", ``, "22P02"},
		{`{ "a" , b c ,\NULL, a\ }`, "text", `{a,"b c","NULL","a "}`, ""},
	}
	for _, c := range cases {
		got, err := ArrayIn(c.in, c.elem, -1, false)
		if code(err) != c.code || (err == nil && got != c.want) {
			t.Errorf("ArrayIn(%q, %s) = %q, %v; want %q, %s", c.in, c.elem, got, err, c.want, c.code)
		}
	}
}

func TestArrayVarcharTypmod(t *testing.T) {
	if _, err := ArrayIn(`{abc}`, "varchar", 6, false); code(err) != "22001" {
		t.Errorf("assignment of a too-long element: %v, want 22001", err)
	}
	if got, err := ArrayIn(`{abc,d}`, "varchar", 6, true); err != nil || got != `{ab,d}` {
		t.Errorf("explicit cast: %q, %v", got, err)
	}
}
