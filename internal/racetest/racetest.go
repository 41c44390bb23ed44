package racetest

import "testing"

// Heavy skips t when the race detector is on (see the package comment):
// call it first in a test of long single-stream work.
func Heavy(t testing.TB) {
	t.Helper()
	if Enabled {
		t.Skip("long single-stream work, run without -race: by make test, and in CI by the step after the race pass (scripts/test.sh)")
	}
}
