package e2e

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// newTestRun is a run with a history of the given writes (no network):
// the checker's verdicts on a history and a node state made by hand.
func newTestRun(t *testing.T, workload string, ws ...write) *run {
	t.Helper()
	m, err := ParseManifest("[load]\nmin_acked = 1\nworkload = \"" + workload + "\"\naccounts = 3\nbalance = 100\n")
	if err != nil {
		t.Fatal(err)
	}
	h, err := NewHistory(filepath.Join(t.TempDir(), "history.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Close() })
	for _, w := range ws {
		phase, height := w.Phase, w.Height
		h.Invoke(w, 0)
		h.Complete(w.ID, 0, phase, height, w.Code, "")
	}
	return &run{m: m, hist: h, wl: newWorkload(m), rep: &Report{}}
}

// withMinAcked adds the required load.min_acked to a manifest's text.
func withMinAcked(text string) string {
	if strings.Contains(text, "[load]\n") {
		return strings.Replace(text, "[load]\n", "[load]\nmin_acked = 1\n", 1)
	}
	return text + "\n[load]\nmin_acked = 1\n"
}

func invariants(rep *Report) []string {
	var out []string
	for _, v := range rep.Violations {
		out = append(out, v.Invariant)
	}
	return out
}

func TestCheckWritesPassesAHistoryThatMatchesTheNode(t *testing.T) {
	r := newTestRun(t, "insert",
		write{ID: 1, Phase: PhaseOK, Height: 5},
		write{ID: 2, Phase: PhaseFail, Code: 7},
		write{ID: 3, Phase: PhaseUnknown})
	r.hist.Resolve(3, 1, PhaseAbsent, 0, 0)
	checkWrites(r, 0, &nodeState{ids: map[int64]int{1: 1}})
	if len(r.rep.Violations) != 0 {
		t.Fatalf("violations on a consistent node: %v", r.rep.Violations)
	}
}

func TestCheckWritesFindsLostDuplicatedFailedAndPhantomWrites(t *testing.T) {
	r := newTestRun(t, "insert",
		write{ID: 1, Phase: PhaseOK, Height: 5},      // lost
		write{ID: 2, Phase: PhaseOK, Height: 6},      // applied twice
		write{ID: 3, Phase: PhaseFail, Code: 7},      // failed, yet present
		write{ID: 4, Phase: PhaseUnknown, Height: 0}) // resolved absent, yet present
	r.hist.Resolve(4, -1, PhaseAbsent, 0, 0)
	checkWrites(r, 2, &nodeState{height: 9, ids: map[int64]int{2: 2, 3: 1, 4: 1, 99: 1}})
	if r.rep.Lost != 1 || r.rep.Duplicated != 1 || r.rep.Phantom != 1 {
		t.Errorf("lost %d, duplicated %d, phantom %d; want 1 each", r.rep.Lost, r.rep.Duplicated, r.rep.Phantom)
	}
	got := invariants(r.rep)
	want := []string{InvExactlyOnce, InvExactlyOnce, InvFailedAbsent, InvFailedAbsent, InvExactlyOnce}
	if !slices.Equal(got, want) {
		t.Fatalf("violations %v, want %v:\n%s", got, want, r.rep.Failed())
	}
	for _, frag := range []string{"lacks write 1", "write 2 (tx", "2 times", "write 3", "reported fail", "write 4", "reported absent", "write 99, which no client made"} {
		if !strings.Contains(r.rep.Failed(), frag) {
			t.Errorf("the report does not name %q:\n%s", frag, r.rep.Failed())
		}
	}
}

func TestCheckBankFindsMoneyMadeOrLost(t *testing.T) {
	r := newTestRun(t, "bank")
	// Transfers 0→1 of 30: balances 70, 130, 100 conserve 300.
	good := &nodeState{balances: map[int64]int64{0: 70, 1: 130, 2: 100}, moved: map[int64]int64{0: -30, 1: 30}}
	checkBank(r, 0, good)
	if len(r.rep.Violations) != 0 {
		t.Fatalf("violations on a conserving node: %v", r.rep.Violations)
	}
	// Account 1 credited without the transfer logged: money made.
	bad := &nodeState{balances: map[int64]int64{0: 70, 1: 160, 2: 100}, moved: map[int64]int64{0: -30, 1: 30}}
	checkBank(r, 1, bad)
	if got := invariants(r.rep); !slices.Equal(got, []string{InvBank, InvBank}) {
		t.Fatalf("violations %v, want the account and the total:\n%s", got, r.rep.Failed())
	}
	if !strings.Contains(r.rep.Failed(), "account 1 holds 160, its transfers say 130") || !strings.Contains(r.rep.Failed(), "hold 330 in all") {
		t.Errorf("report: %s", r.rep.Failed())
	}
}

func TestCheckReadsAndHaltsReportWhatTheRunRecorded(t *testing.T) {
	r := newTestRun(t, "insert")
	r.hist.Read(Op{Node: 1, Phase: PhaseOK, Height: 8, Seen: 3})
	r.hist.Read(Op{Node: 2, Phase: PhaseOK, Height: 9, Seen: 3, Missing: []int64{1000004}})
	r.rep.Halts = []haltWatch{{What: "partition held", Before: 10, After: 11}, {What: "partition leaked", Before: 10, After: 15}}
	r.rep.GoOns = []haltWatch{{What: "disk-full went on", Before: 10, After: 30}, {What: "tamper stalled all", Before: 10, After: 11}}
	checkReads(r)
	checkHalts(r)
	if got := invariants(r.rep); !slices.Equal(got, []string{InvReads, "fault-effect", "fault-effect"}) {
		t.Fatalf("violations %v:\n%s", got, r.rep.Failed())
	}
	if !strings.Contains(r.rep.Failed(), "missed acknowledged writes [1000004]") || !strings.Contains(r.rep.Failed(), "partition leaked") ||
		!strings.Contains(r.rep.Failed(), "tamper stalled all") || strings.Contains(r.rep.Failed(), "disk-full went on") {
		t.Errorf("report: %s", r.rep.Failed())
	}
}

func TestAckedUpToCountsOnlyAcknowledgementsAtOrBelowTheHeight(t *testing.T) {
	r := newTestRun(t, "insert",
		write{ID: 1, Phase: PhaseOK, Height: 5},
		write{ID: 2, Phase: PhaseOK, Height: 9},
		write{ID: 3, Phase: PhaseFail, Height: 4},
		write{ID: 4, Phase: PhaseUnknown})
	ids, top := r.hist.AckedUpTo(6)
	if !slices.Equal(ids, []int64{1}) || top != 9 {
		t.Fatalf("AckedUpTo(6) = %v, %d; want [1], 9", ids, top)
	}
}

func TestParseManifestRefusesUnknownKeysAndBadSchedules(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"validatorz = 4", "unknown keys"},
		{"backend = \"oracle\"", "backend \"oracle\""},
		{"[[perturb]]\nat = \"5s\"\naction = \"explode\"", "action \"explode\""},
		{"[[perturb]]\nat = \"5s\"\naction = \"kill\"\nnode = 9", "node 9"},
		{"[load]\nduration = \"10s\"\n[[perturb]]\nat = \"5s\"\naction = \"pause\"\nfor = \"6s\"", "outside the load"},
		{"[[perturb]]\nat = \"5s\"\naction = \"partition\"\ngroups = [[0, 1]]", "two groups"},
		{"[check]\ninvariants = [\"bank-conserved\"]", "needs the bank workload"},
		{"[[perturb]]\nat = \"5s\"\naction = \"tamper\"\nfor = \"5s\"", "tamper needs sql"},
		{"[[perturb]]\nat = \"5s\"\naction = \"tamper\"\nsql = [\"DELETE FROM t\"]", "tamper needs for"},
		{"backend = \"postgres\"\n[[perturb]]\nat = \"5s\"\naction = \"tamper\"\nsql = [\"DELETE FROM t\"]\nfor = \"5s\"", "sqlite only"},
		{"[[perturb]]\nat = \"5s\"\naction = \"kill\"\nsql = [\"DELETE FROM t\"]", "sql belongs to tamper"},
		{"[[perturb]]\nat = \"5s\"\naction = \"disk-full\"", "disk-full needs for"},
		{"[[perturb]]\nat = \"5s\"\naction = \"free-disk\"", "undo of a fault"},
		{"[[perturb]]\nat = \"5s\"\naction = \"delay\"\nfor = \"5s\"", "want a latency > 0"},
		{"[[perturb]]\nat = \"5s\"\naction = \"pause\"\nlatency = \"5ms\"", "belong to delay"},
		{"[[perturb]]\nat = \"1s\"\naction = \"delay\"\nlatency = \"5ms\"\n[[perturb]]\nat = \"5s\"\naction = \"disconnect\"", "cannot reach them"},
		{"[[perturb]]\nat = \"1s\"\naction = \"delay\"\nlatency = \"5ms\"\n[[perturb]]\nat = \"5s\"\naction = \"throttle\"\nrate = \"1mbit\"", "cannot reach them"},
		{"[[perturb]]\nat = \"5s\"\naction = \"throttle\"\nfor = \"5s\"", "throttle needs a rate"},
		{"[[perturb]]\nat = \"5s\"\naction = \"kill\"\nrate = \"1mbit\"", "only throttle takes one"},
		{"[[perturb]]\nat = \"5s\"\naction = \"unthrottle\"", "undo of a fault"},
		{"full_nodes = 5", "full_nodes = 5"},
		{"full_nodes = 1\n[[perturb]]\nat = \"5s\"\naction = \"kill\"\nnode = 5", "4 validators and 1 full nodes"},
		{"full_nodes = 1\n[[perturb]]\nat = \"5s\"\naction = \"disconnect\"\nnode = 4", "takes a validator"},
		{"full_nodes = 1\n[[perturb]]\nat = \"1s\"\naction = \"delay\"\nlatency = \"5ms\"", "relays only the validators"},
	} {
		_, err := ParseManifest(tc.text)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseManifest(%q) = %v, want an error with %q", tc.text, err, tc.want)
		}
	}
}

