package sqlite

import (
	"context"
	"fmt"
	"strings"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/sqlcheck"
)

// Gate implements backend.Backend: SQLite's gate judges the statement
// SQLite compiles, through the authorizer (gate.go), on a read connection
// (committed state) or on the block's writer (the block's state).
func (b *Backend) Gate() backend.Gate {
	if b.opts.pg {
		return pgGate{b}
	}
	return verdictGate{b}
}

// Capabilities implements backend.Backend: SQLite rolls DDL back with the
// block; with WithPostgresDialect it takes PostgreSQL's SQL.
func (b *Backend) Capabilities() backend.Capabilities {
	c := backend.Capabilities{TransactionalDDL: true}
	if b.opts.pg {
		c.SQLDialect = b.sqlDialect()
	}
	return c
}

// verdictGate is the Backend's backend.Gate.
type verdictGate struct{ b *Backend }

func (g verdictGate) Analyze(ctx context.Context, sql string) (sqlcheck.Analysis, error) {
	return g.b.analyze(ctx, sql)
}

func (g verdictGate) AnalyzeInBlock(ctx context.Context, blk backend.Block, sql string) (sqlcheck.Analysis, error) {
	k, ok := blk.(*block)
	if !ok || k.b != g.b {
		return sqlcheck.Analysis{}, fmt.Errorf("sqlite: gate: %T is not a block of this backend", blk)
	}
	return k.analyze(ctx, sql)
}

// TableName folds case (SQLite's names are case-insensitive) and drops the
// main schema's qualifier.
func (verdictGate) TableName(name string) string {
	return strings.TrimPrefix(strings.ToLower(name), "main.")
}
