package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/relchain/relchain/bench"
	"github.com/relchain/relchain/internal/longtest"
)

// relchainForTest is the node binary the test's network runs:
// $RELCHAIN_BIN, else ./cmd/relchain built into dir.
func relchainForTest(t *testing.T, dir string) string {
	t.Helper()
	if p := os.Getenv(nodeBinaryEnv); p != "" {
		return p
	}
	bin := filepath.Join(dir, "relchain")
	build := exec.Command("go", "build", "-o", bin, "../relchain")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build relchain: %v\n%s", err, out)
	}
	return bin
}

// The gateway benchmark, tiny, on a 4-validator SQLite network: every
// comparison is measured and printed, and the transfers conserve money.
func TestGatewayBenchMeasuresEveryComparison(t *testing.T) {
	longtest.Require(t, "runs the gateway benchmark against a network")
	if testing.Short() {
		t.Skip("starts a 4-validator network")
	}
	dir := t.TempDir()
	t.Setenv(nodeBinaryEnv, relchainForTest(t, dir))
	out := filepath.Join(dir, "gw.json")
	root := benchCmd()
	root.SetArgs([]string{"gateway", "--accounts", "50", "--updates", "5", "--reads", "40", "--read-clients", "1,2",
		"--sessions", "2", "--duration", "2s", "--hot", "5", "--dir", dir, "--output", out, "--quiet"})
	var printed strings.Builder
	root.SetOut(&printed)
	if err := root.Execute(); err != nil {
		t.Fatalf("relchain-bench gateway: %v\n%s", err, printed.String())
	}
	t.Log(printed.String())
	for _, want := range []string{"autocommit UPDATE", "Go client, commit mode", "point SELECT", "in process", "explicit transfers"} {
		if !strings.Contains(printed.String(), want) {
			t.Errorf("the table does not say %q", want)
		}
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var r bench.GatewayResult
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("--output: %v\n%s", err, b)
	}
	if r.UpdateGateway.Ops != 5 || r.UpdateClient.Ops != 5 || r.UpdateGateway.P50 <= 0 || r.UpdateClient.P50 <= 0 || r.UpdateRatio <= 0 {
		t.Errorf("updates: gateway %+v, client %+v, ratio %v", r.UpdateGateway, r.UpdateClient, r.UpdateRatio)
	}
	if len(r.Reads) != 2 || r.Reads[0].Clients != 1 || r.Reads[1].Clients != 2 {
		t.Fatalf("reads: %+v", r.Reads)
	}
	for _, rc := range r.Reads {
		if rc.Gateway.Ops != 40 || rc.Raw.Ops != 40 || rc.Client.Ops != 40 || rc.Ratio <= 0 {
			t.Errorf("reads with %d clients: %+v", rc.Clients, rc)
		}
	}
	if len(r.Transactions) != 2 {
		t.Fatalf("transactions: %+v", r.Transactions)
	}
	for _, tx := range r.Transactions {
		// Ten UPDATEs of one unit each came before; transfers move money.
		if !tx.Conserved || tx.TotalBefore != 10 || tx.TotalAfter != 10 {
			t.Errorf("%s: total %d before, %d after", tx.Keys, tx.TotalBefore, tx.TotalAfter)
		}
		if tx.Commits == 0 || tx.OtherErrors != 0 || tx.CommitsSent != tx.Commits+tx.CommitFailures40001 || tx.Blocks == 0 || tx.Phases == nil {
			t.Errorf("%s: %+v", tx.Keys, tx)
		}
	}
}

// Bad flags are refused before any network starts.
func TestGatewayBenchRefusesBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"--backend", "mysql", "--dsn-template", "root@tcp(127.0.0.1:3306)/b_{node}"},
		{"--read-clients", "1,x"},
		{"--hot-share", "1.5"},
		{"--updates", "0"},
	} {
		root := benchCmd()
		root.SetArgs(append([]string{"gateway", "--dir", t.TempDir()}, args...))
		root.SetOut(&strings.Builder{})
		if err := root.Execute(); err == nil {
			t.Errorf("gateway %v accepted", args)
		}
	}
}
