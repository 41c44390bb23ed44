package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/relchain/relchain/bench"
	"github.com/relchain/relchain/node"
)

// benchReport is what --output writes.
type benchReport struct {
	*bench.Result
	TimeoutCommit string          `json:"timeout_commit"`
	FastGossip    bool            `json:"fast_gossip"`
	Ceiling       *ceilingSummary `json:"ceiling,omitempty"`
	// RatioToCeiling is relchain's throughput over the ceiling's (async) or
	// its p50 latency over the ceiling's (commit).
	RatioToCeiling float64 `json:"ratio_to_ceiling,omitempty"`
	// GateOff is the same measurement with the gate off (--gate-off), and
	// GateCost the relative throughput lost to the gate (async) or the
	// relative p50 latency added (commit).
	GateOff  *ceilingSummary `json:"gate_off,omitempty"`
	GateCost float64         `json:"gate_cost,omitempty"`
}

type ceilingSummary struct {
	TPS       float64        `json:"tps"`
	LatencyMS *bench.Latency `json:"latency_ms,omitempty"`
	Blocks    int            `json:"blocks"`
	TxsPerBlk float64        `json:"txs_per_block_mean"`
}

func benchCmd() *cobra.Command {
	var cfg bench.Config
	var f netFlags
	var nodes, output, dir string
	var ceiling, slowGossip, gateOff bool
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Measure a workload on a local network (started for the run) or on --nodes",
		Long: `Measure a workload. Without --nodes it starts its own loopback network of
--validators nodes, sets up the workload, measures, and stops the network.
With --ceiling it then measures CometBFT's example kvstore app on an
identically configured network, the consensus ceiling.

Workloads: update (single-row UPDATEs by primary key over a table of --rows
rows). Modes: commit (each client waits for its tx's block: latency) and
async (submit everything, follow committed blocks: throughput).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			ctx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			if cfg.Workload != "update" {
				return fmt.Errorf("unknown --workload %q: this version has update", cfg.Workload)
			}
			cfg.Dialect = f.backend
			bin, err := os.Executable()
			if err != nil {
				return err
			}
			if dir == "" {
				if dir, err = os.MkdirTemp("", "relchain-bench-"); err != nil {
					return err
				}
				defer os.RemoveAll(dir)
			}
			tuning := node.DefaultTuning()
			tuning.TimeoutCommit = f.timeoutCommit
			tuning.FastGossip = !slowGossip
			nopts := bench.NetworkOptions{Bin: bin, Dir: dir, Validators: f.validators, Backend: f.backend, DSNTemplate: f.dsnTemplate, Tuning: tuning, App: "relchain"}
			var rep benchReport
			rep.TimeoutCommit = f.timeoutCommit.String()
			rep.FastGossip = tuning.FastGossip
			res, err := measure(ctx, cfg, nodes, nopts)
			if err != nil {
				return err
			}
			rep.Result = res
			if ceiling {
				kcfg := cfg
				kcfg.Workload = "kvstore"
				nopts.App = "kvstore"
				kres, err := measure(ctx, kcfg, "", nopts)
				if err != nil {
					return fmt.Errorf("ceiling: %w", err)
				}
				rep.Ceiling = &ceilingSummary{TPS: kres.TPS, LatencyMS: kres.LatencyMS, Blocks: kres.Blocks, TxsPerBlk: kres.TxsPerBlockMean}
				if cfg.Mode == "async" && kres.TPS > 0 {
					rep.RatioToCeiling = res.TPS / kres.TPS
				} else if res.LatencyMS != nil && kres.LatencyMS != nil && kres.LatencyMS.P50 > 0 {
					rep.RatioToCeiling = res.LatencyMS.P50 / kres.LatencyMS.P50
				}
			}
			if gateOff {
				ocfg := cfg
				onopts := nopts
				onopts.App, onopts.NoGate = "relchain", true
				ores, err := measure(ctx, ocfg, "", onopts)
				if err != nil {
					return fmt.Errorf("gate off: %w", err)
				}
				rep.GateOff = &ceilingSummary{TPS: ores.TPS, LatencyMS: ores.LatencyMS, Blocks: ores.Blocks, TxsPerBlk: ores.TxsPerBlockMean}
				if cfg.Mode == "async" && ores.TPS > 0 {
					rep.GateCost = 1 - res.TPS/ores.TPS
				} else if res.LatencyMS != nil && ores.LatencyMS != nil && ores.LatencyMS.P50 > 0 {
					rep.GateCost = res.LatencyMS.P50/ores.LatencyMS.P50 - 1
				}
			}
			printReport(&rep)
			if output != "" {
				b, _ := json.MarshalIndent(rep, "", "  ")
				if err := os.WriteFile(output, append(b, '\n'), 0o644); err != nil {
					return fmt.Errorf("write %s: %w", output, err)
				}
			}
			return nil
		},
	}
	f.register(cmd, 0)
	cmd.Flags().StringVar(&cfg.Workload, "workload", "update", "workload: update")
	cmd.Flags().StringVar(&cfg.Mode, "mode", "commit", "commit or async")
	cmd.Flags().StringVar(&cfg.Submit, "submit", "sync", "async mode: hand txs over with broadcast_tx_sync (sync) or broadcast_tx_async (async)")
	cmd.Flags().IntVar(&cfg.Clients, "clients", 1, "concurrent clients (spread over the nodes)")
	cmd.Flags().IntVar(&cfg.Txs, "txs", 500, "bc-transactions to send")
	cmd.Flags().IntVar(&cfg.Rows, "rows", 100000, "rows in the update workload's table")
	cmd.Flags().Uint64Var(&cfg.Seed, "seed", 1, "random seed of the workload")
	cmd.Flags().StringVar(&nodes, "nodes", "", "comma-separated RPC URLs of an existing network (skips starting one)")
	cmd.Flags().BoolVar(&slowGossip, "cometbft-gossip-defaults", false, "keep CometBFT's 100 ms flush_throttle_timeout and peer_gossip_sleep_duration instead of relchain's 1 ms")
	cmd.Flags().BoolVar(&ceiling, "ceiling", false, "also measure CometBFT's kvstore app on an identical network")
	cmd.Flags().BoolVar(&gateOff, "gate-off", false, "also measure relchain with the determinism and safety gate off (its cost)")
	cmd.Flags().StringVar(&output, "output", "", "write the result as JSON to this file")
	cmd.Flags().StringVar(&dir, "dir", "", "directory for the networks (default: a temporary one, removed afterwards)")
	cmd.Flags().DurationVar(&timeout, "timeout", 30*time.Minute, "give up after this long")
	return cmd
}

func measure(ctx context.Context, cfg bench.Config, nodes string, o bench.NetworkOptions) (*bench.Result, error) {
	validators := o.Validators
	if nodes != "" {
		cfg.Nodes = strings.Split(nodes, ",")
		validators = len(cfg.Nodes)
	} else {
		fmt.Fprintf(os.Stderr, "starting %d-validator %s network (%s)...\n", o.Validators, o.App, o.Backend)
		n, err := bench.StartNetwork(ctx, o)
		if err != nil {
			return nil, err
		}
		defer n.StopAll()
		cfg.Nodes = bench.RPCs(n)
	}
	if err := bench.SetupMicro(ctx, cfg); err != nil {
		return nil, err
	}
	last := time.Now()
	cfg.Progress = func(done int) {
		if time.Since(last) > time.Second {
			last = time.Now()
			fmt.Fprintf(os.Stderr, "\r%s %s: %d/%d txs", cfg.Workload, cfg.Mode, done, cfg.Txs)
		}
	}
	res, err := bench.RunMicro(ctx, cfg)
	fmt.Fprintln(os.Stderr)
	if err != nil {
		return nil, err
	}
	res.Validators = validators
	res.Backend = o.Backend
	if cfg.Workload == "kvstore" {
		res.Backend = "kvstore"
	}
	return res, nil
}

func printReport(r *benchReport) {
	w := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintf(w, "workload\tmode\tbackend\tvalidators\tclients\ttxs\tok\tfailed\tseconds\ttx/s\tp50 ms\tp95 ms\tp99 ms\tblocks\ttxs/block\n")
	row := func(res *bench.Result) {
		p50, p95, p99 := "-", "-", "-"
		if res.LatencyMS != nil {
			p50, p95, p99 = fmt.Sprintf("%.1f", res.LatencyMS.P50), fmt.Sprintf("%.1f", res.LatencyMS.P95), fmt.Sprintf("%.1f", res.LatencyMS.P99)
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%d\t%d\t%d\t%d\t%d\t%.2f\t%.0f\t%s\t%s\t%s\t%d\t%.1f\n",
			res.Workload, res.Mode, res.Backend, res.Validators, res.Clients, res.Txs, res.Succeeded, res.Failed,
			res.Seconds, res.TPS, p50, p95, p99, res.Blocks, res.TxsPerBlockMean)
	}
	row(r.Result)
	w.Flush()
	if r.Ceiling != nil {
		fmt.Printf("ceiling (kvstore, same network config): %.0f tx/s", r.Ceiling.TPS)
		if r.Ceiling.LatencyMS != nil {
			fmt.Printf(", p50 %.1f ms, p95 %.1f ms", r.Ceiling.LatencyMS.P50, r.Ceiling.LatencyMS.P95)
		}
		fmt.Printf("; relchain/ceiling ratio %.2f\n", r.RatioToCeiling)
	}
	if r.GateOff != nil {
		fmt.Printf("gate off (same network config): %.0f tx/s", r.GateOff.TPS)
		if r.GateOff.LatencyMS != nil {
			fmt.Printf(", p50 %.1f ms", r.GateOff.LatencyMS.P50)
		}
		fmt.Printf("; cost of the gate %.1f%%\n", 100*r.GateCost)
	}
}
