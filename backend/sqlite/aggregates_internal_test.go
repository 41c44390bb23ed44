package sqlite

import (
	"testing"

	sqlite3 "github.com/ncruces/go-sqlite3"
)

// BenchmarkSum compares SQLite's built-in sum with the exact one over
// 100,000 REAL and 100,000 INTEGER values (ns/op is one sum of each).
func BenchmarkSum(b *testing.B) {
	for _, exact := range []bool{false, true} {
		name := "builtin"
		if exact {
			name = "exact"
		}
		b.Run(name, func(b *testing.B) {
			c, err := sqlite3.Open(":memory:")
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			if exact {
				if err := registerAggregates(c); err != nil {
					b.Fatal(err)
				}
			}
			if err := c.Exec(`CREATE TABLE f (r REAL, i INTEGER);
				WITH RECURSIVE s(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM s WHERE x < 100000)
				INSERT INTO f SELECT x * 1.1, x FROM s`); err != nil {
				b.Fatal(err)
			}
			st, _, err := c.Prepare(`SELECT sum(r), sum(i) FROM f`)
			if err != nil {
				b.Fatal(err)
			}
			defer st.Close()
			for b.Loop() {
				if !st.Step() {
					b.Fatal(st.Err())
				}
				if err := st.Reset(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
