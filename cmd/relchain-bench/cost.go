package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/relchain/relchain/bench/cost"
	"github.com/relchain/relchain/bench/workload"
	"github.com/relchain/relchain/dialect"
)

// costFlags are the flags of `relchain-bench cost`.
type costFlags struct {
	opts    cost.Options
	output  string
	timeout time.Duration
	quiet   bool
}

func costCmd() *cobra.Command {
	var f costFlags
	cmd := &cobra.Command{
		Use:   "cost",
		Short: "Measure the executor's CPU per wl-transaction against the raw database, in process",
		Long: `Run one in-process executor (no consensus, no network) and the raw
baseline on the same backend kind — two SQLite files in --dir, or two fresh
databases on the server of --dsn-template — on the same wl-transaction
stream in the same grouping (a block is one db-transaction, each
wl-transaction in its own savepoint), in alternating turns, and report the
CPU time per wl-transaction of each side and their ratio (medians over the
turns). CPU is this process's (getrusage) plus, with --server-pid-file, the
server's whole process tree (/proc). The executor's side is FinalizeBlock +
Commit; CheckTx is measured apart. Both sides must commit the same
wl-transactions, or the run fails.`,
		Example: `  relchain-bench cost --workload smallbank --backend sqlite --wl-per-bc 100
  relchain-bench cost --workload neworder --backend postgres \
    --dsn-template 'postgres://u@127.0.0.1:5432/{node}?sslmode=disable' --server-pid-file DIR/postmaster.pid`,
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
			return runCost(ctx, &f, cmd.OutOrStdout())
		},
	}
	fl := cmd.Flags()
	o := &f.opts
	fl.StringVar(&o.Workload, "workload", cost.Smallbank, "smallbank, smallbank-id (every customer named by id, as chainifyDB runs it), neworder (TPC-C NewOrder, one full-scale warehouse) or ycsb (core workload A; --accounts records)")
	fl.StringVar(&o.Backend, "backend", workload.SQLite, "sqlite, postgres or mysql")
	fl.StringVar(&o.Dir, "dir", "", "directory for the two SQLite files (default: a temporary one, removed afterwards)")
	fl.StringVar(&o.DSNTemplate, "dsn-template", "", "server DSN with {node}, replaced by each side's database name")
	fl.StringVar(&o.ServerPIDFile, "server-pid-file", "", "the server's pid file (postmaster.pid, mariadbd.pid): add its process tree's CPU")
	fl.IntVar(&o.Turns, "turns", 3, "measured turns per side, alternating")
	fl.IntVar(&o.Blocks, "blocks", 10, "blocks per turn")
	fl.IntVar(&o.BCPerBlock, "bc-per-block", 0, "bc-transactions per block (default: smallbank 4, neworder 200)")
	fl.IntVar(&o.WLPerBC, "wl-per-bc", 1, "wl-transactions per bc-transaction")
	fl.IntVar(&o.Accounts, "accounts", 0, "Smallbank accounts or YCSB records (default 100,000)")
	fl.StringVar(&o.Distribution, "distribution", "", "key choice: uniform (default); smallbank's zipf, ycsb's zipfian")
	fl.IntVar(&o.Lanes, "lanes", 1, "connections per side: the executor's lanes (parallel execution, PostgreSQL) and the raw baseline's connections")
	fl.Uint64Var(&o.Seed, "seed", 1, "the workload stream's seed")
	fl.StringVar(&o.CPUProfile, "cpuprofile", "", "write a CPU profile of one more executor turn (FinalizeBlock + Commit only) here")
	fl.StringVar(&o.RawCPUProfile, "raw-cpuprofile", "", "write a CPU profile of one more raw turn here, to compare with --cpuprofile's")
	fl.IntVar(&o.ProfileBlocks, "profile-blocks", 50, "blocks of each profiled turn")
	fl.StringVar(&f.output, "output", "", "write the result as JSON to this file")
	fl.BoolVar(&f.quiet, "quiet", false, "no progress lines")
	fl.DurationVar(&f.timeout, "timeout", time.Hour, "give up after this long")
	return cmd
}

func runCost(ctx context.Context, f *costFlags, out io.Writer) error {
	if d, err := dialect.Lookup(f.opts.Backend); err == nil && !d.Server && f.opts.Dir == "" {
		dir, err := os.MkdirTemp("", "relchain-bench-cost-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		f.opts.Dir = dir
	}
	if !f.quiet {
		f.opts.Log = os.Stderr
	}
	res, err := cost.Run(ctx, f.opts)
	if err != nil {
		return err
	}
	printCost(out, res)
	return writeJSON(f.output, res)
}

// printCost prints each turn and the medians.
func printCost(out io.Writer, r *cost.Result) {
	fmt.Fprintf(out, "cost: %s, CPU µs per wl-transaction\n", r.Row)
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintf(w, "turn\tside\twl\tcommitted\tgo\tserver\ttotal\tcheck\twall µs/wl\n")
	for i, t := range r.Turns {
		g, s, tot, c := t.PerWL()
		fmt.Fprintf(w, "%d\t%s\t%d\t%d\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\n", i/2+1, t.Side, t.WL, t.Committed, g, s, tot, c, float64(t.Wall.Microseconds())/float64(t.WL))
	}
	fmt.Fprintf(w, "median\texecutor\t\t\t%.1f\t%.1f\t%.1f\t%.1f\t\n", r.ExecGo, r.ExecServer, r.ExecTotal, r.ExecCheck)
	fmt.Fprintf(w, "median\traw\t\t\t%.1f\t%.1f\t%.1f\t\t\n", r.RawGo, r.RawServer, r.RawTotal)
	w.Flush()
	fmt.Fprintf(out, "ratio executor/raw: %.2fx (with CheckTx %.2fx; median of the turns' own ratios %.2fx)\n", r.Ratio, r.RatioWithCheck, r.PairedRatio)
	fmt.Fprintf(out, "throughput (median wall): executor %.0f wl/s, raw %.0f wl/s; blocks on lanes %d, abandoned %d\n",
		1e6/max(r.ExecWall, 1e-9), 1e6/max(r.RawWall, 1e-9), r.Lanes.Parallel, r.Lanes.Abandoned)
}
