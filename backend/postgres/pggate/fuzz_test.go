package pggate

import (
	"reflect"
	"testing"
	"time"

	"github.com/relchain/relchain/sqlcheck"
	"github.com/relchain/relchain/sqlcheck/sqlchecktest"
)

// FuzzCheck: the checker never panics, and its verdict is a pure function
// of the text (same message uncached, twice, and through the cache).
func FuzzCheck(f *testing.F) {
	sqlchecktest.Fuzz(f, corpus, sqlchecktest.Gate{Check: Check, Uncached: check}, nil)
}

// FuzzRewrite: for any text the gate accepts, Rewrite is deterministic
// (twice, and uncached), and its output parses, passes the gate with the
// same analysis and needs no further rewrite; for any text it rejects,
// Rewrite fails with Check's error.
func FuzzRewrite(f *testing.F) {
	for i, c := range corpus {
		f.Add(c.SQL, int64(1_790_000_000+i*7919), uint32(i*104729), byte(i))
	}
	f.Fuzz(func(t *testing.T, sql string, sec int64, nsec uint32, seed byte) {
		const span = 253_402_300_799 // seconds from 1970 to the end of 9999
		sec %= span
		if sec < 0 {
			sec += span
		}
		env := sqlcheck.Env{Time: time.Unix(sec, int64(nsec%1_000_000_000)), Seed: [32]byte{seed, seed ^ 0x5a}}
		a, err := Analyze(sql)
		r, rerr := Rewrite(sql, env)
		if err != nil {
			if !sameVerdict(err, rerr) {
				t.Fatalf("%q: Rewrite error %v, want Check's %v", sql, rerr, err)
			}
			return
		}
		if rerr != nil {
			t.Fatalf("%q: accepted, but Rewrite fails: %v", sql, rerr)
		}
		if again, _ := Rewrite(sql, env); again != r {
			t.Fatalf("%q: Rewrite is not deterministic: %q, then %q", sql, r, again)
		}
		if !a.UsesEnv {
			if r != sql {
				t.Fatalf("%q: rewritten to %q without UsesEnv", sql, r)
			}
			return
		}
		if fresh, err := analyze(sql).tmpl.fill(env); err != nil || fresh != r {
			t.Fatalf("%q: uncached rewrite %q (%v) differs from %q", sql, fresh, err, r)
		}
		b, err := Analyze(r)
		if err != nil {
			t.Fatalf("%q: the rewritten %q fails the gate: %v", sql, r, err)
		}
		a.UsesEnv = false
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("%q: the rewritten %q analyzes to %+v, want %+v", sql, r, b, a)
		}
	})
}
