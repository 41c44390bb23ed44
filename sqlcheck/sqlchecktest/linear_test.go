package sqlchecktest

import (
	"strings"
	"testing"
)

var sink int

// TestGrowthTellsLinearFromQuadratic: the measure Linear judges by puts
// a linear scan well under growthLimit and a quadratic one well over it.
func TestGrowthTellsLinearFromQuadratic(t *testing.T) {
	if raceDetector {
		t.Skip("linearity is measured without -race: make test, and in CI the step after the race pass (scripts/test.sh)")
	}
	text := func(n int) string { return strings.Repeat("a", n) }
	linear := func(sql string) {
		for i := range len(sql) {
			sink += int(sql[i])
		}
	}
	quadratic := func(sql string) {
		for i := range len(sql) {
			for j := range i {
				sink += int(sql[j])
			}
		}
	}
	if g := growth(text, 1<<16, linear); g.ratio() > growthLimit {
		t.Errorf("a linear scan measured superlinear: %s", g)
	}
	if g := growth(text, 1<<10, quadratic); g.ratio() <= growthLimit {
		t.Errorf("a quadratic scan measured linear: %s", g)
	}
}
