package e2e

import (
	"path/filepath"
	"strings"
	"testing"
)

// addResend records a resend of write id and its answer.
func addResend(r *run, id int64, phase string, height int64, code uint32, text string) {
	k := r.hist.Resend(id, 1, ResendRandom)
	r.hist.CompleteResend(id, k, phase, height, code, text)
}

// Every resend is held to the committed outcome: the resends of a history
// where the node holds each write once still find a tx acknowledged at two
// heights, a replay claim for a tx nobody has, a false failure of a
// committed write, and an acknowledged resend whose write is absent.
func TestCheckResendsHoldsEveryResendToTheCommittedOutcome(t *testing.T) {
	r := newTestRun(t, "insert",
		write{ID: 1, Phase: PhaseOK, Height: 5},
		write{ID: 2, Phase: PhaseOK, Height: 6},
		write{ID: 3, Phase: PhaseUnknown},
		write{ID: 4, Phase: PhaseOK, Height: 7},
		write{ID: 5, Phase: PhaseUnknown},
		write{ID: 6, Phase: PhaseFail, Height: 8, Code: 10})
	const replay = "nonce 12 of this key was already executed (replay)"
	addResend(r, 1, PhaseOK, 5, 0, "")        // the committed result: fine
	addResend(r, 1, PhaseFail, 0, 8, replay)  // committed: a false failure
	addResend(r, 2, PhaseOK, 9, 0, "")        // acknowledged at another height
	addResend(r, 3, PhaseFail, 0, 8, replay)  // "already executed", yet absent
	addResend(r, 4, PhaseFail, 0, 10, "boom") // a false failure
	addResend(r, 5, PhaseOK, 8, 0, "")        // acknowledges write 5 ...
	addResend(r, 6, PhaseFail, 8, 10, "same") // a committed failure answered again: fine
	addResend(r, 6, PhaseUnknown, 0, 0, "timeout")
	r.hist.Resolve(3, -1, PhaseAbsent, 0, 0)
	countOps(r)
	checkResends(r)
	checkWrites(r, 0, &nodeState{height: 9, ids: map[int64]int{1: 1, 2: 1, 4: 1}}) // ... which is absent
	got := r.rep.Failed()
	for _, frag := range []string{
		"write 2 (tx ) to node1 was acknowledged at height 9, but the write committed at height 6",
		"write 3 (tx ) to node1 was refused as already executed (code 8), but no node has the tx (absent)",
		"write 4 (tx ) to node1 answered a failure (code 10: boom) for a write committed ok at height 7",
		"lacks write 5",
		"write 1 (tx ) to node1 answered \"already executed\" (code 8) instead of the committed outcome (ok at height 5)",
	} {
		if !strings.Contains(got, frag) {
			t.Errorf("the report does not say %q:\n%s", frag, got)
		}
	}
	if n := len(r.rep.Violations); n != 5 {
		t.Errorf("%d violations, want 5:\n%s", n, got)
	}
	if c := r.rep.Ops; c.Resent != 8 || c.ResentOK != 3 || c.ResentReplay != 2 || c.ResentFailed != 2 || c.ResentUnknown != 1 {
		t.Errorf("resend counts %+v", c)
	}
}

// Resends answer the committed outcome (issue 32, Build 7): an "already
// executed" answer for a committed tx is a false failure.
func TestAReplayAnswerForACommittedTxFails(t *testing.T) {
	r := newTestRun(t, "insert", write{ID: 1, Phase: PhaseOK, Height: 5})
	addResend(r, 1, PhaseFail, 0, 8, "nonce 3 of this key was already executed (replay)")
	checkResends(r)
	if !strings.Contains(r.rep.Failed(), "answered \"already executed\" (code 8) instead of the committed outcome (ok at height 5)") {
		t.Fatalf("report: %s", r.rep.Failed())
	}
}

// A load must resend some of its writes: the share defaults to 0.1 and
// cannot be switched off.
func TestLoadsResendAShareOfTheirWrites(t *testing.T) {
	m, err := ParseManifest(withMinAcked(""))
	if err != nil || m.Load.Resend != 0.1 {
		t.Fatalf("default resend share %v, %v; want 0.1", m.Load.Resend, err)
	}
	for _, bad := range []string{"-0.1", "0.9"} {
		if _, err := ParseManifest("[load]\nmin_acked = 1\nresend = " + bad + "\n"); err == nil || !strings.Contains(err.Error(), "load.resend") {
			t.Errorf("resend = %s: %v, want an error", bad, err)
		}
	}
	files, _ := filepath.Glob("manifests/*/*.toml")
	for _, f := range files {
		m, err := LoadManifest(f)
		if err != nil || m.Load.Resend <= 0 || m.Load.MinAcked < 1 {
			t.Errorf("%s: resend %v, min_acked %v (%v)", f, m.Load.Resend, m.Load.MinAcked, err)
		}
	}
}
