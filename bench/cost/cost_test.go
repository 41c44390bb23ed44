package cost

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"
)

// TestRunAlternatesSidesOnTheSameStream runs a small SQLite row: both
// sides execute every wl-transaction (Run itself fails when their
// committed counts differ), in alternating turns, with CPU measured.
func TestRunAlternatesSidesOnTheSameStream(t *testing.T) {
	res, err := Run(context.Background(), Options{
		Workload: Smallbank, Backend: "sqlite", Dir: t.TempDir(),
		Accounts: 200, Turns: 2, Blocks: 2, BCPerBlock: 2, WLPerBC: 10,
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Turns) != 4 {
		t.Fatalf("%d turns, want 4", len(res.Turns))
	}
	for i, turn := range res.Turns {
		want := []string{"executor", "raw"}[i%2]
		if turn.Side != want || turn.WL != 40 || turn.Committed == 0 || turn.GoCPU <= 0 {
			t.Errorf("turn %d: %+v, want side %s, 40 wl-transactions, some committed, CPU measured", i, turn, want)
		}
		if turn.Committed != res.Turns[i/2*2].Committed {
			t.Errorf("turn %d committed %d, its executor turn %d", i, turn.Committed, res.Turns[i/2*2].Committed)
		}
	}
	if res.ExecTotal <= 0 || res.RawTotal <= 0 || res.Ratio != res.ExecTotal/res.RawTotal || res.PairedRatio <= 0 {
		t.Errorf("medians %+v", res)
	}
}

// TestTreeCPUCountsReapedChildren: a child's CPU stays in its parent's
// tree after the child exited (cutime), as PostgreSQL's exited backends'
// must.
func TestTreeCPUCountsReapedChildren(t *testing.T) {
	self := os.Getpid()
	before, err := treeCPU(self)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sh", "-c", "i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	child := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	after, err := treeCPU(self)
	if err != nil {
		t.Fatal(err)
	}
	if child < 50*time.Millisecond {
		t.Skipf("the child used only %v of CPU: too little to see in clock ticks", child)
	}
	if got := after - before; got < child-2*clockTick {
		t.Fatalf("tree CPU grew by %v, the exited child alone used %v", got, child)
	}
}
