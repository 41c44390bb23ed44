package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/bench"
	"github.com/relchain/relchain/bench/workload"
	"github.com/relchain/relchain/client"
	"github.com/relchain/relchain/dialect"
	"github.com/relchain/relchain/netctl"
	"github.com/relchain/relchain/node"
)

// benchFlags are the flags of `relchain-bench` (and `relchain bench`).
type benchFlags struct {
	net netFlags
	// sqlDialect is the network's SQL dialect (--sql-dialect): "" is
	// the backend's own.
	sqlDialect string
	// protocol is the network's genesis protocol version (--protocol): 0
	// is the newest this binary runs, as relchain testnet writes.
	protocol    uint64
	lanes       int
	lanesAlways bool
	cfg         bench.Config
	dist        string
	mix         string
	tpcc        bench.TPCCCardinality
	nodes       string
	abci        string
	output      string
	dir         string
	baselineDSN string
	// baselineReplicas > 0: the baseline runs on a primary with that many
	// synchronous standbys (remote_apply).
	baselineReplicas int
	baseline         bool
	ceiling          bool
	verify           bool
	slowGossip       bool
	gateOff          bool
	tpccStatements   bool
	quiet            bool
	home             string
	keyFile          string
	timeout          time.Duration
	relayLinks       bool
	linkDelay        time.Duration
}

func benchCmd() *cobra.Command {
	var f benchFlags
	cmd := &cobra.Command{
		Use:   "relchain-bench",
		Short: "Measure a workload on a local network (started for the run) or on --nodes",
		Long: `Measure a workload. Without --nodes it starts its own loopback network of
--validators nodes, sets the workload up through consensus, measures, and
stops the network. The nodes run the relchain binary: $RELCHAIN_BIN, else
the relchain next to relchain-bench, else relchain in PATH.

Workloads: smallbank, smallbank-id (every customer named by id, as chainifyDB
runs it), tpcc (NewOrder, Payment, OrderStatus), ycsb-a, ycsb-b, ycsb-c,
ycsb-f; and the micro-workload update (single-row UPDATEs).
Modes: sync (one wl-transaction per bc-transaction, wait for its block),
pseudo (--wl-per-bc wl-transactions per bc-transaction, wait), async (submit
without waiting; outcomes from committed blocks).

--baseline replays the exact wl-transaction sequence on a standalone
database of the same backend, grouped as the chain grouped it, and reports
the overhead (chain seconds / baseline seconds). --ceiling measures
CometBFT's kvstore app on an identically configured network. --verify
checks the workload's consistency conditions afterwards (and that the
baseline reached the chain's state).`,
		Example: `  relchain-bench --workload smallbank --mode sync --txs 500 --baseline --ceiling
  relchain-bench --workload smallbank --mode pseudo --wl-per-bc 100 --clients 8 --txs 100000
  relchain-bench --workload tpcc --mode async --mix NewOrder --backend postgres \
      --dsn-template 'postgres://postgres@127.0.0.1:5432/b_{node}?sslmode=disable' --baseline
  relchain-bench --workload smallbank --mode async --txs 3000 --backend mysql \
      --dsn-template 'root@tcp(127.0.0.1:3306)/bench_{node}' --baseline --verify
  relchain-bench paper --output report --quick`,
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
			return runBench(ctx, &f)
		},
	}
	f.net.register(cmd, 0)
	f.registerGenesis(cmd)
	f.registerWorkload(cmd)
	fl := cmd.Flags()
	fl.StringVar(&f.nodes, "nodes", "", "comma-separated RPC URLs of an existing network (skips starting one)")
	fl.StringVar(&f.keyFile, "key", "", "with --nodes on a permissioned network: an admin key file, which signs the setup and grants the benchmark's clients (default: the home's default key)")
	fl.StringVar(&f.home, "home", defaultHome(), "relchain home holding keys/ (with --nodes)")
	fl.BoolVar(&f.baseline, "baseline", false, "also run the raw DBMS on the same wl-transactions, grouped the same way")
	fl.StringVar(&f.baselineDSN, "baseline-dsn", "", "PostgreSQL or MySQL database for the baseline (default: --dsn-template with a fresh name)")
	fl.IntVar(&f.baselineReplicas, "baseline-replicas", 0, "with --baseline on postgres: run the baseline on a private primary with this many synchronous streaming standbys (synchronous_commit = remote_apply) started in --dir, the paper's Fig. 12 comparison")
	fl.StringVar(&f.abci, "abci", "builtin", "how CometBFT reaches the app on the network it starts: builtin (in-process) or socket (ABCI socket protocol over loopback TCP, the paper's server variant)")
	fl.BoolVar(&f.ceiling, "ceiling", false, "also measure CometBFT's kvstore app on an identical network")
	fl.BoolVar(&f.verify, "verify", false, "check the workload's consistency conditions after the run (and the baseline's state)")
	fl.BoolVar(&f.slowGossip, "cometbft-gossip-defaults", false, "keep CometBFT's 100 ms flush_throttle_timeout and peer_gossip_sleep_duration instead of relchain's 1 ms")
	fl.BoolVar(&f.gateOff, "gate-off", false, "update workload: also measure with the determinism and safety gate off (its cost)")
	fl.BoolVar(&f.quiet, "quiet", false, "no progress bar")
	fl.StringVar(&f.output, "output", "", "write the result as JSON to this file")
	fl.StringVar(&f.dir, "dir", "", "directory for the networks (default: a temporary one, removed afterwards)")
	fl.DurationVar(&f.timeout, "timeout", 60*time.Minute, "give up after this long")
	fl.BoolVar(&f.relayLinks, "relay-links", false, "run every p2p link of the network it starts through a relay in this process (implied by --link-delay)")
	fl.DurationVar(&f.linkDelay, "link-delay", 0, "one-way latency every p2p link gets, both directions, in those relays (no netem needed)")
	cmd.AddCommand(benchPaperCmd(), gatewayCmd(), absentCmd(), costCmd(), tcprelayCmd())
	return cmd
}

