package app

import (
	"slices"
	"testing"
	"time"
)

// runChooser drives c over n blocks of 100 txs whose cost per tx is
// serial or lanes, and counts the blocks it ran on lanes.
func runChooser(c *laneChooser, n int, serial, lanes time.Duration) (onLanes int) {
	for range n {
		use := c.useLanes(100)
		cost := serial
		if use {
			cost, onLanes = lanes, onLanes+1
		}
		c.record(use, 100, 100*cost)
	}
	return onLanes
}

// Lanes measured slower (shared cores) run only the warm-up and the
// explorations, ever rarer while lanes stay slower (one in
// laneExploreEvery, then twice as few each time, up to one in
// laneExploreMax); measured faster, all but the explorations; a change of
// load is followed within laneExploreMax blocks and a few more.
func TestTheLaneChooserRunsTheFasterWay(t *testing.T) {
	var c laneChooser
	const n = 1000
	slow := runChooser(&c, n, time.Millisecond, 2*time.Millisecond)
	// 16, 32, 64, 128, then every 256: 4 + n/256 explorations, far fewer
	// than one in laneExploreEvery.
	if max := min(laneWarmup+4+n/laneExploreMax, n/(4*laneExploreEvery)); slow > max {
		t.Errorf("lanes twice as slow: %d of %d blocks on lanes, want at most %d", slow, n, max)
	}
	if s, l := c.costs(); s != time.Millisecond || l != 2*time.Millisecond {
		t.Errorf("costs %v serial, %v lanes; want 1ms, 2ms", s, l)
	}
	// The load changes: lanes become the faster way.
	const n2 = laneExploreMax + 160
	fast := runChooser(&c, n2, time.Millisecond, time.Millisecond/2)
	if min := n2 - laneExploreMax - 3*laneExploreEvery; fast < min {
		t.Errorf("lanes twice as fast after a change: %d of %d blocks on lanes, want at least %d", fast, n2, min)
	}
	var fresh laneChooser
	if fast := runChooser(&fresh, n, time.Millisecond, time.Millisecond/2); fast < n-n/laneExploreEvery-laneWarmup {
		t.Errorf("lanes twice as fast: %d of %d blocks on lanes", fast, n)
	}
}

// Lanes measured cheaper by less than laneMinGain (noise, where the two
// ways cost nearly alike) run only the warm-up and the explorations, ever
// rarer; clearly cheaper, they take the blocks.
func TestTheLaneChooserWantsLanesClearlyCheaper(t *testing.T) {
	const n = 1000
	var c laneChooser
	nearGain, clearGain := 1.1, 1.5 // laneMinGain lies between
	near := runChooser(&c, n, time.Millisecond, time.Duration(float64(time.Millisecond)/nearGain))
	if max := laneWarmup + 4 + n/laneExploreMax; near > max {
		t.Errorf("lanes %.1fx cheaper than serial: %d of %d blocks on lanes, want at most %d", nearGain, near, n, max)
	}
	var clear laneChooser
	if got := runChooser(&clear, n, time.Millisecond, time.Duration(float64(time.Millisecond)/clearGain)); got < n-n/laneExploreEvery-laneWarmup {
		t.Errorf("lanes %.1fx cheaper than serial: %d of %d blocks on lanes", clearGain, got, n)
	}
}

// The warm-up measures both ways alternately before choosing, and a
// block without txs or time teaches nothing.
func TestTheLaneChooserMeasuresBothWaysFirst(t *testing.T) {
	var c laneChooser
	var got []bool
	for range 2 * laneWarmup {
		use := c.useLanes(10)
		got = append(got, use)
		c.record(use, 10, time.Millisecond)
	}
	for i, use := range got {
		if use != (i%2 == 0) {
			t.Fatalf("warm-up choices %v: want lanes and serial alternately", got)
		}
	}
	c.record(true, 0, time.Second)
	c.record(false, 5, 0)
	if s, l := c.costs(); s != 100*time.Microsecond || l != 100*time.Microsecond {
		t.Errorf("costs %v, %v after empty records; want 100µs each", s, l)
	}
}

