package bench

import (
	"context"
	"fmt"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/bench/workload"
	"github.com/relchain/relchain/client"
	"github.com/relchain/relchain/txn"
)

// execBC sends wls as one bc-transaction and waits for its block: a plain
// envelope for one wl-transaction in sync mode, a batch envelope
// otherwise. It returns one outcome per wl-transaction.
func execBC(ctx context.Context, c *client.Client, wls []workload.WL, batch bool) ([]wlOutcome, error) {
	if !batch {
		var stmts []txn.Statement
		for _, wl := range wls {
			stmts = append(stmts, wl.Statements...)
		}
		r, err := c.Exec(ctx, client.ModeCommit, stmts...)
		if err != nil {
			return nil, err
		}
		out := make([]wlOutcome, len(wls))
		for i := range out {
			out[i] = wlOutcome{Code: r.Code, Log: r.Error, Results: r.Results}
		}
		return out, nil
	}
	return nil, fmt.Errorf("pseudo-sync needs the batch client (not merged yet)")
}

var _ = api.CodeOK
