package pggate

import (
	"slices"
	"testing"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/relchain/relchain/sqlcheck/sqlchecktest"
)

// benchStatements are the shared benchmark statements and one with
// RETURNING, which MySQL lacks.
var benchStatements = append(slices.Clip(sqlchecktest.BenchStatements), sqlchecktest.BenchStatement{
	Name: "tpcc-neworder-district",
	SQL:  "UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = $1 AND d_id = $2 RETURNING d_next_o_id, d_tax",
})

// BenchmarkAnalyze measures the gate per statement (sqlchecktest.RunBench):
// Analyze uncached (check: for a statement with now(), the rewrite
// template included) and cached, next to the bare parse.
func BenchmarkAnalyze(b *testing.B) {
	sqlchecktest.RunBench(b, sqlchecktest.Bench{
		Uncached: check,
		Cached: func(sql string) error {
			_, err := Analyze(sql)
			return err
		},
		ParseOnly: func(sql string) error { _, err := pg_query.Parse(sql); return err },
	}, benchStatements)
}

// BenchmarkRewrite measures Rewrite of a statement that needs it (cached
// template) and of one that does not.
func BenchmarkRewrite(b *testing.B) {
	for _, s := range benchStatements {
		a, err := Analyze(s.SQL)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(s.Name, func(b *testing.B) {
			for b.Loop() {
				_, _ = Rewrite(s.SQL, testEnv)
			}
			reportNs(b)
		})
		if a.UsesEnv {
			b.Run(s.Name+"/uncached", func(b *testing.B) {
				for b.Loop() {
					_, _ = analyze(s.SQL).tmpl.fill(testEnv)
				}
				reportNs(b)
			})
		}
	}
}

func reportNs(b *testing.B) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/op")
}
