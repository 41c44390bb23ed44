package e2e

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeCluster stands for a network in tests of the schedule: its heights
// come from a function of the number of polls so far, and it records the
// perturbations applied.
type fakeCluster struct {
	mu      sync.Mutex
	nodes   int
	polls   int
	height  func(poll int) int64
	applied []string
	// took is how long applying a perturbation takes (a partition is a
	// process per cut link).
	took time.Duration
	// refuse makes applying that action fail (a fault that did not take
	// effect).
	refuse string
}

func (f *fakeCluster) heights(context.Context) []int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.polls++
	out := make([]int64, f.nodes)
	for i := range out {
		out[i] = f.height(f.polls)
	}
	return out
}

func (f *fakeCluster) apply(p Perturb) error {
	time.Sleep(f.took) // the cost of the action itself, not a synchronisation
	f.mu.Lock()
	defer f.mu.Unlock()
	f.applied = append(f.applied, p.Action)
	if p.Action == f.refuse {
		return errors.New("did not take effect")
	}
	return nil
}

func (f *fakeCluster) running(int) bool { return true }

func (f *fakeCluster) actions() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.applied)
}

// newScheduleRun is a run of manifest text on a fake cluster, with no
// load (the schedule alone).
func newScheduleRun(t *testing.T, text string, f *fakeCluster) *run {
	t.Helper()
	m, err := ParseManifest(text)
	if err != nil {
		t.Fatal(err)
	}
	m.Check.MaxRecovery.Duration = 3 * time.Second
	// Starting the clients takes a moment (keys, connections): the
	// schedule's clock starts after the load's.
	return &run{m: m, ctl: f, rep: &Report{}, logf: t.Logf, paused: map[int]bool{},
		startWorkers: func(context.Context, *sync.WaitGroup) { time.Sleep(30 * time.Millisecond) }}
}

// An undo due at the load's very end is applied and its expectation
// checked. Before, the schedule ran on the load's deadline: a partition
// declared expect_halt whose heal fell at the end was never healed by the
// schedule nor checked, and a chain that went on under it passed.
func TestAnUndoAtTheLoadsEndIsAppliedAndChecked(t *testing.T) {
	f := &fakeCluster{nodes: 4, height: func(poll int) int64 { return int64(10 + 5*poll) }, took: 50 * time.Millisecond} // the chain never halts
	r := newScheduleRun(t, `
network = "netns"
[load]
min_acked = 1
duration = "400ms"
[[perturb]]
at = "100ms"
action = "partition"
groups = [[0, 1], [2, 3]]
for = "300ms"
expect_halt = true
`, f)
	r.load(context.Background(), timeline(r.m, 1))
	if got := f.actions(); !slices.Equal(got, []string{ActPartition, ActHeal}) {
		t.Fatalf("applied %v, want the partition and its heal", got)
	}
	checkHalts(r)
	if got := invariants(r.rep); !slices.Equal(got, []string{"fault-effect"}) || !strings.Contains(r.rep.Failed(), "should halt the chain") {
		t.Fatalf("a partition that did not halt the chain: violations %v, want fault-effect:\n%s", got, r.rep.Failed())
	}
	if len(r.rep.Recoveries) != 1 {
		t.Errorf("recoveries %+v: the undo at the end must be measured too", r.rep.Recoveries)
	}
}

// A fault that did not take effect fails the run once; its undo is still
// applied (the run goes on) but judges nothing.
func TestAFaultThatDidNotTakeEffectFailsTheRun(t *testing.T) {
	f := &fakeCluster{nodes: 4, height: func(poll int) int64 { return int64(10 + poll) }, refuse: ActKill}
	r := newScheduleRun(t, "[load]\nmin_acked = 1\nduration = \"300ms\"\n[[perturb]]\nat = \"50ms\"\naction = \"kill\"\nnode = 1\nfor = \"100ms\"\nexpect_halt = true\n", f)
	r.load(context.Background(), timeline(r.m, 1))
	checkHalts(r)
	if got := f.actions(); !slices.Equal(got, []string{ActKill, ActRestart}) {
		t.Fatalf("applied %v, want the kill and its restart", got)
	}
	if got := invariants(r.rep); !slices.Equal(got, []string{"perturbation"}) || !strings.Contains(r.rep.Failed(), "kill node1: did not take effect") {
		t.Fatalf("violations %v:\n%s", got, r.rep.Failed())
	}
}