// registerWorkload adds the flags that choose and size the workload.
func (f *benchFlags) registerWorkload(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.cfg.Workload, "workload", "smallbank", "smallbank, smallbank-id, tpcc, ycsb-a, ycsb-b, ycsb-c, ycsb-f or update")
	fl.StringVar(&f.cfg.Mode, "mode", bench.ModeSync, "sync, pseudo or async")
	fl.IntVar(&f.cfg.WLPerBC, "wl-per-bc", 1, "wl-transactions per bc-transaction (pseudo, async)")
	fl.Float64Var(&f.cfg.Rate, "rate", 0, "async: the clients together hand over at most this many wl-transactions a second (0: as fast as they can)")
	fl.IntVar(&f.cfg.Clients, "clients", 1, "concurrent clients (spread over the nodes)")
	fl.IntVar(&f.cfg.Txs, "txs", 1000, "wl-transactions to run")
	fl.IntVar(&f.cfg.Scale, "scale", 0, "workload size: Smallbank accounts (100000), TPC-C warehouses (10), YCSB records (100000); 0 = default")
	fl.IntVar(&f.tpcc.Items, "tpcc-items", 0, "TPC-C items and stock rows per warehouse; 0 = the specification's 100000")
	fl.IntVar(&f.tpcc.Customers, "tpcc-customers", 0, "TPC-C customers per district; 0 = the specification's 3000")
	fl.IntVar(&f.tpcc.Orders, "tpcc-orders", 0, "TPC-C initial orders per district; 0 = the specification's 3000")
	fl.StringVar(&f.dist, "distribution", "", "key distribution: smallbank uniform|zipf; ycsb uniform|zipfian|latest (default: the workload's)")
	fl.StringVar(&f.mix, "mix", "", "comma-separated transaction kinds to run instead of the standard mix, e.g. NewOrder or Payment,OrderStatus")
	fl.Uint64Var(&f.cfg.Seed, "seed", 1, "random seed of the workload")
	fl.StringVar(&f.cfg.Submit, "submit", "sync", "update workload, async mode: broadcast_tx_sync (sync) or broadcast_tx_async (async)")
	fl.IntVar(&f.cfg.Rows, "rows", 100000, "rows of the update workload's table")
	fl.BoolVar(&f.tpccStatements, "tpcc-statements", false, "TPC-C on PostgreSQL: run its statement form, which translated and mixed networks run, instead of its PL/pgSQL functions (to compare them side by side)")
}

