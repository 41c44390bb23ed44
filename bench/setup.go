package bench

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"time"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/bench/raw"
	"github.com/relchain/relchain/bench/workload"
	"github.com/relchain/relchain/client"
	"github.com/relchain/relchain/txn"
)

// SetupWorkload creates the workload's schema and initial state through
// consensus, one bc-transaction at a time, and returns how long it took.
// It returns once the node's application has committed the last of them:
// a client learns that a block is final (and its results) before the
// application's Commit has finished, and a measurement must not start
// while a setup block is still being committed.
//
// admin signs the setup (nil: a key of the benchmark's own; enough on an
// open network). On a permissioned network admin must be an admin key, and
// it also grants every benchmark client (Config.Clients of them) write
// access to every table.
func SetupWorkload(ctx context.Context, node string, cfg Config, w workload.Workload, admin ed25519.PrivateKey) (time.Duration, error) {
	bcs, err := w.Setup(cfg.Dialect)
	if err != nil {
		return 0, fmt.Errorf("%s setup: %w", w.Name(), err)
	}
	if cfg.DDLAloneOn != "" {
		bcs = workload.DDLAlone(cfg.DDLAloneOn, bcs)
	}
	if admin == nil {
		admin = clientKey(^uint64(0), 0)
	} else {
		grants := make([]txn.Statement, 0, max(cfg.Clients, 1))
		for i := 0; i < max(cfg.Clients, 1); i++ {
			grants = append(grants, client.GrantWrite(clientKey(cfg.Seed, i).Public().(ed25519.PublicKey), api.AllTables))
		}
		bcs = append([][]txn.Statement{grants}, bcs...)
	}
	c, err := client.New(node, admin)
	if err != nil {
		return 0, err
	}
	t0 := time.Now()
	var last int64
	for i, stmts := range bcs {
		r, err := c.Exec(ctx, client.ModeCommit, stmts...)
		if err != nil {
			hint := ""
			if errors.Is(err, client.ErrQuarantined) {
				hint = " (the validators could not run this setup step within their [block] tx_timeout: a smaller --scale, or a larger tx_timeout in each node's relchain.toml)"
			}
			return 0, fmt.Errorf("%s setup bc-transaction %d of %d: %w%s", w.Name(), i+1, len(bcs), err, hint)
		}
		if err := r.Err(); err != nil {
			hint := ""
			if r.Code == api.CodeExecFailed {
				hint = " (does the network already hold this workload's tables? benchmark a fresh network)"
			}
			return 0, fmt.Errorf("%s setup bc-transaction %d of %d: %w%s", w.Name(), i+1, len(bcs), err, hint)
		}
		last = r.Height
	}
	for {
		h, err := latestHeight(ctx, c)
		if err != nil {
			return 0, err
		}
		if h >= last {
			break
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(20 * time.Millisecond):
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
