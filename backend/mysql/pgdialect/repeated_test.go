package pgdialect

import (
	"strings"
	"testing"
	"time"
)

// A hostile statement of a few hundred bytes must not make the
// translation write an operand twice per nesting level (BETWEEN's x, an
// overflow check's operands …): every validator of a network with MariaDB
// translates every statement of a block (its schema judge), so an
// exponential text would stall them all. IN nested 24 deep (567 bytes)
// translated into 889 MB in 53 s before exprAny's bound; now it is
// refused (0A000) at once.
func TestRepeatedOperandsAreBounded(t *testing.T) {
	cat := mapCatalog{"t": {{Name: "x", Type: Type{Name: "bool", Typmod: -1}}, {Name: "y", Type: tInt4}}}
	nest := func(depth int, level func(string) string, start string) string {
		e := start
		for range depth {
			e = level(e)
		}
		return "SELECT " + e + " FROM t"
	}
	for name, level := range map[string]func(string) string{
		"between": func(e string) string { return "((" + e + " BETWEEN 1 AND 2)::int4)" },
		"and":     func(e string) string { return "((" + e + " AND x) = x)" },
		"plus":    func(e string) string { return "(" + e + " + y)" },
		"times":   func(e string) string { return "(" + e + " * " + e + ")" },
		"in":      func(e string) string { return "((" + e + " IN (1, 2, y))::int4)" },
		"case":    func(e string) string { return "(CASE WHEN " + e + " > 0 THEN " + e + " ELSE y END)" },
		"coalesce": func(e string) string {
			return "coalesce(" + e + ", y)"
		},
	} {
		start := "y"
		if name == "and" {
			start = "x"
		}
		for _, depth := range []int{8, 16, 24} {
			sql := nest(depth, level, start)
			if len(sql) > 64<<10 {
				continue
			}
			began := time.Now()
			tr, err := Translate(sql, cat)
			size := 0
			if tr != nil {
				size = len(strings.Join(tr.Statements, ";"))
			} else if _, ok := err.(*Error); !ok {
				t.Errorf("%s nested %d deep: %v, want a translation or the statement's verdict", name, depth, err)
			}
			t.Logf("%s %d: %d bytes -> %d bytes in %v", name, depth, len(sql), size, time.Since(began))
			if size > 1<<20 {
				t.Errorf("%s nested %d deep: %d bytes of SQL translated into %d bytes in %v", name, depth, len(sql), size, time.Since(began))
			}
		}
	}
}
