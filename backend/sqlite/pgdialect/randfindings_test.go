package pgdialect

import (
	"errors"
	"strings"
	"testing"
)

// TestBetweenOfConstantsFolds: PostgreSQL's parse analysis makes BETWEEN
// an AND of two comparisons, which its planner folds, so a CASE arm under
// a constant BETWEEN that is false is dropped without being evaluated (the
// random differential run, seed 1 case 1409: the translation failed with
// 22012 where PostgreSQL returned the rows).
func TestBetweenOfConstantsFolds(t *testing.T) {
	for _, sql := range []string{
		"SELECT CASE WHEN (0 BETWEEN 32767 AND 10) THEN (1 / 0) ELSE n END FROM t",
		"SELECT CASE WHEN (5 NOT BETWEEN 1 AND 10) THEN (1 / 0) ELSE n END FROM t",
		"SELECT CASE WHEN (5 BETWEEN 1 AND 10) THEN n ELSE 1 / 0 END FROM t",
		"SELECT CASE WHEN (0 NOT BETWEEN 1 AND 10) THEN n ELSE 1 / 0 END FROM t",
	} {
		tr, err := Translate(sql, testCatalog)
		if err != nil {
			t.Errorf("%s: %v", sql, err)
			continue
		}
		// The column's name is PostgreSQL's (n, or case after a weak ELSE).
		if got := tr.Statements[0]; !strings.HasPrefix(got, `SELECT "t"."n" AS `) || !strings.HasSuffix(got, ` FROM "t" AS "t"`) {
			t.Errorf("%s:\n got %s\nwant the CASE reduced to t.n", sql, got)
		}
	}
	// A constant BETWEEN is a constant: true, false or NULL.
	for sql, want := range map[string]string{
		"SELECT 5 BETWEEN 1 AND 10":       `SELECT 1 AS "?column?"`,
		"SELECT 5 NOT BETWEEN 1 AND 10":   `SELECT 0 AS "?column?"`,
		"SELECT 5 BETWEEN NULL AND 1":     `SELECT 0 AS "?column?"`,
		"SELECT 5 BETWEEN NULL AND 10":    `SELECT NULL AS "?column?"`,
		"SELECT 5 NOT BETWEEN NULL AND 1": `SELECT 1 AS "?column?"`,
	} {
		tr, err := Translate(sql, testCatalog)
		if err != nil {
			t.Errorf("%s: %v", sql, err)
			continue
		}
		if tr.Statements[0] != want {
			t.Errorf("%s:\n got %s\nwant %s", sql, tr.Statements[0], want)
		}
	}
}

// TestFoldingStopsWherePostgreSQLDoes: PostgreSQL's planner folds the
// operands of AND, OR, BETWEEN, CASE and COALESCE in order and stops at a
// constant that decides the rest, which is never folded; a constant after
// an operand the translator does not fold (and PostgreSQL may) is refused,
// since whether PostgreSQL raises its error depends on that operand (the
// random differential run, seed 2: CASE WHEN 'ab' ILIKE '_' THEN
// CAST(1e10 AS int4) ... failed with 22003 where PostgreSQL returned rows).
func TestFoldingStopsWherePostgreSQLDoes(t *testing.T) {
	for sql, want := range map[string]string{
		// answered as PostgreSQL answers them
		"SELECT false AND (1/0 = 1)":                        `SELECT 0 AS "?column?"`,
		"SELECT true OR (1/0 = 1)":                          `SELECT 1 AS "?column?"`,
		"SELECT 0 BETWEEN 1 AND 1/0":                        `SELECT 0 AS "?column?"`,
		"SELECT 0 NOT BETWEEN 1 AND 1/0":                    `SELECT 1 AS "?column?"`,
		"SELECT (1/0 = 1) AND false":                        "22012",
		"SELECT CASE WHEN n > 0 THEN 1/0 ELSE n END FROM t": "22012",
		"SELECT CASE n WHEN 1 THEN 1/0 ELSE n END FROM t":   "22012",
		"SELECT COALESCE(NULL, 1/0)":                        "22012",
		// refused: PostgreSQL folds the first operand, the translator not
		"SELECT CASE WHEN 'ab' ILIKE '_' THEN CAST(1e10 AS int4) ELSE n END FROM t": "0A000",
		"SELECT CASE WHEN $1 = 1 THEN 1/0 ELSE n END FROM t":                        "0A000",
		"SELECT ('ab' LIKE 'a%') AND (1/0 = 1)":                                     "0A000",
		"SELECT COALESCE(abs(CAST($1 AS int4)), 1/0)":                               "0A000",
	} {
		tr, err := Translate(sql, testCatalog)
		var got string
		var e *Error
		switch {
		case errors.As(err, &e):
			got = e.Code
		case err != nil:
			got = err.Error()
		default:
			got = tr.Statements[0]
		}
		if got != want {
			t.Errorf("%s:\n got %s\nwant %s", sql, got, want)
		}
	}
}

