package app

import (
	"crypto/sha256"
	"fmt"
	"testing"

	"github.com/relchain/relchain/backend"
)

// BenchmarkResultsEncoding measures what issue 19 item 6 asks about: the
// cost of building a block's result data (encodeExecData: one JSON
// document per successful tx, with its effect digest) and hashing it
// (ResultsHash), per tx, for a block of 400 Smallbank-like txs (one to
// three statements, each reporting rows affected) and for a batch
// bc-transaction of 100 wl-transactions. Compare with the executor's
// per-wl-transaction cost in BENCHMARKS.md.
func BenchmarkResultsEncoding(b *testing.B) {
	b.Run("async-400-txs", func(b *testing.B) {
		benchResults(b, 400, func(i int) *execData {
			return &execData{Results: affected(1 + i%3)}
		})
	})
	b.Run("batch-100-wl", func(b *testing.B) {
		benchResults(b, 1, func(int) *execData {
			d := &execData{Results: []*backend.Rows{}}
			for w := 0; w < 100; w++ {
				d.Batch = append(d.Batch, wlData{Code: 0, Results: affected(1 + w%3)})
			}
			return d
		})
	})
}

// affected is n statement results that each changed one row.
func affected(n int) []*backend.Rows {
	rs := make([]*backend.Rows, n)
	for i := range rs {
		rs[i] = &backend.Rows{RowsAffected: 1}
	}
	return rs
}

func benchResults(b *testing.B, txs int, build func(i int) *execData) {
	effects := make(map[int][]byte, txs)
	for i := 0; i < txs; i++ {
		d := sha256.Sum256([]byte(fmt.Sprint(i)))
		effects[i] = d[:]
	}
	var bytes int
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		b.StopTimer()
		results := make([]TxResult, txs)
		outs := make([]*execData, txs)
		for i := range outs {
			outs[i] = build(i)
		}
		b.StartTimer()
		encodeExecData(results, outs, effects)
		_ = ResultsHash(results)
		bytes = 0
		for _, r := range results {
			bytes += len(r.Data)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(txs), "ns/tx")
	b.ReportMetric(float64(bytes)/float64(txs), "bytes/tx")
}
