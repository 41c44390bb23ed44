package client

import (
	"context"
	"time"

	"github.com/relchain/relchain/api"
)

// streamProbeBatch bounds how many pending txs a stream re-submits per
// probe interval: a stream may have tens of thousands in flight.
const streamProbeBatch = 32

// probeLoop re-submits the stream's pending txs, a batch per interval in
// submission order and round the list again, as a commit-mode wait does
// for its one tx (probe): a tx the node has quarantined is reported at
// once with an error wrapping ErrQuarantined instead of after MaxBlocks,
// and one whose block this stream did not see is reported from the node's
// tx index. It ends when the stream is closed.
func (s *Stream) probeLoop() {
	tick := time.NewTicker(s.c.probeInterval())
	defer tick.Stop()
	var cursor uint64 // the seq of the last tx probed
	for {
		select {
		case <-s.retryCtx.Done():
			return
		case <-tick.C:
		}
		batch := s.probeCandidates(cursor, time.Now().Add(-s.c.probeInterval()))
		if len(batch) == 0 {
			cursor = 0
			continue
		}
		for _, p := range batch {
			s.probeOne(p.st, p.raw)
		}
		cursor = batch[len(batch)-1].st.seq // set once, before the tx was listed
	}
}

// probeCandidate is a pending tx to probe, with its bytes read under the
// stream's lock.
type probeCandidate struct {
	st  *streamTx
	raw []byte
}

// probeCandidates returns up to streamProbeBatch pending txs submitted
// before cutoff, after seq cursor, in submission order.
func (s *Stream) probeCandidates(cursor uint64, cutoff time.Time) []probeCandidate {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []probeCandidate
	for _, st := range s.pending {
		if len(out) == streamProbeBatch {
			break
		}
		if !st.done && st.seq > cursor && st.raw != nil && st.submitted.Before(cutoff) {
			out = append(out, probeCandidate{st: st, raw: st.raw})
		}
	}
	return out
}

// probeOne re-submits st (raw). Whoever takes its waiter out of the
// follower (this probe, or the block that carries it) reports it. A tx
// the index holds at a height the follower has already passed was in a
// block this stream did not see; a later one is left to the follower,
// which reports it with its block's time.
func (s *Stream) probeOne(st *streamTx, raw []byte) {
	ctx, cancel := context.WithTimeout(s.retryCtx, s.c.probeInterval())
	defer cancel()
	a := s.c.probe(ctx, raw, st.hash)
	switch {
	case a.quarantined != nil:
		if s.f.cancelWaiter(st.w) {
			res := &Result{Hash: st.hash, Code: api.CodeQuarantined, Error: a.log}
			s.resolve(st, &Outcome{Result: res, Err: a.quarantined})
		}
	case a.committed != nil && a.committed.Height == 0:
		// A refusal the node's index proves final (evicted by a recheck:
		// too old, or its nonce used): not committed, and an error says so.
		if s.f.cancelWaiter(st.w) {
			s.resolve(st, &Outcome{Result: a.committed, Err: a.committed.Err()})
		}
	case a.committed != nil && a.committed.Height <= s.f.height():
		if s.f.cancelWaiter(st.w) {
			s.resolve(st, &Outcome{Height: a.committed.Height, Index: a.index, Result: a.committed, CommitTime: time.Now()})
		}
	}
}
