package pgdialect

import (
	"errors"
	"strings"
	"testing"
)

// Operands the translation writes twice (BETWEEN's x, an AND/OR value's
// operands) double with each level of nesting: a statement of a few
// hundred bytes became hundreds of megabytes and tens of seconds of
// CheckTx. Past maxRepeated the statement is refused (0A000) at once; a
// modest nesting still translates.
func TestRepeatedOperandsAreBounded(t *testing.T) {
	cat := staticCatalog{"t": {{Name: "x", Type: Type{Name: "bool", Typmod: -1}}, {Name: "y", Type: Type{Name: "int4", Typmod: -1}}}}
	nest := func(depth int, level func(string) string, start string) string {
		e := start
		for range depth {
			e = level(e)
		}
		return "SELECT " + e + " FROM t"
	}
	and := func(e string) string { return "((" + e + " AND x) = x)" }
	between := func(e string) string { return "((" + e + " BETWEEN 1 AND 2)::int4)" }
	for _, c := range []struct {
		sql  string
		want bool // translated
	}{
		{nest(4, and, "x"), true},
		{nest(4, between, "y"), true},
		{nest(16, and, "x"), false},
		{nest(12, between, "y"), false},
		{nest(25, between, "y"), false},
	} {
		tr, err := Translate(c.sql, cat)
		var e *Error
		switch {
		case c.want && err != nil:
			t.Errorf("%d bytes of nesting: %v, want a translation", len(c.sql), err)
		case !c.want && (!errors.As(err, &e) || e.Code != "0A000" || !strings.Contains(e.Message, "written twice")):
			size := 0
			if tr != nil {
				size = len(strings.Join(tr.Statements, ";"))
			}
			t.Errorf("%d bytes of nesting: %v (%d bytes translated), want 0A000 naming the repeated operand", len(c.sql), err, size)
		}
	}
}
