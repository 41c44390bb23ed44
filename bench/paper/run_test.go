package paper

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/relchain/relchain/bench"
)

var errFake = errors.New("validator 2 did not start")

// fakeResult is a plausible synthetic Result for p.
func fakeResult(p Point) *bench.Result {
	c := p.Config
	k := max(c.WLPerBC, 1)
	lat := float64(syncLatency(p.TimeoutCommit, p.Validators)) / 1e6
	secs := runTime(p).Seconds()
	r := &bench.Result{
		Workload: c.Workload, Mode: c.Mode, WLPerBC: k, Clients: c.Clients, Validators: p.Validators,
		Backend: p.Backend, TimeoutCommit: p.TimeoutCommit.String(), Txs: c.Txs, BCTxs: (c.Txs + k - 1) / k,
		Succeeded: c.Txs, Seconds: secs, TPS: float64(c.Txs) / secs,
		LatencyMS: &bench.Latency{P50: lat, P95: lat * 1.3, P99: lat * 1.6},
		Phases:    &bench.Phases{Propose: 2, Consensus: lat * 0.6, Execute: 0.05 * float64(k), Commit: 0.5},
		Started:   time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC),
	}
	blocks := r.BCTxs
	if c.Mode == bench.ModeAsync {
		blocks = max(3, c.Txs/700)
	}
	r.Blocks, r.TxBlocks = blocks, blocks
	r.TxsPerBlockMean = float64(r.BCTxs) / float64(blocks)
	for h := range min(blocks, 50) {
		r.PerBlock = append(r.PerBlock, bench.BlockStat{
			Height: int64(10 + h), BCTxs: r.BCTxs / blocks, WLTxs: c.Txs / blocks,
			Phases:    *r.Phases,
			LatencyMS: lat * float64(h+1) * (1 + 0.1*math.Sin(float64(h))),
		})
	}
	if c.Workload == "ycsb-a" {
		r.Kinds = map[string]*bench.KindStat{
			"Read":   {Count: c.Txs / 2, LatencyMS: &bench.Latency{P50: 2, P95: 4, P99: 5}},
			"Update": {Count: c.Txs / 2, LatencyMS: &bench.Latency{P50: lat, P95: lat * 1.3, P99: lat * 1.6}},
		}
	}
	if p.Baseline {
		r.Baseline = &bench.Baseline{Seconds: secs / 40, TPS: r.TPS * 40, Replicas: p.BaselineReplicas,
			LatencyMS: &bench.Latency{P50: 1.5, P95: 3, P99: 4}}
		r.Overhead = 40
	}
	if p.Ceiling {
		r.Ceiling = &bench.Ceiling{TPS: r.TPS * 2, LatencyMS: &bench.Latency{P50: lat / 2, P95: lat, P99: lat}, Blocks: blocks, TxsPerBlk: r.TxsPerBlockMean}
		r.RatioToCeiling = 0.5
	}
	return r
}

// fakeRun fails the 8-validator async point and returns synthetic
// Results for the rest.
func fakeRun(calls *[]Point) RunFunc {
	return func(ctx context.Context, p Point) (*bench.Result, error) {
		*calls = append(*calls, p)
		if p.Validators == 8 && p.Config.Mode == bench.ModeAsync {
			return nil, errFake
		}
		return fakeResult(p), nil
	}
}

func TestRunRecordsResultsAndErrors(t *testing.T) {
	plan := Plan(Options{Quick: true})
	var calls []Point
	var prog []int
	s := Run(context.Background(), plan, fakeRun(&calls), func(done, total int, p Point) {
		if total != len(Distinct(plan)) {
			t.Errorf("progress total %d", total)
		}
		prog = append(prog, done)
	})
	if len(calls) != len(Distinct(plan)) || len(prog) != len(calls) || prog[len(prog)-1] != len(calls)-1 {
		t.Fatalf("%d calls, progress %v, %d distinct points", len(calls), prog, len(Distinct(plan)))
	}
	if len(s.Measured) != len(plan) {
		t.Fatalf("%d measured experiments for %d planned", len(s.Measured), len(plan))
	}
	failed := 0
	for _, m := range s.Measured {
		if len(m.Results) != len(m.Experiment.Points) || len(m.Errors) != len(m.Experiment.Points) {
			t.Fatalf("%s: %d results, %d errors, %d points", m.Experiment.ID, len(m.Results), len(m.Errors), len(m.Experiment.Points))
		}
		for i, p := range m.Experiment.Points {
			r, e := m.Results[i], m.Errors[i]
			if p.Validators == 8 && p.Config.Mode == bench.ModeAsync {
				failed++
				if r != nil || e != errFake.Error() {
					t.Errorf("failed point %s: result %v, error %q", p.Label, r, e)
				}
				continue
			}
			if r == nil || e != "" {
				t.Errorf("%s %s: result %v, error %q", m.Experiment.ID, p.Label, r, e)
				continue
			}
			if r.Txs != p.Config.Txs || r.Mode != p.Config.Mode || r.Validators != p.Validators {
				t.Errorf("%s %s: result for another point: %+v", m.Experiment.ID, p.Label, r)
			}
			if p.Ceiling && r.Ceiling == nil {
				t.Errorf("%s %s: ceiling asked, not run", m.Experiment.ID, p.Label)
			}
		}
	}
	if failed != 1 || s.Failed() != 1 {
		t.Errorf("%d failed points recorded, Failed() = %d, want 1", failed, s.Failed())
	}
	if s.Machine == "" || !strings.Contains(s.Machine, "cores") || s.Started.IsZero() {
		t.Errorf("machine %q, started %v", s.Machine, s.Started)
	}
	// The suite encodes and decodes.
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var back Suite
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	p0, q0 := s.Measured[0].Experiment.Points[0], back.Measured[0].Experiment.Points[0]
	if p0.Label != q0.Label || p0.TimeoutCommit != q0.TimeoutCommit || p0.Config.Txs != q0.Config.Txs || back.Measured[0].Results[0].TPS != s.Measured[0].Results[0].TPS {
		t.Errorf("round trip: %+v became %+v", p0, q0)
	}
}

func TestRunSurvivesPanicsNilResultsAndCancel(t *testing.T) {
	plan := []Experiment{{ID: "x", Points: []Point{
		{Label: "a", Config: bench.Config{Workload: "smallbank", Mode: "sync", Txs: 1}},
		{Label: "b", Config: bench.Config{Workload: "smallbank", Mode: "sync", Txs: 2}},
		{Label: "c", Config: bench.Config{Workload: "smallbank", Mode: "sync", Txs: 3}},
	}}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := Run(ctx, plan, func(ctx context.Context, p Point) (*bench.Result, error) {
		switch p.Config.Txs {
		case 1:
			panic("boom")
		case 2:
			cancel()
			return nil, nil
		}
		t.Error("ran a point after cancel")
		return nil, nil
	}, nil)
	errs := s.Measured[0].Errors
	for i, want := range []string{"panic: boom", errNoResult.Error(), "not run: context canceled"} {
		if !strings.Contains(errs[i], want) {
			t.Errorf("point %d: error %q, want %q", i, errs[i], want)
		}
	}
	if s.Failed() != 3 {
		t.Errorf("Failed() = %d", s.Failed())
	}
}
