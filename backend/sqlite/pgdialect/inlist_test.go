package pgdialect

import (
	"strings"
	"testing"
)

var inListCatalog = staticCatalog{
	"k": {col("id", "uuid", -1), col("t", "text", -1), col("i", "int4", -1), col("l", "int8", -1),
		col("f", "float8", -1), col("r", "float4", -1), col("n", "numeric", -1), col("d", "date", -1),
		col("ts", "timestamptz", -1)},
}

// TestInListItemsOfDifferentForms: an IN list whose items compare with x
// in different forms (an untyped x read as each column's type, an integer
// x compared with a float column as a float) is translated as PostgreSQL's
// transformAExprIn reads it, one comparison per form ORed (NOT IN: the
// negation), not refused; the items without a column, two or more, meet x
// at their common type (difftest/testdata/inlist.case compares the
// answers).
func TestInListItemsOfDifferentForms(t *testing.T) {
	for _, c := range []struct{ sql, want string }{
		{"SELECT 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11' IN (id, NULL) FROM k",
			`('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11' IN ("k"."id") OR 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11' IN (NULL))`},
		{"SELECT 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11' IN (id, NULL, 'x') FROM k",
			`('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11' IN ("k"."id") OR 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11' IN (NULL, 'x'))`},
		{"SELECT '1' NOT IN (t, i) FROM k", `('1' NOT IN ("k"."t") AND 1 NOT IN ("k"."i"))`},
		{"SELECT i IN (f, 1) FROM k", `(CAST("k"."i" AS REAL) IN ("k"."f") OR "k"."i" IN (1))`},
		{"SELECT '2020-01-01' IN (d, ts) FROM k", ""},
		{"SELECT i NOT IN (n, f, l) FROM k", ""},
	} {
		tr, err := Translate(c.sql, inListCatalog)
		if err != nil {
			t.Errorf("%s: %v", c.sql, err)
			continue
		}
		if got := strings.Join(tr.Statements, "; "); !strings.Contains(got, c.want) {
			t.Errorf("%s\n got %s\nwant it to hold %s", c.sql, got, c.want)
		}
	}
}

// TestNullifRefusalNamesItsTypes: NULLIF whose comparison converts its
// first operand is refused naming the operands' types, not "integer and
// float or numeric" whatever they are.
func TestNullifRefusalNamesItsTypes(t *testing.T) {
	for _, c := range []struct{ sql, mention string }{
		{"SELECT NULLIF(DATE '2020-01-01', TIMESTAMPTZ '2020-01-01 00:00+00')", "NULLIF comparing date with timestamp with time zone"},
		{"SELECT NULLIF(d, ts) FROM k", "NULLIF comparing date with timestamp with time zone"},
		{"SELECT NULLIF(i, f) FROM k", "NULLIF comparing integer with double precision"},
	} {
		_, err := Translate(c.sql, inListCatalog)
		e, ok := err.(*Error)
		if !ok || e.Code != "0A000" || !strings.Contains(e.Message, c.mention) {
			t.Errorf("%s: got %v, want 0A000 mentioning %q", c.sql, err, c.mention)
		}
	}
}
