package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/relchain/relchain/bench"
)

func TestBenchRefusesMySQLWithoutADSNTemplate(t *testing.T) {
	f := &benchFlags{}
	f.net.backend = "mysql"
	f.abci = "builtin"
	if _, err := f.networkOptions(); err == nil || !strings.Contains(err.Error(), "--backend mysql needs --dsn-template") {
		t.Fatalf("networkOptions: %v", err)
	}
}

func TestBenchStartsNetworksWithRelchainBin(t *testing.T) {
	t.Setenv(nodeBinaryEnv, "/opt/relchain/bin/relchain")
	f := &benchFlags{abci: "builtin"}
	f.net.backend = "sqlite"
	o, err := f.networkOptions()
	if err != nil || o.Bin != "/opt/relchain/bin/relchain" {
		t.Fatalf("networkOptions: bin %q, %v", o.Bin, err)
	}
}

func TestBenchFindsRelchainInPath(t *testing.T) {
	dir := t.TempDir()
	want := filepath.Join(dir, "relchain")
	if err := os.WriteFile(want, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv(nodeBinaryEnv, "")
	t.Setenv("PATH", dir)
	if got, err := nodeBinary(); err != nil || got != want {
		t.Fatalf("nodeBinary: %q, %v; want %q", got, err, want)
	}
}

func TestBenchWithoutRelchainSaysToMakeBuild(t *testing.T) {
	t.Setenv(nodeBinaryEnv, "")
	t.Setenv("PATH", t.TempDir())
	f := &benchFlags{abci: "builtin"}
	f.net.backend = "sqlite"
	if _, err := f.networkOptions(); err == nil || !strings.Contains(err.Error(), "make build") {
		t.Fatalf("networkOptions without relchain: %v; want an error naming make build", err)
	}
	// An existing network needs no node binary.
	f.nodes = "http://127.0.0.1:26657"
	if _, err := f.networkOptions(); err != nil {
		t.Fatalf("networkOptions with --nodes: %v", err)
	}
}

// The lab's command line: bench flags at the top, paper below it, and a
// bad flag refused before any network starts.
func TestBenchCommandLine(t *testing.T) {
	root := benchCmd()
	if c, _, err := root.Find([]string{"paper"}); err != nil || c.Name() != "paper" {
		t.Fatalf("paper subcommand: %v", err)
	}
	for _, name := range []string{"workload", "mode", "txs", "validators", "backend", "dsn-template", "timeout-commit", "baseline", "ceiling", "verify", "output", "nodes"} {
		if root.Flags().Lookup(name) == nil {
			t.Errorf("no --%s", name)
		}
	}
	t.Setenv(nodeBinaryEnv, "/nonexistent/relchain")
	root.SetArgs([]string{"--workload", "smallbank", "--abci", "pigeon", "--dir", t.TempDir(), "--quiet"})
	var out strings.Builder
	root.SetOut(&out)
	root.SetErr(&out)
	if err := root.Execute(); err == nil || !strings.Contains(err.Error(), `unknown --abci "pigeon"`) {
		t.Fatalf("--abci pigeon: %v", err)
	}
	if out.Len() > 0 { // main prints the error once; no usage after a run's error
		t.Fatalf("printed on error:\n%s", out.String())
	}
}

// TPC-C's cardinalities are refused for another workload, before any
// network starts, and a TPC-C population tpcc.New refuses is refused too.
func TestBenchTPCCCardinalityFlags(t *testing.T) {
	t.Setenv(nodeBinaryEnv, "/nonexistent/relchain")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--workload", "smallbank", "--tpcc-items", "1000"}, "size TPC-C only, not smallbank"},
		{[]string{"--workload", "ycsb-a", "--tpcc-orders", "10"}, "size TPC-C only, not ycsb-a"},
		{[]string{"--workload", "tpcc", "--tpcc-items", "14"}, "14 items: want 15..1000000"},
		{[]string{"--baseline-replicas", "3"}, "needs a positive count, --baseline, --backend postgres"},
		{[]string{"--baseline", "--baseline-replicas", "3"}, "needs a positive count, --baseline, --backend postgres"},
		{[]string{"--baseline", "--backend", "postgres", "--baseline-replicas", "-1"}, "needs a positive count"},
	} {
		root := benchCmd()
		root.SetArgs(append(c.args, "--dir", t.TempDir(), "--quiet"))
		var out strings.Builder
		root.SetOut(&out)
		root.SetErr(&out)
		if err := root.Execute(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want an error containing %q", c.args, err, c.want)
		}
	}
}

// The gate-off run needs a node built with the test hooks: found beside the
// node binary, or refused before anything is measured, naming the make
// target.
func TestGateOffNeedsATestHooksBuild(t *testing.T) {
	dir := t.TempDir()
	node := filepath.Join(dir, "relchain")
	t.Setenv(testHooksBinaryEnv, "")
	t.Setenv("PATH", t.TempDir())
	if _, err := testHooksBinary(node); err == nil || !strings.Contains(err.Error(), "make build-testhooks") {
		t.Fatalf("testHooksBinary without one: %v; want an error naming make build-testhooks", err)
	}
	f := &benchFlags{gateOff: true}
	if err := runUpdateBench(t.Context(), f, bench.Config{}, bench.NetworkOptions{Bin: node}); err == nil || !strings.Contains(err.Error(), "make build-testhooks") {
		t.Fatalf("runUpdateBench --gate-off without a test-hooks build: %v", err)
	}
	want := filepath.Join(dir, "relchain-testhooks")
	if err := os.WriteFile(want, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got, err := testHooksBinary(node); err != nil || got != want {
		t.Fatalf("testHooksBinary: %q, %v; want %q", got, err, want)
	}
}
