//go:build testhooks

package mysql

import (
	"context"
	"database/sql"
	"fmt"

	gomysql "github.com/go-sql-driver/mysql"
)

// UnsafeExecOutOfBand runs stmts, in order, on the database dsn names
// directly, outside the chain and outside this package's Backend (no
// block, no gate): a write by an intruder or a careless operator, which
// the capture triggers record as one. FAULT INJECTION ONLY (relchain debug
// tamper, the e2e harness's tamper perturbation), in test-hooks builds
// only.
func UnsafeExecOutOfBand(ctx context.Context, dsn string, stmts []string) error {
	cfg, err := gomysql.ParseDSN(dsn)
	if err != nil {
		return fmt.Errorf("parse DSN: %w", err)
	}
	conn, err := gomysql.NewConnector(cfg)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	db := sql.OpenDB(conn)
	defer db.Close()
	for _, s := range stmts {
		if _, err := db.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("%s: %w", s, err)
		}
	}
	return nil
}
