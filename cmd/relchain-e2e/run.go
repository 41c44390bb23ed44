package main

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/relchain/relchain/backend/registry"
	"github.com/relchain/relchain/test/e2e"
)

func rootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:           "relchain-e2e",
		Short:         "relchain's fault-injection harness: networks, faults and invariants as TOML manifests",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(runCmd())
	return root
}

// runOptions are run's flags.
type runOptions struct {
	seed        int64
	seedSet     bool
	out, bin    string
	clockBin    string
	hooksBin    string
	dsnTemplate string
	keep        bool
}

func runCmd() *cobra.Command {
	var o runOptions
	cmd := &cobra.Command{
		Use:   "run manifest.toml",
		Short: "Run one manifest: network, load, faults, checks; write report.json and history.jsonl",
		Long: `Run starts the manifest's network, runs its load under its fault schedule,
checks its invariants and tears everything down (namespaces, mounts, nodes) on
every exit path. The output directory receives report.json (the figures and
every violation) and history.jsonl (every client operation). The exit status
is 0 when every invariant held, 1 on a violation, 2 when the run could not be
carried out (3 when this machine cannot run it at all, e.g. disk-full without
root).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.seedSet = cmd.Flags().Changed("seed")
			return runManifest(cmd.Context(), args[0], o)
		},
	}
	f := cmd.Flags()
	f.Int64Var(&o.seed, "seed", 0, "seed of the random fault plan (default: the manifest's random.seed, else a fresh one, printed)")
	f.StringVar(&o.out, "out", "", "directory for report.json and history.jsonl (default e2e-reports/<manifest>-<time>)")
	f.StringVar(&o.bin, "bin", "", "relchain binary the nodes run (default $RELCHAIN_BIN, else next to this executable, else in PATH)")
	f.StringVar(&o.clockBin, "clock-bin", "", "clock manifests: an e2e_clock build of relchain for the skewed nodes (make build-e2e-clock; default $RELCHAIN_E2E_CLOCK_BIN)")
	f.StringVar(&o.hooksBin, "hooks-bin", "", "tamper manifests: a test-hooks build of relchain for relchain debug tamper (make build-testhooks; default $"+e2e.HooksBinEnv+", else built into the network directory at the first tamper)")
	f.StringVar(&o.dsnTemplate, "dsn-template", "", "PostgreSQL/MySQL manifests: a DSN with {node}, one database per node, on a server you own")
	f.BoolVar(&o.keep, "keep", false, "keep the node homes (their logs) after the run")
	return cmd
}

// violationsError is a run whose checker found violations.
type violationsError struct{ detail string }

func (e *violationsError) Error() string { return e.detail }

func runManifest(ctx context.Context, path string, o runOptions) error {
	m, err := e2e.LoadManifest(path)
	if err != nil {
		return err
	}
	seed, err := chooseSeed(m, o)
	if err != nil {
		return err
	}
	env, cleanup, err := makeEnv(m, o)
	if err != nil {
		return err
	}
	defer cleanup()
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, m.Load.Duration.Duration+10*time.Minute)
	defer cancel()
	fmt.Printf("%s: seed %d (replay with --seed %d), report in %s\n", m.Name, seed, seed, env.ReportDir)
	rep, err := e2e.Run(ctx, m, env, seed)
	if err != nil {
		return fmt.Errorf("run %s: %w", m.Name, err)
	}
	fmt.Println(rep.Summary())
	for _, n := range rep.Notes {
		fmt.Println("note:", n)
	}
	if msg := rep.Failed(); msg != "" {
		return &violationsError{fmt.Sprintf("%s (seed %d): %s", m.Name, seed, msg)}
	}
	fmt.Printf("%s: every invariant held\n", m.Name)
	return nil
}

// chooseSeed: --seed, else the manifest's, else a fresh one for a
// random plan (a fixed schedule draws nothing: 1, as go test uses).
func chooseSeed(m *e2e.Manifest, o runOptions) (int64, error) {
	switch {
	case o.seedSet:
		return o.seed, nil
	case m.Random != nil && m.Random.Seed != 0:
		return m.Random.Seed, nil
	case m.Random == nil:
		return 1, nil
	}
	n, err := rand.Int(rand.Reader, big.NewInt(1<<62))
	if err != nil {
		return 0, fmt.Errorf("draw a seed: %w", err)
	}
	return n.Int64(), nil
}

// makeEnv resolves the binary, the output directory and a directory for
// the node homes (removed by cleanup unless --keep).
func makeEnv(m *e2e.Manifest, o runOptions) (e2e.Env, func(), error) {
	bin, err := relchainBinary(o.bin)
	if err != nil {
		return e2e.Env{}, nil, err
	}
	out := o.out
	if out == "" {
		out = filepath.Join("e2e-reports", m.Name+"-"+time.Now().UTC().Format("20060102T150405Z"))
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return e2e.Env{}, nil, fmt.Errorf("output directory: %w", err)
	}
	dir, err := os.MkdirTemp("", "relchain-e2e-")
	if err != nil {
		return e2e.Env{}, nil, fmt.Errorf("node homes: %w", err)
	}
	cleanup := func() {
		if o.keep {
			fmt.Printf("node homes kept in %s\n", dir)
			return
		}
		_ = os.RemoveAll(dir)
	}
	env := e2e.Env{
		Bin: bin, Dir: dir, ReportDir: out,
		Logf: func(format string, args ...any) {
			fmt.Printf("%s "+format+"\n", append([]any{time.Now().Format("15:04:05.000")}, args...)...)
		},
		DSNTemplate: func(backend string) (string, error) { return dsnTemplate(backend, o.dsnTemplate) },
		ClockBin:    o.clockBin,
	}
	if env.ClockBin == "" {
		env.ClockBin = os.Getenv("RELCHAIN_E2E_CLOCK_BIN")
	}
	if o.hooksBin != "" {
		// The release binary has no debug tamper: the harness runs this one.
		hooks, err := filepath.Abs(o.hooksBin)
		if err != nil {
			cleanup()
			return e2e.Env{}, nil, fmt.Errorf("--hooks-bin: %w", err)
		}
		if err := os.Setenv(e2e.HooksBinEnv, hooks); err != nil {
			cleanup()
			return e2e.Env{}, nil, fmt.Errorf("--hooks-bin: %w", err)
		}
	}
	return env, cleanup, nil
}

// dsnTemplate is the server DSN template for a server backend; SQLite
// nodes keep their database in their homes.
func dsnTemplate(backend, tmpl string) (string, error) {
	d, err := registry.Lookup(backend)
	if err != nil {
		return "", err
	}
	if !d.Server {
		return "", nil
	}
	if tmpl == "" {
		return "", fmt.Errorf("a %s manifest needs --dsn-template (a DSN with {node}, one database per node, on a server you own)", backend)
	}
	return tmpl, nil
}

// relchainBinary finds the node binary: the flag, $RELCHAIN_BIN, the
// relchain beside this executable, or relchain in PATH.
func relchainBinary(flag string) (string, error) {
	for _, c := range []string{flag, os.Getenv("RELCHAIN_BIN")} {
		if c != "" {
			return filepath.Abs(c)
		}
	}
	if self, err := os.Executable(); err == nil {
		beside := filepath.Join(filepath.Dir(self), "relchain")
		if st, err := os.Stat(beside); err == nil && !st.IsDir() {
			return beside, nil
		}
	}
	p, err := exec.LookPath("relchain")
	if err != nil {
		return "", errors.New("no relchain binary: build it (make build) or pass --bin")
	}
	return filepath.Abs(p)
}
