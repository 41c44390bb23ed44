package statedigest

import (
	"runtime"
	"sync"
)

// batchSize is how many rows travel to a hashing goroutine at once.
const batchSize = 256

// Scan sums the rows of one table on several goroutines: the caller feeds
// row images in any order (Add copies them, so a driver's buffer may be
// reused at once) and Sum waits for the result. Hashing is the expensive
// part of a full scan (a few microseconds per row), and the sum does not
// depend on which goroutine adds which row.
type Scan struct {
	table   []byte
	batch   [][]byte
	work    chan [][]byte
	wg      sync.WaitGroup
	partial []Sum
}

// NewScan starts the hashing goroutines for table (one per CPU).
func NewScan(table string) *Scan {
	n := max(runtime.GOMAXPROCS(0), 1)
	s := &Scan{table: []byte(table), work: make(chan [][]byte, n), partial: make([]Sum, n)}
	s.wg.Add(n)
	for i := range n {
		go func(sum *Sum) {
			defer s.wg.Done()
			for batch := range s.work {
				for _, img := range batch {
					sum.AddRow(s.table, img)
				}
			}
		}(&s.partial[i])
	}
	return s
}

// Add queues one row image.
func (s *Scan) Add(image []byte) {
	s.batch = append(s.batch, append([]byte(nil), image...))
	if len(s.batch) == batchSize {
		s.work <- s.batch
		s.batch = make([][]byte, 0, batchSize)
	}
}

// Sum waits for every queued row and returns the table's sum. The Scan
// cannot be used afterwards.
func (s *Scan) Sum() Sum {
	if len(s.batch) > 0 {
		s.work <- s.batch
	}
	close(s.work)
	s.wg.Wait()
	var total Sum
	for i := range s.partial {
		total.Combine(&s.partial[i])
	}
	return total
}