// registerGenesis adds the flags that set the measured network's genesis.
func (f *benchFlags) registerGenesis(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.IntVar(&f.lanes, "lanes", 1, "every validator's [block] lanes: database connections a block may use at once (parallel execution, PostgreSQL; 1: serial)")
	fl.BoolVar(&f.lanesAlways, "lanes-always", false, "with --lanes: every block that splits runs on lanes ([block] lanes_always), not only while measured faster")
	fl.Uint64Var(&f.protocol, "protocol", 0, "the network's genesis protocol version (default: the newest this binary runs; 3 measures a network without the authenticated state of version 4, docs/upgrades.md)")
	fl.StringVar(&f.sqlDialect, "sql-dialect", "", "the network's SQL dialect, fixed in its genesis as relchain testnet --sql-dialect does (default: the backend's own; postgres on --backend sqlite runs the workloads' PostgreSQL SQL translated, docs/dialects.md)")
}

// dsnTemplates says, for each backend that runs on a database server, what
// its --dsn-template must be.
var dsnTemplates = map[string]string{
	workload.Postgres: "a superuser DSN with {node}, e.g. postgres://postgres@127.0.0.1:5432/bench_{node}?sslmode=disable",
	workload.MySQL:    "a go-sql-driver DSN with {node} of a user that may create databases, e.g. root@tcp(127.0.0.1:3306)/bench_{node}",
}

// networkOptions builds the network a measurement starts.
// builtinNetwork is the network of a lab command that starts its own with
// the built-in application: in dir, or else in a temporary directory named
// after prefix, which cleanup removes.
func builtinNetwork(nf netFlags, dir, prefix string) (opts bench.NetworkOptions, cleanup func(), err error) {
	bf := benchFlags{net: nf, abci: "builtin", dir: dir}
	if opts, err = bf.networkOptions(); err != nil {
		return opts, nil, err
	}
	if opts.Dir != "" {
		return opts, func() {}, nil
	}
	d, err := os.MkdirTemp("", prefix)
	if err != nil {
		return opts, nil, err
	}
	opts.Dir = d
	return opts, func() { os.RemoveAll(d) }, nil
}

func (f *benchFlags) networkOptions() (bench.NetworkOptions, error) {
	tuning := node.DefaultTuning()
	tuning.TimeoutCommit = f.net.timeoutCommit
	tuning.TimeoutPropose, tuning.TimeoutProposeDelta = f.net.timeoutPropose, f.net.timeoutProposeDelta
	tuning.TimeoutPrecommit = f.net.timeoutPrecommit
	tuning.FastGossip = !f.slowGossip
	switch f.abci {
	case "builtin", "socket":
	default:
		return bench.NetworkOptions{}, fmt.Errorf("unknown --abci %q: use builtin (in-process calls) or socket (ABCI's socket protocol over loopback TCP)", f.abci)
	}
	var backends []string
	if f.net.backends != "" {
		backends = strings.Split(f.net.backends, ",")
		f.net.validators = len(backends)
	}
	tmpl, tmpls, err := netctl.DSNTemplates(f.net.dsnTemplates, backends)
	if err != nil {
		return bench.NetworkOptions{}, err
	}
	if i := slices.Index(backends, f.net.backend); tmpls != nil && i >= 0 {
		tmpl = tmpls[i] // --backend's: the baseline's engine
	}
	if want, server := dsnTemplates[f.net.backend]; server && tmpl == "" && f.nodes == "" {
		return bench.NetworkOptions{}, fmt.Errorf("--backend %s needs --dsn-template (%s)", f.net.backend, want)
	}
	bin := "" // an existing network (--nodes) needs no node binary, unless for the ceiling's
	if f.nodes == "" || f.ceiling {
		var err error
		if bin, err = nodeBinary(); err != nil {
			return bench.NetworkOptions{}, err
		}
	}
	return bench.NetworkOptions{
		Bin: bin, Dir: f.dir, Validators: f.net.validators, Backend: f.net.backend, Backends: backends, SQLDialect: f.sqlDialect, Protocol: f.protocol,
		DSNTemplate: tmpl, DSNTemplates: tmpls,
		Tuning: tuning, App: "relchain", ABCI: f.abci, MaxStatements: bench.MaxStatements,
		RelayLinks: f.relayLinks || f.linkDelay > 0, LinkDelay: f.linkDelay, Lanes: f.lanes, LanesAlways: f.lanesAlways,
	}, nil
}

