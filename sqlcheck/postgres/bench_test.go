package postgres

import (
	"testing"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

var benchStatements = []struct{ name, sql string }{
	{"smallbank-update", "UPDATE checking SET balance = balance + $1 WHERE customer_id = $2"},
	{"tpcc-neworder-district", "UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = $1 AND d_id = $2 RETURNING d_next_o_id, d_tax"},
	{"tpcc-neworder-stock", "UPDATE stock SET s_quantity = $1, s_ytd = s_ytd + $2, s_order_cnt = s_order_cnt + 1, s_remote_cnt = s_remote_cnt + $3 WHERE s_i_id = $4 AND s_w_id = $5"},
	{"tpcc-neworder-orderline", "INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_dist_info) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)"},
	{"tpcc-neworder-select", "SELECT c_discount, c_last, c_credit, w_tax FROM customer, warehouse WHERE w_id = $1 AND c_w_id = w_id AND c_d_id = $2 AND c_id = $3"},
	{"tpcc-neworder-orders-now", "INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_ol_cnt, o_all_local) VALUES ($1, $2, $3, $4, now(), $5, $6)"},
}

// BenchmarkAnalyze measures the gate per statement: uncached (parse, walk,
// and for a statement with now() the rewrite template: what CheckTx pays
// for a text it has not seen) and cached (what CheckTx and FinalizeBlock
// pay for a workload's repeated statement texts), next to the bare parse.
func BenchmarkAnalyze(b *testing.B) {
	for _, s := range benchStatements {
		if _, err := Analyze(s.sql); err != nil {
			b.Fatalf("%s: %v", s.name, err)
		}
		b.Run(s.name+"/uncached", func(b *testing.B) {
			for b.Loop() {
				_ = analyze(s.sql)
			}
			reportNs(b)
		})
		b.Run(s.name+"/cached", func(b *testing.B) {
			for b.Loop() {
				_, _ = Analyze(s.sql)
			}
			reportNs(b)
		})
		b.Run(s.name+"/parse-only", func(b *testing.B) {
			for b.Loop() {
				_, _ = pg_query.Parse(s.sql)
			}
			reportNs(b)
		})
	}
}

// BenchmarkRewrite measures Rewrite of a statement that needs it (cached
// template) and of one that does not.
func BenchmarkRewrite(b *testing.B) {
	for _, s := range benchStatements {
		a, err := Analyze(s.sql)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(s.name, func(b *testing.B) {
			for b.Loop() {
				_, _ = Rewrite(s.sql, testEnv)
			}
			reportNs(b)
		})
		if a.UsesEnv {
			b.Run(s.name+"/uncached", func(b *testing.B) {
				for b.Loop() {
					_, _ = analyze(s.sql).tmpl.fill(testEnv)
				}
				reportNs(b)
			})
		}
	}
}

func reportNs(b *testing.B) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/op")
}
