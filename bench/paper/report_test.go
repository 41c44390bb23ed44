package paper

import (
	"context"
	"encoding/json"
	"image"
	_ "image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/relchain/relchain/bench"
	"github.com/relchain/relchain/internal/racetest"
)

func fakeSuite(t *testing.T, o Options) *Suite {
	t.Helper()
	var calls []Point
	s := Run(context.Background(), Plan(o), fakeRun(&calls), nil)
	s.Quick, s.Command = o.Quick, "relchain bench paper --quick --out "+t.TempDir()
	return s
}

func checkPNGs(t *testing.T, dir string, s *Suite) {
	t.Helper()
	for _, m := range s.Measured {
		f, err := os.Open(filepath.Join(dir, ChartFile(m.Experiment.ID)))
		if err != nil {
			t.Errorf("%s: %v", m.Experiment.ID, err)
			continue
		}
		cfg, format, err := image.DecodeConfig(f)
		f.Close()
		if err != nil || format != "png" || cfg.Width < 400 || cfg.Height < 300 {
			t.Errorf("%s: %s %dx%d, %v", m.Experiment.ID, format, cfg.Width, cfg.Height, err)
		}
	}
}

func TestWriteChartsReportAndSuite(t *testing.T) {
	racetest.Heavy(t) // renders the charts and report: 14 s under -race
	dir := t.TempDir()
	s := fakeSuite(t, Options{Quick: true, Backends: []string{"sqlite", "postgres", "mysql"}})
	if err := Write(dir, s); err != nil {
		t.Fatal(err)
	}
	checkPNGs(t, dir, s)

	b, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	md := string(b)
	for _, m := range s.Measured {
		e := m.Experiment
		for _, want := range []string{"## " + e.Title, "**Paper:** " + e.Paper, "](" + ChartFile(e.ID) + ")"} {
			if !strings.Contains(md, want) {
				t.Errorf("report lacks %q", want)
			}
		}
		for _, p := range e.Points {
			if !strings.Contains(md, "| "+p.Label+" |") {
				t.Errorf("report lacks the row of %s / %s", e.ID, p.Label)
			}
		}
	}
	for _, want := range []string{
		"| point | wl-txs | tps | p50 ms | p95 ms | overhead vs raw |",
		// The paper's numbers.
		"208x", "218x", "25x", "129x", "2.4x", "21x", "24x", "2.0x", "4.3x", "1.52x", "1.47x", "1.69x", "6.6x", "1.2x", "1,311", "100 ms",
		// Ours, derived.
		"smallbank sync overhead 40.0x", "best pseudo-sync overhead", "consensus dominates",
		"8 validators take", "kvstore",
		"sync: relchain on PostgreSQL is", "as fast as on MySQL; raw PostgreSQL", "async: relchain on SQLite is",
		"raw PostgreSQL 6.6x faster than MySQL (sync) and 2.6x (async); in the chain 1.0x",
		"k=1024: relchain", "PostgreSQL with 3 synchronous standbys", "drastically better",
		// The failure.
		"**1 point(s) failed**", "FAILED: validator 2 did not start", "- fig11a / async validators=8: validator 2 did not start",
		s.Machine, s.Command,
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q", want)
		}
	}

	b, err = os.ReadFile(filepath.Join(dir, "suite.json"))
	if err != nil {
		t.Fatal(err)
	}
	var back Suite
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if len(back.Measured) != len(s.Measured) || back.Failed() != 1 || back.Machine != s.Machine {
		t.Errorf("suite.json: %d experiments, %d failed", len(back.Measured), back.Failed())
	}
	for _, m := range back.Measured {
		if m.Experiment.ID == Fig12 && (m.Experiment.Points[0].BaselineReplicas != 3 || m.Results[0].Baseline.Replicas != 3) {
			t.Errorf("suite.json lost Fig. 12's replicated baseline: %+v", m.Experiment.Points[0])
		}
	}
	if r := back.Measured[2].Results[0]; r == nil || len(r.PerBlock) == 0 {
		t.Errorf("suite.json lost the per-block stats of %s", back.Measured[2].Experiment.Points[0].Label)
	}
}

func TestWriteWithoutResults(t *testing.T) {
	racetest.Heavy(t) // renders the charts and report: 17 s under -race
	// Every point failed, and an experiment without a figure: charts
	// still render (saying there is no data) and the report says why.
	plan := append(Plan(Options{Quick: true}), Experiment{ID: "extra", Title: "Extra", Paper: "none", Points: []Point{{Label: "x", Config: bench.Config{Workload: "ycsb-a", Mode: "async", Txs: 5}}}})
	s := Run(context.Background(), plan, func(context.Context, Point) (*bench.Result, error) { return nil, errFake }, nil)
	dir := t.TempDir()
	if err := Write(dir, s); err != nil {
		t.Fatal(err)
	}
	checkPNGs(t, dir, s)
	b, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "PostgreSQL points skipped") || strings.Count(string(b), "FAILED:") != s.Failed() {
		t.Errorf("report of an all-failed suite:\n%s", b)
	}
}

// TestRenderSampleOfTheFullPlan renders the charts of a synthetic full-plan
// suite with both backends, into $PAPER_SAMPLE_DIR when set (to look at
// them), else a temporary directory, and checks every chart is there.
func TestRenderSampleOfTheFullPlan(t *testing.T) {
	racetest.Heavy(t) // renders the full plan: 13 s under -race
	dir := os.Getenv("PAPER_SAMPLE_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	s := fakeSuite(t, Options{Quick: false, Backends: []string{"sqlite", "postgres", "mysql"}})
	if err := Write(dir, s); err != nil {
		t.Fatal(err)
	}
	for _, m := range s.Measured {
		if _, err := os.Stat(filepath.Join(dir, ChartFile(m.Experiment.ID))); err != nil {
			t.Errorf("chart of %s: %v", m.Experiment.ID, err)
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"validators=10 read/write=50/50: read p50 2.00 ms, write p50", "PostgreSQL with 3 synchronous standbys p50 1.50 ms",
		"read/write=5/95", "read/write=95/5", "k=1: relchain"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the full plan's report lacks %q", want)
		}
	}
}