// A fault whose heights nobody answered is a violation: before, -1 at
// the undo made "went from -1 to -1" pass expect_halt and any height
// read as an instant recovery.
func TestUnknownHeightsFailTheFaultAndTheRecovery(t *testing.T) {
	r := newTestRun(t, "insert")
	r.m.Check.MaxRecovery.Duration = time.Second
	r.ctl = &fakeCluster{nodes: 2, height: func(int) int64 { return 12 }}
	r.rep.Halts = []haltWatch{{What: "partition at the end", Before: 10, After: -1}}
	r.rep.GoOns = []haltWatch{{What: "tamper unseen", Before: -1, After: -1}}
	checkHalts(r)
	r.measureRecovery(context.Background(), "heal at the end", -1, time.Now())
	if got := invariants(r.rep); !slices.Equal(got, []string{"fault-effect", "fault-effect", "recovery"}) {
		t.Fatalf("violations %v, want two fault-effect and a recovery:\n%s", got, r.rep.Failed())
	}
	if len(r.rep.Recoveries) != 0 {
		t.Fatalf("a recovery was measured from height -1: %+v", r.rep.Recoveries)
	}
}

// Recovery counts from the height at the undo to the first height every
// live node passed it with, both real.
func TestRecoveryIsMeasuredBetweenRealHeights(t *testing.T) {
	r := newTestRun(t, "insert")
	// Nobody answers for the first polls (a cut-off harness), then the
	// chain is at 10 for a while and moves to 11.
	r.ctl = &fakeCluster{nodes: 3, height: func(poll int) int64 {
		switch {
		case poll <= 3:
			return -1
		case poll <= 6:
			return 10
		}
		return 11
	}}
	top := r.topHeight(context.Background())
	if top != 10 {
		t.Fatalf("height at the undo %d, want 10 (the first answer, not -1)", top)
	}
	r.measureRecovery(context.Background(), "kill node1", top, time.Now())
	if len(r.rep.Violations) != 0 || len(r.rep.Recoveries) != 1 {
		t.Fatalf("recoveries %+v, violations %s", r.rep.Recoveries, r.rep.Failed())
	}
	if rec := r.rep.Recoveries[0]; rec.FromHeight != 10 || rec.ToHeight != 11 || rec.Seconds <= 0 {
		t.Errorf("recovery %+v, want from 10 to 11 after some time", rec)
	}
}

// A manifest states its minimum progress, and a run below it fails.
func TestMinimumProgressIsRequiredAndChecked(t *testing.T) {
	if _, err := ParseManifest("[load]\nduration = \"10s\"\n"); err == nil || !strings.Contains(err.Error(), "min_acked") {
		t.Fatalf("a manifest without min_acked: %v, want an error naming it", err)
	}
	if _, err := ParseManifest(withMinAcked("[[perturb]]\nat = \"5s\"\naction = \"pause\"\nexpect_halt = true\n")); err == nil || !strings.Contains(err.Error(), "expect_halt needs for") {
		t.Fatalf("expect_halt without an undo: %v, want an error", err)
	}
	r := newTestRun(t, "insert",
		write{ID: 1, Phase: PhaseOK, Height: 5},
		write{ID: 2, Phase: PhaseOK, Height: 6},
		write{ID: 3, Phase: PhaseUnknown})
	r.hist.Resolve(3, 1, PhaseOK, 7, 0)
	r.m.Load.MinAcked = 3
	countOps(r)
	checkProgress(r)
	if len(r.rep.Violations) != 0 {
		t.Fatalf("3 writes committed, min 3: %s", r.rep.Failed())
	}
	r.m.Load.MinAcked = 4
	checkProgress(r)
	if got := invariants(r.rep); !slices.Equal(got, []string{"progress"}) || !strings.Contains(r.rep.Failed(), "at least 4") {
		t.Fatalf("3 writes committed, min 4: %v\n%s", got, r.rep.Failed())
	}
}
