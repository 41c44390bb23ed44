package registry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/mysql"
	"github.com/relchain/relchain/backend/mysql/pgdialect"
)

// mysqlNoGate turns the gate off; set in a test-hooks build only.
var mysqlNoGate mysql.Option

func mysqlDriver() Driver {
	return serverDriver(Driver{Dialect: mustDialect("mysql"), TranslatorVersion: pgdialect.Version, Open: openMySQL,
		SchemaJudge: func() backend.SchemaJudge { return mysql.NewSchemaJudge() }, Prepare: prepareMySQL, CheckpointNow: mysqlCheckpointNow,
		Dump: dumpMySQL},
		mysql.Checkpoints, ServerOps{DatabaseName: mysql.DatabaseName, Restore: mysql.RestoreCheckpoint, Create: mysql.CreateDatabase,
			Drop: mysql.DropDatabase, Swap: mysql.SwapDatabases})
}

// dumpMySQL dumps the database s locates in its network's SQL dialect:
// MariaDB's SQL, or PostgreSQL's for a postgres-dialect network (genesis
// sql_dialect), whose translation version this binary must implement, so
// that the dump of a MariaDB validator is the text a PostgreSQL or SQLite
// validator's is (issue 37: relchain migrate from MariaDB, portable
// checkpoints).
func dumpMySQL(ctx context.Context, s Spec, w io.Writer) (int64, error) {
	d := mustDialect("mysql")
	if err := checkSQLDialect(d, s, pgdialect.Version); err != nil {
		return 0, fmt.Errorf("dump: %w", err)
	}
	if d.Translated(s.SQLDialect) {
		return mysql.DumpPostgres(ctx, s.DSN, w)
	}
	return mysql.Dump(ctx, s.DSN, w)
}

// openMySQL opens the database with Query on s.ReaderDSN's account, if
// given.
func openMySQL(ctx context.Context, s Spec) (backend.Backend, error) {
	d := mustDialect("mysql")
	if err := checkSQLDialect(d, s, pgdialect.Version); err != nil {
		return nil, err
	}
	opts, err := commonOptions(s, mysqlNoGate, mysql.WithCheckpoints)
	if err != nil {
		return nil, err
	}
	if d.Translated(s.SQLDialect) {
		opts = append(opts, mysql.WithPostgresDialect())
	}
	if s.ReaderDSN != "" {
		opts = append(opts, mysql.WithReaderDSN(s.ReaderDSN))
	}
	if s.UnsafeSuperuser {
		opts = append(opts, mysql.WithUnsafeSuperuser())
	}
	if s.ReadTimeout > 0 {
		opts = append(opts, mysql.WithQueryTimeout(s.ReadTimeout))
	}
	return mysql.Open(ctx, s.DSN, opts...)
}

// mysqlCheckpointNow opens the database as a node (or verify) does, without
// scheduled checkpoints, and dumps it at once into dir.
func mysqlCheckpointNow(ctx context.Context, s Spec, dir string) (backend.Checkpoint, error) {
	s.Checkpoints = Checkpoints{}
	be, err := openMySQL(ctx, s)
	if err != nil {
		return backend.Checkpoint{}, err
	}
	defer be.Close()
	return be.(*mysql.Backend).CheckpointNow(ctx, dir)
}

// prepareMySQL turns the administrator's DSN of a new MySQL/MariaDB node
// into the node's least-privilege accounts: it creates the database and a
// writer and a reader account (mysql.SetupAccounts) and points s at them.
// A DSN whose account may not create accounts is kept as it is (an
// operator's own least-privilege account; the node checks its privileges
// when it starts), as is a Spec that already has a ReaderDSN.
func prepareMySQL(ctx context.Context, s *Spec) error {
	if s.ReaderDSN != "" {
		return nil
	}
	db, err := mysql.DatabaseName(s.DSN)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	w, r, err := mysql.SetupAccounts(ctx, s.DSN, db)
	var me *gomysql.MySQLError
	if errors.As(err, &me) && (me.Number == 1044 || me.Number == 1227 || me.Number == 1142 || me.Number == 1410) {
		return nil // not an administrator: the DSN is the operator's own account
	}
	if err != nil {
		return fmt.Errorf("create the node's database accounts: %w", err)
	}
	s.DSN, s.ReaderDSN = w, r
	return nil
}
