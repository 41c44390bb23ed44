package postgres

import (
	"testing"
)

// FuzzCheck: the checker never panics, and its verdict is a pure function
// of the text (same message uncached, twice, and through the cache).
func FuzzCheck(f *testing.F) {
	for _, c := range corpus {
		f.Add(c.sql)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		a := check(sql)
		b := check(sql)
		c := Check(sql)
		if !sameVerdict(a, b) || !sameVerdict(a, c) {
			t.Fatalf("%q: verdicts differ: %v / %v / %v", sql, a, b, c)
		}
	})
}

func sameVerdict(a, b error) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return a.Error() == b.Error()
}

var benchStatements = []struct{ name, sql string }{
	{"smallbank-update", "UPDATE checking SET bal = bal + $1 WHERE custid = $2"},
	{"tpcc-neworder-insert", "INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_dist_info) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)"},
	{"tpcc-neworder-select", "SELECT c_discount, c_last, c_credit, w_tax FROM customer, warehouse WHERE w_id = $1 AND c_w_id = w_id AND c_d_id = $2 AND c_id = $3"},
}

// BenchmarkCheck measures the gate per statement: uncached (parse and walk
// every time) and cached (the verdict cache hit CheckTx and FinalizeBlock
// see for a workload's repeated statement texts).
func BenchmarkCheck(b *testing.B) {
	for _, s := range benchStatements {
		if err := check(s.sql); err != nil {
			b.Fatalf("%s: %v", s.name, err)
		}
		b.Run(s.name+"/uncached", func(b *testing.B) {
			for b.Loop() {
				_ = check(s.sql)
			}
		})
		b.Run(s.name+"/parse-only", func(b *testing.B) {
			for b.Loop() {
				_, _ = parseOnly(s.sql)
			}
		})
		b.Run(s.name+"/cached", func(b *testing.B) {
			for b.Loop() {
				_ = Check(s.sql)
			}
		})
	}
}
