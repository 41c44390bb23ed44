package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/relchain/relchain/bench"
	"github.com/relchain/relchain/internal/tcprelay"
)

// gatewayFlags are the flags of `relchain-bench gateway`.
type gatewayFlags struct {
	net     netFlags
	opts    bench.GatewayOptions
	clients string
	dir     string
	output  string
	timeout time.Duration
	quiet   bool
}

func gatewayCmd() *cobra.Command {
	var f gatewayFlags
	cmd := &cobra.Command{
		Use:   "gateway",
		Short: "Measure the PostgreSQL gateway against the Go client and the raw backend, on one network",
		Long: `Start one --validators network (sqlite or postgres) with every node's
PostgreSQL listener on, create bench_acct(id, bal) with --accounts rows
through consensus, and measure on node 0, side by side:

 1. autocommit single-row UPDATEs through the listener (pgx, one client)
    and the same UPDATEs through the Go client in commit mode (as
    relchain-bench --workload update --mode sync sends them), in turn;
 2. point SELECTs by primary key through the listener (pgx, prepared) and
    on the raw backend: PostgreSQL through pgx as node 0's reader role;
    SQLite as node 0's file opened read-only in this process (no network);
 3. explicit transfers (BEGIN; SELECT; UPDATE; UPDATE; COMMIT) from
    --sessions pgx sessions for --duration on a uniform and a skewed key
    set: commits/s, COMMITs and statements failing with 40001, commit p50,
    and the total balance, which must be unchanged.`,
		Example: `  relchain-bench gateway
  relchain-bench gateway --backend postgres --dsn-template 'postgres://postgres@127.0.0.1:5432/gw_{node}?sslmode=disable' --output gw.json`,
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
			return runGatewayBench(ctx, &f, cmd.OutOrStdout())
		},
	}
	f.net.register(cmd, 0)
	fl := cmd.Flags()
	fl.IntVar(&f.opts.Accounts, "accounts", 10000, "rows of bench_acct: the updates', reads' and uniform transfers' key set")
	fl.IntVar(&f.opts.Updates, "updates", 300, "autocommit UPDATEs through each path")
	fl.IntVar(&f.opts.Reads, "reads", 5000, "point SELECTs per read run (spread over its clients)")
	fl.StringVar(&f.clients, "read-clients", "1,8", "comma-separated client counts of the read runs")
	fl.IntVar(&f.opts.TxSessions, "sessions", 8, "concurrent sessions running explicit transfers")
	fl.DurationVar(&f.opts.TxDuration, "duration", 30*time.Second, "how long the transfers run on each key set")
	fl.IntVar(&f.opts.HotAccounts, "hot", 10, "hot accounts of the skewed key set")
	fl.Float64Var(&f.opts.HotShare, "hot-share", 0.9, "share of the skewed set's transfers between hot accounts")
	fl.Uint64Var(&f.opts.Seed, "seed", 1, "random seed")
	fl.StringVar(&f.dir, "dir", "", "directory for the network (default: a temporary one, removed afterwards)")
	fl.StringVar(&f.output, "output", "", "write the result as JSON to this file")
	fl.BoolVar(&f.quiet, "quiet", false, "no progress lines")
	fl.DurationVar(&f.timeout, "timeout", 30*time.Minute, "give up after this long")
	return cmd
}

func runGatewayBench(ctx context.Context, f *gatewayFlags, out io.Writer) error {
	if err := bench.GatewayRuns(f.net.backend); err != nil {
		return fmt.Errorf("--backend: %w", err)
	}
	for _, c := range strings.Split(f.clients, ",") {
		var n int
		if _, err := fmt.Sscan(strings.TrimSpace(c), &n); err != nil || n < 1 {
			return fmt.Errorf("--read-clients %q: want positive numbers, e.g. 1,8", f.clients)
		}
		f.opts.ReadClients = append(f.opts.ReadClients, n)
	}
	if f.opts.Updates < 1 || f.opts.Reads < 1 || f.opts.HotShare < 0 || f.opts.HotShare > 1 {
		return fmt.Errorf("--updates and --reads must be positive and --hot-share in [0, 1]")
	}
	nopts, cleanup, err := builtinNetwork(f.net, f.dir, "relchain-bench-gateway-")
	if err != nil {
		return err
	}
	defer cleanup()
	f.opts.Network = nopts
	if !f.quiet {
		f.opts.Log = os.Stderr
	}
	if self, err := os.Executable(); err == nil {
		f.opts.RelayCommand = []string{self, "tcprelay"}
	}
	res, err := bench.MeasureGateway(ctx, f.opts)
	if err != nil {
		return err
	}
	printGatewayResult(out, res)
	return writeJSON(f.output, res)
}

