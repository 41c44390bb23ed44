package postgres_test

import (
	"slices"
	"testing"
	"time"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/internal/pgtest"
)

// BenchmarkQuery measures a point SELECT by primary key through the query
// path (the gate, the read-only transaction, its height and the
// statement) and reports the median latency as p50-µs:
//
//	go test ./backend/postgres -run '^$' -bench BenchmarkQuery -benchtime 20000x
func BenchmarkQuery(b *testing.B) {
	be := mustOpen(b, pgtest.DSN(b))
	defer be.Close()
	blk, err := be.Begin(b.Context())
	if err != nil {
		b.Fatal(err)
	}
	for _, s := range []string{`CREATE TABLE t (id int PRIMARY KEY, v text)`, `INSERT INTO t SELECT i, 'v' || i FROM generate_series(1, 1000) i`} {
		if _, err := blk.Exec(b.Context(), s, nil); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := blk.ChangeDigest(b.Context()); err != nil {
		b.Fatal(err)
	}
	if err := blk.Commit(b.Context(), backendState(1)); err != nil {
		b.Fatal(err)
	}
	var lat []time.Duration
	for i := 0; b.Loop(); i++ {
		start := time.Now()
		if _, _, err := be.Query(b.Context(), `SELECT v FROM t WHERE id = $1`, []any{int64(i%1000 + 1)}); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
}

func backendState(h int64) backend.State { return backend.State{Height: h, AppHash: []byte{byte(h)}} }
