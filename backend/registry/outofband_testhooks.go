//go:build testhooks

package registry

import (
	"context"

	"github.com/relchain/relchain/backend/mysql"
	"github.com/relchain/relchain/backend/postgres"
	"github.com/relchain/relchain/backend/sqlite"
)

// A test-hooks build can run SQL outside the chain (Driver.ExecOutOfBand):
// each backend's own fault-injection hook, by the driver's name.
func init() {
	outOfBandExec["sqlite"] = func(_ context.Context, s Spec, stmts []string) error {
		return sqlite.UnsafeExecOutOfBand(s.DSN, stmts)
	}
	outOfBandExec["postgres"] = func(ctx context.Context, s Spec, stmts []string) error {
		return postgres.UnsafeExecOutOfBand(ctx, s.DSN, stmts)
	}
	outOfBandExec["mysql"] = func(ctx context.Context, s Spec, stmts []string) error {
		return mysql.UnsafeExecOutOfBand(ctx, s.DSN, stmts)
	}
}
