package backend_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/relchain/relchain/backend"
)

type testRecord struct{ table, op, image []byte }

// deltaRecords are n change records over a few tables, every operation
// among them (and one the delta ignores), with images of random bytes.
func deltaRecords(n int) []testRecord {
	r := rand.New(rand.NewPCG(1, 2))
	ops := []string{"I", "U", "D", "B", "S", "IX"}
	recs := make([]testRecord, n)
	for i := range recs {
		img := make([]byte, 20+r.IntN(200))
		for j := range img {
			img[j] = byte(r.Uint32())
		}
		recs[i] = testRecord{[]byte(fmt.Sprint("t", r.IntN(5))), []byte(ops[r.IntN(len(ops))]), img}
	}
	return recs
}

// RecordParallel leaves a delta exactly as Record in order does, into an
// empty delta and one holding sums already, with any number of parts.
func TestRecordParallelIsRecord(t *testing.T) {
	for _, n := range []int{0, 1, 63, 64, 200, 1000} {
		recs := deltaRecords(n)
		base := func() backend.TableDelta {
			d := make(backend.TableDelta)
			d.Record([]byte("t1"), []byte("I"), []byte("already there"))
			return d
		}
		want := base()
		for _, r := range recs {
			want.Record(r.table, r.op, r.image)
		}
		for _, parts := range []int{0, 1, 2, 3, 8, 100} {
			got := base()
			got.RecordParallel(n, parts, func(i int) (table, op, image []byte) {
				return recs[i].table, recs[i].op, recs[i].image
			})()
			if len(got) != len(want) {
				t.Fatalf("n %d parts %d: %d tables, Record gives %d", n, parts, len(got), len(want))
			}
			for name, s := range want {
				if g, ok := got[name]; !ok || *g != *s {
					t.Errorf("n %d parts %d: table %s's sum differs from Record's", n, parts, name)
				}
			}
		}
	}
}

// BenchmarkRecordParallel is the state digest's part of a block's change
// digest (SQLite and MySQL: change records of about 120 bytes) in one
// goroutine (parts=1) and on the machine's cores (parts=0).
//
//	go test ./backend -run '^$' -bench RecordParallel -count 5
func BenchmarkRecordParallel(b *testing.B) {
	recs := deltaRecords(4096)
	for _, parts := range []int{1, 0} {
		b.Run(fmt.Sprintf("parts=%d", parts), func(b *testing.B) {
			for range b.N {
				d := make(backend.TableDelta)
				d.RecordParallel(len(recs), parts, func(i int) (table, op, image []byte) {
					return recs[i].table, recs[i].op, recs[i].image
				})()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(recs)), "ns/record")
		})
	}
}
