package mysql

import (
	"strings"
	"testing"
)

func TestCorpus(t *testing.T) {
	if len(corpus) < 250 {
		t.Fatalf("corpus has %d statements, want at least 250", len(corpus))
	}
	seen := map[string]bool{}
	for _, c := range corpus {
		if seen[c.sql] {
			t.Errorf("duplicate corpus entry %q", c.sql)
		}
		seen[c.sql] = true
		err := check(c.sql)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%q: rejected (%v), want accepted", c.sql, err)
		case c.want != "" && err == nil:
			t.Errorf("%q: accepted, want rejected with %q", c.sql, c.want)
		case c.want != "" && !strings.Contains(err.Error(), c.want):
			t.Errorf("%q: rejected with %q, want %q in the message", c.sql, err, c.want)
		}
	}
}

// TestCheckIsCachedAndStable checks that the cached verdict is the uncached
// one, call after call.
func TestCheckIsCachedAndStable(t *testing.T) {
	for _, c := range corpus {
		want := check(c.sql)
		for range 3 {
			if got := Check(c.sql); !sameVerdict(got, want) {
				t.Fatalf("%q: Check = %v, check = %v", c.sql, got, want)
			}
		}
	}
}

func sameVerdict(a, b error) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return a.Error() == b.Error()
}
