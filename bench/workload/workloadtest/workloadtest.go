package workloadtest

import (
	"context"
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

// Query implements workload.Querier on the committed state.
func (c *Chain) Query(ctx context.Context, sql string, args ...any) ([][]any, error) {
	rows, err := c.Chain.Query(ctx, sql, args...)
	if err != nil {
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
	if err := w.Check(context.Background(), c.Dialect, c, applied); err != nil {
		c.t.Fatalf("%s consistency on %s: %v", w.Name(), c.Dialect, err)
	}
}
