package backendtest

import (
	"context"
	"testing"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/sqlcheck"
)

// BenchUpdates is the number of single-row UPDATEs per block in
// BenchmarkBlock.
const BenchUpdates = 1000

// BenchmarkBlock measures block execution: per iteration one block of
// BenchUpdates single-row UPDATEs, each in its own savepoint (one
// bc-transaction each), then ChangeDigest and Commit. open must return a
// Backend on a fresh database; BenchmarkBlock closes it.
func BenchmarkBlock(b *testing.B, open func(b *testing.B) backend.Backend) {
	ctx := context.Background()
	be := open(b)
	defer be.Close()
	d := be.Dialect()
	must := func(err error) {
		b.Helper()
		if err != nil {
			b.Fatal(err)
		}
	}

	blk, err := be.Begin(ctx)
	must(err)
	_, err = blk.Exec(ctx, `CREATE TABLE acct (id INTEGER PRIMARY KEY, bal BIGINT NOT NULL)`, nil)
	must(err)
	ins := placeholders(d, `INSERT INTO acct (id, bal) VALUES ($1, 0)`)
	for i := 0; i < BenchUpdates; i++ {
		_, err = blk.Exec(ctx, ins, []any{int64(i)})
		must(err)
	}
	_, err = blk.ChangeDigest(ctx)
	must(err)
	must(blk.Commit(ctx, backend.State{Height: 1, AppHash: appHash(1)}))

	upd := placeholders(d, `UPDATE acct SET bal = bal + 1 WHERE id = $1`)
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		blk, err := be.Begin(ctx)
		must(err)
		for i := 0; i < BenchUpdates; i++ {
			must(blk.Savepoint(ctx, sqlcheck.Env{Tx: i}))
			_, err = blk.Exec(ctx, upd, []any{int64(i)})
			must(err)
			must(blk.Release(ctx))
		}
		_, err = blk.ChangeDigest(ctx)
		must(err)
		h := int64(n + 2)
		must(blk.Commit(ctx, backend.State{Height: h, AppHash: appHash(h)}))
	}
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*BenchUpdates), "ns/update")
}
