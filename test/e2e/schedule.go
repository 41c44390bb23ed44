package e2e

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"
)

// event is one step of a run's timeline: a perturbation at a time since
// the load started. Undo links a fault's undo to the fault.
type event struct {
	At     time.Duration
	P      Perturb
	IsUndo bool
	Fault  int // index of the fault event an undo ends (else -1)
}

// timeline expands the manifest's perturbations (and its random plan,
// drawn from seed) into events in time order.
func timeline(m *Manifest, seed int64) []event {
	ps := slices.Clone(m.Perturb)
	if m.Random != nil {
		ps = append(ps, randomFaults(m, seed)...)
	}
	var evs []event
	for _, p := range ps {
		evs = append(evs, event{At: p.At.Duration, P: p, Fault: -1})
	}
	slices.SortStableFunc(evs, func(a, b event) int { return cmp.Compare(a.At, b.At) })
	var out []event
	for _, e := range evs {
		out = append(out, e)
		if e.P.For.Duration > 0 {
			undo := Perturb{Action: undoOf(e.P.Action), Node: e.P.Node}
			out = append(out, event{At: e.At + e.P.For.Duration, P: undo, IsUndo: true, Fault: len(out) - 1})
		}
	}
	slices.SortStableFunc(out, func(a, b event) int { return cmp.Compare(a.At, b.At) })
	return out
}

// randomFaults draws the plan's faults: the load is cut into one slot per
// fault (the first and last tenth kept quiet), each fault starts in its
// slot and ends before the slot does, so faults never overlap and every
// one is undone while the load runs. The same seed gives the same faults.
func randomFaults(m *Manifest, seed int64) []Perturb {
	r := m.Random
	rng := rand.New(rand.NewPCG(uint64(seed), 0x5eed))
	load := m.Load.Duration.Duration
	quiet := load / 10
	slot := (load - 2*quiet) / time.Duration(r.Faults)
	var out []Perturb
	for k := range r.Faults {
		start := quiet + time.Duration(k)*slot + time.Duration(rng.Int64N(int64(slot/4)+1))
		limit := max(time.Second, min(r.MaxFor.Duration, quiet+time.Duration(k+1)*slot-start-time.Second))
		dur := time.Second/2 + time.Duration(rng.Int64N(int64(limit)))
		p := Perturb{At: Duration{start}, For: Duration{dur}, Action: r.Actions[rng.IntN(len(r.Actions))], Node: rng.IntN(m.Validators)}
		if p.Action == ActPartition {
			p.Groups = randomSplit(rng, m.Validators)
		}
		out = append(out, p)
	}
	return out
}

// randomSplit cuts the nodes into two non-empty groups.
func randomSplit(rng *rand.Rand, n int) [][]int {
	perm := rng.Perm(n)
	k := 1 + rng.IntN(n-1)
	a, b := slices.Clone(perm[:k]), slices.Clone(perm[k:])
	slices.Sort(a)
	slices.Sort(b)
	return [][]int{a, b}
}

// String describes an event for logs and reports.
func (e event) String() string {
	switch e.P.Action {
	case ActPartition:
		return fmt.Sprintf("%v %s %v", e.At, e.P.Action, e.P.Groups)
	case ActHeal:
		return fmt.Sprintf("%v heal", e.At)
	case ActClock:
		return fmt.Sprintf("%v clock node%d %s", e.At, e.P.Node, signed(e.P.Offset.Duration))
	case ActDelay:
		return fmt.Sprintf("%v delay node%d's links by %v (jitter %v)", e.At, e.P.Node, e.P.Latency, e.P.Jitter)
	case ActSharedDBKill, ActSharedDBRestart, ActRestartAll:
		return fmt.Sprintf("%v %s", e.At, e.P.Action)
	case ActStateSyncKill, ActStateSyncRestart:
		return fmt.Sprintf("%v %s (a full node joining)", e.At, e.P.Action)
	}
	return fmt.Sprintf("%v %s node%d", e.At, e.P.Action, e.P.Node)
}
