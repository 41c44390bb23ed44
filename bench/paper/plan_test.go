package paper

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/relchain/relchain/bench"
)

func TestQuickPlanCoversEveryExperimentWithinBudget(t *testing.T) {
	for _, backends := range [][]string{{"sqlite"}, {"sqlite", "postgres"}, {"sqlite", "postgres", "mysql"}} {
		plan := Plan(Options{Quick: true, Backends: backends})
		var ids []string
		for _, e := range plan {
			ids = append(ids, e.ID)
			if len(e.Points) == 0 && !skipped(e) {
				t.Errorf("%s has no points and does not say it was skipped", e.ID)
			}
			if e.ID == Fig12 && slices.Contains(backends, "postgres") == skipped(e) {
				t.Errorf("fig12 with backends %v: skipped %v (it needs PostgreSQL, and only it)", backends, skipped(e))
			}
			if e.Paper == "" || e.Title == "" {
				t.Errorf("%s lacks the paper's findings or a title", e.ID)
			}
			labels := map[string]bool{}
			for _, p := range e.Points {
				if labels[p.Label] {
					t.Errorf("%s: label %q twice", e.ID, p.Label)
				}
				labels[p.Label] = true
				if p.Config.Txs <= 0 || p.Validators <= 0 || p.Config.Clients <= 0 {
					t.Errorf("%s %s: txs %d validators %d clients %d", e.ID, p.Label, p.Config.Txs, p.Validators, p.Config.Clients)
				}
				if p.Config.Mode == bench.ModeSync && !p.Baseline {
					t.Errorf("%s %s: sync point without baseline", e.ID, p.Label)
				}
				if p.Backend != "sqlite" && !slices.Contains(backends, p.Backend) {
					t.Errorf("%s %s: %s point without a %s backend", e.ID, p.Label, p.Backend, p.Backend)
				}
			}
		}
		if !slices.Equal(ids, IDs) {
			t.Errorf("quick plan covers %v, want %v", ids, IDs)
		}
		est := Estimate(plan)
		// README promises the quick run in under 10 minutes; 9 keeps a
		// margin for the estimate's errors (Fig. 12's replicated servers
		// took the plan with every backend from 7m54s to 8m51s).
		if est > 9*time.Minute || est < time.Minute {
			t.Errorf("quick plan with %v estimated at %v, want between 1 and 9 minutes", backends, est)
		}
		t.Logf("quick plan, backends %v: %d distinct measurements, estimated %v", backends, len(Distinct(plan)), est.Round(time.Second))
	}
	full := Plan(Options{Backends: []string{"sqlite", "postgres", "mysql"}})
	if est := Estimate(full); est > 75*time.Minute || est <= Estimate(Plan(Options{Quick: true})) {
		t.Errorf("full plan estimated at %v", est)
	}
	t.Logf("full plan: %d distinct measurements, estimated %v", len(Distinct(full)), Estimate(full).Round(time.Second))
}

