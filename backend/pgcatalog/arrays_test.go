package pgcatalog

import "testing"

func TestArrayTextToJSON(t *testing.T) {
	for _, c := range []struct{ in, typ, want string }{
		{"{}", "_text", "[]"},
		{"{a,b}", "_text", `["a","b"]`},
		{`{"a b","c\"d",NULL,"NULL", e }`, "_text", `["a b","c\"d",null,"NULL","e"]`},
		{`{"x,y",\{z}`, "_text", `["x,y","{z"]`},
		{"{1,-2,3}", "_int2", "[1,-2,3]"},
		{"{t,f,true}", "_bool", "[1,0,1]"},
		{"{1.5}", "_float8", "[1.5]"},
		{"1 2 3", "int2vector", "[1,2,3]"},
		{"", "oidvector", "[]"},
	} {
		got, err := arrayToJSON(c.in, c.typ)
		if err != nil || got != c.want {
			t.Errorf("arrayToJSON(%q, %s) = %s, %v; want %s", c.in, c.typ, got, err, c.want)
		}
	}
	for _, c := range []struct{ in, typ string }{
		{"a,b", "_text"}, {"{a", "_text"}, {"{{1},{2}}", "_int4"}, {`{"a}`, "_text"}, {"{1,x}", "_int4"},
		{"{a,,b}", "_text"}, {"{maybe}", "_bool"},
	} {
		if got, err := arrayToJSON(c.in, c.typ); err == nil {
			t.Errorf("arrayToJSON(%q, %s) = %s, want 22P02", c.in, c.typ, got)
		}
	}
}

func TestJSONToArrayText(t *testing.T) {
	for _, c := range []struct{ in, typ, want string }{
		{"[]", "_text", "{}"},
		{`["a","b c",null,"","NULL","x,y","q\"q","back\\slash","{}"]`, "_text",
			`{a,"b c",NULL,"","NULL","x,y","q\"q","back\\slash","{}"}`},
		{"[1,0]", "_bool", "{t,f}"},
		{"[true,false]", "_bool", "{t,f}"},
		{"[1,2]", "int2vector", "1 2"},
		{"[23,25]", "oidvector", "23 25"},
		{"[12345678901234]", "_int8", "{12345678901234}"},
	} {
		got, err := jsonToArray(c.in, c.typ)
		if err != nil || got != c.want {
			t.Errorf("jsonToArray(%s, %s) = %s, %v; want %s", c.in, c.typ, got, err, c.want)
		}
	}
	if _, err := jsonToArray("not json", "_text"); err == nil {
		t.Error("jsonToArray of a non-array: no error")
	}
}
