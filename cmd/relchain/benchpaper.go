package main

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/relchain/relchain/bench"
	"github.com/relchain/relchain/bench/paper"
	"github.com/relchain/relchain/internal/mysqlserver"
	"github.com/relchain/relchain/internal/pgserver"
	"github.com/relchain/relchain/node"
)

func benchPaperCmd() *cobra.Command {
	var output, only, postgres, mysql, dir string
	var quick, verbose bool
	var timeout time.Duration
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
			if output == "" {
				return fmt.Errorf("--output DIR is required")
			}
			if err := os.MkdirAll(output, 0o755); err != nil {
				return fmt.Errorf("--output: %w", err)
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			ctx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			if dir == "" {
				d, err := os.MkdirTemp("", "relchain-paper-")
				if err != nil {
					return err
				}
				defer os.RemoveAll(d)
				dir = d
			}
			tmpl, stopPG, err := paperPostgres(ctx, postgres, dir)
			if err != nil {
				return err
			}
			defer stopPG()
			myTmpl, stopMy, err := paperMySQL(ctx, mysql, dir)
			if err != nil {
				return err
			}
			defer stopMy()
			opts := paper.Options{Quick: quick, Backends: []string{"sqlite"}}
			templates := map[string]string{}
			if tmpl != "" {
				opts.Backends = append(opts.Backends, "postgres")
				templates["postgres"] = tmpl
			}
			if myTmpl != "" {
				opts.Backends = append(opts.Backends, "mysql")
				templates["mysql"] = myTmpl
			}
			if only != "" {
				opts.Only = strings.Split(only, ",")
			}
			plan := paper.Plan(opts)
			fmt.Fprintf(os.Stderr, "%d experiments, %d measurements, estimated %s\n", len(plan), len(paper.Distinct(plan)), paper.Estimate(plan).Round(time.Second))
			bin, err := os.Executable()
			if err != nil {
				return err
			}
			log := io.Discard
			if verbose {
				log = os.Stderr
			}
			run := func(ctx context.Context, p paper.Point) (*bench.Result, error) {
				return runPaperPoint(ctx, p, bin, dir, templates, log)
			}
			started := time.Now()
			suite := paper.Run(ctx, plan, run, func(done, total int, p paper.Point) {
				fmt.Fprintf(os.Stderr, "[%d/%d %s] %s %s %s k=%d clients=%d validators=%d %s\n", done+1, total,
					time.Since(started).Round(time.Second), p.Config.Workload, p.Config.Mode, p.Backend,
					p.Config.WLPerBC, p.Config.Clients, p.Validators, p.Label)
			})
			suite.Quick = quick
			if err := paper.Write(output, suite); err != nil {
				return err
			}
			fmt.Printf("report: %s (%d measurements failed) in %s\n", filepath.Join(output, "report.md"), suite.Failed(), time.Since(started).Round(time.Second))
			if suite.Failed() > 0 {
				return fmt.Errorf("%d measurements failed: see the report", suite.Failed())
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&output, "output", "", "directory for the charts, report.md and suite.json")
	fl.BoolVar(&quick, "quick", false, "scaled down: under 10 minutes on 2 cores")
	fl.StringVar(&only, "only", "", "comma-separated experiment ids ("+strings.Join(paper.IDs, ", ")+")")
	fl.StringVar(&postgres, "postgres", "auto", "auto, off, or a PostgreSQL DSN template with {node}")
	fl.StringVar(&mysql, "mysql", "auto", "auto, off, or a MySQL/MariaDB DSN template with {node}, e.g. root@tcp(127.0.0.1:3306)/paper_{node}")
	fl.StringVar(&dir, "dir", "", "directory for the networks (default: a temporary one)")
	fl.BoolVar(&verbose, "verbose", false, "log each measurement's steps")
	fl.DurationVar(&timeout, "timeout", 3*time.Hour, "give up after this long")
	return cmd
}

// paperPostgres returns the DSN template for PostgreSQL points ("" to skip
// them) and a function that stops the private server it started, if any.
func paperPostgres(ctx context.Context, mode, dir string) (string, func(), error) {
	switch mode {
	case "off", "":
		return "", func() {}, nil
	case "auto":
		if _, err := pgserver.FindBinDir(); err != nil {
			fmt.Fprintln(os.Stderr, "PostgreSQL is not installed here: skipping its points (install it, or pass --postgres DSN-TEMPLATE)")
			return "", func() {}, nil
		}
		// PostgreSQL refuses to run as root, so pgserver runs it as the
		// "postgres" user, which must be able to reach its directory.
		if err := os.Chmod(dir, 0o755); err != nil {
			return "", nil, err
		}
		pgdir := filepath.Join(dir, "postgres")
		if err := os.MkdirAll(pgdir, 0o755); err != nil {
			return "", nil, err
		}
		sctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
		defer cancel()
		s, err := pgserver.Start(sctx, pgdir, pgserver.Options{Durable: true})
		if err != nil {
			return "", nil, fmt.Errorf("start a private PostgreSQL for the benchmark: %w", err)
		}
		fmt.Fprintf(os.Stderr, "private PostgreSQL (durable) on port %d\n", s.Port)
		u, err := url.Parse(s.DSN())
		if err != nil {
			return "", nil, err
		}
		u.Path = "/paper_NODE"
		return strings.Replace(u.String(), "NODE", "{node}", 1), func() { _ = s.Stop() }, nil
	}
	if !strings.Contains(mode, "{node}") {
		return "", nil, fmt.Errorf("--postgres %q: want auto, off or a DSN template containing {node}", mode)
	}
	return mode, func() {}, nil
}

// paperMySQL returns the DSN template for MySQL points ("" to skip them)
// and a function that stops the private MariaDB it started, if any.
func paperMySQL(ctx context.Context, mode, dir string) (string, func(), error) {
	switch mode {
	case "off", "":
		return "", func() {}, nil
	case "auto":
		if _, _, err := mysqlserver.FindBinaries(); err != nil {
			fmt.Fprintln(os.Stderr, "MariaDB is not installed here: skipping the MySQL points (install mariadb-server, or pass --mysql DSN-TEMPLATE)")
			return "", func() {}, nil
		}
		// As root, mysqlserver runs mariadbd as the "mysql" user, which
		// must be able to reach its directory.
		if err := os.Chmod(dir, 0o755); err != nil {
			return "", nil, err
		}
		mydir := filepath.Join(dir, "mysql")
		if err := os.MkdirAll(mydir, 0o755); err != nil {
			return "", nil, err
		}
		sctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
		defer cancel()
		s, err := mysqlserver.Start(sctx, mydir, mysqlserver.Options{})
		if err != nil {
			return "", nil, fmt.Errorf("start a private MariaDB for the benchmark: %w", err)
		}
		fmt.Fprintf(os.Stderr, "private MariaDB (durable) on port %d\n", s.Port)
		return strings.TrimSuffix(s.DSN(), "/") + "/paper_{node}", func() { _ = s.Stop() }, nil
	}
	if !strings.Contains(mode, "{node}") {
		return "", nil, fmt.Errorf("--mysql %q: want auto, off or a DSN template containing {node}", mode)
	}
	return mode, func() {}, nil
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
		},
		Baseline:       p.Baseline,
		Ceiling:        p.Ceiling,
		RemoveNetworks: true,
		Log:            log,
	}
	if p.Backend != "sqlite" {
		if templates[p.Backend] == "" {
			return nil, fmt.Errorf("no %s server", p.Backend)
		}
		o.Network.DSNTemplate = templates[p.Backend]
	}
	return bench.Measure(ctx, o)
}
