//go:build testhooks

package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// UnsafeExecOutOfBand runs stmts, in order, on the database dsn names
// directly, outside the chain and outside this package's Backend (no
// block, no gate): a write by an intruder or a careless operator, which
// the capture triggers record as one. FAULT INJECTION ONLY (relchain debug
// tamper, the e2e harness's tamper perturbation), in test-hooks builds
// only.
func UnsafeExecOutOfBand(ctx context.Context, dsn string, stmts []string) error {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(context.Background())
	for _, s := range stmts {
		if _, err := conn.Exec(ctx, s); err != nil {
			return fmt.Errorf("%s: %w", s, err)
		}
	}
	return nil
}
