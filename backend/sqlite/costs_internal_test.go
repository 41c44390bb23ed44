package sqlite

import (
	"testing"

	sqlite3 "github.com/ncruces/go-sqlite3"
)

// BenchmarkCostedFunction compares a built-in with its costed wrapper:
// upper() of a 20-byte text over 10,000 rows (ns/op is one scan).
func BenchmarkCostedFunction(b *testing.B) {
	for _, costed := range []bool{false, true} {
		name := "builtin"
		if costed {
			name = "costed"
		}
		b.Run(name, func(b *testing.B) {
			c, err := sqlite3.Open(":memory:")
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			k := newCosts()
			defer k.close()
			if costed {
				if err := k.register(c); err != nil {
					b.Fatal(err)
				}
			}
			if err := c.Exec(`CREATE TABLE f (v TEXT);
				WITH RECURSIVE s(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM s WHERE x < 10000)
				INSERT INTO f SELECT 'abcdefghijklmnopqrs' || x FROM s`); err != nil {
				b.Fatal(err)
			}
			st, _, err := c.Prepare(`SELECT max(upper(v)) FROM f`)
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
