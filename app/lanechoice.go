package app

import (
	"sync"
	"time"
)

// WithAdaptiveLanes makes the executor run a block that splits on lanes
// only while that is measured to be faster here (laneChooser): where the
// validator's cores are shared (several validators or the database server
// on a small machine), lanes add work the cores cannot absorb and would
// make blocks slower. Off (the executor's default, for tests), every block
// that splits runs on lanes. Node-local like WithLanes: whether a block
// ran on lanes never shows in its results.
func WithAdaptiveLanes(on bool) ExecutorOption {
	return func(o *executorOptions) { o.adaptiveLanes = on }
}

// minTxsPerLane: with WithAdaptiveLanes, a block gets at most one lane per
// minTxsPerLane txs (fewer than two: it runs serially, unplanned). A lane
// costs a few round trips whatever it runs (its BEGIN, its PREPARE
// TRANSACTION and COMMIT PREPARED): four validators paced at 300
// wl-tx/s, blocks of 14-61 txs, took 3.5 ms per tx on lanes against 2.5
// serially (BENCHMARKS.md, "Parallel execution on lanes").
const minTxsPerLane = 16

// lanesFor is how many lanes a block of n txs may use: WithLanes's k, at
// most one per minTxsPerLane txs where lanes are adaptive, and never more
// than n.
func (e *Executor) lanesFor(n int) int {
	k := min(e.opts.lanes, n)
	if e.opts.adaptiveLanes {
		k = min(k, n/max(e.laneMinTxs, 1))
	}
	return k
}

// Tuning of laneChooser: each way runs laneWarmup blocks before the
// cheaper is chosen; then one block in laneExploreEvery runs the other
// way, so a change of load is noticed — one in twice as many each time
// such a block is slower again than the chosen way's cost, up to one in
// laneExploreMax (an exploration of the slower way costs what it
// measures: on shared cores lanes took 3-5x serial's time per block); a
// block of the other way that comes out faster brings it back to one in
// laneExploreEvery. A new block weighs laneCostWeight in its way's cost,
// laneExploreWeight in the slower way's (sampled rarely, so a change of
// load must show in few samples).
//
// A try — the warm-up's blocks on lanes, an exploration — is made only
// on a block a serial run takes at most laneTryBudget for (by the serial
// cost measured; before it is, a block of at most laneTryMaxTxs txs): a
// try of the slower way costs its block several times its time, and on
// shared cores that delay makes the next blocks larger — four validators
// paced at 600 wl-tx/s (1.7 ms a tx serially) tipped into blocks of
// 1,000+ txs when the warm-up ran such blocks on lanes, and again at an
// exploration (benchmarks/JOURNAL.md, 2026-12-06). A larger block runs
// the way measured faster, serially before both ways are measured. A
// budget in time, not in txs, keeps large blocks tried where a tx is
// cheap (idle cores: lanes' best case).
//
// Lanes are chosen only when measured at least laneMinGain times cheaper
// per tx than serial runs: per-block costs on shared cores are noisy, and
// where the two ways cost nearly alike the moving averages cross at
// random, so a chooser without a margin ran half its blocks on lanes while
// they were 14 % slower per tx (median) — and with them a large block that
// cost twice its serial time (four validators, YCSB at 600 wl-tx/s,
// benchmarks/JOURNAL.md, 2026-12-06, fourth session). Serial is the way
// with no risk; lanes must win clearly.
const (
	laneMinGain       = 1.2
	laneTryBudget     = 250 * time.Millisecond
	laneTryMaxTxs     = 128
	laneWarmup        = 2
	laneExploreEvery  = 16
	laneExploreMax    = 256
	laneCostWeight    = 0.2
	laneExploreWeight = 0.5
)

// laneChooser decides, for each block the conflict analysis splits,
// whether it runs on lanes or serially, by the measured cost per tx of
// each way (execution and digests, a moving average over recent blocks).
// It only ever sees blocks that split, so both ways are measured on the
// same kind of block. Its decisions are node-local and change nothing but
// speed: results, digests and the AppHash are the same either way.
type laneChooser struct {
	mu      sync.Mutex
	cost    [2]float64 // nanoseconds per tx: [serial, lanes]
	samples [2]int
	// sinceExplore counts the blocks since the last run the slower way;
	// exploreEvery is the current interval (0: laneExploreEvery).
	sinceExplore, exploreEvery int
}