// printGatewayResult prints the three comparisons as tables.
func printGatewayResult(out io.Writer, r *bench.GatewayResult) {
	fmt.Fprintf(out, "gateway benchmark: %s, %d validators, %d accounts, node 0's listener\n\n", r.Backend, r.Validators, r.Accounts)
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintf(w, "autocommit UPDATE (1 client)\tops\tp50 ms\tp95 ms\tmean ms\tops/s\n")
	u := r.UpdateGateway
	fmt.Fprintf(w, "gateway (pgx)\t%d\t%.1f\t%.1f\t%.1f\t%.1f\n", u.Ops, u.P50, u.P95, u.Mean, u.PerSec)
	c := r.UpdateClient
	fmt.Fprintf(w, "Go client, commit mode\t%d\t%.1f\t%.1f\t-\t%.1f\n", c.Ops, c.P50, c.P95, c.PerSec)
	fmt.Fprintf(w, "ratio gateway/client p50\t%.2fx\t(target <= 1.1x)\t\t\t\n", r.UpdateRatio)
	w.Flush()
	fmt.Fprintf(out, "\npoint SELECT by primary key; raw = %s\n", r.RawPath)
	w = tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintf(w, "clients\tpath\tops\tp50 ms\tp95 ms\tmean ms\tops/s\tratio p50 (target <= 1.5x)\n")
	for _, rc := range r.Reads {
		g, raw := rc.Gateway, rc.Raw
		fmt.Fprintf(w, "%d\tgateway (pgx, prepared)\t%d\t%.3f\t%.3f\t%.3f\t%.0f\t%.2fx\n", rc.Clients, g.Ops, g.P50, g.P95, g.Mean, g.PerSec, rc.Ratio)
		fmt.Fprintf(w, "%d\traw\t%d\t%.3f\t%.3f\t%.3f\t%.0f\t\n", rc.Clients, raw.Ops, raw.P50, raw.P95, raw.Mean, raw.PerSec)
		if f := rc.Relay; f != nil {
			where := "in this process"
			if rc.RelayProcess {
				where = "in a process of its own"
			}
			fmt.Fprintf(w, "%d\traw through a TCP relay %s (floor of any front end)\t%d\t%.3f\t%.3f\t%.3f\t%.0f\t%.2fx\n", rc.Clients, where, f.Ops, f.P50, f.P95, f.Mean, f.PerSec, rc.RelayRatio)
		}
		c := rc.Client
		fmt.Fprintf(w, "%d\tGo client, RPC query (reference)\t%d\t%.3f\t%.3f\t%.3f\t%.0f\t%.2fx of it\n", rc.Clients, c.Ops, c.P50, c.P95, c.Mean, c.PerSec, bench.Ratio(g.P50, c.P50))
	}
	w.Flush()
	fmt.Fprintln(out, "\nexplicit transfers (BEGIN; SELECT a; UPDATE a; UPDATE b; COMMIT)")
	w = tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintf(w, "keys\tsessions\tseconds\tcommits\tcommits/s\tCOMMIT 40001\tstatements 40001\tother errors\tcommit p50 ms\tcommit p95 ms\tstatement p50 ms\tstatement p95 ms\ttotal conserved\n")
	for _, t := range r.Transactions {
		fmt.Fprintf(w, "%s\t%d\t%.1f\t%d\t%.1f\t%d/%d (%.1f%%)\t%d/%d (%.1f%%)\t%d\t%.1f\t%.1f\t%.1f\t%.1f\t%v (%d)\n",
			t.Keys, t.Sessions, t.Seconds, t.Commits, t.CommitsPerSec,
			t.CommitFailures40001, t.CommitsSent, pct(t.CommitFailures40001, t.CommitsSent),
			t.StatementFailures, t.Statements, pct(t.StatementFailures, t.Statements),
			t.OtherErrors, t.CommitP50, t.CommitP95, t.StatementP50, t.StatementP95, t.Conserved, t.TotalAfter)
	}
	w.Flush()
	for _, t := range r.Transactions {
		if ph := t.Phases; ph != nil {
			fmt.Fprintf(out, "%s: %d blocks, %.1f bc-txs per block with any; node 0 per block: propose %.1f ms, consensus %.1f ms, execute %.1f ms, commit %.1f ms\n",
				t.Keys, t.Blocks, t.TxsPerBlock, ph.Propose, ph.Consensus, ph.Execute, ph.Commit)
		}
	}
	for _, t := range r.Transactions {
		if t.FirstOtherError != "" {
			fmt.Fprintf(out, "%s: other errors, first of each session: %s\n", t.Keys, t.FirstOtherError)
		}
	}
}

func pct(n, of int) float64 {
	if of == 0 {
		return 0
	}
	return 100 * float64(n) / float64(of)
}

// tcprelayCmd is the relay process of the gateway benchmark's relay read
// path (bench.GatewayOptions.RelayCommand): it relays 127.0.0.1:0 to
// --target, prints the address it listens on and runs until its
// standard input closes.
func tcprelayCmd() *cobra.Command {
	var target string
	cmd := &cobra.Command{
		Use:           "tcprelay --target HOST:PORT",
		Short:         "Relay a free local port to HOST:PORT until standard input closes (the gateway benchmark's relay process)",
		Hidden:        true,
		Args:          cobra.NoArgs,
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			r, err := tcprelay.Start("127.0.0.1:0", target)
			if err != nil {
				return err
			}
			defer r.Close()
			fmt.Fprintln(cmd.OutOrStdout(), r.Addr())
			_, _ = io.Copy(io.Discard, cmd.InOrStdin())
			return nil
		},
	}
	cmd.Flags().StringVar(&target, "target", "", "HOST:PORT to relay to")
	_ = cmd.MarkFlagRequired("target")
	return cmd
}
