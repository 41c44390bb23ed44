package bench

import (
	"context"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/bench/workload"
	"github.com/relchain/relchain/client"
	"github.com/relchain/relchain/txn"
)

// statementsOf lists each wl-transaction's statements.
func statementsOf(wls []workload.WL) [][]txn.Statement {
	out := make([][]txn.Statement, len(wls))
	for i, wl := range wls {
		out[i] = wl.Statements
	}
	return out
}

// execBC sends wls as one bc-transaction and waits for its block: a plain
// envelope in sync mode (one wl-transaction), a batch envelope in
// pseudo-sync mode. It returns one outcome per wl-transaction.
func execBC(ctx context.Context, c *client.Client, wls []workload.WL, batch bool) ([]wlOutcome, error) {
	out := make([]wlOutcome, len(wls))
	if !batch {
		var stmts []txn.Statement
		for _, wl := range wls {
			stmts = append(stmts, wl.Statements...)
		}
		r, err := c.Exec(ctx, client.ModeCommit, stmts...)
		if err != nil {
			return nil, err
		}
		for i := range out {
			out[i] = wlOutcome{Code: r.Code, Log: r.Error, Results: r.Results}
		}
		return out, nil
	}
	r, err := c.ExecBatch(ctx, statementsOf(wls))
	if err != nil {
		return nil, err
	}
	return batchOutcomes(r.Code, r.Error, r.WL, len(wls)), nil
}

// batchOutcomes splits a batch's result into its wl-transactions'.
func batchOutcomes(code uint32, log string, wl []api.WLResult, n int) []wlOutcome {
	out := make([]wlOutcome, n)
	for i := range out {
		if code != api.CodeOK || i >= len(wl) {
			out[i] = wlOutcome{Code: code, Log: log}
			continue
		}
		out[i] = wlOutcome{Code: wl[i].Code, Results: wl[i].Results}
		if wl[i].Failure != nil {
			out[i].Log = wl[i].Failure.Class + " " + wl[i].Failure.SQLState + " " + wl[i].Failure.Reason
		}
	}
	return out
}
