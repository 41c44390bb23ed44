package conflict

import "testing"

// BenchmarkAnalyze: one statement's analysis with a new argument each
// time, as a block's planning runs them: a key by value, a key looked up
// by name, a join; through the memo (its template filled with the
// argument) and without (the parse tree cached, the tree walked).
func BenchmarkAnalyze(b *testing.B) {
	b.Run("memo", func(b *testing.B) { benchmarkAnalyze(b, NewMemo(testCatalog())) })
	b.Run("walk", func(b *testing.B) { benchmarkAnalyze(b, testCatalog()) })
}

func benchmarkAnalyze(b *testing.B, cat Catalog) {
	for _, c := range []struct {
		name, sql string
		arg       func(i int) any
	}{
		{"by-key", "UPDATE checking SET bal = bal + $1 WHERE custid = $2", func(i int) any { return int64(i % 1000) }},
		{"by-lookup", "UPDATE checking SET bal = bal + $1 WHERE custid = (SELECT custid FROM customers WHERE name = $2)", func(i int) any { return string(rune('a' + i%26)) }},
		{"join", "SELECT a.custid, s.bal + c.bal FROM customers a JOIN savings s ON s.custid = a.custid JOIN checking c ON c.custid = a.custid WHERE a.name = $2", func(i int) any { return string(rune('a' + i%26)) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			for i := range b.N {
				Analyze(c.sql, []any{int64(5), c.arg(i)}, cat)
			}
		})
	}
}
