package pgdialect

import (
	"strings"
	"testing"
)

// TestCollationDoesNotLeakOut: SQLite gives a CASE, a function call or an
// operator the collation of the first operand with an explicit COLLATE,
// however deep, so the COLLATE RTRIM of a numeric or char(n) operand made
// `CASE WHEN n = 1.5 THEN s END` (a varchar) order, group and compare
// under RTRIM ('a' = 'a '; the random differential run, seed 7002 case
// 5630). A text-stored value is closed with BINARY, numeric and char(n)
// ones with RTRIM, and a derived table's NULL numeric column keeps RTRIM.
func TestCollationDoesNotLeakOut(t *testing.T) {
	cat := staticCatalog{"u": {col("n", "numeric", -1), col("c", "bpchar", 7), col("s", "varchar", 9), col("x", "text", -1)}}
	for sql, want := range map[string]string{
		"SELECT CASE WHEN n = 1.5 THEN s END AS o FROM u ORDER BY 1":                          `END COLLATE BINARY) AS "o"`,
		"SELECT NULLIF(s, CASE WHEN c = 'a' THEN 'z' END) FROM u":                             `END COLLATE BINARY)) COLLATE BINARY) AS "nullif"`,
		"SELECT upper(CASE WHEN n > 0 THEN x END) FROM u":                                     `COLLATE BINARY)) COLLATE BINARY) AS "upper"`,
		"SELECT CASE WHEN s = 'a' THEN n END FROM u":                                          `END COLLATE RTRIM) AS "case"`,
		"SELECT v FROM (SELECT NULL::numeric AS v UNION ALL SELECT n FROM u) AS q GROUP BY v": `(NULL COLLATE RTRIM) AS "v"`,
		"SELECT a FROM (VALUES (NULL), (1.0)) AS x (a)":                                       `("column1" COLLATE RTRIM) AS "column1"`,
	} {
		tr, err := Translate(sql, cat)
		if err != nil {
			t.Errorf("%s: %v", sql, err)
			continue
		}
		if got := tr.Statements[0]; !strings.Contains(got, want) {
			t.Errorf("%s:\n got %s\nwant it to contain %s", sql, got, want)
		}
	}
	// Values without another collation inside are left as they are (a
	// function call of a column has none).
	for sql, want := range map[string]string{
		"SELECT s FROM u":                       `SELECT "u"."s" AS "s" FROM "u" AS "u"`,
		"SELECT upper(s) FROM u":                `SELECT pg_upper("u"."s") AS "upper" FROM "u" AS "u"`,
		"SELECT length(CAST(n AS text)) FROM u": `SELECT length(pg_cast("u"."n", 'numeric', 'text', -1)) AS "length"`,
	} {
		tr, err := Translate(sql, cat)
		if err != nil {
			t.Errorf("%s: %v", sql, err)
			continue
		}
		if got := tr.Statements[0]; !strings.Contains(got, want) {
			t.Errorf("%s:\n got %s\nwant it to contain %s", sql, got, want)
		}
	}
}

func TestCollatedAs(t *testing.T) {
	for sql, want := range map[string]bool{
		`("u"."s" COLLATE BINARY)`:                    true,
		`(f('a)') COLLATE BINARY)`:                    true,
		`(f('it''s)') COLLATE BINARY)`:                true,
		`("a" COLLATE RTRIM) || ("b" COLLATE BINARY)`: false,
		`(a COLLATE RTRIM) || (b COLLATE BINARY)`:     false,
		`("u"."s" COLLATE RTRIM)`:                     false,
		`f(("u"."s" COLLATE BINARY))`:                 false,
		`(("u"."s") || ("x" COLLATE BINARY))`:         false,
	} {
		if got := collatedAs(sql, "BINARY"); got != want {
			t.Errorf("collatedAs(%s) = %v, want %v", sql, got, want)
		}
	}
}
