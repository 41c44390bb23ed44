package difftest

import (
	"strings"
	"testing"

	"github.com/relchain/relchain/backend/sqlite/pgdialect"
)

// TestSuiteCatchesANaiveTranslation runs the whole pipeline (gate,
// PostgreSQL, SQLite, comparison) with a planted translator that passes
// statements to SQLite unchanged, typed as PostgreSQL types them: where
// SQLite's semantics agree the statement must pass, and where they differ
// (LIKE's case, NULL ordering, division by zero, integer overflow) the
// suite must report a discrepancy, so it cannot pass vacuously.
func TestSuiteCatchesANaiveTranslation(t *testing.T) {
	h := newHarness(t)
	var reports []string
	h.report = func(msg string) { reports = append(reports, msg) }
	types := map[string][]pgdialect.ResultColumn{
		"SELECT 7 / 2 AS q":              {{Name: "q", Type: pgdialect.Type{Name: "int4", Typmod: -1}}},
		"SELECT v FROM n ORDER BY v":     {{Name: "v", Type: pgdialect.Type{Name: "int4", Typmod: -1}}},
		"SELECT 1 / 0 AS z":              {{Name: "z", Type: pgdialect.Type{Name: "int4", Typmod: -1}}},
		"SELECT 2147483647 + 1 AS o":     {{Name: "o", Type: pgdialect.Type{Name: "int4", Typmod: -1}}},
		"SELECT count(*) AS n FROM n":    {{Name: "n", Type: pgdialect.Type{Name: "int8", Typmod: -1}}},
		"SELECT v FROM n WHERE v = 2":    {{Name: "v", Type: pgdialect.Type{Name: "int4", Typmod: -1}}},
		"SELECT 'b' LIKE 'B' AS l":       {{Name: "l", Type: pgdialect.Type{Name: "bool", Typmod: -1}}},
		"SELECT 'x' AS a, 1.5::float8 b": {{Name: "a", Type: pgdialect.Type{Name: "text", Typmod: -1}}, {Name: "b", Type: pgdialect.Type{Name: "float8", Typmod: -1}}},
	}
	h.translate = func(sql string, _ pgdialect.Catalog, _ []any) (*pgdialect.Translation, error) {
		tr := &pgdialect.Translation{Statements: []string{strings.ReplaceAll(sql, "::float8", "")}, Columns: types[sql]}
		tr.DDL = strings.HasPrefix(sql, "CREATE")
		return tr, nil
	}
	agree := []string{"SELECT 7 / 2 AS q", "SELECT count(*) AS n FROM n", "SELECT v FROM n WHERE v = 2", "SELECT 'x' AS a, 1.5::float8 b"}
	differ := []string{"SELECT v FROM n ORDER BY v", "SELECT 1 / 0 AS z", "SELECT 2147483647 + 1 AS o", "SELECT 'b' LIKE 'B' AS l"}
	setup := []spec{{sql: "CREATE TABLE n (v int4)", setup: true}, {sql: "INSERT INTO n VALUES (2), (NULL), (1)", setup: true}}
	for _, sql := range agree {
		reports = nil
		if n := h.runCase(diffCase{name: "agree", stmts: append(setup, spec{sql: sql, where: "planted"})}, ""); n != 0 {
			t.Errorf("%s: %d discrepancies where the engines agree:\n%s", sql, n, strings.Join(reports, "\n"))
		}
	}
	for _, sql := range differ {
		reports = nil
		if n := h.runCase(diffCase{name: "differ", stmts: append(setup, spec{sql: sql, where: "planted"})}, ""); n != 1 || !strings.Contains(reports[0], sql) {
			t.Errorf("%s: %d discrepancies, want 1 naming the statement (reports: %q)", sql, n, reports)
		}
	}
	if want := 3 * (len(agree) + len(differ)); h.tally.compared != want {
		t.Errorf("%d statements compared, want %d", h.tally.compared, want)
	}
	h.tally.log(t, "planted translator")
}
