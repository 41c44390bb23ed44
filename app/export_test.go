package app

import (
	"time"

	"github.com/relchain/relchain/txn"
)

// RehearsalsPreempted is how many rehearsals consensus has cancelled to
// take the block slot.
func (e *Executor) RehearsalsPreempted() int64 { return e.slot.preempted.Load() }

// RehearsalsRun is how many times a rehearsal got the block slot to run.
func (e *Executor) RehearsalsRun() int64 { return e.slot.granted.Load() }

// DropEnvelopeCache makes the executor decode and verify every envelope
// each time, as if nothing were cached (benchmarks compare the two).
func (e *Executor) DropEnvelopeCache() { e.envelopes = nil }

// SetRetryBackoff sets the backoff bounds of e's retries while the
// database is unavailable (RetryMinBackoff, RetryMaxBackoff), so that
// tests of database faults do not wait seconds between attempts.
func SetRetryBackoff(e *Executor, lo, hi time.Duration) {
	e.db.mu.Lock()
	defer e.db.mu.Unlock()
	e.db.minWait, e.db.maxWait = lo, hi
}

// SetLaneAssign makes e run every parallel block's txs on the lanes
// assign gives (tx indices per lane), whatever the analysis found.
func SetLaneAssign(e *Executor, assign func(txs int) [][]int) { e.laneAssign = assign }

// SetLaneMinTxs sets how many txs a block needs per lane where lanes are
// adaptive (minTxsPerLane), so that tests' small blocks may split.
func SetLaneMinTxs(e *Executor, n int) { e.laneMinTxs = n }

// PlanSkipMax is planSkipMax: at most this many blocks in a row go
// unanalysed where lanes are adaptive.
const PlanSkipMax = planSkipMax

// WaitLaneWarm waits for e's background lane warm-up, if one runs.
func WaitLaneWarm(e *Executor) { e.laneWarm.wg.Wait() }

// WarmVerdicts has the pool's gate work for tx done (warmVerdicts).
func WarmVerdicts(e *Executor, tx *txn.Tx) { warmVerdicts(e.verdictWarmer(), tx) }
