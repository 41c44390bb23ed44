package paper

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/relchain/relchain/bench"
)

// ChartFile is the PNG file name of an experiment's figure.
func ChartFile(id string) string { return id + ".png" }

// Write renders s into dir: one PNG chart per experiment (ChartFile),
// report.md with our numbers beside the paper's, and suite.json with
// everything. It writes all it can and returns the first error.
func Write(dir string, s *Suite) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	var first error
	keep := func(err error) {
		if err != nil && first == nil {
			first = err
		}
	}
	for _, m := range s.Measured {
		keep(chart(filepath.Join(dir, ChartFile(m.Experiment.ID)), m))
	}
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		keep(fmt.Errorf("encode suite: %w", err))
	} else if err := os.WriteFile(filepath.Join(dir, "suite.json"), append(b, '\n'), 0o644); err != nil {
		keep(fmt.Errorf("write suite.json: %w", err))
	}
	if err := os.WriteFile(filepath.Join(dir, "report.md"), []byte(Report(s)), 0o644); err != nil {
		keep(fmt.Errorf("write report.md: %w", err))
	}
	return first
}

// Report is the suite as Markdown: per experiment the paper's findings,
// the chart, a table of our numbers with the paper's beside them, derived
// comparisons and any failures.
func Report(s *Suite) string {
	var b strings.Builder
	w := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	w("# relchain: reproducing \"The Easiest Way of Turning your Relational Database into a Blockchain\" (BTW 2023)\n\n")
	plan := "full"
	if s.Quick {
		plan = "quick"
	}
	w("- Plan: %s; started %s; took %s\n", plan, s.Started.UTC().Format(time.RFC3339), (time.Duration(s.Seconds * float64(time.Second))).Round(time.Second))
	w("- Machine: %s\n", s.Machine)
	w("- Command: `%s`\n", s.Command)
	w("- Paper: Tendermint Core 0.34 + PostgreSQL 14.5 in Docker on one 16-core i9-12900K (128 GB), timeout_commit 100 ms, 3 runs per point.\n")
	w("- Columns: tps = wl-transactions per second; p50/p95 = latency of a bc-transaction as its client saw it (async: of a wl-transaction from submission to its block); overhead = chain seconds / raw DBMS seconds for the same wl-transactions and grouping; ceiling = CometBFT's kvstore on an identical network (ratio: tps over kvstore's for async, p50 over kvstore's for sync); phases = mean ms per block (propose / consensus / execute / commit).\n")
	w("- Identical points of different figures were measured once and share their numbers.\n\n")

	if n := s.Failed(); n > 0 {
		w("**%d point(s) failed** (the suite went on without them):\n\n", n)
		for _, m := range s.Measured {
			for i, e := range m.Errors {
				if e != "" {
					w("- %s / %s: %s\n", m.Experiment.ID, m.Experiment.Points[i].Label, oneLine(e))
				}
			}
		}
		w("\n")
	}

	for _, m := range s.Measured {
		e := m.Experiment
		w("## %s\n\n", e.Title)
		w("**Paper:** %s\n\n", e.Paper)
		for _, n := range e.Notes {
			w("- %s\n", n)
		}
		if len(e.Notes) > 0 {
			w("\n")
		}
		w("![%s](%s)\n\n", e.ID, ChartFile(e.ID))
		w("| point | wl-txs | tps | p50 ms | p95 ms | overhead vs raw | raw tps | vs kvstore ceiling | blocks | bc-txs/block | phases ms P/C/E/C | paper |\n")
		w("|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---|---|\n")
		for i, p := range e.Points {
			r := m.Results[i]
			if r == nil {
				w("| %s | %d | FAILED: %s | | | | | | | | | %s |\n", p.Label, p.Config.Txs, cell(oneLine(m.Errors[i])), cell(p.Paper))
				continue
			}
			lat := [2]string{"", ""}
			if r.LatencyMS != nil {
				lat = [2]string{num(r.LatencyMS.P50), num(r.LatencyMS.P95)}
			}
			ovh, raw := "", ""
			if r.Baseline != nil {
				raw = num(r.Baseline.TPS)
				if r.Overhead > 0 {
					ovh = num(r.Overhead) + "x"
				}
			}
			w("| %s | %d | %s | %s | %s | %s | %s | %s | %d | %s | %s | %s |\n",
				p.Label, r.Txs, num(r.TPS), lat[0], lat[1], ovh, raw, ceiling(r), r.TxBlocks,
				num(r.TxsPerBlockMean), phases(r.Phases), cell(p.Paper))
		}
		w("\n")
		if f := findings(m); len(f) > 0 {
			w("Ours against the paper:\n\n")
			for _, l := range f {
				w("- %s\n", l)
			}
			w("\n")
		}
	}
	return b.String()
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func cell(s string) string { return strings.ReplaceAll(s, "|", "\\|") }

// num formats a number with about three significant digits.
func num(v float64) string {
	switch a := math.Abs(v); {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return ""
	case a >= 100:
		return fmt.Sprintf("%.0f", v)
	case a >= 10:
		return fmt.Sprintf("%.1f", v)
	case a >= 1:
		return fmt.Sprintf("%.2f", v)
	default:
		return fmt.Sprintf("%.3g", v)
	}
}

func ceiling(r *bench.Result) string {
	c := r.Ceiling
	if c == nil {
		return ""
	}
	s := num(r.RatioToCeiling)
	if r.Mode == bench.ModeAsync {
		return fmt.Sprintf("%s (kvstore %s tx/s)", s, num(c.TPS))
	}
	if c.LatencyMS != nil {
		return fmt.Sprintf("%s (kvstore p50 %s ms)", s, num(c.LatencyMS.P50))
	}
	return fmt.Sprintf("%s (kvstore %s tx/s)", s, num(c.TPS))
}

func phases(p *bench.Phases) string {
	if p == nil {
		return ""
	}
	return fmt.Sprintf("%s / %s / %s / %s", num(p.Propose), num(p.Consensus), num(p.Execute), num(p.Commit))
}

// findings derives the comparisons the paper states in its text, by
// experiment (findingsOf).
func findings(m Measured) []string {
	if f := findingsOf[m.Experiment.ID]; f != nil {
		return f(points(m))
	}
	return nil
}

// findingsOf holds the findings of each experiment that has some.
var findingsOf = map[string]func(all []at) []string{
	Fig2:   fig2Findings,
	Fig45:  fig45Findings,
	Fig67:  fig67Findings,
	Fig8:   fig8Findings,
	Fig9:   fig9Findings,
	Fig10:  fig10Findings,
	Fig11a: fig11aFindings,
	Fig11b: fig11bFindings,
	Fig12:  fig12Findings,
	Study:  studyFindings,
}

// first returns the result of the first measured point that keep accepts.
func first(all []at, keep func(Point) bool) *bench.Result {
	for _, a := range all {
		if keep(a.p) && a.r != nil {
			return a.r
		}
	}
	return nil
}

// fig2Findings: the best timeout_commit per mode.
func fig2Findings(all []at) []string {
	var out []string
	for _, md := range []string{bench.ModeSync, bench.ModeAsync} {
		best, bestTC := math.Inf(1), ""
		for _, a := range where(all, mode(md)) {
			if a.r != nil && a.r.TPS > 0 && 1/a.r.TPS < best {
				best, bestTC = 1/a.r.TPS, fmtDur(a.p.TimeoutCommit)
			}
		}
		if bestTC != "" {
			out = append(out, fmt.Sprintf("%s: best throughput at timeout_commit = %s (paper: 100 ms of 25-1000 ms)", md, bestTC))
		}
	}
	return out
}

// fig45Findings: the sync and best pseudo-sync overheads.
func fig45Findings(all []at) []string {
	var out []string
	for _, w := range []struct{ name, sync, best string }{
		{"smallbank", "208x runtime / 218x latency", "25x runtime / 32x latency"},
		{"tpcc", "129x runtime / 133x latency", "2.4x runtime / 2.5x latency"},
	} {
		sync := first(all, func(p Point) bool { return p.Config.Workload == w.name && p.Config.Mode == bench.ModeSync })
		if sync != nil && sync.Overhead > 0 {
			out = append(out, fmt.Sprintf("%s sync overhead %sx (paper: %s over raw PostgreSQL)", w.name, num(sync.Overhead), w.sync))
		}
		best, bestK := math.Inf(1), 0
		for _, a := range all {
			if a.p.Config.Workload == w.name && a.p.Config.Mode == bench.ModePseudo && a.r != nil && a.r.Overhead > 0 && a.r.Overhead < best {
				best, bestK = a.r.Overhead, a.p.Config.WLPerBC
			}
		}
		if bestK > 0 {
			out = append(out, fmt.Sprintf("%s best pseudo-sync overhead %sx at k=%d (paper: %s)", w.name, num(best), bestK, w.best))
		}
	}
	return out
}

// fig67Findings: the blocks, their sizes and the overhead of each async run.
func fig67Findings(all []at) []string {
	var out []string
	for _, a := range all {
		if a.r == nil {
			continue
		}
		s := fmt.Sprintf("%s: %d blocks with transactions, %s bc-txs per block", a.p.Label, a.r.TxBlocks, num(a.r.TxsPerBlockMean))
		if a.r.Overhead > 0 {
			s += fmt.Sprintf(", overhead %sx", num(a.r.Overhead))
		}
		if a.p.Paper != "" {
			s += " (paper: " + a.p.Paper + ")"
		}
		out = append(out, s)
	}
	return out
}

// fig8Findings: the phase that dominates a block.
func fig8Findings(all []at) []string {
	var out []string
	for _, a := range all {
		if a.r == nil || a.r.Phases == nil {
			continue
		}
		f := a.r.Phases
		v := map[string]float64{"propose": f.Propose, "consensus": f.Consensus, "execute": f.Execute, "commit": f.Commit}
		top, sum := "propose", 0.0
		for k, x := range v {
			sum += x
			if x > v[top] || (x == v[top] && k < top) {
				top = k
			}
		}
		if sum > 0 {
			out = append(out, fmt.Sprintf("%s: %s dominates (%.0f%% of %s ms per block); execute %.0f%%", a.p.Label, top, 100*v[top]/sum, num(sum), 100*f.Execute/sum))
		}
	}
	out = append(out, "paper: consensus dominates by far in both sync and async; execution is negligible")
	return out
}

// fig9Findings: what the most clients gain over one.
func fig9Findings(all []at) []string {
	var out []string
	for _, md := range []string{bench.ModeSync, bench.ModeAsync} {
		pts := where(all, mode(md))
		var one, most *bench.Result
		var mostC int
		for _, a := range pts {
			if a.r == nil {
				continue
			}
			if a.p.Config.Clients == 1 {
				one = a.r
			}
			if a.p.Config.Clients > mostC {
				most, mostC = a.r, a.p.Config.Clients
			}
		}
		if one != nil && most != nil && one.TPS > 0 && mostC > 1 {
			out = append(out, fmt.Sprintf("%s: %d clients give %sx the throughput of one", md, mostC, num(most.TPS/one.TPS)))
		}
	}
	out = append(out, "paper: sync improves drastically with clients, async less but significantly (up to 32 clients)")
	return out
}

// fig10Findings: how the backends compare, in the chain and raw.
func fig10Findings(all []at) []string {
	var out []string
	names := map[string]string{"sqlite": "SQLite", "postgres": "PostgreSQL", "mysql": "MySQL"}
	// ratio says how many times faster backend a is than b, in the
	// chain and raw (throughput over the same wl-transactions).
	ratio := func(md, a, b string) string {
		ra := first(all, func(p Point) bool { return p.Backend == a && p.Config.Mode == md })
		rb := first(all, func(p Point) bool { return p.Backend == b && p.Config.Mode == md })
		if ra == nil || rb == nil || rb.TPS == 0 {
			return ""
		}
		s := fmt.Sprintf("%s: relchain on %s is %sx as fast as on %s", md, names[a], num(ra.TPS/rb.TPS), names[b])
		if ra.Baseline != nil && rb.Baseline != nil && rb.Baseline.TPS > 0 {
			s += fmt.Sprintf("; raw %s %sx raw %s", names[a], num(ra.Baseline.TPS/rb.Baseline.TPS), names[b])
		}
		return s
	}
	for _, md := range []string{bench.ModeSync, bench.ModeAsync} {
		for _, pair := range [][2]string{{"postgres", "mysql"}, {"sqlite", "postgres"}, {"sqlite", "mysql"}} {
			if s := ratio(md, pair[0], pair[1]); s != "" {
				out = append(out, s)
			}
		}
	}
	out = append(out, "paper (PostgreSQL vs MySQL): raw PostgreSQL 6.6x faster than MySQL (sync) and 2.6x (async); in the chain 1.0x, no difference (sync), and 1.2x (async)")
	return out
}

// fig11aFindings: what more validators cost per transaction.
func fig11aFindings(all []at) []string {
	var out []string
	for _, md := range []string{bench.ModeAsync, bench.ModeSync} {
		one := first(all, func(p Point) bool { return p.Validators == 1 && p.Config.Mode == md })
		if one == nil {
			continue
		}
		for _, v := range []int{4, 8} {
			r := first(all, func(p Point) bool { return p.Validators == v && p.Config.Mode == md })
			if r == nil || r.TPS == 0 {
				continue
			}
			out = append(out, fmt.Sprintf("%s: %d validators take %sx the time per transaction of 1 (%d vs %d blocks with transactions)", md, v, num(one.TPS/r.TPS), r.TxBlocks, one.TxBlocks))
		}
	}
	out = append(out, "paper (async, 10,000 txs): 4 nodes 1.47x, 8 nodes 1.69x the runtime of 1 node; about 20 blocks on 1 node, about 6 on 4 and 8")
	return out
}

// fig12Findings: the chain's throughput against the replicated
// PostgreSQL's on the same wl-transactions, by k.
func fig12Findings(all []at) []string {
	var out []string
	for _, a := range all {
		if a.r == nil || a.r.Baseline == nil || a.r.Baseline.TPS == 0 || a.r.TPS == 0 {
			continue
		}
		out = append(out, fmt.Sprintf("k=%d: relchain %s wl-tx/s, PostgreSQL with %d synchronous standbys %s wl-tx/s (%sx relchain's)",
			a.p.Config.WLPerBC, num(a.r.TPS), a.r.Baseline.Replicas, num(a.r.Baseline.TPS), num(a.r.Baseline.TPS/a.r.TPS)))
	}
	return out
}

// studyFindings: each point's read and write p50 beside the replicated
// PostgreSQL's.
func studyFindings(all []at) []string {
	var out []string
	for _, a := range all {
		if a.r == nil || a.r.Baseline == nil || a.r.Baseline.LatencyMS == nil {
			continue
		}
		out = append(out, fmt.Sprintf("%s: read p50 %s ms, write p50 %s ms; PostgreSQL with %d synchronous standbys p50 %s ms (all operations)",
			a.p.Label, num(kindP50(a.r, "Read")), num(kindP50(a.r, "Update")), a.r.Baseline.Replicas, num(a.r.Baseline.LatencyMS.P50)))
	}
	return out
}

// fig11bFindings: what added link latency costs, against no added latency.
func fig11bFindings(all []at) []string {
	var out []string
	for _, md := range []string{bench.ModeSync, bench.ModeAsync} {
		zero := first(all, func(p Point) bool { return p.LinkDelay == 0 && p.Config.Mode == md })
		if zero == nil || zero.TPS == 0 {
			continue
		}
		for _, a := range where(all, mode(md)) {
			if a.p.LinkDelay == 0 || a.r == nil || a.r.TPS == 0 {
				continue
			}
			switch md {
			case bench.ModeSync:
				out = append(out, fmt.Sprintf("sync, %s added one way: p50 latency %s ms (%sx that with none)", fmtDur(a.p.LinkDelay), num(p50(a.r)), num(p50(a.r)/p50(zero))))
			default:
				out = append(out, fmt.Sprintf("async, %s added one way: %s wl-tx/s (%sx that with none)", fmtDur(a.p.LinkDelay), num(a.r.TPS), num(a.r.TPS/zero.TPS)))
			}
		}
	}
	return out
}
