package registry

import (
	"context"
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
		Dump:              func(ctx context.Context, s Spec, w io.Writer) (int64, error) { return sqlite.Dump(ctx, s.DSN, w) },
		CheckpointNow: func(_ context.Context, s Spec, dir string) (backend.Checkpoint, error) {
			return sqlite.CheckpointNow(s.DSN, dir)
		}}
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
