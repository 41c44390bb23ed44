package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/relchain/relchain/bench"
)

// runBench runs `relchain bench` with args on its own 4-validator network
// (plus --backend/--dsn-template for backend) and returns the JSON result.
// --verify makes the command fail unless the workload's consistency
// conditions hold on the chain after the run, and, with --baseline, unless
// the raw baseline reached the same final state from the same
// wl-transactions.
func runBench(t *testing.T, backend string, args ...string) *bench.Result {
	t.Helper()
	dir := t.TempDir()
	out := filepath.Join(dir, "result.json")
	args = append([]string{"bench", "--validators", "4", "--backend", backend, "--dir", dir, "--output", out, "--quiet", "--verify"}, args...)
	if backend == "postgres" {
		args = append(args, "--dsn-template", pgDSNTemplate(t))
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

// TestBenchSmallbankSyncConservesMoneyAndMatchesTheBaseline runs Smallbank
// in sync mode on 4 validators: the command's --verify fails unless the
// money is conserved on the chain (every committed wl-transaction's effect
// accounted for) and the raw baseline, replaying the same wl-transactions,
// reaches the same final state.
func TestBenchSmallbankSyncConservesMoneyAndMatchesTheBaseline(t *testing.T) {
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			r := runBench(t, backend, "--workload", "smallbank", "--scale", "500", "--txs", "120", "--mode", "sync", "--baseline")
			requireRun(t, r, 120)
			requireBaseline(t, r)
			if len(r.Kinds) != 6 {
				t.Errorf("kinds %v: want all six Smallbank transactions", r.Kinds)
			}
		})
	}
}
