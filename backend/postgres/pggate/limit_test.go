package pggate

import (
	"strings"
	"testing"
)

// keysOf is a KeyFunc over a fixed schema: t keyed by id, u by (a, b), v
// without a key.
func keysOf(t *testing.T, calls *[]string) KeyFunc {
	return func(schema, name string, only bool) ([]string, error) {
		*calls = append(*calls, schema+"|"+name)
		switch name {
		case "t":
			return []string{"id"}, nil
		case "u":
			return []string{"a", "b"}, nil
		}
		return nil, nil
	}
}

// OrderLimits adds the table's key as the order of every SELECT with LIMIT
// and no ORDER BY over one table, qualified by the name the SELECT knows
// the table by (so an output column of the key's name cannot capture it).
func TestOrderLimitsAddsTheKey(t *testing.T) {
	for _, c := range []struct{ sql, want string }{
		{"SELECT * FROM t WHERE x = 1 LIMIT 21", "SELECT * FROM t WHERE x = 1 ORDER BY t.id LIMIT 21"},
		{"SELECT v AS id FROM t AS q OFFSET 2", "SELECT v AS id FROM t q ORDER BY q.id OFFSET 2"},
		{"SELECT a FROM public.u FETCH FIRST 1 ROW ONLY", "SELECT a FROM public.u ORDER BY u.a, u.b LIMIT 1"},
		{"DELETE FROM t WHERE id IN (SELECT id FROM t WHERE x > $1 LIMIT 10)", "DELETE FROM t WHERE id IN (SELECT id FROM t WHERE x > $1 ORDER BY t.id LIMIT 10)"},
		{"WITH w AS (SELECT id FROM t LIMIT 2) SELECT * FROM w", "WITH w AS (SELECT id FROM t ORDER BY t.id LIMIT 2) SELECT * FROM w"},
		{"SELECT id FROM t ORDER BY x LIMIT 1", "SELECT id FROM t ORDER BY x LIMIT 1"},
		{`SELECT t.x, u.y FROM t JOIN u ON u.a = t.id LEFT JOIN public.u AS w ON w.a = u.a WHERE t.x = 1 LIMIT 21`,
			`SELECT t.x, u.y FROM t JOIN u ON u.a = t.id LEFT JOIN public.u w ON w.a = u.a WHERE t.x = 1 ORDER BY t.id, u.a, u.b, w.a, w.b LIMIT 21`},
		{"SELECT 1 LIMIT 1", "SELECT 1 LIMIT 1"},
		{"SELECT * FROM t JOIN v USING (id) LIMIT 1", "SELECT * FROM t JOIN v USING (id) LIMIT 1"}, // v has no key: a read leaves it
		{`SELECT "ID" FROM "T" LIMIT 1`, `SELECT "ID" FROM "T" LIMIT 1`},                           // no key: a read leaves it
	} {
		var calls []string
		got, _, err := OrderLimits(c.sql, keysOf(t, &calls), false)
		if err != nil || got != c.want {
			t.Errorf("OrderLimits(%q) = %q, %v\nwant %q", c.sql, got, err, c.want)
		}
	}
	var calls []string
	_, ordered, err := OrderLimits("SELECT id FROM t LIMIT 1", keysOf(t, &calls), true)
	if err != nil || !ordered || strings.Join(calls, ",") != "|t" {
		t.Errorf("top-level: ordered %v, %v, key lookups %v", ordered, err, calls)
	}
	_, err = func() (string, error) {
		s, _, err := OrderLimits("SELECT * FROM v LIMIT 1", keysOf(t, &calls), true)
		return s, err
	}()
	if err == nil || !strings.Contains(err.Error(), "add ORDER BY, or a primary key to v") {
		t.Errorf("a table without a key in a block: %v", err)
	}
}
