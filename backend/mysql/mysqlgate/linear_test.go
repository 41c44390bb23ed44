package mysqlgate

import (
	"strings"
	"testing"

	"github.com/relchain/relchain/sqlcheck/sqlchecktest"
)

// Issue 32, reproduction 2: Tokens (the MySQL backend's reading of every
// statement) restarted the tokenizer after each "--" that MySQL reads as
// two minus signs, and each restart read to the end of the line: a run of
// '-' took quadratic time (40,000: 6.4 s), and one 120 KB tx stalled the
// network. Its work is now linear on every pathological family: at most a
// few tokenizer passes over the text, at n as at 2n.
func TestTokensLinear(t *testing.T) {
	const n = 1 << 14
	for _, f := range sqlchecktest.Pathologicals {
		for _, size := range []int{n, 2 * n} {
			sql := f.Text(size)
			if _, _, work := tokens(sql); work > (maxRestartWork+1)*len(sql)+4096 {
				t.Errorf("%s at %d bytes: the tokenizer was handed %d bytes", f.Name, len(sql), work)
			}
		}
	}
	sql := strings.Repeat("-", 120_000)
	toks, ok, work := tokens(sql)
	if !ok || len(toks) != len(sql)-2 || work > len(sql) { // the last "--" is a comment
		t.Fatalf("120,000 '-': %d tokens, ok %v, work %d", len(toks), ok, work)
	}
}

// TestDashRunRefused: the 120 KB run of '-' of reproduction 2 is refused
// by the pre-scan (120,000 nested minus signs), before any tokenizer.
func TestDashRunRefused(t *testing.T) {
	err := check(strings.Repeat("-", 120_000))
	if err == nil || !strings.Contains(err.Error(), "nesting depth 119998 exceeds relchain's limit of 128") {
		t.Fatalf("Check = %v", err)
	}
	if err := check("SELECT 1 // 2"); err == nil || !strings.Contains(err.Error(), `"//"`) {
		t.Fatalf(`Check("SELECT 1 // 2") = %v`, err)
	}
}

// TestLinear: the gate's work is linear in the text on every pathological
// family.
func TestLinear(t *testing.T) {
	sqlchecktest.Linear(t, 1<<16, func(sql string) { _ = check(sql) })
	sqlchecktest.Linear(t, 1<<16, func(sql string) { _, _ = Tokens(sql) })
}
