package registry

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/postgres"
	"github.com/relchain/relchain/backend/postgres/pgsetup"
)

// postgresNoGate turns the gate off; set in a test-hooks build only.
var postgresNoGate postgres.Option

func postgresDriver() Driver {
	return serverDriver(Driver{Dialect: mustDialect("postgres"), Open: openPostgres, Prepare: preparePostgres, SetupSQL: postgresSetupSQL,
		CheckpointNow: func(ctx context.Context, s Spec, dir string) (backend.Checkpoint, error) {
			return postgres.CheckpointNow(ctx, s.DSN, dir)
		},
		Dump: func(ctx context.Context, s Spec, w io.Writer) (int64, error) { return postgres.Dump(ctx, s.DSN, w) }},
		postgres.Checkpoints, ServerOps{DatabaseName: postgres.DatabaseName, Restore: postgres.RestoreCheckpoint,
			Create: postgres.CreateDatabase, Drop: postgres.DropDatabase, Swap: postgres.SwapDatabases})
}

// openPostgres opens the database; the reader role comes from s.DSN (see
// pgsetup.SplitDSN).
func openPostgres(ctx context.Context, s Spec) (backend.Backend, error) {
	if err := checkSQLDialect(mustDialect("postgres"), s, 0); err != nil {
		return nil, err
	}
	opts, err := commonOptions(s, postgresNoGate, postgres.WithCheckpoints)
	if err != nil {
		return nil, err
	}
	if s.UnsafeSuperuser {
		opts = append(opts, postgres.WithUnsafeSuperuser())
	}
	if s.ReadTimeout > 0 {
		opts = append(opts, postgres.WithQueryTimeout(s.ReadTimeout))
	}
	return postgres.Open(ctx, s.DSN, opts...)
}

// preparePostgres sets the DSN a new node's relchain.toml holds for the
// PostgreSQL DSN an operator gave. A DSN that already names the node's
// least-privilege writer (a role <db>_writer, or one with a
// relchain_reader parameter) is kept. Any other is taken as an
// administrator's (a superuser's) DSN of the node's database: the
// database and the roles <db>_writer and <db>_reader are created
// (pgsetup.Provision) and the writer's DSN, with its generated password,
// replaces it. With UnsafeSuperuser the DSN is kept as it is: the node
// connects as that role (tests and benchmarks only).
func preparePostgres(ctx context.Context, s *Spec) error {
	if s.UnsafeSuperuser {
		return nil
	}
	_, reader, err := pgsetup.SplitDSN(s.DSN)
	if err != nil {
		return err
	}
	if reader != "" {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	node, err := pgsetup.Provision(ctx, s.DSN)
	if err != nil {
		return fmt.Errorf("create the node's PostgreSQL roles from the administrator's DSN: %w "+
			"(or run the SQL of `relchain init --print-pg-setup --dsn ...` as a superuser and give the writer's DSN)", err)
	}
	s.DSN = node
	return nil
}

// postgresSetupSQL is the one-time SQL that prepares dsn's database and
// its least-privilege roles (package pgsetup), ending with the init
// command that uses them.
func postgresSetupSQL(dsn string) (string, error) {
	db, err := postgres.DatabaseName(dsn)
	if err != nil {
		return "", err
	}
	if db == "" {
		return "", fmt.Errorf("--dsn %q names no database", dsn)
	}
	w, _ := pgsetup.Roles(db)
	return pgsetup.SetupSQL(db) +
		fmt.Sprintf("-- Then: relchain init --backend postgres --dsn 'postgres://%s:PASSWORD@HOST:PORT/%s?sslmode=require'\n", w, db), nil
}