// TestPlaceholderTypingAsPostgreSQL: PostgreSQL types a placeholder at its
// first use, and reads IS [NOT] DISTINCT FROM the NULL literal as a NULL
// test that types nothing (the random differential run, seed 3: both
// statements were answered here and refused by PostgreSQL).
func TestPlaceholderTypingAsPostgreSQL(t *testing.T) {
	for sql, want := range map[string]string{
		"SELECT id FROM t WHERE (true OR ($1 IS NOT DISTINCT FROM NULL))": "42P18",
		"SELECT id FROM t WHERE NULL IS DISTINCT FROM $1":                 "42P18",
		"SELECT id FROM t WHERE $1 BETWEEN $2 AND 7":                      "42883",
		"SELECT id FROM t WHERE n IS DISTINCT FROM NULL":                  `SELECT "t"."id" AS "id" FROM "t" AS "t" WHERE ("t"."n" IS NOT NULL)`,
		"SELECT id FROM t WHERE NULL IS NOT DISTINCT FROM n":              `SELECT "t"."id" AS "id" FROM "t" AS "t" WHERE ("t"."n" IS NULL)`,
		"SELECT NULL IS NOT DISTINCT FROM NULL":                           `SELECT 1 AS "?column?"`,
	} {
		tr, err := Translate(sql, testCatalog)
		var got string
		var e *Error
		switch {
		case errors.As(err, &e):
			got = e.Code
		case err != nil:
			got = err.Error()
		default:
			got = tr.Statements[0]
		}
		if got != want {
			t.Errorf("%s:\n got %s\nwant %s", sql, got, want)
		}
	}
}

// TestConstantSortKeyDropped: PostgreSQL's planner drops a sort key that
// is a constant, so under a LIMIT it stops reading rows at the limit and
// never evaluates the rest (the random differential run, seed 2 case 980:
// SELECT 1e10 ... WHERE ... CAST(c AS int4) ... ORDER BY 1 LIMIT 1 raised
// 22003 here on a later row, which PostgreSQL never reads).
func TestConstantSortKeyDropped(t *testing.T) {
	for sql, want := range map[string]string{
		"SELECT 1e10 AS o FROM t ORDER BY 1 LIMIT 1":    `SELECT ('35000111' COLLATE RTRIM) AS "o" FROM "t" AS "t" LIMIT 1 OFFSET 0`,
		"SELECT 'a', n FROM t ORDER BY 1, 2 DESC":       `SELECT 'a' AS "?column?", "t"."n" AS "n" FROM "t" AS "t" ORDER BY 2 DESC NULLS FIRST`,
		"SELECT n, 1 + 1 AS k FROM t ORDER BY k, n":     `SELECT "t"."n" AS "n", 2 AS "k" FROM "t" AS "t" ORDER BY 1 ASC NULLS LAST`,
		"SELECT n, NULL AS k FROM t ORDER BY 2, 1 DESC": `SELECT "t"."n" AS "n", NULL AS "k" FROM "t" AS "t" ORDER BY 1 DESC NULLS FIRST`,
	} {
		tr, err := Translate(sql, testCatalog)
		if err != nil {
			t.Errorf("%s: %v", sql, err)
			continue
		}
		if tr.Statements[0] != want {
			t.Errorf("%s:\n got %s\nwant %s", sql, tr.Statements[0], want)
		}
	}
}

