package app

import (
	"sync"
	"time"

	"github.com/relchain/relchain/api"
)

// blockStats keeps this node's per-block phase timings (api.BlockTiming)
// for the last statsKeep blocks. They are measurements of the local clock
// for benchmarks and operators; nothing in consensus reads them.
type blockStats struct {
	mu         sync.Mutex
	lastCommit time.Time // end of the previous block's Commit
	height     int64     // block being decided
	proposal   time.Time // first proposal of height seen
	finStart   time.Time
	finEnd     time.Time
	txs        int
	ring       []api.BlockTiming
	next       int
}

const statsKeep = 1 << 16

func (s *blockStats) proposed(height int64, now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.height != height || s.proposal.IsZero() {
		s.height, s.proposal = height, now
	}
}

func (s *blockStats) finalizing(height int64, txs int, now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.height != height {
		// No proposal seen (block sync, replay): no propose/consensus split.
		s.height, s.proposal = height, time.Time{}
	}
	s.finStart, s.txs = now, txs
}

func (s *blockStats) finalized(now time.Time) {
	s.mu.Lock()
	s.finEnd = now
	s.mu.Unlock()
}

func (s *blockStats) committed(now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := api.BlockTiming{
		Height:    s.height,
		Txs:       s.txs,
		ExecuteUS: s.finEnd.Sub(s.finStart).Microseconds(),
		CommitUS:  now.Sub(s.finEnd).Microseconds(),
	}
	if !s.proposal.IsZero() {
		t.ConsensusUS = s.finStart.Sub(s.proposal).Microseconds()
		if !s.lastCommit.IsZero() {
			t.ProposeUS = s.proposal.Sub(s.lastCommit).Microseconds()
		}
	}
	if len(s.ring) < statsKeep {
		s.ring = append(s.ring, t)
	} else {
		s.ring[s.next] = t
		s.next = (s.next + 1) % statsKeep
	}
	s.lastCommit = now
	s.proposal = time.Time{}
	s.height++
}

// between returns the kept timings of heights from..to, in height order.
func (s *blockStats) between(from, to int64) []api.BlockTiming {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []api.BlockTiming{}
	n := len(s.ring)
	for i := 0; i < n; i++ {
		t := s.ring[(s.next+i)%n]
		if t.Height >= from && t.Height <= to {
			out = append(out, t)
		}
	}
	return out
}
