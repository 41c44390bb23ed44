package sqlchecktest

import (
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// Pathological is one family of hostile texts of issue 32: Text(n) is
// about n bytes long.
type Pathological struct {
	Name string
	Text func(n int) string
}

// Pathologicals are the families every gate's linearity test runs: long
// runs of one character or construct, and deep nesting of each construct.
var Pathologicals = []Pathological{
	{"dashes", func(n int) string { return "SELECT 1 " + strings.Repeat("-", n) }},
	{"dash-x", func(n int) string { return "SELECT 1 " + strings.Repeat("--x", n/3) }},
	{"slashes", func(n int) string { return "SELECT 1 " + strings.Repeat("/", n) }},
	{"star-slash-comments", func(n int) string { return "SELECT 1 " + strings.Repeat("*//**/", n/6) }},
	{"open-parens", func(n int) string { return "SELECT " + strings.Repeat("(", n) }},
	{"parens", func(n int) string { return "SELECT " + strings.Repeat("(", n/2) + "1" + strings.Repeat(")", n/2) }},
	{"quotes", func(n int) string { return "SELECT " + strings.Repeat("'", n) }},
	{"double-quotes", func(n int) string { return "SELECT " + strings.Repeat(`"`, n) }},
	{"backquotes", func(n int) string { return "SELECT " + strings.Repeat("`", n) }},
	{"comment-opens", func(n int) string { return "SELECT 1 " + strings.Repeat("/*", n/2) }},
	{"comment-closes", func(n int) string { return "SELECT 1 " + strings.Repeat("*/", n/2) }},
	{"backslashes", func(n int) string { return "SELECT '" + strings.Repeat(`\`, n) + "'" }},
	{"dollars", func(n int) string { return "SELECT " + strings.Repeat("$", n) }},
	{"dollar-tags", func(n int) string { return "SELECT " + strings.Repeat("$a", n/2) }},
	{"hashes", func(n int) string { return "SELECT 1 " + strings.Repeat("#", n) }},
	{"identifier", func(n int) string { return "SELECT " + strings.Repeat("a", n) }},
	{"quoted-identifier", func(n int) string { return `SELECT "` + strings.Repeat("a", n) + `"` }},
	{"string", func(n int) string { return "SELECT '" + strings.Repeat("a", n) + "'" }},
	{"plus-chain", func(n int) string { return "SELECT " + strings.Repeat("1+", n/2) + "1" }},
	{"case", func(n int) string { return "SELECT " + strings.Repeat("CASE WHEN 1 THEN ", n/17) + "1" }},
	{"brackets", func(n int) string { return "SELECT " + strings.Repeat("ARRAY[", n/6) }},
	{"json-literal", func(n int) string { return "SELECT '" + strings.Repeat("[", n) + "'" }},
	{"and-chain", func(n int) string { return "SELECT 1 WHERE " + strings.Repeat("a=1 AND ", n/8) + "a=1" }},
	{"values", func(n int) string { return "INSERT INTO t VALUES " + strings.Repeat("(1,'x'),", n/8) + "(1,'x')" }},
	{"in-list", func(n int) string { return "SELECT 1 WHERE a IN (" + strings.Repeat("1,", n/2) + "1)" }},
	{"select-list", func(n int) string { return "SELECT " + strings.Repeat("a,", n/2) + "a FROM t" }},
	{"case-branches", func(n int) string { return "SELECT CASE " + strings.Repeat("WHEN a=1 THEN 2 ", n/16) + "END" }},
	{"statements", func(n int) string { return strings.Repeat("SELECT 1;", n/9) }},
	{"semicolons", func(n int) string { return "SELECT 1" + strings.Repeat(";", n) }},
}

// Linear fails t if run's time on some family grows superlinearly: its
// CPU time (the thread's, on Linux: a loaded machine's preemption does not
// count), the fastest of 7 samples at 2n over the fastest at n above 3.5
// (linear work gives 2; the margin absorbs a loaded machine, quadratic work
// gives 4 and more), up to six tries (load makes a try slower, never
// faster). A sample repeats run to last about 4 ms. Under the race
// detector it skips t: linearity is the algorithm's, measured without
// -race by make test, and the detector's instrumentation only re-measures
// itself (for minutes); call it last in a test.
func Linear(t *testing.T, n int, run func(sql string)) {
	t.Helper()
	if raceDetector {
		t.Skip("linearity is measured without -race (make test)")
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for _, f := range Pathologicals {
		small, large := f.Text(n), f.Text(2*n)
		reps := repetitions(small, run)
		var a, b time.Duration
		for try := 0; try < 6; try++ {
			a, b = fastest(small, reps, run), fastest(large, reps, run)
			if a > 0 && float64(b)/float64(a) <= 3.5 {
				break
			}
		}
		if r := float64(b) / float64(max(a, 1)); r > 3.5 {
			t.Errorf("%s: %v at n=%d, %v at 2n: ratio %.1f, superlinear", f.Name, a, n, b, r)
		}
	}
}

// repetitions is how many runs one sample holds so that it lasts about
// 4 ms: shorter samples measure the scheduler, not the work.
func repetitions(sql string, run func(string)) int {
	start := threadTime()
	run(sql)
	one := max(threadTime()-start, time.Microsecond)
	return int(min(max(4*time.Millisecond/one, 1), 2000))
}

// fastest is the shortest of 7 samples of reps runs each: on a shared
// machine, preemption and collection only ever add time, so the minimum
// is the estimate of the work itself.
func fastest(sql string, reps int, run func(string)) time.Duration {
	var d []time.Duration
	for range 7 {
		start := threadTime()
		for range reps {
			run(sql)
		}
		d = append(d, threadTime()-start)
	}
	return slices.Min(d)
}
