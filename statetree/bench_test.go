package statetree

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	ics23 "github.com/cosmos/ics23/go"
)

// benchRows is Smallbank's table size (bench/smallbank: 100,000 accounts).
const benchRows = 100_000

// benchKey is the encoding of BIGINT id 2i (odd ids are absent keys).
func benchKey(i int) []byte { return binary.BigEndian.AppendUint64(nil, uint64(2*i)) }

func benchImage(i, version int) []byte {
	return []byte(fmt.Sprintf("row %d version %d, a hundred bytes or so of row image", i, version))
}

func benchTree(b *testing.B) (*Tree, Root) { return benchTreeOf(b, benchRows) }

// benchTreeOf is a committed tree of rows rows.
func benchTreeOf(b *testing.B, rows int) (*Tree, Root) {
	b.Helper()
	tr := New()
	for i := 0; i < rows; i++ {
		if err := tr.Set(benchKey(i), sha256.Sum256(benchImage(i, 0))); err != nil {
			b.Fatal(err)
		}
	}
	return tr, tr.Commit()
}

func benchValues(key []byte) ([]byte, error) {
	return benchImage(int(binary.BigEndian.Uint64(key)/2), 0), nil
}

// BenchmarkSetCommit is a block of N updates of random rows and its
// Commit, per changed row, at 10^5 rows.
func BenchmarkSetCommit(b *testing.B) {
	for _, n := range []int{100, 1000} {
		b.Run(fmt.Sprintf("block=%d", n), func(b *testing.B) {
			tr, _ := benchTree(b)
			rng := rand.New(rand.NewPCG(1, 2))
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				for j := 0; j < n; j++ {
					row := rng.IntN(benchRows)
					if err := tr.Set(benchKey(row), sha256.Sum256(benchImage(row, i+1))); err != nil {
						b.Fatal(err)
					}
				}
				tr.Commit()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/row")
		})
	}
}

// BenchmarkVerify is proof size (marshalled) and Unmarshal + verify time
// at 10^4, 10^5 and 10^6 rows: a point, an absent key, a 100-row range.
// The chained proofs a client receives add the table's proof in the tables
// map (one link per table level: a few hundred bytes for a few tables).
//
//	go test ./statetree -run '^$' -bench Verify -benchtime 2000x
func BenchmarkVerify(b *testing.B) {
	for _, n := range []int{10_000, benchRows, 1_000_000} {
		b.Run(fmt.Sprintf("rows=%d", n), func(b *testing.B) { benchVerify(b, n) })
	}
}

func benchVerify(b *testing.B, n int) {
	_, r := benchTreeOf(b, n)
	root := r.Hash()
	mid := n / 2
	exist, err1 := r.ProveExistence(benchKey(mid), benchImage(mid, 0))
	absent := binary.BigEndian.AppendUint64(nil, uint64(2*mid+1))
	nonexist, err2 := r.ProveNonExistence(absent, benchValues)
	lo, hi := benchKey(mid), benchKey(mid+99)
	rng, err3 := r.ProveRange(lo, hi, benchValues)
	if err1 != nil || err2 != nil || err3 != nil {
		b.Fatal(err1, err2, err3)
	}
	var rows []KV
	for i := mid; i < mid+100; i++ {
		rows = append(rows, KV{benchKey(i), benchImage(i, 0)})
	}
	cases := []struct {
		name   string
		proof  *ics23.CommitmentProof
		verify func(p *ics23.CommitmentProof) error
	}{
		{"existence", exist, func(p *ics23.CommitmentProof) error {
			return VerifyExistence(root, benchKey(mid), benchImage(mid, 0), p)
		}},
		{"non-existence", nonexist, func(p *ics23.CommitmentProof) error { return VerifyNonExistence(root, absent, p) }},
		{"range=100", rng, func(p *ics23.CommitmentProof) error { return VerifyRange(root, lo, hi, rows, p) }},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			data, err := c.proof.Marshal()
			if err != nil {
				b.Fatal(err)
			}
			for i := 0; i < b.N; i++ {
				p := &ics23.CommitmentProof{}
				if err := p.Unmarshal(data); err != nil {
					b.Fatal(err)
				}
				if err := c.verify(p); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(data)), "proof-bytes")
		})
	}
}

// BenchmarkProve is proof generation at 10^5 rows: a point, an absent key,
// a 100-row range.
func BenchmarkProve(b *testing.B) {
	_, r := benchTree(b)
	rng := rand.New(rand.NewPCG(3, 4))
	b.Run("existence", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			row := rng.IntN(benchRows)
			if _, err := r.ProveExistence(benchKey(row), benchImage(row, 0)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("non-existence", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			absent := binary.BigEndian.AppendUint64(nil, uint64(2*rng.IntN(benchRows)+1))
			if _, err := r.ProveNonExistence(absent, benchValues); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("range=100", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			row := rng.IntN(benchRows - 100)
			if _, err := r.ProveRange(benchKey(row), benchKey(row+99), benchValues); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkMemPerRow is the live heap per row of a committed tree of 8-byte
// keys (HeapAlloc after GC, less the heap before), as inserted and after
// 10 blocks of 1,000 updates (the garbage a layout keeps for snapshots).
// Run it with -benchtime=1x.
func BenchmarkMemPerRow(b *testing.B) {
	for _, rows := range []int{100_000, 1_000_000} {
		b.Run(fmt.Sprintf("rows=%d", rows), func(b *testing.B) {
			var before, after, updated runtime.MemStats
			for i := 0; i < b.N; i++ {
				runtime.GC()
				runtime.ReadMemStats(&before)
				tr := New()
				for j := 0; j < rows; j++ {
					if err := tr.Set(benchKey(j), sha256.Sum256(benchKey(j))); err != nil {
						b.Fatal(err)
					}
				}
				tr.Commit()
				runtime.GC()
				runtime.ReadMemStats(&after)
				rng := rand.New(rand.NewPCG(5, 6))
				for blk := 0; blk < 10; blk++ {
					for j := 0; j < 1000; j++ {
						row := rng.IntN(rows)
						if err := tr.Set(benchKey(row), sha256.Sum256(benchImage(row, blk))); err != nil {
							b.Fatal(err)
						}
					}
					tr.Commit()
				}
				runtime.GC()
				runtime.ReadMemStats(&updated)
				runtime.KeepAlive(tr)
			}
			b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/float64(rows), "B/row")
			b.ReportMetric(float64(updated.HeapAlloc-before.HeapAlloc)/float64(rows), "B/row-updated")
		})
	}
}
