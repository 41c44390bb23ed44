package mysql

import (
	"testing"

	"github.com/dolthub/vitess/go/vt/sqlparser"
)

var benchStatements = []struct{ name, sql string }{
	{"smallbank-update", "UPDATE checking SET bal = bal + ? WHERE custid = ?"},
	{"tpcc-neworder-stock", "UPDATE stock SET s_quantity = ?, s_ytd = s_ytd + ?, s_order_cnt = s_order_cnt + 1, s_remote_cnt = s_remote_cnt + ? WHERE s_i_id = ? AND s_w_id = ?"},
	{"tpcc-neworder-orders-now", "INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_ol_cnt, o_all_local) VALUES (?, ?, ?, ?, NOW(), ?, ?)"},
	{"tpcc-neworder-select", "SELECT c_discount, c_last, c_credit, w_tax FROM customer, warehouse WHERE w_id = ? AND c_w_id = w_id AND c_d_id = ? AND c_id = ?"},
}

// BenchmarkCheck measures the gate per statement: uncached (parse and
// walk: what CheckTx pays for a text it has not seen) and cached (what
// CheckTx and FinalizeBlock pay for a workload's repeated statement
// texts), next to the bare parse.
func BenchmarkCheck(b *testing.B) {
	for _, s := range benchStatements {
		if err := Check(s.sql); err != nil {
			b.Fatalf("%s: %v", s.name, err)
		}
		b.Run(s.name+"/uncached", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = check(s.sql)
			}
		})
		b.Run(s.name+"/cached", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = Check(s.sql)
			}
		})
		b.Run(s.name+"/parse-only", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_, _ = sqlparser.Parse(s.sql)
			}
		})
	}
}
