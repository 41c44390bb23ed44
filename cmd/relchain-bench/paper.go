package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/relchain/relchain/bench"
	"github.com/relchain/relchain/bench/paper"
	"github.com/relchain/relchain/dialect"
	"github.com/relchain/relchain/node"
)

// paperFlags are the flags of `relchain-bench paper`.
type paperFlags struct {
	output, only, postgres, mysql, dir string
	quick, verbose                     bool
	timeout                            time.Duration
}

func benchPaperCmd() *cobra.Command {
	var f paperFlags
	cmd := &cobra.Command{
		Use:   "paper --output DIR [--quick]",
		Short: "Regenerate the paper's evaluation on this machine: charts and a report beside the paper's numbers",
		Long: `Runs the experiments of "A Relational Blockchain" (BTW 2023) scaled to this
machine: the timeout_commit sweep (Fig. 2), sync and pseudo-sync with 1 to
2048 wl-transactions per bc-transaction (Figs. 4, 5), async per-block latency
and block sizes (Figs. 6, 7), the cost breakdown (Fig. 8), clients (Fig. 9),
backends (Fig. 10) and validators (Fig. 11a). Every point starts its own
network, measures the raw-DBMS baseline on the same wl-transactions and, where
the paper compares with it, CometBFT's kvstore.

DIR receives one PNG chart per figure, report.md (our numbers beside the
paper's) and suite.json (every measurement). --quick finishes in under 10
minutes on 2 cores.

PostgreSQL points need a server: --postgres auto (default) starts a private,
durable cluster in a temporary directory when PostgreSQL's binaries are
installed (initdb, postgres) and skips those points otherwise; --postgres off
skips them; anything else is a DSN template with {node}. MySQL points (Fig. 10)
likewise: --mysql auto (default) starts a private, durable MariaDB (mariadbd,
mariadb-install-db) when it is installed; --mysql off skips them; anything else
is a go-sql-driver DSN template with {node}, e.g.
'root@tcp(127.0.0.1:3306)/paper_{node}'.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if f.output == "" {
				return fmt.Errorf("--output DIR is required")
			}
			if err := os.MkdirAll(f.output, 0o755); err != nil {
				return fmt.Errorf("--output: %w", err)
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			ctx, cancel := context.WithTimeout(ctx, f.timeout)
			defer cancel()
			if f.dir == "" {
				d, err := os.MkdirTemp("", "relchain-paper-")
				if err != nil {
					return err
				}
				defer os.RemoveAll(d)
				f.dir = d
			}
			return runPaper(ctx, &f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.output, "output", "", "directory for the charts, report.md and suite.json")
	fl.BoolVar(&f.quick, "quick", false, "scaled down: under 10 minutes on 2 cores")
	fl.StringVar(&f.only, "only", "", "comma-separated experiment ids ("+strings.Join(paper.IDs, ", ")+")")
	fl.StringVar(&f.postgres, "postgres", "auto", "auto, off, or a PostgreSQL DSN template with {node}")
	fl.StringVar(&f.mysql, "mysql", "auto", "auto, off, or a MySQL/MariaDB DSN template with {node}, e.g. root@tcp(127.0.0.1:3306)/paper_{node}")
	fl.StringVar(&f.dir, "dir", "", "directory for the networks (default: a temporary one)")
	fl.BoolVar(&f.verbose, "verbose", false, "log each measurement's steps")
	fl.DurationVar(&f.timeout, "timeout", 3*time.Hour, "give up after this long")
	return cmd
}

// runPaper starts the database servers the plan needs, runs the plan and
// writes the charts and the report.
func runPaper(ctx context.Context, f *paperFlags) error {
	tmpl, stopPG, err := paperPostgres(ctx, f.postgres, f.dir)
	if err != nil {
		return err
	}
	defer stopPG()
	myTmpl, stopMy, err := paperMySQL(ctx, f.mysql, f.dir)
	if err != nil {
		return err
	}
	defer stopMy()
	opts := paper.Options{Quick: f.quick, Backends: []string{"sqlite"}}
	templates := map[string]string{}
	if tmpl != "" {
		opts.Backends = append(opts.Backends, "postgres")
		templates["postgres"] = tmpl
	}
	if myTmpl != "" {
		opts.Backends = append(opts.Backends, "mysql")
		templates["mysql"] = myTmpl
	}
	if f.only != "" {
		opts.Only = strings.Split(f.only, ",")
	}
	plan := paper.Plan(opts)
	fmt.Fprintf(os.Stderr, "%d experiments, %d measurements, estimated %s\n", len(plan), len(paper.Distinct(plan)), paper.Estimate(plan).Round(time.Second))
	bin, err := nodeBinary()
	if err != nil {
		return err
	}
	return runPlan(ctx, f, plan, func(ctx context.Context, p paper.Point) (*bench.Result, error) {
		return runPaperPoint(ctx, p, bin, f.dir, templates, f.log())
	})
}

// log is where measurements log their steps (with --verbose).
func (f *paperFlags) log() io.Writer {
	if f.verbose {
		return os.Stderr
	}
	return io.Discard
}

// runPlan measures every point of plan with run, printing progress, and
// writes the suite to --output.
func runPlan(ctx context.Context, f *paperFlags, plan []paper.Experiment, run paper.RunFunc) error {
	started := time.Now()
	suite := paper.Run(ctx, plan, run, func(done, total int, p paper.Point) {
		fmt.Fprintf(os.Stderr, "[%d/%d %s] %s %s %s k=%d clients=%d validators=%d %s\n", done+1, total,
			time.Since(started).Round(time.Second), p.Config.Workload, p.Config.Mode, p.Backend,
			p.Config.WLPerBC, p.Config.Clients, p.Validators, p.Label)
	})
	suite.Quick = f.quick
	if err := paper.Write(f.output, suite); err != nil {
		return err
	}
	fmt.Printf("report: %s (%d measurements failed) in %s\n", filepath.Join(f.output, "report.md"), suite.Failed(), time.Since(started).Round(time.Second))
	if suite.Failed() > 0 {
		return fmt.Errorf("%d measurements failed: see the report", suite.Failed())
	}
	return nil
}

// runPaperPoint measures one point of the plan on its own network;
// templates holds the DSN template of each server backend available.
func runPaperPoint(ctx context.Context, p paper.Point, bin, dir string, templates map[string]string, log io.Writer) (*bench.Result, error) {
	tuning := node.DefaultTuning()
	tuning.TimeoutCommit = p.TimeoutCommit
	cfg := p.Config
	cfg.Dialect = p.Backend
	w, err := bench.NewWorkload(cfg.Workload, bench.WorkloadOptions{Scale: cfg.Scale, Mix: cfg.Mix})
	if err != nil {
		return nil, err
	}
	o := bench.Options{
		Config:   cfg,
		Workload: w,
		Network: bench.NetworkOptions{
			Bin: bin, Dir: dir, Validators: p.Validators, Backend: p.Backend, Tuning: tuning,
			App: "relchain", ABCI: p.ABCI, MaxStatements: bench.MaxStatements,
			RelayLinks: p.RelayLinks, LinkDelay: p.LinkDelay,
		},
		Baseline:       p.Baseline,
		Ceiling:        p.Ceiling,
		RemoveNetworks: true,
		Log:            log,
	}
	if d, err := dialect.Lookup(p.Backend); err != nil || d.Server {
		if templates[p.Backend] == "" {
			return nil, fmt.Errorf("no %s server", p.Backend)
		}
		o.Network.DSNTemplate = templates[p.Backend]
	}
	if p.Baseline && p.BaselineReplicas > 0 {
		dsn, stop, err := replicatedPostgres(ctx, dir, p.BaselineReplicas)
		if err != nil {
			return nil, err
		}
		defer stop()
		o.BaselineDSN, o.BaselineReplicas = dsn, p.BaselineReplicas
	}
	return bench.Measure(ctx, o)
}
