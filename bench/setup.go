package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/relchain/relchain/bench/raw"
	"github.com/relchain/relchain/bench/workload"
	"github.com/relchain/relchain/client"
	"github.com/relchain/relchain/txn"
)

// SetupWorkload creates the workload's schema and initial state through
// consensus, one bc-transaction at a time, and returns how long it took.
func SetupWorkload(ctx context.Context, node, dialect string, w workload.Workload) (time.Duration, error) {
	bcs, err := w.Setup(dialect)
	if err != nil {
		return 0, fmt.Errorf("%s setup: %w", w.Name(), err)
	}
	c, err := client.New(node, clientKey(^uint64(0), 0))
	if err != nil {
		return 0, err
	}
	t0 := time.Now()
	for i, stmts := range bcs {
		r, err := c.Exec(ctx, client.ModeCommit, stmts...)
		if err != nil {
			return 0, fmt.Errorf("%s setup bc-transaction %d of %d: %w", w.Name(), i+1, len(bcs), err)
		}
		if err := r.Err(); err != nil {
			return 0, fmt.Errorf("%s setup bc-transaction %d of %d: %w", w.Name(), i+1, len(bcs), err)
		}
	}
	return time.Since(t0), nil
}

// SetupRaw creates the workload's schema and initial state on the baseline
// database, one db-transaction per Setup bc-transaction.
func SetupRaw(ctx context.Context, db *raw.DB, w workload.Workload) error {
	bcs, err := w.Setup(db.Dialect())
	if err != nil {
		return fmt.Errorf("%s setup: %w", w.Name(), err)
	}
	c, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	for i, stmts := range bcs {
		out, err := c.Tx(ctx, [][]txn.Statement{stmts})
		if err != nil {
			return fmt.Errorf("%s raw setup %d: %w", w.Name(), i+1, err)
		}
		if !out[0].OK {
			return fmt.Errorf("%s raw setup %d: %w", w.Name(), i+1, out[0].Err)
		}
	}
	return nil
}
