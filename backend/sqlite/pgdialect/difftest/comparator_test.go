package difftest

import (
	"math"
	"strings"
	"testing"
)

// TestComparatorFailsOnDifferences plants each kind of difference the
// suite must catch and holds that the comparator reports it, so the suite
// cannot pass vacuously; and that equal results, and results equal as
// multisets when the order is not fixed, pass.
func TestComparatorFailsOnDifferences(t *testing.T) {
	base := outcome{Columns: []string{"a", "b"}, Types: []string{"int4", "text"},
		Rows: [][]any{{int64(1), "x"}, {int64(2), nil}}, Affected: 0}
	mutate := func(f func(o *outcome)) outcome {
		o := base
		o.Columns = append([]string{}, base.Columns...)
		o.Types = append([]string{}, base.Types...)
		o.Rows = [][]any{append([]any{}, base.Rows[0]...), append([]any{}, base.Rows[1]...)}
		f(&o)
		return o
	}
	planted := map[string]outcome{
		"column name":             mutate(func(o *outcome) { o.Columns[1] = "B" }),
		"column type":             mutate(func(o *outcome) { o.Types[0] = "int8" }),
		"type modifier":           mutate(func(o *outcome) { o.Types[1] = "varchar/14" }),
		"int as text":             mutate(func(o *outcome) { o.Rows[0][0] = "1" }),
		"bool as int":             mutate(func(o *outcome) { o.Rows[0][0] = true }),
		"float as int":            mutate(func(o *outcome) { o.Rows[0][0] = 1.0 }),
		"NULL as empty text":      mutate(func(o *outcome) { o.Rows[1][1] = "" }),
		"text case":               mutate(func(o *outcome) { o.Rows[0][1] = "X" }),
		"bytea as text":           mutate(func(o *outcome) { o.Rows[0][1] = []byte("x") }),
		"missing row":             mutate(func(o *outcome) { o.Rows = o.Rows[:1] }),
		"extra row":               mutate(func(o *outcome) { o.Rows = append(o.Rows, o.Rows[0]) }),
		"duplicate instead":       mutate(func(o *outcome) { o.Rows[1] = o.Rows[0] }),
		"rows affected":           mutate(func(o *outcome) { o.Affected = 1 }),
		"error where postgres ok": {Code: "22012", Message: "division by zero"},
	}
	for name, lite := range planted {
		for _, ordered := range []bool{true, false} {
			if d := differences(base, lite, ordered); len(d) == 0 {
				t.Errorf("%s (ordered=%v): no difference reported between\n  %s\nand\n  %s", name, ordered, base, lite)
			}
		}
	}
	swapped := mutate(func(o *outcome) { o.Rows[0], o.Rows[1] = o.Rows[1], o.Rows[0] })
	if d := differences(base, swapped, true); len(d) == 0 {
		t.Error("rows in another order pass where the order is fixed")
	}
	if d := differences(base, swapped, false); len(d) != 0 {
		t.Errorf("rows in another order fail where the order is not fixed: %v", d)
	}
	if d := differences(base, mutate(func(*outcome) {}), true); len(d) != 0 {
		t.Errorf("equal results differ: %v", d)
	}
}

// TestComparatorTiedNumerics: in an ordered result, rows tied on equal
// numerics of different scales may come in either order (PostgreSQL does
// not order ties); any other difference in order or value still fails.
func TestComparatorTiedNumerics(t *testing.T) {
	res := func(rows ...[]any) outcome {
		return outcome{Columns: []string{"n", "s"}, Types: []string{"numeric", "text"}, Rows: rows}
	}
	pg := res([]any{"0.5", "a"}, []any{"1.0", "a"}, []any{"1.00", "a"}, []any{"2", "b"})
	tied := res([]any{"0.5", "a"}, []any{"1.00", "a"}, []any{"1.0", "a"}, []any{"2", "b"})
	if d := differences(pg, tied, true); len(d) != 0 {
		t.Errorf("tied numerics of different scales in the other order: %v", d)
	}
	for name, lite := range map[string]outcome{
		"scale":              res([]any{"0.5", "a"}, []any{"1.0", "a"}, []any{"1.0", "a"}, []any{"2", "b"}),
		"unequal values":     res([]any{"1.0", "a"}, []any{"0.5", "a"}, []any{"1.00", "a"}, []any{"2", "b"}),
		"tie in another col": res([]any{"0.5", "a"}, []any{"1.00", "b"}, []any{"1.0", "a"}, []any{"2", "a"}),
	} {
		if d := differences(pg, lite, true); len(d) == 0 {
			t.Errorf("%s: no difference reported", name)
		}
	}
	negZero := outcome{Columns: []string{"f"}, Types: []string{"float8"}, Rows: [][]any{{math.Copysign(0, -1)}, {0.0}}}
	posZero := outcome{Columns: []string{"f"}, Types: []string{"float8"}, Rows: [][]any{{0.0}, {math.Copysign(0, -1)}}}
	if d := differences(negZero, posZero, true); len(d) != 0 {
		t.Errorf("tied -0 and 0 in the other order: %v", d)
	}
	if d := differences(negZero, outcome{Columns: []string{"f"}, Types: []string{"float8"}, Rows: [][]any{{0.0}, {0.0}}}, true); len(d) == 0 {
		t.Error("-0 read as 0 passes")
	}
	// An ordered result whose rows agree (or only tie) still differs in
	// its columns' names, types and rows affected (a typmod was hidden so:
	// random 7603/713).
	for name, lite := range map[string]outcome{
		"typmod":            {Columns: []string{"n", "s"}, Types: []string{"numeric/655367", "text"}, Rows: pg.Rows},
		"name":              {Columns: []string{"m", "s"}, Types: []string{"numeric", "text"}, Rows: pg.Rows},
		"typmod, tied rows": {Columns: []string{"n", "s"}, Types: []string{"numeric/655367", "text"}, Rows: tied.Rows},
		"affected":          {Columns: []string{"n", "s"}, Types: []string{"numeric", "text"}, Rows: pg.Rows, Affected: 4},
	} {
		if d := differences(pg, lite, true); len(d) == 0 {
			t.Errorf("%s: no difference reported", name)
		}
	}
	text := outcome{Columns: []string{"n"}, Types: []string{"text"}, Rows: [][]any{{"1.0"}, {"1.00"}}}
	swapped := outcome{Columns: []string{"n"}, Types: []string{"text"}, Rows: [][]any{{"1.00"}, {"1.0"}}}
	if d := differences(text, swapped, true); len(d) == 0 {
		t.Error("text that looks numeric in another order passes")
	}
}

