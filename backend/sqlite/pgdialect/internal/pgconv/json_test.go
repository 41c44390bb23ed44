package pgconv

import (
	"strings"
	"testing"
)

// Expected values are PostgreSQL 15's (uuid_in/uuid_out, jsonb_in/jsonb_out).
func TestParseUUIDForms(t *testing.T) {
	const want = "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"
	for _, in := range []string{"A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11", "{a0eebc99-9c0b4ef8-bb6d6bb9-bd380a11}",
		"a0eebc999c0b4ef8bb6d6bb9bd380a11", "a0ee-bc99-9c0b-4ef8-bb6d-6bb9-bd38-0a11"} {
		if got, err := ParseUUID(in); err != nil || got != want {
			t.Errorf("ParseUUID(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", " " + want, want + "-", want[:35], "a0eebc9-99c0b-4ef8-bb6d-6bb9bd380a11", "{" + want, want + "1", "g" + want[1:]} {
		_, err := ParseUUID(in)
		if e, ok := err.(*Error); !ok || e.Code != "22P02" || e.Message != `invalid input syntax for type uuid: "`+in+`"` {
			t.Errorf("ParseUUID(%q): %v, want 22P02", in, err)
		}
	}
}

func TestJSONBCanonicalText(t *testing.T) {
	for in, want := range map[string]string{
		`{"b":1, "aa":2, "a": [1, 2.50, 1e2, -0, 1E-2, "x\u00e9\n\"/"], "b": 3}`: `{"a": [1, 2.50, 100, 0, 0.01, "xé\n\"/"], "b": 3, "aa": 2}`,
		`  [ ]`:                     `[]`,
		`"\ud83d\ude00"`:            `"😀"`,
		`{"a":{"c":1,"b":2,"c":3}}`: `{"a": {"b": 2, "c": 3}}`,
		`"\u001f"`:                  `"\u001f"`,
	} {
		v, err := ParseJSON(in, true)
		if err != nil || v.JSONBText() != want {
			t.Errorf("jsonb %s = %v, %v; want %s", in, v, err, want)
		}
	}
	for in, code := range map[string]string{`{"a":1`: "22P02", `01`: "22P02", `[1,]`: "22P02", `tru`: "22P02", `"\u0000"`: "22P05", `"\ud83d"`: "22P02", `1.`: "22P02", ``: "22P02"} {
		_, err := ParseJSON(in, true)
		if e, ok := err.(*Error); !ok || e.Code != code {
			t.Errorf("jsonb %q: %v, want %s", in, err, code)
		}
	}
	deep := strings.Repeat("[", 1002) + strings.Repeat("]", 1002)
	if _, err := ParseJSON(deep, true); code(err) != "0A000" {
		t.Errorf("jsonb nested 1002 deep: %v, want 0A000", err)
	}
	// json_in checks only the syntax; json's operators unescape the
	// whole value and raise what jsonb_in raises.
	if _, err := ParseJSON(`["\ud800", 1]`, false); err != nil {
		t.Errorf(`json ["\ud800", 1]: %v, want accepted`, err)
	}
	if _, err := JSONGet(false, "->", `["\ud800", 1]`, int64(1)); code(err) != "22P02" {
		t.Errorf(`json ["\ud800", 1] -> 1: %v, want 22P02`, err)
	}
	if _, err := ParseJSON(`"\u0000"`, false); err != nil {
		t.Errorf(`json "\u0000": %v, want accepted`, err)
	}
}

func TestJSONBEqualityAndContainment(t *testing.T) {
	parse := func(s string) *JSON {
		v, err := ParseJSON(s, true)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, c := range []struct {
		a, b          string
		equal, within bool // a = b, a @> b
	}{
		{`1.0`, `1`, true, true},
		{`{"a":1,"b":2}`, `{"b":2,"a":1.000}`, true, true},
		{`[1,2]`, `[2,1]`, false, true},
		{`{"a":1,"b":[1,2,{"c":3}]}`, `{"b":[{"c":3}]}`, false, true},
		{`[1,2]`, `2`, false, true},
		{`2`, `[2]`, false, false},
		{`[[1,2]]`, `[1]`, false, false},
		{`{"a":1}`, `[]`, false, false},
	} {
		a, b := parse(c.a), parse(c.b)
		if JSONBEqual(a, b) != c.equal || JSONBContains(a, b) != c.within {
			t.Errorf("%s vs %s: equal %v contains %v, want %v %v", c.a, c.b, JSONBEqual(a, b), JSONBContains(a, b), c.equal, c.within)
		}
		ka, _ := JSONBKey(c.a)
		kb, _ := JSONBKey(c.b)
		if (ka == kb) != c.equal {
			t.Errorf("JSONBKey(%s) = %q, JSONBKey(%s) = %q: equal keys %v, want %v", c.a, ka, c.b, kb, ka == kb, c.equal)
		}
	}
}

// FuzzJSONB: any input either fails with a SQLSTATE or gives a canonical
// text that reads back to itself with an equal value and equal key; the
// operators never panic on what the parser accepts.
func FuzzJSONB(f *testing.F) {
	for _, s := range []string{`{"b":1,"a":[1.50,{"c":null}]}`, `"\ud83d\ude00"`, `[1e2, -0, "x"]`, `{"a":1,"a":2}`, `1.0`, `[]`} {
		f.Add(s, "a")
	}
	f.Fuzz(func(t *testing.T, s, k string) {
		v, err := ParseJSON(s, true)
		if err != nil {
			if code(err) == "?" {
				t.Fatalf("%q: an error without a SQLSTATE: %v", s, err)
			}
			return
		}
		text := v.JSONBText()
		w, err := ParseJSON(text, true)
		if err != nil || w.JSONBText() != text || !JSONBEqual(v, w) || !JSONBContains(v, w) {
			t.Fatalf("%q: canonical %q does not read back to itself (%v)", s, text, err)
		}
		k1, _ := JSONBKey(s)
		k2, _ := JSONBKey(text)
		if k1 != k2 {
			t.Fatalf("%q: keys %q and %q differ", s, k1, k2)
		}
		for _, op := range []string{"->", "->>", "#>"} {
			var key any = k
			if op == "#>" {
				key = "{" + k + "}"
			}
			JSONGet(true, op, text, key)
			JSONGet(false, op, s, int64(len(k))-2)
		}
		JSONBOp("?", text, k)
	})
}