// A block a serial run would take longer than laneTryBudget for is never
// a try: before lanes are measured it runs serially (before the serial
// cost is known, any block of more than laneTryMaxTxs), and once they
// are, the way measured faster, whichever way that is; the tries (the
// warm-up's, the explorations) are made on the cheaper blocks. Where a tx
// is cheap (idle cores), a large block is a try like any.
func TestTheLaneChooserTriesOnlyCheapBlocks(t *testing.T) {
	const big, small = 1000, 100 // 1 s and 100 ms at 1 ms a tx serially
	var c laneChooser
	for i := range 50 {
		if c.useLanes(big) {
			t.Fatalf("large block %d ran on lanes before lanes were measured", i)
		}
		c.record(false, big, big*time.Millisecond)
	}
	// Small blocks warm lanes up; lanes are twice as slow.
	onLanes := 0
	for range 100 {
		use := c.useLanes(small)
		cost := time.Millisecond
		if use {
			cost, onLanes = 2*time.Millisecond, onLanes+1
		}
		c.record(use, small, small*cost)
	}
	if onLanes < laneWarmup {
		t.Fatalf("%d small blocks ran on lanes, want the warm-up's %d at least", onLanes, laneWarmup)
	}
	for i := range 1000 {
		if c.useLanes(big) {
			t.Fatalf("large block %d explored lanes, measured twice as slow", i)
		}
	}
	// The load changes: small blocks find lanes faster; large ones follow.
	for range 2 * laneExploreMax {
		use := c.useLanes(small)
		cost := time.Millisecond
		if use {
			cost = time.Millisecond / 4
		}
		c.record(use, small, small*cost)
	}
	for i := range 100 {
		if !c.useLanes(big) {
			t.Fatalf("large block %d ran serially, lanes measured four times as fast", i)
		}
	}
	// Cheap txs: after one serial block of them, a large block is a try.
	var idle laneChooser
	if idle.useLanes(big) {
		t.Fatal("a large first block ran on lanes before any block was measured")
	}
	idle.record(false, big, big*10*time.Microsecond)
	if !idle.useLanes(big) {
		t.Fatal("a large block of 10 µs txs was not tried on lanes in the warm-up")
	}
}

// Where lanes are adaptive, a block gets one lane per minTxsPerLane txs at
// most (a lane's fixed round trips outweigh a few txs); forced, the
// configured count, never more than the txs.
func TestSmallBlocksGetFewLanes(t *testing.T) {
	e := &Executor{opts: executorOptions{lanes: 8, adaptiveLanes: true}, laneMinTxs: minTxsPerLane}
	for n, want := range map[int]int{0: 0, 10: 0, 2*minTxsPerLane - 1: 1, 2 * minTxsPerLane: 2, 3 * minTxsPerLane: 3, 100 * minTxsPerLane: 8} {
		if got := e.lanesFor(n); got != want {
			t.Errorf("adaptive, %d txs: %d lanes, want %d", n, got, want)
		}
	}
	e.opts.adaptiveLanes = false
	for n, want := range map[int]int{1: 1, 3: 3, 10: 8} {
		if got := e.lanesFor(n); got != want {
			t.Errorf("lanes always, %d txs: %d lanes, want %d", n, got, want)
		}
	}
}

// Blocks that do not split are analysed ever more rarely (the next, then
// one in 2, 4, … up to one in planSkipMax+1); a block that splits is found
// within planSkipMax+1 blocks, and from then on every block is analysed.
func TestBlocksThatDoNotSplitAreAnalysedEverMoreRarely(t *testing.T) {
	var b planBackoff
	const n = 1000
	var at []int
	for i := range n {
		if b.analyse() {
			at = append(at, i)
			b.analysed(false)
		}
	}
	// 0, 1, 3, 6, 11, 20, 37, 70, then every planSkipMax+1
	if want := []int{0, 1, 3, 6, 11, 20, 37, 70, 70 + planSkipMax + 1}; len(at) < len(want) || !slices.Equal(at[:len(want)], want) {
		t.Fatalf("blocks analysed %v, want them to start %v", at, want)
	}
	if max := 8 + (n-70)/(planSkipMax+1); len(at) > max {
		t.Fatalf("%d of %d blocks analysed, want at most %d", len(at), n, max)
	}
	// The load starts to split: found within planSkipMax+1 blocks.
	found := -1
	for i := range planSkipMax + 1 {
		if b.analyse() {
			found = i
			b.analysed(true)
			break
		}
	}
	if found < 0 {
		t.Fatalf("a load that splits went unanalysed for %d blocks", planSkipMax+1)
	}
	for i := range 10 {
		if !b.analyse() {
			t.Fatalf("block %d after one that split was not analysed", i)
		}
		b.analysed(true)
	}
}
