package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/relchain/relchain/netctl"
)

// scriptNetwork is a network whose node i runs the shell script
// scripts[i] (given `node --home HOME`) instead of relchain: real
// processes for the harness's process faults, without a chain.
func scriptNetwork(t *testing.T, scripts ...string) *network {
	t.Helper()
	dir := t.TempDir()
	var nodes []netctl.NodeInfo
	var bins []string
	for i, body := range scripts {
		home := filepath.Join(dir, "node"+string(rune('0'+i)))
		if err := os.MkdirAll(home, 0o755); err != nil {
			t.Fatal(err)
		}
		bin := filepath.Join(dir, "node"+string(rune('0'+i))+".sh")
		if err := os.WriteFile(bin, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		nodes = append(nodes, netctl.NodeInfo{Name: "node" + string(rune('0'+i)), Home: home})
		bins = append(bins, bin)
	}
	net := netctl.NewNetwork("/bin/false", nodes)
	net.NodeBin = bins
	m, err := ParseManifest(withMinAcked(""))
	if err != nil {
		t.Fatal(err)
	}
	nw := &network{m: m, net: net, fills: map[int]*diskFill{}, tampered: map[int]time.Time{}, exits: map[int]time.Time{},
		expected: map[int]bool{}, throttled: map[int]bool{}, note: func(s string) { t.Log(s) }}
	t.Cleanup(nw.stopAll)
	return nw
}

const longRunning = "echo started\nexec sleep 600"

// A node that exits on its own fails the run, naming it with its log's
// tail; before, undoAll restarted it silently.
func TestANodeThatExitsOnItsOwnFailsTheRun(t *testing.T) {
	nw := scriptNetwork(t, longRunning, "echo 'error: commit block 141: FATAL: terminating connection'\necho 'goroutine 1 [running]:'\nexit 3")
	for i := range nw.net.Nodes {
		if err := nw.start(i); err != nil {
			t.Fatal(err)
		}
	}
	<-nw.net.Exited(1)
	if err := nw.undoAll(map[int]bool{}); err != nil { // restarts it for the checks
		t.Fatal(err)
	}
	<-nw.net.Exited(1)
	crashes := waitCrashes(nw, 2)
	if len(crashes) != 2 {
		t.Fatalf("crashes %q, want node1's two exits", crashes)
	}
	for _, c := range crashes {
		if !strings.Contains(c, "node1 (node1) exited without the schedule stopping it (exit status 3)") || !strings.Contains(c, "FATAL: terminating connection") ||
			!strings.Contains(c, "saying: error: commit block 141") {
			t.Errorf("crash report %q: want node1, its status and its log's tail", c)
		}
	}
	if !nw.net.Running(0) {
		t.Fatal("node0 stopped")
	}
}

// waitCrashes collects the unexpected exits until there are want of them
// (each is recorded by a goroutine once the process is reaped).
func waitCrashes(nw *network, want int) []string {
	var out []string
	for range 500 {
		out = append(out, nw.takeCrashes()...)
		if len(out) >= want {
			break
		}
		time.Sleep(10 * time.Millisecond) // the watcher runs right after the exit
	}
	return out
}

// A kill by the schedule is expected; a kill of a node that is not
// running is an error (it would prove nothing), and so is a restart of a
// running node.
func TestKillConfirmsTheNodeRanAndIsGone(t *testing.T) {
	nw := scriptNetwork(t, longRunning, "exit 0")
	for i := range nw.net.Nodes {
		if err := nw.start(i); err != nil {
			t.Fatal(err)
		}
	}
	<-nw.net.Exited(1)
	_ = waitCrashes(nw, 1)
	if err := nw.apply(Perturb{Action: ActKill, Node: 1}); err == nil || !strings.Contains(err.Error(), "not running") {
		t.Fatalf("killing a dead node: %v, want an error", err)
	}
	if err := nw.apply(Perturb{Action: ActRestart, Node: 0}); err == nil || !strings.Contains(err.Error(), "is running") {
		t.Fatalf("restarting a running node: %v, want an error", err)
	}
	if err := nw.apply(Perturb{Action: ActKill, Node: 0}); err != nil {
		t.Fatal(err)
	}
	if nw.net.Running(0) {
		t.Fatal("node0 runs after its kill")
	}
	if c := nw.takeCrashes(); len(c) != 0 {
		t.Fatalf("the schedule's kill was reported as a crash: %q", c)
	}
	if err := nw.apply(Perturb{Action: ActRestart, Node: 0}); err != nil || !nw.net.Running(0) {
		t.Fatalf("restart: %v, running %v", err, nw.net.Running(0))
	}
}

// A pause is confirmed by the process's stopped state, a resume by its
// leaving it; pausing a dead node is an error.
func TestPauseAndResumeConfirmTheProcessState(t *testing.T) {
	nw := scriptNetwork(t, longRunning, "exit 0")
	for i := range nw.net.Nodes {
		if err := nw.start(i); err != nil {
			t.Fatal(err)
		}
	}
	if err := nw.apply(Perturb{Action: ActPause, Node: 0}); err != nil {
		t.Fatal(err)
	}
	if st, err := procState(nw.net.Pid(0)); err != nil || st != "T" {
		t.Fatalf("paused node0 state %q, %v; want T", st, err)
	}
	if err := nw.apply(Perturb{Action: ActResume, Node: 0}); err != nil {
		t.Fatal(err)
	}
	if st, _ := procState(nw.net.Pid(0)); st == "T" {
		t.Fatal("resumed node0 still stopped")
	}
	<-nw.net.Exited(1)
	if err := nw.apply(Perturb{Action: ActPause, Node: 1}); err == nil {
		t.Fatal("pausing a dead node succeeded")
	}
}
