package workloadtest

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/relchain/relchain/api"
	appwt "github.com/relchain/relchain/app/workloadtest"
	"github.com/relchain/relchain/bench/workload"
	"github.com/relchain/relchain/txn"
)

// Chain is one in-process validator (app/workloadtest.Chain) that runs
// workloads.
type Chain struct {
	*appwt.Chain
	t testing.TB
	// translated: the chain speaks a dialect its storage translates, so a
	// statement the translator refuses skips the test naming it (Refused).
	translated bool
	// refused is the last read Query saw refused by the translator, for
	// Check to name.
	refused string
}

// Main runs a workload package's tests and then stops the private database
// servers they may have started (app/workloadtest.Main).
func Main(m *testing.M) { appwt.Main(m) }

// NewChain returns a chain on a fresh database of dialect; it is closed
// when the test ends.
func NewChain(t testing.TB, dialect string) *Chain {
	t.Helper()
	return &Chain{Chain: appwt.NewChain(t, dialect), t: t}
}

// NewChainSpeaking returns a chain on a fresh database of storage whose
// genesis fixes the SQL dialect sql (app/workloadtest.NewChainSpeaking):
// the workloads write sql's statements (Setup, Run and Check use the
// chain's Dialect, sql), the storage runs them translated.
func NewChainSpeaking(t testing.TB, storage, sql string) *Chain {
	t.Helper()
	return NewChainAt(t, storage, sql, 0)
}

// NewChainAt is NewChainSpeaking at protocol version proto
// (app/workloadtest.NewChainAt).
func NewChainAt(t testing.TB, storage, sql string, proto uint64) *Chain {
	t.Helper()
	c := appwt.NewChainAt(t, storage, sql, proto)
	return &Chain{Chain: c, t: t, translated: c.Storage != c.Dialect}
}

// Wrap is c as a workload chain.
func Wrap(t testing.TB, c *appwt.Chain) *Chain {
	return &Chain{Chain: c, t: t, translated: c.Storage != c.Dialect}
}

// Query implements workload.Querier on the committed state.
func (c *Chain) Query(ctx context.Context, sql string, args ...any) ([][]any, error) {
	rows, err := c.Chain.Query(ctx, sql, args...)
	if err != nil {
		if c.translated && refusal(err.Error()) {
			c.refused = fmt.Sprintf("statement %q: %v", sql, err)
		}
		return nil, err
	}
	for _, r := range rows {
		for i, v := range r {
			r[i] = workload.Normalize(v)
		}
	}
	return rows, nil
}

// Setup runs the workload's Setup, each bc-transaction in its own block,
// and fails the test if one fails.
func (c *Chain) Setup(w workload.Workload) {
	c.t.Helper()
	bcs, err := w.Setup(c.Dialect)
	if err != nil {
		c.t.Fatalf("%s setup: %v", w.Name(), err)
	}
	for i, stmts := range bcs {
		if n := len(txn.Encode(&txn.Tx{ChainID: appwt.ChainID, Statements: stmts})); n > workload.MaxSetupBytes || len(stmts) > workload.MaxSetupStatements {
			c.t.Fatalf("%s setup bc-transaction %d: %d statements, %d bytes: over the limits", w.Name(), i, len(stmts), n)
		}
		r := c.Block(stmts)[0]
		if r.Code != api.CodeOK {
			c.skipRefused(w.Name()+" setup", stmts, r.Log)
			c.t.Fatalf("%s setup bc-transaction %d failed (code %d): %s", w.Name(), i, r.Code, r.Log)
		}
	}
}

// Run draws n wl-transactions from the workload's generators (clients of
// them, round robin), executes the writes perBlock to a block (one
// bc-transaction each) and the reads through Query, and returns the writes
// as applied. A write that fails without MayFail, or a read that fails,
// fails the test.
func (c *Chain) Run(w workload.Workload, seed uint64, clients, n, perBlock int) []workload.Applied {
	c.t.Helper()
	ctx := context.Background()
	gens := make([]workload.Generator, clients)
	for i := range gens {
		gens[i] = w.Generator(c.Dialect, seed, i)
	}
	var applied []workload.Applied
	var pending []workload.WL
	flush := func() {
		if len(pending) == 0 {
			return
		}
		bcs := make([][]txn.Statement, len(pending))
		for i, wl := range pending {
			bcs[i] = wl.Statements
		}
		for i, r := range c.Block(bcs...) {
			wl := pending[i]
			if r.Code != api.CodeOK {
				c.skipRefused(w.Name()+" "+wl.Kind, wl.Statements, r.Log)
			}
			if r.Code != api.CodeOK && !wl.MayFail {
				c.t.Fatalf("%s %s failed (code %d): %s", w.Name(), wl.Kind, r.Code, r.Log)
			}
			applied = append(applied, workload.Applied{WL: wl, Code: r.Code, Results: r.Results})
		}
		pending = pending[:0]
	}
	for i := 0; i < n; i++ {
		wl := gens[i%clients].Next()
		if wl.ReadOnly {
			for j, st := range wl.Statements {
				args := make([]any, len(st.Args))
				for k, a := range st.Args {
					args[k] = a.Value()
				}
				if _, err := c.Query(ctx, st.SQL, args...); err != nil {
					c.skipRefused(w.Name()+" "+wl.Kind, wl.Statements[j:j+1], "statement 1 failed: "+err.Error())
					c.t.Fatalf("%s %s statement %d: %v", w.Name(), wl.Kind, j+1, err)
				}
			}
			continue
		}
		pending = append(pending, wl)
		if len(pending) == perBlock {
			flush()
		}
	}
	flush()
	return applied
}

// Check runs the workload's consistency check and fails the test on error.
func (c *Chain) Check(w workload.Workload, applied []workload.Applied) {
	c.t.Helper()
	c.refused = ""
	if err := w.Check(context.Background(), c.Dialect, c, applied); err != nil {
		if c.refused != "" && refusal(err.Error()) {
			c.t.Skipf("%s: the translator refuses %s's consistency check's %s (the translator must add it)", c.Chain, w.Name(), c.refused)
		}
		c.t.Fatalf("%s consistency on %s: %v", w.Name(), c.Dialect, err)
	}
}

// refusal reports whether a failure's text is the translator's refusal of
// a construct it does not support (SQLSTATE 0A000, feature_not_supported).
func refusal(msg string) bool { return strings.Contains(msg, "(0A000)") }

// failedStatement finds "statement N failed" in a bc-transaction's log:
// the 1-based index of the statement that failed, or 0.
var failedStatement = regexp.MustCompile(`statement (\d+) failed`)

// skipRefused skips the test, naming the statement, when a translated
// chain's bc-transaction (what, of stmts) failed with log because the
// translator refuses a construct: a workload the translator cannot run yet
// is reported, never rewritten around.
func (c *Chain) skipRefused(what string, stmts []txn.Statement, log string) {
	c.t.Helper()
	if !c.translated || !refusal(log) {
		return
	}
	stmt := "(statement not named in the log)"
	if m := failedStatement.FindStringSubmatch(log); m != nil {
		if i, err := strconv.Atoi(m[1]); err == nil && i >= 1 && i <= len(stmts) {
			stmt = fmt.Sprintf("statement %d %q", i, stmts[i-1].SQL)
		}
	}
	c.t.Skipf("%s: the translator refuses %s's %s: %s (the translator must add it)", c.Chain, what, stmt, log)
}
