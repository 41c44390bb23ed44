package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/relchain/relchain/bench"
)

// defaultAbsentSettings is the sweep: CometBFT's own timeouts first, then
// shorter proposals, then shorter precommit waits.
const defaultAbsentSettings = "3s/500ms/1s,1s/500ms/1s,500ms/100ms/1s,500ms/100ms/200ms," +
	"300ms/100ms/200ms,200ms/100ms/200ms,100ms/100ms/100ms"

// absentFlags are the flags of `relchain-bench absent`.
type absentFlags struct {
	net      netFlags
	opts     bench.AbsentOptions
	settings string
	dir      string
	output   string
	timeout  time.Duration
	quiet    bool
}

func absentCmd() *cobra.Command {
	var f absentFlags
	cmd := &cobra.Command{
		Use:   "absent",
		Short: "Measure async throughput with one validator absent, for a sweep of consensus timeouts",
		Long: `For each setting of --settings (timeout_propose/timeout_propose_delta/
timeout_precommit), start a --validators network (SQLite by default), create
bench_acct with --rows rows, and measure on that one network: async runs of
--txs single-row UPDATEs from --clients submitters — healthy, with the last
validator paused (SIGSTOP; --pause), and with it stopped (SIGKILL) — and
commit-mode runs of --commit-clients clients for --commit-duration, healthy
and stopped. Each run reports tx/s, blocks/s and how many heights were
decided in a round above 0: with every validator up, a spurious round change
(a proposal or a vote that missed its timeout under load); with one absent,
about every n-th height waits out the missing proposer. --repeat runs the
whole sweep again, settings interleaved, and prints medians.`,
		Example: `  relchain-bench absent
  relchain-bench absent --settings 3s/500ms/1s,300ms/100ms/200ms --txs 4000 --output absent.json`,
		Args:          cobra.NoArgs,
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			ctx, cancel := context.WithTimeout(ctx, f.timeout)
			defer cancel()
			if err := checkWritable(f.output); err != nil {
				return err
			}
			return runAbsentBench(ctx, &f, cmd.OutOrStdout())
		},
	}
	f.net.register(cmd, 0)
	fl := cmd.Flags()
	fl.StringVar(&f.settings, "settings", defaultAbsentSettings, "comma-separated timeout_propose/timeout_propose_delta/timeout_precommit settings")
	fl.IntVar(&f.opts.Txs, "txs", 3000, "async single-row UPDATEs per run")
	fl.IntVar(&f.opts.Clients, "clients", 16, "concurrent submitters (spread over the validators that are up)")
	fl.IntVar(&f.opts.Rows, "rows", 10000, "rows of bench_acct")
	fl.Uint64Var(&f.opts.Seed, "seed", 1, "random seed")
	fl.IntVar(&f.opts.CommitClients, "commit-clients", 8, "clients of the commit-mode runs (each waits for its UPDATE's block); 0: no commit-mode runs")
	fl.DurationVar(&f.opts.CommitDuration, "commit-duration", 8*time.Second, "length of each commit-mode run")
	fl.IntVar(&f.opts.Repeat, "repeat", 2, "run the whole sweep this many times, settings interleaved; the summary gives medians")
	fl.BoolVar(&f.opts.Pause, "pause", true, "also measure with the last validator paused (SIGSTOP)")
	fl.StringVar(&f.dir, "dir", "", "directory for the networks (default: a temporary one, removed afterwards)")
	fl.StringVar(&f.output, "output", "", "write the result as JSON to this file")
	fl.BoolVar(&f.quiet, "quiet", false, "no progress lines")
	fl.DurationVar(&f.timeout, "timeout", 60*time.Minute, "give up after this long")
	return cmd
}

// parseTimeoutSettings parses "propose/delta/precommit,…".
func parseTimeoutSettings(s string) ([]bench.ConsensusTimeouts, error) {
	var out []bench.ConsensusTimeouts
	for _, item := range strings.Split(s, ",") {
		parts := strings.Split(strings.TrimSpace(item), "/")
		if len(parts) != 3 {
			return nil, fmt.Errorf("--settings %q: want timeout_propose/timeout_propose_delta/timeout_precommit, e.g. 300ms/100ms/200ms", item)
		}
		var d [3]time.Duration
		for i, p := range parts {
			v, err := time.ParseDuration(p)
			if err != nil || v <= 0 {
				return nil, fmt.Errorf("--settings %q: %q is not a positive duration", item, p)
			}
			d[i] = v
		}
		out = append(out, bench.ConsensusTimeouts{Propose: d[0], ProposeDelta: d[1], Precommit: d[2]})
	}
	return out, nil
}

func runAbsentBench(ctx context.Context, f *absentFlags, out io.Writer) error {
	settings, err := parseTimeoutSettings(f.settings)
	if err != nil {
		return err
	}
	f.opts.Settings = settings
	nopts, cleanup, err := builtinNetwork(f.net, f.dir, "relchain-bench-absent-")
	if err != nil {
		return err
	}
	defer cleanup()
	f.opts.Network = nopts
	if !f.quiet {
		f.opts.Log = os.Stderr
	}
	points, err := bench.MeasureAbsent(ctx, f.opts)
	printAbsentResult(out, f, points)
	if err != nil {
		return err
	}
	return writeJSON(f.output, points)
}

