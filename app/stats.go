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
	decided    time.Time // FinalizeBlock called
	execStart  time.Time // the latest execution of the block (ProcessProposal's
	execEnd    time.Time // speculative one, or FinalizeBlock's)
	txs        int
	lanes      string // how it ran (pendingBlock.laneOutcome)
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

// enter makes height the block being decided; a block that was never
// proposed to this node (block sync, replay) has no propose/consensus
// split. The caller holds mu.
func (s *blockStats) enter(height int64) {
	if s.height != height {
		s.height, s.proposal = height, time.Time{}
	}
}

func (s *blockStats) finalizing(height int64, now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.enter(height)
	s.decided = now
}

// executed records an execution of the block: in ProcessProposal before
// the decision, or in FinalizeBlock.
func (s *blockStats) executed(height int64, txs int, start, end time.Time, lanes string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.enter(height)
	s.execStart, s.execEnd, s.txs, s.lanes = start, end, txs, lanes
}

// committed records the end of the block's Commit and returns its timings.
func (s *blockStats) committed(now time.Time) api.BlockTiming {
	s.mu.Lock()
	defer s.mu.Unlock()
	exec := s.execEnd.Sub(s.execStart)
	done := s.decided
	if s.execEnd.After(done) {
		done = s.execEnd
	}
	t := api.BlockTiming{
		Height:    s.height,
		Txs:       s.txs,
		ExecuteUS: exec.Microseconds(),
		CommitUS:  now.Sub(done).Microseconds(),
		Lanes:     s.lanes,
	}
	if !s.proposal.IsZero() {
		consensus := s.decided.Sub(s.proposal)
		if !s.execEnd.After(s.decided) {
			consensus -= exec // executed while the votes were gathered
		}
		t.ConsensusUS = consensus.Microseconds()
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
	return t
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

// Observer hears, for metrics, what the app did: each committed block's
// phase timings with the part of its execution spent on digests (change
// and state digests, AppHash) and its txs' result codes, and each new tx
// CheckTx refused. Calls come on CometBFT's consensus and mempool
// goroutines after the work is done: they must be quick and must not
// block, and nothing they do can change a block's outcome. codes is only
// valid during the call.
type Observer interface {
	BlockCommitted(t api.BlockTiming, digest time.Duration, codes []uint32)
	CheckTxRefused(code uint32)
}

// observeFinalized keeps what Commit reports to the Observer of the block
// FinalizeBlock just returned. Called on the consensus goroutine only.
func (a *App) observeFinalized(results []TxResult) {
	if a.Observer == nil {
		return
	}
	a.obsCodes = a.obsCodes[:0]
	for _, r := range results {
		a.obsCodes = append(a.obsCodes, r.Code)
	}
	a.obsDigest = a.ex.pendingDigest()
}

// observeCommitted reports the committed block to the Observer.
func (a *App) observeCommitted(t api.BlockTiming) {
	if a.Observer != nil {
		a.Observer.BlockCommitted(t, a.obsDigest, a.obsCodes)
	}
}

// refused reports a new tx CheckTx refused to the Observer.
func (a *App) refused(code uint32) {
	if a.Observer != nil {
		a.Observer.CheckTxRefused(code)
	}
}