// TestRealInDoubleListRefused: PostgreSQL compares an IN list's members at
// their common type, double precision when one is, so a real compared
// with a numeric member there is widened, not the numeric narrowed (the
// random differential run, seed 5: abs(c) IN (1e-5, CAST('1e300' AS
// float8)) on a real c matched 1e-5 here and nothing there). A numeric
// literal is cast to double precision then; a member the pairwise
// comparison would compare otherwise is refused.
func TestRealInDoubleListRefused(t *testing.T) {
	cat := staticCatalog{"r": {col("c", "float4", -1), col("d", "float8", -1), col("i", "int4", -1)}}
	for sql, want := range map[string]string{
		"SELECT c FROM r WHERE c IN (1e-5, CAST('1e300' AS float8))": "",
		"SELECT c FROM r WHERE c IN (CAST(i AS numeric), d)":         "0A000",
		"SELECT c FROM r WHERE c IN (1, d)":                          "",
		"SELECT c FROM r WHERE i IN (c, d)":                          "0A000",
		"SELECT c FROM r WHERE c IN (1e-5, 2.5)":                     "",
		"SELECT c FROM r WHERE c IN (d, 2e0)":                        "",
		"SELECT c FROM r WHERE c IN (d, 16777217)":                   "0A000",
		"SELECT c FROM r WHERE d IN (1, 2.5)":                        "",
	} {
		_, err := Translate(sql, cat)
		got := ""
		var e *Error
		if errors.As(err, &e) {
			got = e.Code
		} else if err != nil {
			got = err.Error()
		}
		if got != want {
			t.Errorf("%s: got %q, want %q (%v)", sql, got, want, err)
		}
	}
}

// TestZoneDependentComparisonNotFolded: comparing a date with a
// timestamptz converts the date in the session's time zone, a stable
// conversion PostgreSQL's planner does not fold; so the CASE arm under it
// is folded there and its error raised (the random differential run,
// seed 5: here the condition folded to false and the arm was dropped).
// The condition is not folded here either, so the arm's 1 / 0 is
// PostgreSQL's 22012 (it was refused, 0A000, before foldWatch knew
// stable operands).
func TestZoneDependentComparisonNotFolded(t *testing.T) {
	for sql, want := range map[string]string{
		"SELECT TIMESTAMPTZ '2024-02-29 12:34:56+00' = DATE '2024-03-01'":                                   "(",
		"SELECT CASE WHEN TIMESTAMPTZ '2024-02-29 12:34:56+00' = DATE '2024-03-01' THEN 1 / 0 ELSE 3 END":   "22012",
		"SELECT CASE WHEN TIMESTAMP '2024-02-29 12:34:56' = DATE '2024-03-01' THEN 1 / 0 ELSE 3 END FROM t": `SELECT 3 AS "case" FROM "t" AS "t"`,
	} {
		tr, err := Translate(sql, testCatalog)
		var got string
		var e *Error
		switch {
		case errors.As(err, &e):
			got = e.Code
		case err != nil:
			got = err.Error()
		case want == "(":
			got = tr.Statements[0][len("SELECT ") : len("SELECT ")+1] // not folded: a comparison
		default:
			got = tr.Statements[0]
		}
		if got != want {
			t.Errorf("%s:\n got %s\nwant %s", sql, got, want)
		}
	}
}

