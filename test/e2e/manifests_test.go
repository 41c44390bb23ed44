package e2e

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/relchain/relchain/backend/mysql/mysqltest"
	"github.com/relchain/relchain/backend/postgres/pgtest"
)

// relchainBin is the relchain binary TestMain builds: a default build, as
// users run it.
var relchainBin string

// clockBin is the e2e_clock build the nodes of clock faults run, built
// into binDir by the first manifest that has one.
var (
	binDir       string
	clockBinOnce sync.Once
	clockBin     string
	clockBinErr  error

	hooksBinOnce sync.Once
	hooksBin     string
	hooksBinErr  error
)

// prebuiltHooksBinary builds the test-hooks relchain (relchain debug tamper) once
// for every manifest that tampers, or takes the one RELCHAIN_E2E_HOOKS_BIN
// names.
func prebuiltHooksBinary(t *testing.T) string {
	if bin := os.Getenv(HooksBinEnv); bin != "" {
		return bin
	}
	hooksBinOnce.Do(func() { hooksBin, hooksBinErr = BuildHooksBinary(binDir) })
	if hooksBinErr != nil {
		t.Fatal(hooksBinErr)
	}
	return hooksBin
}

// clockBinary builds the e2e_clock relchain once, or takes the binary
// RELCHAIN_E2E_CLOCK_BIN names (a control run: with a default build
// there, clock-offset-seen must fail).
func clockBinary(t *testing.T) string {
	if bin := os.Getenv("RELCHAIN_E2E_CLOCK_BIN"); bin != "" {
		return bin
	}
	clockBinOnce.Do(func() { clockBin, clockBinErr = BuildClockBinary(binDir) })
	if clockBinErr != nil {
		t.Fatal(clockBinErr)
	}
	return clockBin
}

func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	dir, err := os.MkdirTemp("", "relchain-e2e-manifests-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	binDir = dir
	relchainBin = filepath.Join(dir, "relchain")
	build := exec.Command("go", "build", "-o", relchainBin, "github.com/relchain/relchain/cmd/relchain")
	if b, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "e2e: build relchain: %v\n%s", err, b)
		return 1
	}
	code := m.Run()
	pgtest.Shutdown()
	mysqltest.Shutdown()
	return code
}

// TestManifests runs every manifest of the CI set (manifests/ci) and fails
// with the violations its checker found. RELCHAIN_E2E_REPORTS keeps each
// run's report.json and history.jsonl in a directory of that name. With
// RELCHAIN_E2E_FULL=1 (make test-e2e-full) it runs manifests/engines too:
// faults of the CI set again on the other engines, and a paused
// validator (make test-e2e leaves them out to stay in CI's time budget;
// the CI set keeps every kind of fault once).
func TestManifests(t *testing.T) {
	runManifests(t, "manifests/ci/*.toml", 1)
	if os.Getenv("RELCHAIN_E2E_FULL") == "1" {
		runManifests(t, "manifests/engines/*.toml", 1)
	}
}

// TestLongManifests runs the long set (manifests/long) with random fault
// schedules: `make e2e-long`. RELCHAIN_E2E_SEED replays a run's seed.
func TestLongManifests(t *testing.T) {
	if os.Getenv("RELCHAIN_E2E_LONG") != "1" {
		t.Skip("the long set runs with RELCHAIN_E2E_LONG=1 (make e2e-long)")
	}
	seed := int64(0)
	if s := os.Getenv("RELCHAIN_E2E_SEED"); s != "" {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatalf("RELCHAIN_E2E_SEED=%q: %v", s, err)
		}
		seed = v
	} else {
		n, err := rand.Int(rand.Reader, big.NewInt(1<<62))
		if err != nil {
			t.Fatal(err)
		}
		seed = n.Int64()
	}
	t.Logf("seed %d (replay with RELCHAIN_E2E_SEED=%d make e2e-long)", seed, seed)
	runManifests(t, "manifests/long/*.toml", seed)
}

func runManifests(t *testing.T, pattern string, seed int64) {
	files, err := filepath.Glob(pattern)
	if err != nil || len(files) == 0 {
		t.Fatalf("no manifests match %s (%v)", pattern, err)
	}
	for _, f := range files {
		m, err := LoadManifest(f)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(m.Name, func(t *testing.T) { runManifest(t, m, seed) })
	}
}

