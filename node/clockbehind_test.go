package node

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// The panic CometBFT v0.38.26's consensus ended with on a validator whose
// clock was an hour behind (test/e2e: long/clock-behind with offset -1h;
// the first run failed at height 2, the second at height 1) is read as a clock behind, with what to do; other panics
// are not.
func TestClockBehindIsReadFromTheConsensusPanic(t *testing.T) {
	for _, cause := range []string{
		"+2/3 committed an invalid block: block time 2026-11-27 03:21:43.160409916 +0000 UTC is too far in the future (wall clock 2026-11-27 02:21:43.343802384 +0000 UTC m=+2.458411476 + tolerance 1m0s)",
		"precommit step; +2/3 prevoted for an invalid block: block time 2026-11-27 03:31:59.047528955 +0000 UTC is too far in the future (wall clock 2026-11-27 02:31:59.115500707 +0000 UTC m=+1.695387444 + tolerance 1m0s)",
	} {
		checkClockBehindReport(t, cause)
	}
	for _, other := range []string{"", "+2/3 committed an invalid block: wrong Block.Header.AppHash.  Expected 0A, got 0B", "write /h/data/cs.wal/wal: no space left on device"} {
		if err := clockBehindError(other, time.Minute); err != nil {
			t.Errorf("clockBehindError(%q) = %v, want nil", other, err)
		}
	}
}

func checkClockBehindReport(t *testing.T, cause string) {
	t.Helper()
	err := clockBehindError(cause, time.Minute)
	if err == nil {
		t.Fatal("a block from the node's future was not read as a clock behind")
	}
	msg := err.Error()
	for _, want := range []string{"consensus stopped", "block_time_tolerance (1m0s)", "this node's clock is behind", "NTP", "too far in the future"} {
		if !strings.Contains(msg, want) {
			t.Errorf("report lacks %q:\n%s", want, msg)
		}
	}
	if !errors.Is(err, ErrConsensusStopped) || haltKind(err) != "consensus_stopped" {
		t.Errorf("errors.Is(ErrConsensusStopped) = %t, kind %q", errors.Is(err, ErrConsensusStopped), haltKind(err))
	}
}
