package e2e

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/relchain/relchain/netctl"
)

// The relchain users run has no test hooks: `relchain node` knows no
// --unsafe-inject-dir or --unsafe-corrupt-snapshots, and a node configured
// with backend.unsafe_no_gate refuses to start, saying it needs a
// test-hooks build. A test-hooks build (make build-testhooks) starts that
// node, as the benchmark's gate-off run needs.
func TestDefaultBinaryHasNoTestHooks(t *testing.T) {
	runAlone(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	dir := filepath.Join(t.TempDir(), "net")
	nodes, err := netctl.Generate(netctl.Options{Validators: 1, Dir: dir, UnsafeNoGate: true})
	if err != nil {
		t.Fatal(err)
	}
	home := nodes[0].Home
	for _, flag := range [][]string{{"--unsafe-inject-dir", t.TempDir()}, {"--unsafe-corrupt-snapshots"}} {
		out, err := exec.CommandContext(ctx, relchainBin, append([]string{"node", "--home", home}, flag...)...).CombinedOutput()
		if err == nil || !strings.Contains(string(out), "unknown flag: "+flag[0]) {
			t.Errorf("relchain node %s: %v\n%s\nwant an unknown flag", flag[0], err, out)
		}
	}
	out, err := exec.CommandContext(ctx, relchainBin, "node", "--home", home).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "unsafe_no_gate") || !strings.Contains(string(out), "-tags testhooks") {
		t.Fatalf("relchain node with backend.unsafe_no_gate: %v\n%s\nwant a refusal asking for a test-hooks build", err, out)
	}
	out, err = exec.CommandContext(ctx, relchainBin, "debug", "tamper", "--home", home, "--sql", "SELECT 1").CombinedOutput()
	if err == nil || !strings.Contains(string(out), `unknown command "debug"`) {
		t.Errorf("relchain debug tamper: %v\n%s\nwant an unknown command in the default binary", err, out)
	}

	net := netctl.NewNetwork(testHooksBinary(t), nodes)
	t.Cleanup(net.StopAll)
	if err := net.StartAll(); err != nil {
		t.Fatal(err)
	}
	if err := net.WaitReady(ctx); err != nil {
		t.Fatalf("a test-hooks build with backend.unsafe_no_gate: %v", err)
	}
}
