package backendtest

import (
	"strings"
	"testing"
)

// An empty Spelling is refused, naming what it lacks; Run fails on it.
func TestSpellingCheckNamesMissingFields(t *testing.T) {
	err := Spelling{}.check()
	if err == nil {
		t.Fatal("an empty Spelling passed the check")
	}
	for _, f := range []string{"Blob", "Double", "Fraction", "IdentQuote", "Refused", "HighestParam", "Meta", "Typed.Create", "Typed.Types", "Grouped"} {
		if !strings.Contains(err.Error(), f) {
			t.Errorf("check() = %q, does not name %s", err, f)
		}
	}
	full := Spelling{Blob: "B", Double: "D", Fraction: "F", IdentQuote: `"`, Refused: "r", HighestParam: "h", Meta: "m",
		Typed:   Typed{Create: "c", Types: make([]string, len(typedColumns))},
		Grouped: Described{Params: []string{}, Types: []string{}}}
	if err := full.check(); err != nil {
		t.Fatalf("a complete Spelling: %v", err)
	}
}

// quote doubles the quote character inside a name.
func TestSpellingQuote(t *testing.T) {
	for _, tc := range []struct{ quote, name, want string }{
		{`"`, `a"b`, `"a""b"`},
		{"`", "a`b", "`a``b`"},
		{"`", `a"b`, "`a\"b`"},
	} {
		if got := (Spelling{IdentQuote: tc.quote}).quote(tc.name); got != tc.want {
			t.Errorf("quote(%q) with %s = %s, want %s", tc.name, tc.quote, got, tc.want)
		}
	}
}