func TestParseManifestFillsDefaults(t *testing.T) {
	m, err := ParseManifest(withMinAcked(""))
	if err != nil {
		t.Fatal(err)
	}
	if m.Validators != 4 || m.Backend != "sqlite" || m.Network != "auto" || m.Load.Workload != "insert" || m.Load.Duration.Duration != 20*time.Second {
		t.Errorf("defaults: %+v", m)
	}
	if slices.Contains(m.Check.Invariants, InvBank) || !slices.Contains(m.Check.Invariants, InvVerify) {
		t.Errorf("default invariants for inserts: %v", m.Check.Invariants)
	}
}

// TestDataFaultsAndDelayAreUndoneByTheirOwnActions: the timeline ends
// each new fault with its undo, at its for, on its node.
func TestDataFaultsAndDelayAreUndoneByTheirOwnActions(t *testing.T) {
	m, err := ParseManifest(`
[load]
min_acked = 1
duration = "30s"
[[perturb]]
at = "2s"
action = "tamper"
node = 1
sql = ["DELETE FROM e2e_writes"]
for = "5s"
[[perturb]]
at = "10s"
action = "disk-full"
node = 2
for = "5s"
[[perturb]]
at = "20s"
action = "delay"
node = 3
latency = "40ms"
jitter = "10ms"
for = "5s"
`)
	if err != nil {
		t.Fatal(err)
	}
	th, err := ParseManifest(`
network = "netns"
[load]
min_acked = 1
duration = "30s"
[[perturb]]
at = "3s"
action = "throttle"
node = 1
rate = "64kbit"
for = "10s"
`)
	if err != nil {
		t.Fatal(err)
	}
	var thr []string
	for _, e := range timeline(th, 1) {
		thr = append(thr, fmt.Sprintf("%v %s %d", e.At, e.P.Action, e.P.Node))
	}
	if want := []string{"3s throttle 1", "13s unthrottle 1"}; !slices.Equal(thr, want) || !th.needsNamespaces() {
		t.Errorf("throttle timeline %v (want %v), needs namespaces %v", thr, want, th.needsNamespaces())
	}
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range timeline(m, 1) {
		got = append(got, fmt.Sprintf("%v %s %d", e.At, e.P.Action, e.P.Node))
	}
	want := []string{"2s tamper 1", "7s rebuild 1", "10s disk-full 2", "15s free-disk 2", "20s delay 3", "25s undelay 3"}
	if !slices.Equal(got, want) {
		t.Errorf("timeline %v, want %v", got, want)
	}
	if !m.delaysLinks() || !slices.Equal(m.diskFullNodes(), []int{2}) {
		t.Errorf("delaysLinks %v, diskFullNodes %v", m.delaysLinks(), m.diskFullNodes())
	}
}

