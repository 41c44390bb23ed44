package prescan_test

import (
	"testing"

	"github.com/relchain/relchain/sqlcheck/prescan"
	"github.com/relchain/relchain/sqlcheck/sqlchecktest"
)

// BenchmarkCheck measures the pre-scan per statement, on the gates' shared
// benchmark statements.
//
//	go test ./sqlcheck/prescan -run '^$' -bench Check -count 5
func BenchmarkCheck(b *testing.B) {
	for _, s := range sqlchecktest.BenchStatements {
		b.Run(s.Name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = prescan.Check(s.SQL, prescan.PostgreSQL)
			}
		})
	}
}
