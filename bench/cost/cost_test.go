package cost

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
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

// TestProfilesBothSides: --cpuprofile and --raw-cpuprofile each write a
// profile of an extra turn, outside the measured turns, which stay as
// many as asked.
func TestProfilesBothSides(t *testing.T) {
	dir := t.TempDir()
	execProf, rawProf := filepath.Join(dir, "exec.pprof"), filepath.Join(dir, "raw.pprof")
	res, err := Run(context.Background(), Options{
		Workload: Smallbank, Backend: "sqlite", Dir: dir,
		Accounts: 200, Turns: 1, Blocks: 2, BCPerBlock: 2, WLPerBC: 10,
		CPUProfile: execProf, RawCPUProfile: rawProf, ProfileBlocks: 3,
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Turns) != 2 {
		t.Fatalf("%d measured turns, want 2 (the profiled ones are not figures)", len(res.Turns))
	}
	for _, p := range []string{execProf, rawProf} {
		st, err := os.Stat(p)
		if err != nil || st.Size() == 0 {
			t.Errorf("profile %s: %v (size %v), want a written profile", p, err, st)
		}
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
	// The child is this test binary burning burnCPU of its own CPU time
	// (burnIfAsked), so it always uses enough to show in clock ticks.
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), burnEnv+"=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("child: %v: %s", err, out)
	}
	child := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	after, err := treeCPU(self)
	if err != nil {
		t.Fatal(err)
	}
	if child < burnCPU {
		t.Fatalf("the child reports %v of CPU, want at least %v", child, burnCPU)
	}
	if got := after - before; got < child-2*clockTick {
		t.Fatalf("tree CPU grew by %v, the exited child alone used %v", got, child)
	}
}

// burnEnv asks this test binary, started as a child, to burn burnCPU of
// CPU time and exit.
const burnEnv = "RELCHAIN_COST_TEST_BURN"

const burnCPU = 100 * time.Millisecond

func init() {
	if os.Getenv(burnEnv) != "1" {
		return
	}
	var ru syscall.Rusage
	for x := uint64(1); ; x = x*6364136223846793005 + 1 {
		if x%(1<<16) == 0 {
			_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
			if time.Duration(ru.Utime.Nano()+ru.Stime.Nano()) >= burnCPU {
				os.Exit(0)
			}
		}
	}
}