func TestEveryShippedManifestParses(t *testing.T) {
	files, _ := filepath.Glob("manifests/*/*.toml")
	if len(files) < 5 {
		t.Fatalf("found %d manifests, want the CI set and the long set", len(files))
	}
	for _, f := range files {
		if _, err := LoadManifest(f); err != nil {
			t.Error(err)
		}
	}
}

func TestRandomScheduleIsReplayableAndUndoesEveryFault(t *testing.T) {
	m, err := ParseManifest("[load]\nmin_acked = 1\nduration = \"10m\"\n[random]\nfaults = 12\nactions = [\"kill\", \"pause\", \"partition\", \"disconnect\"]\nmax_for = \"40s\"\n")
	if err != nil {
		t.Fatal(err)
	}
	a, b, c := timeline(m, 7), timeline(m, 7), timeline(m, 8)
	if !slices.EqualFunc(a, b, func(x, y event) bool { return x.String() == y.String() }) {
		t.Fatal("the same seed gave two schedules")
	}
	if slices.EqualFunc(a, c, func(x, y event) bool { return x.String() == y.String() }) {
		t.Fatal("seeds 7 and 8 gave the same schedule")
	}
	if len(a) != 24 {
		t.Fatalf("%d events, want 12 faults and 12 undos", len(a))
	}
	open := 0
	for _, e := range a {
		if e.IsUndo {
			open--
		} else {
			open++
		}
		if open < 0 || open > 1 || e.At >= m.Load.Duration.Duration {
			t.Fatalf("event %s: faults overlap or outlast the load (%d open)", e, open)
		}
	}
}
