package sqlchecktest

import (
	"strings"
	"testing"
)

// Case is one entry of a dialect's corpus table: a statement text and a
// substring of its refusal ("" for a text the gate accepts). A corpus
// table may be of its own type of the same shape (go vet wants the fields
// of another package's struct named in a literal; a table of hundreds of
// entries reads better without).
type Case struct{ SQL, Want string }

// SameVerdict reports whether two verdicts are the same: both nil, or
// errors with the same message.
func SameVerdict(a, b error) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return a.Error() == b.Error()
}

// CheckCorpus checks a gate against its corpus: at least atLeast distinct
// cases, each accepted or refused (with Want in the message) by check.
func CheckCorpus[C ~struct{ SQL, Want string }](t *testing.T, corpus []C, atLeast int, check func(string) error) {
	t.Helper()
	cases := asCases(corpus)
	if len(cases) < atLeast {
		t.Fatalf("corpus has %d statements, want at least %d", len(cases), atLeast)
	}
	seen := map[string]bool{}
	for _, c := range cases {
		if seen[c.SQL] {
			t.Errorf("duplicate corpus entry %q", c.SQL)
		}
		seen[c.SQL] = true
		err := check(c.SQL)
		switch {
		case c.Want == "" && err != nil:
			t.Errorf("%q: rejected (%v), want accepted", c.SQL, err)
		case c.Want != "" && err == nil:
			t.Errorf("%q: accepted, want rejected with %q", c.SQL, c.Want)
		case c.Want != "" && !strings.Contains(err.Error(), c.Want):
			t.Errorf("%q: rejected with %q, want %q in the message", c.SQL, err, c.Want)
		}
	}
}

// CheckCached checks that cached, a gate's Check, gives check's
// (uncached) verdict on every case, call after call.
func CheckCached[C ~struct{ SQL, Want string }](t *testing.T, corpus []C, check, cached func(string) error) {
	t.Helper()
	cases := asCases(corpus)
	for _, c := range cases {
		want := check(c.SQL)
		for range 3 {
			if got := cached(c.SQL); !SameVerdict(got, want) {
				t.Fatalf("%q: Check = %v, check = %v", c.SQL, got, want)
			}
		}
	}
}

// StableVerdict fails t unless check, the uncached verdict, twice, and
// cached, the gate's Check, give sql the same verdict, and returns it: a
// fuzz target's first step.
func StableVerdict(t *testing.T, sql string, check, cached func(string) error) error {
	t.Helper()
	a, b, c := check(sql), check(sql), cached(sql)
	if !SameVerdict(a, b) || !SameVerdict(a, c) {
		t.Fatalf("%q: verdicts differ: %v / %v / %v", sql, a, b, c)
	}
	return a
}

// asCases converts a corpus table to Cases.
func asCases[C ~struct{ SQL, Want string }](corpus []C) []Case {
	out := make([]Case, len(corpus))
	for i, c := range corpus {
		out[i] = Case(c)
	}
	return out
}
