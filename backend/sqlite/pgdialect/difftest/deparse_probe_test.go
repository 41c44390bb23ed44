package difftest

import (
	"context"
	"fmt"
	"testing"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// TestProbeDeparseKeepsMeaning: a probe's text (deparse) asks PostgreSQL
// the question the statement it came from asks, for operands whose
// parentheses pg_query's deparser leaves out (delimitOperands). Each
// expression is evaluated by PostgreSQL as written and as deparsed.
func TestProbeDeparseKeepsMeaning(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	for _, e := range []string{
		"(DATE '1999-12-31' IS DISTINCT FROM '2024-01-01') BETWEEN 't' AND 't'", // random 7003/576
		"(1 = 1) IS NOT DISTINCT FROM (2 IS NULL)",                              // random 8101/5686
		"(NULL::int IS NULL)::text LIKE 'x'",
		"(1 < 2) IN (true)",
		"((1 = 2) IS TRUE) BETWEEN false AND true",
		"true BETWEEN (1 IS NULL) AND (2 = 2)",
		"((1 = 2) IS NULL) = true",
		"(1 BETWEEN 0 AND 2) = (2 BETWEEN 1 AND 3)",
		"NOT (1 = 2) = false",
		"(true OR false) IS NOT TRUE",
	} {
		q := "SELECT (" + e + ")::text"
		res, err := pg_query.Parse(q)
		if err != nil {
			t.Fatal(err)
		}
		probe, err := deparse(res.Stmts[0].Stmt.GetSelectStmt())
		if err != nil {
			t.Fatal(err)
		}
		var want, got string
		wantErr := h.pg.QueryRow(ctx, q).Scan(&want)
		gotErr := h.pg.QueryRow(ctx, probe).Scan(&got)
		if fmt.Sprint(want, wantErr) != fmt.Sprint(got, gotErr) {
			t.Errorf("%s: %q (%v); deparsed as %s: %q (%v)", e, want, wantErr, probe, got, gotErr)
		}
	}
}
