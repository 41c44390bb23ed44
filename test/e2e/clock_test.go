package e2e

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/relchain/relchain/netctl"
)

func TestParseManifestTakesClockFaultsForTheWholeRunOnly(t *testing.T) {
	m, err := ParseManifest(withMinAcked("[[perturb]]\nat = \"0s\"\naction = \"clock\"\nnode = 1\noffset = \"+1h\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := m.clockFaults(); len(got) != 1 || got[1] != time.Hour {
		t.Errorf("clock faults %v, want node1 +1h", got)
	}
	if !slices.Contains(m.Check.Invariants, InvClockSeen) || !slices.Contains(m.Check.Invariants, InvBlockTimes) {
		t.Errorf("default invariants with a clock fault: %v", m.Check.Invariants)
	}
	if m, _ := ParseManifest(withMinAcked("")); slices.Contains(m.Check.Invariants, InvClockSeen) {
		t.Errorf("default invariants without a clock fault: %v", m.Check.Invariants)
	}
	clock := func(node int, at, offset string) string {
		return "[[perturb]]\nat = \"" + at + "\"\naction = \"clock\"\nnode = " + string(rune('0'+node)) + "\noffset = \"" + offset + "\"\n"
	}
	for _, tc := range []struct{ text, want string }{
		{clock(1, "5s", "+1h"), "whole run"},
		{clock(1, "0s", "+1h") + "for = \"5s\"\n", "whole run"},
		{clock(1, "0s", "0s"), "non-zero offset"},
		{clock(1, "0s", "+72h"), "within 48h"},
		{clock(7, "0s", "+1h"), "node 7"},
		{clock(0, "0s", "+1h") + clock(1, "0s", "+1h") + clock(2, "0s", "-1h") + clock(3, "0s", "+1s"), "every validator is skewed"},
		{"[[perturb]]\nat = \"5s\"\naction = \"kill\"\nnode = 1\noffset = \"+1h\"\n", "offset is for clock faults"},
		{"[check]\ninvariants = [\"clock-offset-seen\"]", "needs a clock perturbation"},
	} {
		_, err := ParseManifest(tc.text)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseManifest(%q) = %v, want an error with %q", tc.text, err, tc.want)
		}
	}
}

// A chain whose blocks follow the harness's clock passes, a stall
// included; a block an hour ahead, one an hour behind, and one not after
// its parent are each found.
func TestCheckBlockTimesFindsBlocksOffTheRealClock(t *testing.T) {
	t0 := time.Date(2026, 11, 27, 3, 0, 0, 0, time.UTC)
	sane := func() (map[int64]time.Time, []heightSeen) {
		times := map[int64]time.Time{}
		var seen []heightSeen
		for h := int64(1); h <= 20; h++ {
			commit := t0.Add(time.Duration(h) * 100 * time.Millisecond)
			times[h] = commit.Add(-80 * time.Millisecond) // its parent's precommits
			if h >= 3 && h%2 == 1 {                       // a poll every 200 ms, 30 ms long
				at := commit.Add(30 * time.Millisecond)
				seen = append(seen, heightSeen{Height: h, At: at, Before: at.Add(-230 * time.Millisecond)})
			}
		}
		// A 40 s stall: block 14's first precommits (their median, block
		// 15's time, at 1.4 s) wait 40 s for the vote that commits 14;
		// blocks from 16 on take their times after it.
		for h := int64(16); h <= 20; h++ {
			times[h] = times[h].Add(40 * time.Second)
		}
		for k := range seen {
			if seen[k].Height >= 15 {
				seen[k].At, seen[k].Before = seen[k].At.Add(40*time.Second), seen[k].Before.Add(40*time.Second)
			}
		}
		return times, seen
	}
	times, seen := sane()
	r := newTestRun(t, "insert")
	r.seen = seen
	checkBlockTimes(r, times, 20)
	if len(r.rep.Violations) != 0 || r.rep.BlockTimes.Blocks < 10 || r.rep.BlockTimes.MaxAhead > 0 {
		t.Fatalf("a sane chain: %+v, %s", r.rep.BlockTimes, r.rep.Failed())
	}
	for name, spoil := range map[string]func(map[int64]time.Time){
		"an hour ahead":        func(m map[int64]time.Time) { m[12] = m[12].Add(time.Hour) },
		"an hour behind":       func(m map[int64]time.Time) { m[12], m[11] = m[12].Add(-time.Hour), m[11].Add(-time.Hour-time.Second) },
		"not after its parent": func(m map[int64]time.Time) { m[2] = m[1] },
	} {
		times, seen := sane()
		spoil(times)
		r := newTestRun(t, "insert")
		r.seen = seen
		checkBlockTimes(r, times, 20)
		if got := invariants(r.rep); len(got) == 0 || got[0] != InvBlockTimes {
			t.Errorf("%s: violations %v", name, got)
		}
	}
}

// A node's log with a consensus panic fails logs-clean; error lines are
// counted.
func TestCheckLogsFindsConsensusFailuresAndPanics(t *testing.T) {
	var nodes []netctl.NodeInfo
	logs := []string{
		"I[2026-11-27|03:00:00.000] started\nE[2026-11-27|03:00:01.000] Failed to close connection\n",
		"E[2026-11-27|03:00:01.000] CONSENSUS FAILURE!!! module=consensus err=\"+2/3 committed an invalid block\"\n",
		"panic: runtime error: index out of range\n\ngoroutine 1 [running]:\n",
	}
	for i, text := range logs {
		home := filepath.Join(t.TempDir(), "node")
		if err := os.MkdirAll(home, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(home, "node.log"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		nodes = append(nodes, netctl.NodeInfo{Name: "node" + string(rune('0'+i)), Home: home})
	}
	r := newTestRun(t, "insert")
	r.nw = &network{net: netctl.NewNetwork("relchain", nodes)}
	checkLogs(r)
	// A node whose disk the schedule fills may end its consensus.
	excused := newTestRun(t, "insert")
	excused.m.Perturb = []Perturb{{Action: ActDiskFull, Node: 1}}
	excused.nw = r.nw
	checkLogs(excused)
	if got := invariants(excused.rep); !slices.Equal(got, []string{InvLogsClean}) || !strings.Contains(excused.rep.Failed(), "node2") {
		t.Errorf("with node1's disk filled: violations %v: %s", got, excused.rep.Failed())
	}
	if got := invariants(r.rep); !slices.Equal(got, []string{InvLogsClean, InvLogsClean}) {
		t.Fatalf("violations %v: %s", got, r.rep.Failed())
	}
	if f := r.rep.Failed(); !strings.Contains(f, "node1") || !strings.Contains(f, "node2") || strings.Contains(f, "node0") {
		t.Errorf("report: %s", f)
	}
	if !slices.Equal(r.rep.LogErrors, []int{1, 1, 0}) {
		t.Errorf("error lines %v, want [1 1 0]", r.rep.LogErrors)
	}
}