func TestPlanContents(t *testing.T) {
	plan := Plan(Options{Quick: true})
	byID := map[string]Experiment{}
	for _, e := range plan {
		byID[e.ID] = e
	}
	// Fig. 10 without postgres says so.
	f10 := byID[Fig10]
	for _, p := range f10.Points {
		if p.Backend != "sqlite" {
			t.Errorf("fig10 without postgres has %s point %s", p.Backend, p.Label)
		}
	}
	for _, skipped := range []string{"PostgreSQL points skipped", "MySQL points skipped"} {
		if !slices.ContainsFunc(f10.Notes, func(n string) bool { return contains(n, skipped) }) {
			t.Errorf("fig10 does not note %q: %q", skipped, f10.Notes)
		}
	}
	// With every server, Fig. 10 has sync and async points, with
	// baselines, on each of the three backends.
	var f10all Experiment
	for _, e := range Plan(Options{Quick: true, Backends: []string{"sqlite", "postgres", "mysql"}}) {
		if e.ID == Fig10 {
			f10all = e
		}
	}
	got := map[string]bool{}
	for _, p := range f10all.Points {
		if !p.Baseline || p.Config.Workload != "smallbank" {
			t.Errorf("fig10 %s: baseline %v, workload %s", p.Label, p.Baseline, p.Config.Workload)
		}
		got[p.Backend+" "+p.Config.Mode] = true
	}
	for _, want := range []string{"sqlite sync", "sqlite async", "postgres sync", "postgres async", "mysql sync", "mysql async"} {
		if !got[want] {
			t.Errorf("fig10 with every server lacks %s (has %v)", want, got)
		}
	}
	// Fig. 4/5 sweeps k for both workloads, log steps up to 2048.
	var ks []int
	tpcc := false
	for _, p := range byID[Fig45].Points {
		if p.Config.Workload == "smallbank" {
			ks = append(ks, p.Config.WLPerBC)
		} else if p.Config.Workload == "tpcc" {
			tpcc = true
		}
	}
	if ks[0] != 1 || ks[len(ks)-1] != 2048 || !tpcc {
		t.Errorf("fig4-5 smallbank k = %v, tpcc %v", ks, tpcc)
	}
	// Ceilings on the default sync and async Smallbank points.
	var ceil []string
	for _, p := range Distinct(plan) {
		if p.Ceiling {
			ceil = append(ceil, p.Config.Mode)
			if p.Validators != 4 || p.Config.Workload != "smallbank" {
				t.Errorf("ceiling on %s", p.Label)
			}
		}
	}
	slices.Sort(ceil)
	if !slices.Equal(ceil, []string{"async", "sync"}) {
		t.Errorf("ceilings on %v", ceil)
	}
	// Fig. 11a: 1, 4, 8 validators.
	vs := map[int]bool{}
	for _, p := range byID[Fig11a].Points {
		vs[p.Validators] = true
	}
	if len(vs) != 3 || !vs[1] || !vs[4] || !vs[8] {
		t.Errorf("fig11a validators %v", vs)
	}
	// Only.
	only := Plan(Options{Quick: true, Only: []string{Fig8, Fig2}})
	if len(only) != 2 || only[0].ID != Fig2 || only[1].ID != Fig8 {
		t.Errorf("Only fig8, fig2 gave %d experiments", len(only))
	}
	// Shared points: fig8 adds no measurement to figs. 4-7.
	sub := Plan(Options{Quick: true, Only: []string{Fig45, Fig67}})
	with := Plan(Options{Quick: true, Only: []string{Fig45, Fig67, Fig8}})
	if len(Distinct(sub)) != len(Distinct(with)) {
		t.Errorf("fig8 adds %d measurements", len(Distinct(with))-len(Distinct(sub)))
	}
}

func TestSyncLatencyModel(t *testing.T) {
	if l := syncLatency(DefaultTimeoutCommit, 4); l < 20*time.Millisecond || l > 40*time.Millisecond {
		t.Errorf("sync latency at 10 ms, 4 validators: %v", l)
	}
	if syncLatency(time.Second, 4) < time.Second || syncLatency(0, 4) <= syncLatency(DefaultTimeoutCommit, 4) {
		t.Error("timeout_commit 0 should cost an extra block, 1 s at least 1 s")
	}
	if syncLatency(DefaultTimeoutCommit, 8) <= syncLatency(DefaultTimeoutCommit, 4) {
		t.Error("8 validators should be slower than 4")
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 100000: "100,000", 1234567: "1,234,567", -1000: "-1,000"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestEveryPlannedPointIsAValidMeasurement(t *testing.T) {
	for _, quick := range []bool{true, false} {
		for _, p := range Distinct(Plan(Options{Quick: quick, Backends: []string{"sqlite", "postgres", "mysql"}})) {
			if err := p.Config.Validate(); err != nil {
				t.Errorf("quick=%v %s: %v", quick, p.Label, err)
			}
		}
	}
}

// skipped reports whether an experiment says it was skipped altogether.
func skipped(e Experiment) bool {
	return slices.ContainsFunc(e.Notes, func(n string) bool { return strings.HasPrefix(n, "Skipped:") })
}