// ddlAloneOn is an engine of the network that commits DDL at once
// (workload.Database.DDLAlone; bench.Config.DDLAloneOn), or "".
func (nf netFlags) ddlAloneOn() string {
	engines := []string{nf.backend}
	if nf.backends != "" {
		engines = strings.Split(nf.backends, ",")
	}
	for _, b := range engines {
		if db, err := workload.LookupDB(b); err == nil && db.DDLAlone {
			return b
		}
	}
	return ""
}

func runBench(ctx context.Context, f *benchFlags) error {
	if err := f.cfg.Validate(); err != nil {
		return err
	}
	if f.tpcc != (bench.TPCCCardinality{}) && f.cfg.Workload != "tpcc" {
		return fmt.Errorf("--tpcc-items, --tpcc-customers and --tpcc-orders size TPC-C only, not %s", f.cfg.Workload)
	}
	if db, err := workload.LookupDB(f.net.backend); f.baselineReplicas != 0 &&
		(f.baselineReplicas < 0 || !f.baseline || err != nil || !db.Replicas || f.baselineDSN != "") {
		return fmt.Errorf("--baseline-replicas %d: needs a positive count, --baseline, --backend postgres and no --baseline-dsn (it starts its own primary)", f.baselineReplicas)
	}
	if f.dir == "" {
		d, err := os.MkdirTemp("", "relchain-bench-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		f.dir = d
	}
	nopts, err := f.networkOptions()
	if err != nil {
		return err
	}
	cfg := f.cfg
	if cfg.Dialect, err = f.networkSQLDialect(); err != nil {
		return err
	}
	if f.mix != "" {
		cfg.Mix = strings.Split(f.mix, ",")
	}
	if cfg.Workload == "update" {
		return runUpdateBench(ctx, f, cfg, nopts)
	}
	cfg.DDLAloneOn = f.net.ddlAloneOn()
	// A translated dialect runs TPC-C's statement form: the translation
	// has no PL/pgSQL for the PostgreSQL form's functions. So does a
	// network over several engines (its PostgreSQL validators' shadow
	// gate judges every statement as SQLite's translation).
	w, err := bench.NewWorkload(cfg.Workload, bench.WorkloadOptions{Scale: cfg.Scale, Distribution: f.dist, Mix: cfg.Mix, TPCC: f.tpcc,
		TPCCStatements: f.tpccStatements || cfg.Dialect != f.net.backend || f.net.backends != ""})
	if err != nil {
		return err
	}
	var bar *progressbar.ProgressBar
	if !f.quiet && term.IsTerminal(int(os.Stderr.Fd())) {
		bar = progressbar.NewOptions(cfg.Txs,
			progressbar.OptionSetWriter(os.Stderr),
			progressbar.OptionSetDescription(fmt.Sprintf("%s %s", cfg.Workload, cfg.Mode)),
			progressbar.OptionShowCount(), progressbar.OptionShowIts(), progressbar.OptionSetItsString("wl-tx"),
			progressbar.OptionThrottle(200*time.Millisecond), progressbar.OptionClearOnFinish())
		cfg.Progress = func(done int) { _ = bar.Set(done) }
	}
	o := bench.Options{
		Config: cfg, Network: nopts, Workload: w, Baseline: f.baseline, BaselineDSN: f.baselineDSN,
		BaselineReplicas: f.baselineReplicas, Ceiling: f.ceiling, Verify: f.verify, Log: os.Stderr,
	}
	if f.baselineReplicas > 0 {
		dsn, stop, err := replicatedPostgres(ctx, f.dir, f.baselineReplicas)
		if err != nil {
			return err
		}
		defer stop()
		o.BaselineDSN = dsn
	}
	if f.nodes != "" {
		o.Nodes = strings.Split(f.nodes, ",")
		if err := f.useAdmin(ctx, &o); err != nil {
			return err
		}
	}
	res, err := bench.Measure(ctx, o)
	if bar != nil {
		_ = bar.Finish()
	}
	if err != nil {
		return err
	}
	printBenchResult(res)
	return writeJSON(f.output, res)
}

// useAdmin sets the admin key for a permissioned existing network.
func (f *benchFlags) useAdmin(ctx context.Context, o *bench.Options) error {
	c, err := client.New(o.Nodes[0], nil)
	if err != nil {
		return err
	}
	g, err := c.Grants(ctx)
	if err != nil {
		return err
	}
	if g.Open {
		return nil
	}
	key, err := loadKey(f.home, f.keyFile)
	if err != nil {
		return fmt.Errorf("the network is permissioned: the benchmark needs an admin key (--key): %w", err)
	}
	pub := key.PublicHex()
	for _, a := range g.Admins {
		if a == pub {
			o.Admin = key.Private
			return nil
		}
	}
	return fmt.Errorf("the network is permissioned and key %s is not one of its admins: pass an admin's key with --key", pub[:16]+"…")
}

// checkWritable fails early, before a long measurement, when the result
// file cannot be written.
func checkWritable(path string) error {
	if path == "" {
		return nil
	}
	dir := filepath.Dir(path)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return fmt.Errorf("--output %s: directory %s does not exist", path, dir)
	}
	return nil
}

