package backend

import "runtime"

// MinRecordsPerPart: fewer change records than this per goroutine are
// not worth one more (the LtHash element of one image costs a few
// microseconds; a goroutine about one).
const MinRecordsPerPart = 64

// RecordParallel adds n change records to d, record i being rec(i), on up
// to parts goroutines (0: GOMAXPROCS), and returns the function that waits
// for them and folds their sums into d; d must not be used before it
// returns. A table's sum is an LtHash, a sum whose order does not matter,
// so d ends exactly as n calls of d.Record in order would leave it, with
// any number of parts (TestRecordParallelIsRecord). rec is called from
// several goroutines at once and must only read. With one part (few
// records, or parts 1) it records in the caller's goroutine.
func (d TableDelta) RecordParallel(n, parts int, rec func(i int) (table, op, image []byte)) (wait func()) {
	if parts <= 0 {
		parts = runtime.GOMAXPROCS(0)
	}
	parts = min(parts, n/MinRecordsPerPart)
	if parts <= 1 {
		for i := range n {
			d.Record(rec(i))
		}
		return func() {}
	}
	chs := make([]chan TableDelta, parts)
	for p := range chs {
		ch := make(chan TableDelta, 1)
		chs[p] = ch
		go func(from, to int) {
			part := make(TableDelta)
			for i := from; i < to; i++ {
				part.Record(rec(i))
			}
			ch <- part
		}(p*n/parts, (p+1)*n/parts)
	}
	return func() {
		for _, ch := range chs {
			for name, sum := range <-ch {
				if cur, ok := d[name]; ok {
					cur.Combine(sum)
				} else {
					d[name] = sum
				}
			}
		}
	}
}
