package main

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/relchain/relchain/cmd/internal/clientcmd"
	"github.com/relchain/relchain/netctl"
	"github.com/relchain/relchain/node"
	"github.com/relchain/relchain/ops"
)

// The client commands read a network's nodes.json and a node home's halt
// record (status --net): relchain through netctl and node, relchain-client
// through clientcmd.FileEnv, which must read the same.
func TestClientEnvReadsNodesAndHaltRecords(t *testing.T) {
	for name, env := range map[string]clientcmd.Env{"relchain": clientEnv(), "relchain-client": clientcmd.FileEnv()} {
		t.Run(name, func(t *testing.T) { checkClientEnv(t, env) })
	}
}

func checkClientEnv(t *testing.T, env clientcmd.Env) {
	dir, home := t.TempDir(), t.TempDir()
	if err := netctl.SaveNodes(dir, []netctl.NodeInfo{{Name: "node0", Home: home, RPC: "http://127.0.0.1:1", P2P: "127.0.0.1:2"}}); err != nil {
		t.Fatal(err)
	}
	nodes, err := env.Nodes(dir)
	if want := []clientcmd.Node{{Name: "node0", Home: home, RPC: "http://127.0.0.1:1"}}; err != nil || !reflect.DeepEqual(nodes, want) {
		t.Fatalf("Nodes(%s) = %v, %v; want %v", dir, nodes, err, want)
	}
	if _, err := env.Nodes(t.TempDir()); err == nil {
		t.Error("Nodes of a directory without nodes.json: no error")
	}
	if s := env.Stopped(home); s != "" {
		t.Errorf("Stopped of a home without a halt record: %q", s)
	}
	// A halt record as a stopped node leaves it (node's writer is private).
	rec := filepath.Join(home, "data", "relchain-halt.json")
	if err := os.MkdirAll(filepath.Dir(rec), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(rec, []byte(`{"height": 5, "kind": "divergence", "reason": "app hash differs"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if h, err := node.LoadHaltRecord(home); err != nil || h == nil {
		t.Fatalf("node.LoadHaltRecord does not read %s: %v, %v", rec, h, err)
	}
	if s := env.Stopped(home); s != "after height 5 (divergence): app hash differs" {
		t.Errorf("Stopped = %q", s)
	}
}

// A node stopped at a protocol upgrade its binary cannot run shows as
// STOPPED in status --net, naming the version; verify does not fail on it.
func TestUpgradeStopShowsInStatusAndPassesVerify(t *testing.T) {
	home := t.TempDir()
	rec := filepath.Join(home, "data", "relchain-halt.json")
	if err := os.MkdirAll(filepath.Dir(rec), 0o755); err != nil {
		t.Fatal(err)
	}
	reason := "this chain runs protocol version 2 from height 42; this binary (relchain 0.1.0, protocol versions 1) cannot apply it: install a relchain that supports version 2"
	if err := os.WriteFile(rec, []byte(`{"height": 41, "kind": "upgrade", "reason": "`+reason+`"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if s, want := clientEnv().Stopped(home), "after height 41 (upgrade): "+reason; s != want {
		t.Errorf("Stopped = %q, want %q", s, want)
	}
	h, err := node.LoadHaltRecord(home)
	if err != nil || h == nil {
		t.Fatalf("LoadHaltRecord: %v, %v", h, err)
	}
	if err := verifyError(ops.VerifyReport{Height: 41, Halt: h}); err != nil {
		t.Errorf("verify fails on an upgrade stop: %v", err)
	}
	if err := verifyError(ops.VerifyReport{Height: 41, Halt: &node.HaltRecord{Height: 41, Kind: node.HaltDivergence}}); err == nil {
		t.Error("verify passes a divergence's record")
	}
}