func writeJSON(path string, v any) error {
	if path == "" {
		return nil
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

func fmtLatency(l *bench.Latency) (string, string, string) {
	if l == nil {
		return "-", "-", "-"
	}
	return fmt.Sprintf("%.1f", l.P50), fmt.Sprintf("%.1f", l.P95), fmt.Sprintf("%.1f", l.P99)
}

// printBenchResult prints the summary table of one measurement.
// backendName names a result's backend in tables: its storage, and the
// SQL dialect it translated when not its own.
func backendName(r *bench.Result) string {
	if r.SQLDialect == "" {
		return r.Backend
	}
	return r.SQLDialect + " dialect on " + r.Backend
}

func printBenchResult(r *bench.Result) {
	w := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintf(w, "workload\tmode\twl/bc\tbackend\tvalidators\tclients\twl-txs\tok\tfailed\tseconds\twl-tx/s\tp50 ms\tp95 ms\tp99 ms\tblocks\tbc-txs/block\n")
	p50, p95, p99 := fmtLatency(r.LatencyMS)
	fmt.Fprintf(w, "%s\t%s\t%d\t%s\t%d\t%d\t%d\t%d\t%d\t%.2f\t%.0f\t%s\t%s\t%s\t%d\t%.1f\n",
		r.Workload, r.Mode, r.WLPerBC, backendName(r), r.Validators, r.Clients, r.Txs, r.Succeeded, r.Failed,
		r.Seconds, r.TPS, p50, p95, p99, r.TxBlocks, r.TxsPerBlockMean)
	w.Flush()
	if len(r.Kinds) > 1 {
		kinds := make([]string, 0, len(r.Kinds))
		for k := range r.Kinds {
			kinds = append(kinds, k)
		}
		sort.Strings(kinds)
		w = tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintf(w, "  kind\tcount\tfailed\tp50 ms\tp95 ms\n")
		for _, k := range kinds {
			s := r.Kinds[k]
			p50, p95, _ := fmtLatency(s.LatencyMS)
			fmt.Fprintf(w, "  %s\t%d\t%d\t%s\t%s\n", k, s.Count, s.Failed, p50, p95)
		}
		w.Flush()
	}
	if r.Phases != nil {
		fmt.Printf("per block (mean of %d blocks with txs, node 0): propose %.1f ms, consensus %.1f ms, execute %.1f ms, commit %.1f ms\n",
			r.TxBlocks, r.Phases.Propose, r.Phases.Consensus, r.Phases.Execute, r.Phases.Commit)
	}
	if len(r.LaneBlocks) > 0 {
		fmt.Printf("blocks with txs by how node 0 ran them: %s (the rest serially: lanes off, too few txs, or not split)\n", laneCounts(r.LaneBlocks))
	}
	if r.Baseline != nil {
		what := "raw " + r.Backend
		if n := r.Baseline.Replicas; n > 0 {
			what = fmt.Sprintf("%s primary with %d synchronous standbys, remote_apply", r.Backend, n)
		}
		fmt.Printf("baseline (%s, same wl-transactions and grouping): %.2f s, %.0f wl-tx/s", what, r.Baseline.Seconds, r.Baseline.TPS)
		if l := r.Baseline.LatencyMS; l != nil {
			fmt.Printf(", p50 %.1f ms, p95 %.1f ms", l.P50, l.P95)
		}
		fmt.Printf("; overhead %.2fx\n", r.Overhead)
	}
	if r.Ceiling != nil {
		fmt.Printf("ceiling (kvstore, same network config): %.0f tx/s", r.Ceiling.TPS)
		if r.Ceiling.LatencyMS != nil {
			fmt.Printf(", p50 %.1f ms, p95 %.1f ms", r.Ceiling.LatencyMS.P50, r.Ceiling.LatencyMS.P95)
		}
		fmt.Printf("; relchain/ceiling %.2f\n", r.RatioToCeiling)
	}
}

// networkSQLDialect is the SQL the network speaks, which the workloads
// write: --sql-dialect, or the backend's own. A translated one has no raw
// baseline (the raw database would need the backend's own SQL).
func (f *benchFlags) networkSQLDialect() (string, error) {
	d, err := dialect.Lookup(f.net.backend)
	if err != nil {
		return "", err
	}
	if !d.Speaks(f.sqlDialect) {
		return "", fmt.Errorf("--sql-dialect %q: backend %s speaks %s", f.sqlDialect, d.Name, d.Spoken())
	}
	if d.Translated(f.sqlDialect) && (f.baseline || f.baselineDSN != "") {
		return "", fmt.Errorf("--baseline replays the run on a raw %s database, which does not speak the %s dialect: leave --baseline out with --sql-dialect %s", d.Name, f.sqlDialect, f.sqlDialect)
	}
	return d.SQLDialect(f.sqlDialect), nil
}

// runUpdateBench is the update micro-workload (relchain's own, before the
// paper's workloads), kept for the gate and digest A/B measurements.
func runUpdateBench(ctx context.Context, f *benchFlags, cfg bench.Config, nopts bench.NetworkOptions) error {
	var hooksBin string // found before the first measurement, not after it
	if f.gateOff {
		var err error
		if hooksBin, err = testHooksBinary(nopts.Bin); err != nil {
			return err
		}
	}
	if cfg.Mode == bench.ModePseudo {
		return fmt.Errorf("the update workload has no pseudo-sync mode")
	}
	measure := func(cfg bench.Config, o bench.NetworkOptions) (*bench.Result, error) {
		validators := o.Validators
		if f.nodes != "" {
			cfg.Nodes = strings.Split(f.nodes, ",")
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
		res, err := bench.RunMicro(ctx, cfg)
		if err != nil {
			return nil, err
		}
		res.Validators, res.Backend = validators, o.Backend
		if cfg.Workload == "kvstore" {
			res.Backend = "kvstore"
		}
		return res, nil
	}
	res, err := measure(cfg, nopts)
	if err != nil {
		return err
	}
	if f.ceiling {
		kcfg := cfg
		kcfg.Workload = "kvstore"
		kopts := nopts
		kopts.App = "kvstore"
		k, err := measure(kcfg, kopts)
		if err != nil {
			return fmt.Errorf("ceiling: %w", err)
		}
		res.Ceiling = &bench.Ceiling{TPS: k.TPS, LatencyMS: k.LatencyMS, Blocks: k.Blocks, TxsPerBlk: k.TxsPerBlockMean}
		if cfg.Mode == bench.ModeAsync && k.TPS > 0 {
			res.RatioToCeiling = res.TPS / k.TPS
		} else if res.LatencyMS != nil && k.LatencyMS != nil && k.LatencyMS.P50 > 0 {
			res.RatioToCeiling = res.LatencyMS.P50 / k.LatencyMS.P50
		}
	}
	var gate *bench.Result
	if f.gateOff {
		o := nopts
		o.NoGate = true
		o.Bin = hooksBin
		if gate, err = measure(cfg, o); err != nil {
			return fmt.Errorf("gate off: %w", err)
		}
	}
	printBenchResult(res)
	if gate != nil {
		cost := 0.0
		if cfg.Mode == bench.ModeAsync && gate.TPS > 0 {
			cost = 1 - res.TPS/gate.TPS
		} else if res.LatencyMS != nil && gate.LatencyMS != nil && gate.LatencyMS.P50 > 0 {
			cost = res.LatencyMS.P50/gate.LatencyMS.P50 - 1
		}
		fmt.Printf("gate off (same network config): %.0f tx/s; cost of the gate %.1f%%\n", gate.TPS, 100*cost)
		return writeJSON(f.output, map[string]any{"result": res, "gate_off": gate, "gate_cost": cost})
	}
	return writeJSON(f.output, res)
}

// laneCounts lists a run's lane outcomes (bench.Result.LaneBlocks) in a
// fixed order.
func laneCounts(m map[string]int) string {
	var parts []string
	for _, k := range []string{api.LanesParallel, api.LanesDeclined, api.LanesAbandoned, api.LanesUnanalysed} {
		if n := m[k]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, k))
		}
	}
	return strings.Join(parts, ", ")
}