// printAbsentResult prints one row per setting and sweep.
func printAbsentResult(out io.Writer, f *absentFlags, points []bench.AbsentPoint) {
	fmt.Fprintf(out, "one of %d validators absent (%s): async runs of %d single-row UPDATEs from %d submitters", f.net.validators, f.net.backend, f.opts.Txs, f.opts.Clients)
	if f.opts.CommitClients > 0 {
		fmt.Fprintf(out, "; commit-mode runs of %d clients for %v", f.opts.CommitClients, f.opts.CommitDuration)
	}
	fmt.Fprintf(out, "\nrounds>0: heights decided past round 0 / heights of the run\n\n")
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintf(w, "propose\tdelta\tprecommit\tasync healthy tx/s\tblocks/s\trounds>0\tpaused tx/s\tratio\tstopped tx/s\tblocks/s\trounds>0\tratio\tcommit healthy tx/s\trounds>0\tstopped tx/s\tblocks/s\tratio\n")
	for _, p := range points {
		t := p.Timeouts
		fmt.Fprintf(w, "%v\t%v\t%v\t%.0f\t%.1f\t%d/%d\t%s\t%s\t%.0f\t%.1f\t%d/%d\t%.2f\t%s\n",
			t.Propose, t.ProposeDelta, t.Precommit,
			p.Healthy.TPS, p.Healthy.BlocksPerSec, p.Healthy.LaterRounds, p.Healthy.Blocks,
			tpsOrDash(p.Paused), ratioOrDash(p.Paused, p.PausedRatio),
			p.Stopped.TPS, p.Stopped.BlocksPerSec, p.Stopped.LaterRounds, p.Stopped.Blocks, p.StoppedRatio, commitColumns(p))
	}
	w.Flush()
	if f.opts.Repeat > 1 {
		printAbsentSummary(out, points)
	}
}

func tpsOrDash(r *bench.AbsentRun) string {
	if r == nil {
		return "-"
	}
	return fmt.Sprintf("%.0f", r.TPS)
}

func ratioOrDash(r *bench.AbsentRun, ratio float64) string {
	if r == nil {
		return "-"
	}
	return fmt.Sprintf("%.2f", ratio)
}

func commitColumns(p bench.AbsentPoint) string {
	h, s := p.HealthyCommit, p.StoppedCommit
	if h == nil || s == nil {
		return "-\t-\t-\t-\t-"
	}
	return fmt.Sprintf("%.1f\t%d/%d\t%.1f\t%.1f\t%.2f", h.TPS, h.LaterRounds, h.Blocks, s.TPS, s.BlocksPerSec, p.CommitRatio)
}

// printAbsentSummary prints, per setting, the medians over the sweeps and
// the healthy runs' heights past round 0 summed over them.
func printAbsentSummary(out io.Writer, points []bench.AbsentPoint) {
	fmt.Fprintf(out, "\nmedians over the sweeps (rounds>0 summed)\n")
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintf(w, "propose\tdelta\tprecommit\truns\tasync healthy tx/s\trounds>0\tpaused ratio\tstopped tx/s\tblocks/s\tstopped ratio\tcommit healthy tx/s\trounds>0\tstopped tx/s\tratio\n")
	var seen []bench.ConsensusTimeouts
	for _, p := range points {
		if slices.Contains(seen, p.Timeouts) {
			continue
		}
		seen = append(seen, p.Timeouts)
		var s absentSummary
		for _, q := range points {
			if q.Timeouts == p.Timeouts {
				s.add(q)
			}
		}
		t := p.Timeouts
		fmt.Fprintf(w, "%v\t%v\t%v\t%d\t%.0f\t%d/%d\t%s\t%.0f\t%.1f\t%.2f\t%s\t%d/%d\t%s\t%s\n", t.Propose, t.ProposeDelta, t.Precommit, len(s.healthy),
			median(s.healthy), s.later, s.blocks, medianOrDash(s.pausedRatio, "%.2f"), median(s.stopped), median(s.stoppedBlocks), median(s.ratio),
			medianOrDash(s.commitHealthy, "%.1f"), s.commitLater, s.commitBlocks, medianOrDash(s.commitStopped, "%.1f"), medianOrDash(s.commitRatio, "%.2f"))
	}
	w.Flush()
}

// absentSummary gathers one setting's runs over the sweeps.
type absentSummary struct {
	healthy, stopped, stoppedBlocks, ratio, pausedRatio []float64
	commitHealthy, commitStopped, commitRatio           []float64
	later, blocks, commitLater, commitBlocks            int
}

func (s *absentSummary) add(p bench.AbsentPoint) {
	s.healthy, s.stopped = append(s.healthy, p.Healthy.TPS), append(s.stopped, p.Stopped.TPS)
	s.stoppedBlocks, s.ratio = append(s.stoppedBlocks, p.Stopped.BlocksPerSec), append(s.ratio, p.StoppedRatio)
	s.later, s.blocks = s.later+p.Healthy.LaterRounds, s.blocks+p.Healthy.Blocks
	if p.Paused != nil {
		s.pausedRatio = append(s.pausedRatio, p.PausedRatio)
	}
	if h, st := p.HealthyCommit, p.StoppedCommit; h != nil && st != nil {
		s.commitHealthy, s.commitStopped = append(s.commitHealthy, h.TPS), append(s.commitStopped, st.TPS)
		s.commitRatio = append(s.commitRatio, p.CommitRatio)
		s.commitLater, s.commitBlocks = s.commitLater+h.LaterRounds, s.commitBlocks+h.Blocks
	}
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func medianOrDash(v []float64, format string) string {
	if len(v) == 0 {
		return "-"
	}
	return fmt.Sprintf(format, median(v))
}