// TestCoalesceDropsNullConstants: PostgreSQL's planner drops NULL
// constants from a COALESCE and folds it to a constant that then leads,
// so COALESCE(NULL, 2147483647) is a constant whose product overflows
// while planning (the random differential run, seed 5: evaluated per row
// here, and no row passed the WHERE).
func TestCoalesceDropsNullConstants(t *testing.T) {
	for sql, want := range map[string]string{
		"SELECT COALESCE(NULL, 7) FROM t":                                               `SELECT 7 AS "coalesce" FROM "t" AS "t"`,
		"SELECT COALESCE(NULL, NULL, 'a') FROM t":                                       `SELECT 'a' AS "coalesce" FROM "t" AS "t"`,
		"SELECT COALESCE(NULL, n, 7) FROM t":                                            `SELECT coalesce(NULL, "t"."n", 7) AS "coalesce" FROM "t" AS "t"`,
		"SELECT NULLIF(-2147483648, 1) * COALESCE(NULL, 2147483647) FROM t WHERE false": "22003",
	} {
		tr, err := Translate(sql, testCatalog)
		var got string
		var e *Error
		switch {
		case errors.As(err, &e):
			got = e.Code
		case err != nil:
			got = err.Error()
		default:
			got = tr.Statements[0]
		}
		if got != want {
			t.Errorf("%s:\n got %s\nwant %s", sql, got, want)
		}
	}
}

// TestPseudoConstantSortKeyDropped: PostgreSQL's planner drops any sort
// key without a column, aggregate, window function or volatile function,
// folded or not (DATE '…' converted to timestamptz is stable, not folded,
// and still dropped: the random differential run, seed 5 case 277); sort
// keys that vary stay.
func TestPseudoConstantSortKeyDropped(t *testing.T) {
	for sql, want := range map[string]string{
		"SELECT n, COALESCE(DATE '2024-03-01', TIMESTAMPTZ '2024-02-29 12:34:56+00') AS d FROM t ORDER BY 2, 1 LIMIT 3": " ORDER BY 1 ASC NULLS LAST LIMIT 3 OFFSET 0",
		"SELECT n, count(*) FROM t GROUP BY n ORDER BY 2, 1":                                                            " ORDER BY 2 ASC NULLS LAST, 1 ASC NULLS LAST",
		"SELECT n, random() FROM t ORDER BY 2":                                                                          " ORDER BY 2 ASC NULLS LAST",
		"SELECT n, (SELECT 1) FROM t ORDER BY 2":                                                                        " ORDER BY 2 ASC NULLS LAST",
	} {
		tr, err := Translate(sql, testCatalog)
		if err != nil {
			if errIs(err, "0A000") {
				continue // not translated: nothing to order
			}
			t.Errorf("%s: %v", sql, err)
			continue
		}
		if got := tr.Statements[0]; !strings.HasSuffix(got, want) {
			t.Errorf("%s:\n got %s\nwant ...%s", sql, got, want)
		}
	}
}

// TestTextConcatOfConstantsFolds: PostgreSQL folds text || text on
// constants, so assigning the result to a varchar(n) too short for it
// fails while planning, whatever the WHERE (the random differential run,
// seed 5: UPDATE t0 SET c0 = ('10' || CAST(2147483647 AS text)) WHERE …
// matching no row succeeded here), and int || text, anytextcat, which
// the planner inlines as int::text || text (seed 22).
func TestTextConcatOfConstantsFolds(t *testing.T) {
	for sql, want := range map[string]string{
		"SELECT 'a' || CAST(12 AS text) FROM t":                                        `SELECT 'a12' AS "?column?" FROM "t" AS "t"`,
		"UPDATE t SET name = ('10' || CAST(2147483647 AS text) || '0123') WHERE false": "22001",
		"SELECT 1 || 'a' FROM t":                                                       `SELECT '1a' AS "?column?" FROM "t" AS "t"`,
		"UPDATE t SET name = (2147483647 || ' a') WHERE false":                         "22001",
		"SELECT n || 'a' FROM t":                                                       `SELECT ("t"."n" || 'a') AS "?column?" FROM "t" AS "t"`,
	} {
		tr, err := Translate(sql, testCatalog)
		var got string
		var e *Error
		switch {
		case errors.As(err, &e):
			got = e.Code
		case err != nil:
			got = err.Error()
		case want == "":
			got = ""
		default:
			got = tr.Statements[0]
		}
		if got != want {
			t.Errorf("%s:\n got %s\nwant %s", sql, got, want)
		}
	}
}