// useLanes reports whether the next block that splits, of txs txs, runs
// on lanes.
func (c *laneChooser) useLanes(txs int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	try := c.mayTry(txs)
	switch {
	case c.samples[1] < laneWarmup && c.samples[1] <= c.samples[0]:
		return try
	case c.samples[0] < laneWarmup:
		return false
	}
	faster := lanesPay(c.cost[0], c.cost[1])
	if !try {
		return faster
	}
	c.sinceExplore++
	if c.sinceExplore >= max(c.exploreEvery, laneExploreEvery) {
		c.sinceExplore = 0
		return !faster
	}
	return faster
}

// mayTry reports whether a block of txs txs may be a try (laneTryBudget);
// the caller holds c.mu.
func (c *laneChooser) mayTry(txs int) bool {
	if c.samples[0] == 0 {
		return txs <= laneTryMaxTxs
	}
	return c.cost[0]*float64(txs) <= float64(laneTryBudget)
}

// record adds a block of txs that split and took d (execution and
// digests) on lanes or serially.
func (c *laneChooser) record(onLanes bool, txs int, d time.Duration) {
	if txs <= 0 || d <= 0 {
		return
	}
	way := 0
	if onLanes {
		way = 1
	}
	per := float64(d) / float64(txs)
	c.mu.Lock()
	defer c.mu.Unlock()
	weight := laneCostWeight
	if c.samples[1-way] > 0 && onLanes != lanesPay(c.cost[0], c.cost[1]) {
		weight = laneExploreWeight // the way not chosen, sampled rarely
		c.backOff(way, per)
	}
	if c.samples[way] == 0 {
		c.cost[way] = per
	} else {
		c.cost[way] += weight * (per - c.cost[way])
	}
	c.samples[way]++
}

// backOff adjusts the exploration interval after a block of the way not
// chosen (past the warm-up) that cost per per tx: still not the way to
// choose, explore half as often; the way to choose by itself, as often as
// at first.
func (c *laneChooser) backOff(way int, per float64) {
	if c.samples[0] < laneWarmup || c.samples[1] < laneWarmup {
		return
	}
	cost := c.cost
	cost[way] = per
	if lanesPay(cost[0], cost[1]) == (way == 1) {
		c.exploreEvery = laneExploreEvery
		return
	}
	c.exploreEvery = min(2*max(c.exploreEvery, laneExploreEvery), laneExploreMax)
}

// lanesPay reports whether lanes, at lanes per tx, are the way to choose
// against serial runs at serial per tx (laneMinGain).
func lanesPay(serial, lanes float64) bool { return lanes*laneMinGain < serial }

// recordLaneChoice tells an adaptive executor's chooser what a block that
// split cost (d, execution and digests): on lanes, serially by choice, or
// on lanes abandoned for the serial run (abandoned: d holds both runs,
// the price of trying lanes).
func (e *Executor) recordLaneChoice(p *pendingBlock, abandoned bool, txs int, d time.Duration) {
	switch {
	case !e.opts.adaptiveLanes:
	case abandoned:
		e.laneChoice.record(true, txs, d)
	case p.split:
		e.laneChoice.record(p.onLanes, txs, d)
	}
}

// costs are the current costs per tx, serial and on lanes (0 before the
// first block of each).
func (c *laneChooser) costs() (serial, lanes time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Duration(c.cost[0]), time.Duration(c.cost[1])
}

// planSkipMax bounds planBackoff: at most this many blocks in a row go
// unanalysed.
const planSkipMax = 64

// planBackoff spares the conflict analysis of blocks that would not split
// anyway, where lanes are adaptive: after a block analysed and found not
// to split (one hot row, rows named two ways, a statement the analysis
// cannot bound), the next block is analysed; after each further such
// block, twice as many are skipped as the last time (1, 2, 4, … up to
// planSkipMax); a block that splits ends it. A workload that never splits
// (Smallbank, whose rows are named by id and by name) then pays for the
// analysis of about one block in planSkipMax instead of every statement
// of every block (25-30 µs of CPU per wl-tx, BENCHMARKS.md); one that
// starts to split is noticed within planSkipMax blocks. Node-local like
// the chooser: a block not analysed runs serially, with the same results.
type planBackoff struct {
	mu sync.Mutex
	// skip: blocks still to skip; next: how many to skip after the next
	// analysed block that does not split.
	skip, next int
}

// analyse reports whether the next block that could run on lanes is
// analysed.
func (b *planBackoff) analyse() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.skip > 0 {
		b.skip--
		return false
	}
	return true
}

// analysed records whether an analysed block split.
func (b *planBackoff) analysed(split bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if split {
		b.skip, b.next = 0, 0
		return
	}
	b.skip = b.next
	b.next = min(max(2*b.next, 1), planSkipMax)
}