// TestComparatorErrorClasses: both engines must fail or both succeed,
// with the same SQLSTATE class.
func TestComparatorErrorClasses(t *testing.T) {
	ok := outcome{Columns: []string{"x"}, Types: []string{"int4"}, Rows: [][]any{{int64(1)}}}
	div := outcome{Code: "22012", Message: "division by zero"}
	cases := []struct {
		name     string
		pg, lite outcome
		differ   bool
	}{
		{"postgres fails, sqlite succeeds", div, ok, true},
		{"sqlite fails, postgres succeeds", ok, div, true},
		{"other class", div, outcome{Code: "23505"}, true},
		{"unmapped SQLite error", div, outcome{Code: "SQLITE"}, true},
		{"same class, other code", div, outcome{Code: "22003"}, false},
		{"same code", div, div, false},
	}
	for _, c := range cases {
		d := differences(c.pg, c.lite, true)
		if (len(d) > 0) != c.differ {
			t.Errorf("%s: differences %v, want a difference: %v", c.name, d, c.differ)
		}
	}
}

// TestTotalOrder: rows are compared in order only when the ORDER BY
// fixes it.
func TestTotalOrder(t *testing.T) {
	cases := []struct {
		sql  string
		cols []string
		want bool
	}{
		{"SELECT a, b FROM t ORDER BY 1, 2", []string{"a", "b"}, true},
		{"SELECT a, b FROM t ORDER BY b DESC, a", []string{"a", "b"}, true},
		{"SELECT t.a, t.b FROM t ORDER BY t.b, t.a NULLS FIRST", []string{"a", "b"}, true},
		{"SELECT a, b FROM t ORDER BY a", []string{"a", "b"}, false},
		{"SELECT a, b FROM t", []string{"a", "b"}, false},
		{"SELECT a FROM (SELECT a FROM t ORDER BY a) s", []string{"a"}, false},
		{"INSERT INTO t VALUES (1) RETURNING a", []string{"a"}, false},
	}
	for _, c := range cases {
		if got := totalOrder(c.sql, len(c.cols), c.cols); got != c.want {
			t.Errorf("totalOrder(%q) = %v, want %v", c.sql, got, c.want)
		}
	}
}

// TestDiscrepancyReportNamesEverything: a discrepancy's report carries
// the statement, both results and the seed.
func TestDiscrepancyReportNamesEverything(t *testing.T) {
	var got []string
	h := &harness{t: t, report: func(msg string) { got = append(got, msg) }}
	s := spec{sql: "SELECT 7 / 2", where: "planted.case:3"}
	c := diffCase{name: "planted", stmts: []spec{{sql: "CREATE TABLE t (a int)", setup: true}, s}}
	pg := outcome{Columns: []string{"?column?"}, Types: []string{"int4"}, Rows: [][]any{{int64(3)}}}
	lite := outcome{Columns: []string{"?column?"}, Types: []string{"int4"}, Rows: [][]any{{3.5}}}
	h.discrepancy(c, 1, translated{sql: s.sql}, pg, lite, differences(pg, lite, true), "seed 42 case 7")
	if len(got) != 1 {
		t.Fatalf("%d reports, want 1", len(got))
	}
	for _, want := range []string{"SELECT 7 / 2", "planted.case:3", "seed 42 case 7", "(3)", "(3.5)", "CREATE TABLE t (a int)"} {
		if !strings.Contains(got[0], want) {
			t.Errorf("report lacks %q:\n%s", want, got[0])
		}
	}
}
