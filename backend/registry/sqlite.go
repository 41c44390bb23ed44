package registry

import (
	"context"
	"fmt"
	"io"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/sqlite"
	"github.com/relchain/relchain/backend/sqlite/pgdialect"
)

// sqliteNoGate turns the gate off; set in a test-hooks build only.
var sqliteNoGate sqlite.Option

func sqliteDriver() Driver {
	return Driver{Dialect: mustDialect("sqlite"), Open: openSQLite, Checkpoints: sqlite.Checkpoints,
		TranslatorVersion: pgdialect.Version,
		Dump:              dumpSQLite,
		CheckpointNow: func(_ context.Context, s Spec, dir string) (backend.Checkpoint, error) {
			return sqlite.CheckpointNow(s.DSN, dir)
		}}
}

// dumpSQLite dumps the database s locates in its network's SQL dialect:
// SQLite's SQL, or PostgreSQL's for a postgres-dialect network (genesis
// sql_dialect), whose translation version this binary must implement.
func dumpSQLite(ctx context.Context, s Spec, w io.Writer) (int64, error) {
	d := mustDialect("sqlite")
	if err := checkSQLDialect(d, s, pgdialect.Version); err != nil {
		return 0, fmt.Errorf("dump: %w", err)
	}
	if d.Translated(s.SQLDialect) {
		return sqlite.DumpPostgres(ctx, s.DSN, w)
	}
	return sqlite.Dump(ctx, s.DSN, w)
}

func openSQLite(ctx context.Context, s Spec) (backend.Backend, error) {
	d := mustDialect("sqlite")
	if err := checkSQLDialect(d, s, pgdialect.Version); err != nil {
		return nil, err
	}
	opts, err := commonOptions(s, sqliteNoGate, sqlite.WithCheckpoints)
	if err != nil {
		return nil, err
	}
	if d.Translated(s.SQLDialect) {
		opts = append(opts, sqlite.WithPostgresDialect())
	}
	if s.ReadTimeout > 0 {
		opts = append(opts, sqlite.WithReadTimeout(s.ReadTimeout))
	}
	return sqlite.Open(ctx, s.DSN, opts...)
}
