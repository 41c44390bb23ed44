package e2e

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql" // database/sql driver "mysql"

	"github.com/relchain/relchain/backend/mysql/mysqltest"
	"github.com/relchain/relchain/bench"
)

// runBench runs `relchain bench` with args on its own 4-validator network
// (plus --backend/--dsn-template for backend) and returns the JSON result.
// The network runs beside other tests' (runBesideOtherNetworks): nothing
// here asserts a speed.
// --verify makes the command fail unless the workload's consistency
// conditions hold on the chain after the run, and, with --baseline, unless
// the raw baseline reached the same final state from the same
// wl-transactions.
func runBench(t *testing.T, backend string, args ...string) *bench.Result {
	t.Helper()
	runBesideOtherNetworks(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "result.json")
	args = append([]string{"bench", "--validators", "4", "--backend", backend, "--dir", dir, "--output", out, "--quiet", "--verify"}, args...)
	if b := backendNamed(t, backend); b.benchDSNTemplate != nil {
		args = append(args, "--dsn-template", b.benchDSNTemplate(t))
	} else if b.dsnTemplate != nil {
		args = append(args, "--dsn-template", b.dsnTemplate(t))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, relchainBin, args...)
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("relchain %s: %v\n%s", strings.Join(args, " "), err, b)
	}
	t.Logf("relchain %s:\n%s", strings.Join(args, " "), b)
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("read result: %v", err)
	}
	var r bench.Result
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("decode result %s: %v", raw, err)
	}
	return &r
}

func requireRun(t *testing.T, r *bench.Result, txs int) {
	t.Helper()
	if r.Txs != txs || r.Succeeded+r.Failed != txs {
		t.Fatalf("ran %d wl-transactions (%d ok, %d failed), want %d", r.Txs, r.Succeeded, r.Failed, txs)
	}
	if r.Seconds <= 0 || r.TPS <= 0 || r.LatencyMS == nil || r.LatencyMS.P50 <= 0 {
		t.Fatalf("no timing in the result: %+v", r)
	}
	if r.Validators != 4 || r.Blocks == 0 || r.TxBlocks == 0 {
		t.Fatalf("validators %d, blocks %d (with txs %d): want 4 and some", r.Validators, r.Blocks, r.TxBlocks)
	}
	if r.Phases == nil || r.Phases.Execute <= 0 || r.Phases.Consensus <= 0 || len(r.PerBlock) == 0 {
		t.Fatalf("no phase breakdown: %+v", r.Phases)
	}
}

func requireBaseline(t *testing.T, r *bench.Result) {
	t.Helper()
	if r.Baseline == nil || r.Baseline.Seconds <= 0 || r.Overhead <= 0 {
		t.Fatalf("no baseline: %+v, overhead %v", r.Baseline, r.Overhead)
	}
}

// TestBenchSmoke runs `relchain bench` end to end on a tiny Smallbank
// load (SQLite, sync, 40 wl-transactions on 100 customers): the lab is
// found beside relchain, the network starts, the workload runs,
// --verify checks the money and the raw baseline's final state, and
// the result holds timings, phases and the per-block breakdown.
func TestBenchSmoke(t *testing.T) {
	r := runBench(t, "sqlite", "--workload", "smallbank", "--scale", "100", "--txs", "40", "--mode", "sync", "--baseline")
	requireRun(t, r, 40)
	requireBaseline(t, r)
}

// An unknown --abci is refused before any network starts.
func TestBenchRefusesAnUnknownABCITransport(t *testing.T) {
	runAlone(t) // no network: runs once, in the job of the tests that run alone
	out, err := exec.Command(relchainBin, "bench", "--workload", "smallbank", "--abci", "pigeon", "--dir", t.TempDir()).CombinedOutput()
	if err == nil || !strings.Contains(string(out), `unknown --abci "pigeon"`) {
		t.Fatalf("bench --abci pigeon: err %v, output:\n%s", err, out)
	}
	if strings.Contains(string(out), "starting a") {
		t.Fatalf("bench started a network before refusing the flag:\n%s", out)
	}
}

// mysqlBenchDSNTemplate is mysqlDSNTemplate for bench runs, whose
// databases are named <prefix>_<run>_<node> and <prefix>_raw_<n>: every
// database with the prefix is dropped when the test ends.
func mysqlBenchDSNTemplate(t *testing.T) string {
	t.Helper()
	base := mysqltest.ServerDSN(t)
	if strings.Contains(base, ":3306)") {
		t.Fatalf("mysqltest server DSN %q uses the default port: the e2e tests must not touch the system MariaDB", base)
	}
	var rnd [4]byte
	_, _ = rand.Read(rnd[:])
	prefix := "relchain_e2e_" + hex.EncodeToString(rnd[:])
	t.Cleanup(func() { dropMySQLDatabases(t, base, prefix) })
	return strings.TrimSuffix(base, "/") + "/" + prefix + "_{node}"
}
