package backendtest

import (
	"testing"

	"github.com/relchain/relchain/sqlcheck"
)

// testAnalyzeCountsParams: the gate reports how many arguments a statement
// takes (its highest placeholder), on committed state and in the block,
// ignoring placeholder-like text in literals and comments; the executor
// refuses a tx whose arguments differ.
func testAnalyzeCountsParams(t *testing.T, sub subject) {
	n := mustOpen(t, sub)
	n.setup()
	c := ctx(t)
	cases := []struct {
		sql  string
		want int
	}{
		{`SELECT 1`, 0},
		{n.q(`SELECT v FROM t WHERE id = $1`), 1},
		{n.q(`UPDATE t SET v = $1 WHERE id = $2`), 2},
		{`SELECT v, '? $1 ?2' FROM t /* ? $2 */ WHERE id = ` + ph(n.d, 1), 1},
		{n.sp.HighestParam, 3},
	}
	for _, tc := range cases {
		a, err := n.Gate().Analyze(c, tc.sql)
		if err != nil || a.Params != tc.want {
			t.Errorf("Analyze(%q).Params = %d (%v), want %d", tc.sql, a.Params, err, tc.want)
		}
	}
	// Not compilable on committed state: unknown (SQLite), or counted.
	if a, err := n.Gate().Analyze(c, n.q(`INSERT INTO later (id) VALUES ($1)`)); err != nil || (a.Params != 1 && a.Params != sqlcheck.ParamsUnknown) {
		t.Errorf("Analyze of an insert into a missing table: Params %d (%v), want 1 or ParamsUnknown", a.Params, err)
	}
	blk := n.begin()
	defer blk.Rollback(c)
	if err := n.tx(blk, `CREATE TABLE later (id INTEGER PRIMARY KEY)`); err != nil {
		t.Fatalf("create table in block: %v", err)
	}
	for _, tc := range append(cases, struct {
		sql  string
		want int
	}{n.q(`INSERT INTO later (id) VALUES ($1)`), 1}) {
		a, err := n.Gate().AnalyzeInBlock(c, blk, tc.sql)
		if err != nil || a.Params != tc.want {
			t.Errorf("AnalyzeInBlock(%q).Params = %d (%v), want %d", tc.sql, a.Params, err, tc.want)
		}
	}
}
