package sqlchecktest

import (
	"fmt"
	"runtime"
	"runtime/debug"
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

// Linear fails t if run's time on some family grows superlinearly (see
// growth: texts 8 times apart, a time ratio above growthLimit). Under the
// race detector it skips t: linearity is the algorithm's, measured without
// -race by make test, and the detector's instrumentation only re-measures
// itself (for minutes); call it last in a test.
func Linear(t *testing.T, n int, run func(sql string)) {
	t.Helper()
	if raceDetector {
		t.Skip("linearity is measured without -race: make test, and in CI the step after the race pass (scripts/test.sh)")
	}
	for _, f := range Pathologicals {
		g := growth(f.Text, n, run)
		t.Logf("%s: %s", f.Name, g)
		if g.ratio() > growthLimit {
			t.Errorf("%s: %s, superlinear (limit %d for a text 8 times longer)", f.Name, g, growthLimit)
		}
	}
}

// growthLimit is the time ratio between texts 8 times apart above which
// the work is superlinear. Linear work measures 8 on a quiet machine and
// up to about 21 on one loaded three times over (cache misses and page
// faults grow the larger text's time more); quadratic work measures 64.
// 32 is the middle, on a log scale, of twice linear and quadratic. Sizes
// 2 times apart (linear 2, quadratic 4, limit 3.5) left too little room:
// in CI a linear family crossed the line.
const growthLimit = 32

// measured is run's time on a text of each of two sizes.
type measured struct {
	smallBytes, largeBytes int
	small, large           time.Duration
}

func (m measured) ratio() float64 { return float64(m.large) / float64(max(m.small, 1)) }

func (m measured) String() string {
	return fmt.Sprintf("%v at %d bytes, %v at %d: ratio %.1f", m.small, m.smallBytes, m.large, m.largeBytes, m.ratio())
}

// growth measures run on text(n/2) and text(4n): its CPU time (the
// thread's, on Linux: a loaded machine's preemption does not count), the
// fastest of 5 samples each (see fastest), up to four tries while the ratio is above
// growthLimit (load makes a try slower, never faster). A sample repeats
// run to last about 4 ms.
func growth(text func(n int) string, n int, run func(sql string)) measured {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	// the collector paced by GOGC costs superlinearly while the heap is
	// below its 4 MB floor (more cycles, each marking a larger tree), and
	// under load its marking moves between background workers (not this
	// thread's time) and assists (this thread's): it runs only at a 1 GiB
	// ceiling here and between samples, marking what is live then
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(1 << 30))
	small, large := text(n/2), text(4*n)
	reps := repetitions(small, run)
	m := measured{smallBytes: len(small), largeBytes: len(large)}
	for try := 0; try < 4; try++ {
		m.small, m.large = fastest(small, large, reps, run)
		if m.ratio() <= growthLimit {
			break
		}
	}
	return m
}

// repetitions is how many runs one sample holds so that it lasts about
// 4 ms: shorter samples measure the scheduler, not the work.
func repetitions(sql string, run func(string)) int {
	start := threadTime()
	run(sql)
	one := max(threadTime()-start, time.Microsecond)
	return int(min(max(4*time.Millisecond/one, 1), 2000))
}

// fastest is the shortest of 5 samples of reps runs on each text, the
// samples of the two taken in turn so that both see the same load: on a
// shared machine, preemption and collection only ever add time, so the
// minimum is the estimate of the work itself.
func fastest(small, large string, reps int, run func(string)) (time.Duration, time.Duration) {
	var a, b []time.Duration
	for range 5 {
		a = append(a, sample(small, reps, run))
		b = append(b, sample(large, reps, run))
	}
	return slices.Min(a), slices.Min(b)
}

// sample is the CPU time of reps runs on sql, from a collected heap.
func sample(sql string, reps int, run func(string)) time.Duration {
	runtime.GC()
	start := threadTime()
	for range reps {
		run(sql)
	}
	return threadTime() - start
}
