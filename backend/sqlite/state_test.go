package sqlite_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/sqlite"
	"github.com/relchain/relchain/sqlcheck"
)

// BenchmarkScanState measures the full scan behind `relchain verify`: a
// table of RELCHAIN_BENCH_ROWS rows (default 100,000) of the bench
// workload's shape, filled through blocks (so the stored sums are real),
// then recomputed from every row.
//
//	RELCHAIN_BENCH_ROWS=1000000 go test -run '^$' -bench ScanState -benchtime 3x ./backend/sqlite
func BenchmarkScanState(b *testing.B) {
	rows := 100_000
	if v := os.Getenv("RELCHAIN_BENCH_ROWS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			b.Fatalf("RELCHAIN_BENCH_ROWS=%q: %v", v, err)
		}
		rows = n
	}
	ctx := context.Background()
	be, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "relchain.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer be.Close()
	const chunk = 50_000
	for h, from := int64(1), 0; from < rows; h++ {
		blk, err := be.Begin(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if h == 1 {
			if _, err := blk.Exec(ctx, `CREATE TABLE bench_acct (id INTEGER PRIMARY KEY, bal INTEGER NOT NULL)`, nil); err != nil {
				b.Fatal(err)
			}
		}
		// One block per 4 chunks; each statement stays within the work limit.
		for k := 0; k < 4 && from < rows; k++ {
			to := min(from+chunk, rows)
			if err := blk.Savepoint(ctx, sqlcheck.Env{}); err != nil {
				b.Fatal(err)
			}
			if _, err := blk.Exec(ctx, fmt.Sprintf(`WITH RECURSIVE s(i) AS (SELECT %d UNION ALL SELECT i + 1 FROM s WHERE i < %d)
				INSERT INTO bench_acct (id, bal) SELECT i, i %% 1000 FROM s`, from+1, to), nil); err != nil {
				b.Fatalf("fill rows %d..%d: %v", from+1, to, err)
			}
			if err := blk.Release(ctx); err != nil {
				b.Fatal(err)
			}
			from = to
		}
		if _, err := blk.ChangeDigest(ctx); err != nil {
			b.Fatal(err)
		}
		if _, err := blk.StateDigest(ctx); err != nil {
			b.Fatal(err)
		}
		if err := blk.Commit(ctx, backend.State{Height: h, AppHash: []byte{byte(h)}}); err != nil {
			b.Fatal(err)
		}
	}
	stored, _, err := be.StoredState(ctx)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		scanned, _, err := be.ScanState(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if *scanned["bench_acct"] != *stored["bench_acct"] {
			b.Fatal("the scan disagrees with the stored sum")
		}
	}
	b.ReportMetric(float64(rows), "rows")
}