// TestNullTestOfConstantFolds: PostgreSQL folds IS [NOT] NULL of any
// constant, so the CASE arm it decides is folded, errors and all (the
// random differential run, seed 22: CASE WHEN TIMESTAMPTZ '…' IS NOT NULL
// THEN -2147483648 … assigned to an int2 failed there while planning).
func TestNullTestOfConstantFolds(t *testing.T) {
	cat := staticCatalog{"s": {col("c", "int2", -1)}}
	for sql, want := range map[string]string{
		"SELECT 5 IS NULL, 'a' IS NOT NULL, NULL IS NULL, CAST(NULL AS int4) IS NOT NULL":                                       `SELECT 0 AS "?column?", 1 AS "?column?", 1 AS "?column?", 0 AS "?column?"`,
		"UPDATE s SET c = CASE WHEN (TIMESTAMPTZ '2024-01-01 00:00:00+05' IS NOT NULL) THEN -2147483648 ELSE c END WHERE false": "22003",
	} {
		tr, err := Translate(sql, cat)
		var got string
		var e *Error
		switch {
		case errors.As(err, &e):
			got = e.Code
		case err != nil:
			got = err.Error()
		default:
			got = tr.Statements[0]
		}
		if got != want {
			t.Errorf("%s:\n got %s\nwant %s", sql, got, want)
		}
	}
}

// TestSubstrOfNullFolds: substr is strict, so PostgreSQL folds a call with
// a NULL argument to NULL, and n || NULL with it, never evaluating n (the
// random differential run, seed 42: CAST(c AS int4) || substr(NULL, -1, 2)
// raised 22003 here on a numeric too large for int4).
func TestSubstrOfNullFolds(t *testing.T) {
	tr, err := Translate("SELECT CAST(f AS int4) || substr(NULL, -1, 2) FROM t", testCatalog)
	if err != nil {
		t.Fatal(err)
	}
	if want := `SELECT NULL AS "?column?" FROM "t" AS "t"`; tr.Statements[0] != want {
		t.Errorf("got %s\nwant %s", tr.Statements[0], want)
	}
}

// TestTrimOfConstantsFolds: btrim/ltrim/rtrim are immutable and strict;
// PostgreSQL folds them on constants, so assigning the result to a short
// varchar fails while planning (the random differential run, seed 42).
func TestTrimOfConstantsFolds(t *testing.T) {
	for sql, want := range map[string]string{
		"SELECT trim('  a b '), ltrim(' a '), rtrim(' a '), btrim('xxaxx', 'x'), btrim(NULL)": `SELECT 'a b' AS "btrim", 'a ' AS "ltrim", ' a' AS "rtrim", 'a' AS "btrim", NULL AS "btrim"`,
		"UPDATE t SET name = btrim(CAST(-2147483648 AS text) || '0') WHERE false":             "22001",
	} {
		tr, err := Translate(sql, testCatalog)
		var got string
		var e *Error
		switch {
		case errors.As(err, &e):
			got = e.Code
		case err != nil:
			got = err.Error()
		default:
			got = tr.Statements[0]
		}
		if got != want {
			t.Errorf("%s:\n got %s\nwant %s", sql, got, want)
		}
	}
}
