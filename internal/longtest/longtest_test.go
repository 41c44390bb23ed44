package longtest

import "testing"

// skipRecorder is a testing.TB that records a skip instead of stopping.
type skipRecorder struct {
	testing.TB
	skipped string
}

func (r *skipRecorder) Helper() {}
func (r *skipRecorder) Skipf(format string, args ...any) {
	r.skipped = format
}

func TestRequireSkipsOnlyWithoutTheVariable(t *testing.T) {
	t.Setenv(Env, "")
	r := &skipRecorder{TB: t}
	Require(r, "a network")
	if r.skipped == "" {
		t.Fatalf("Require did not skip without %s=1", Env)
	}
	t.Setenv(Env, "1")
	r = &skipRecorder{TB: t}
	Require(r, "a network")
	if r.skipped != "" {
		t.Fatalf("Require skipped with %s=1", Env)
	}
}
