package racetest

import "testing"

// TestHeavySkipsOnlyUnderRace runs Heavy in a subtest and checks that the
// subtest was skipped exactly when the detector is on.
func TestHeavySkipsOnlyUnderRace(t *testing.T) {
	ran := false
	t.Run("heavy", func(t *testing.T) {
		Heavy(t)
		ran = true
	})
	if ran == Enabled {
		t.Fatalf("Heavy let the test run = %v with the race detector on = %v", ran, Enabled)
	}
}