func runManifest(t *testing.T, m *Manifest, seed int64) {
	reports := t.TempDir()
	if d := os.Getenv("RELCHAIN_E2E_REPORTS"); d != "" {
		reports = filepath.Join(d, m.Name)
		if err := os.MkdirAll(reports, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	env := Env{
		Bin:         relchainBin,
		Dir:         t.TempDir(),
		ReportDir:   reports,
		Logf:        t.Logf,
		DSNTemplate: func(backend string) (string, error) { return dsnTemplate(t, backend, m.Validators) },
	}
	if len(m.clockFaults()) > 0 {
		env.ClockBin = clockBinary(t)
	}
	if slices.ContainsFunc(m.Perturb, func(p Perturb) bool { return p.Action == ActTamper }) {
		t.Setenv(HooksBinEnv, prebuiltHooksBinary(t))
	}
	ctx, cancel := context.WithTimeout(context.Background(), m.Load.Duration.Duration+10*time.Minute)
	defer cancel()
	rep, err := Run(ctx, m, env, seed)
	if os.Getenv("RELCHAIN_E2E_REPORTS") != "" {
		keepNodeLogs(t, env.Dir, reports)
	}
	if errors.Is(err, ErrUnsupported) {
		t.Skipf("%s: %v", m.Name, err)
	}
	if err != nil || rep.Failed() != "" {
		// The homes go with the test's temp dir: a CI failure must carry
		// what the nodes said.
		logNodeTails(t, env.Dir, 80)
	}
	if err != nil {
		t.Fatalf("run %s: %v", m.Name, err)
	}
	t.Logf("%s: %s", m.Name, rep.Summary())
	t.Logf("report: %s", filepath.Join(reports, "report.json"))
	if msg := rep.Failed(); msg != "" {
		t.Errorf("%s (seed %d): %s", m.Name, seed, msg)
	}
}

// keepNodeLogs copies every node's log from the run's homes into the
// report directory.
func keepNodeLogs(t *testing.T, dir, reports string) {
	logs, _ := filepath.Glob(filepath.Join(dir, "net", "*", "node.log")) // validators, full and state-sync nodes
	for _, l := range logs {
		b, err := os.ReadFile(l)
		if err == nil {
			err = os.WriteFile(filepath.Join(reports, filepath.Base(filepath.Dir(l))+".log"), b, 0o644)
		}
		if err != nil {
			t.Logf("keep %s: %v", l, err)
		}
	}
}

// logNodeTails logs the last lines of every node's log of the run in dir.
func logNodeTails(t *testing.T, dir string, lines int) {
	logs, _ := filepath.Glob(filepath.Join(dir, "net", "*", "node.log"))
	for _, l := range logs {
		b, err := os.ReadFile(l)
		if err != nil {
			t.Logf("%s: %v", l, err)
			continue
		}
		all := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
		t.Logf("last %d lines of %s:\n%s", lines, filepath.Base(filepath.Dir(l)), strings.Join(all[max(0, len(all)-lines):], "\n"))
	}
}

// dsnTemplate gives a server backend's nodes databases of their own on the
// private test server (never a system one), dropped when the test ends.
func dsnTemplate(t *testing.T, backend string, nodes int) (string, error) {
	var rnd [4]byte
	_, _ = rand.Read(rnd[:])
	prefix := "relchain_e2em_" + hex.EncodeToString(rnd[:])
	switch backend {
	case "postgres":
		u, err := url.Parse(pgtest.ServerDSN(t))
		if err != nil {
			return "", fmt.Errorf("pgtest server DSN: %w", err)
		}
		u.Path = "/" + prefix + "_NODENAME"
		t.Cleanup(func() {
			for i := range nodes {
				pgtest.Exec(t, fmt.Sprintf("DROP DATABASE IF EXISTS %s_node%d WITH (FORCE)", prefix, i))
			}
		})
		return strings.Replace(u.String(), "NODENAME", "{node}", 1), nil
	case "mysql":
		base := mysqltest.ServerDSN(t)
		t.Cleanup(func() {
			for i := range nodes {
				mysqltest.Exec(t, fmt.Sprintf("DROP DATABASE IF EXISTS `%s_node%d`", prefix, i))
			}
		})
		return strings.TrimSuffix(base, "/") + "/" + prefix + "_{node}", nil
	}
	return "", nil // the database lives in the node's home
}
