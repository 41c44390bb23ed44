package postgres

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/postgres/pgsetup"
)

// checkpointExt is the extension of PostgreSQL checkpoints (pg_dump's
// custom format).
const checkpointExt = ".dump"

// Checkpoints lists the PostgreSQL checkpoints in dir, newest first.
func Checkpoints(dir string) ([]backend.Checkpoint, error) {
	return backend.ListCheckpoints(dir, checkpointExt)
}

// dumpSnapshot runs pg_dump into the file path on the snapshot of a
// REPEATABLE READ transaction and returns the height committed in it.
func (b *Backend) dumpSnapshot(ctx context.Context, path string) (int64, error) {
	return dumpSnapshot(ctx, b.writerCfg.Copy(), b.dsn, path)
}

// CheckpointNow dumps the database of a node's DSN (its writer's, as in
// relchain.toml) into dir at once (backend.TakeCheckpointNow), in one
// snapshot as the background checkpoints do: a running node goes on
// committing blocks. Nothing is pruned.
func CheckpointNow(ctx context.Context, dsn, dir string) (backend.Checkpoint, error) {
	writerDSN, _, err := pgsetup.SplitDSN(dsn)
	if err != nil {
		return backend.Checkpoint{}, err
	}
	cfg, err := writerConfig(writerDSN)
	if err != nil {
		return backend.Checkpoint{}, err
	}
	return backend.TakeCheckpointNow(dir, checkpointExt, func(tmp string) (int64, error) {
		return dumpSnapshot(ctx, cfg, writerDSN, tmp)
	})
}

// dumpSnapshot runs pg_dump of dsn into the file path on the snapshot of a
// REPEATABLE READ transaction on a connection of cfg and returns the height
// committed in it.
func dumpSnapshot(ctx context.Context, cfg *pgx.ConnConfig, dsn, path string) (int64, error) {
	pgDump, err := clientBinary("pg_dump")
	if err != nil {
		return 0, err
	}
	cfg.RuntimeParams["statement_timeout"] = "0"
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return 0, fmt.Errorf("checkpoint: connect: %w", err)
	}
	defer conn.Close(context.Background())
	tx, err := conn.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return 0, fmt.Errorf("checkpoint: %w", err)
	}
	defer tx.Rollback(context.Background())
	var snapshot string
	var height int64
	if err := tx.QueryRow(ctx, `SELECT pg_export_snapshot(), coalesce((SELECT height FROM relchain.meta WHERE id = 1), 0)`).Scan(&snapshot, &height); err != nil {
		return 0, fmt.Errorf("checkpoint: export snapshot: %w", err)
	}
	_ = os.Remove(path)
	// No owners or privileges: they name this node's roles, which another
	// node restoring the dump (state sync) does not have.
	out, err := exec.CommandContext(ctx, pgDump, "--format=custom", "--no-owner", "--no-privileges", "--snapshot="+snapshot,
		"--exclude-table-data=relchain.history_blocks", "--exclude-table-data=relchain.history_versions",
		"--exclude-table-data=relchain.history_states", "--exclude-table-data=relchain.history_roots", // the node's own (history.go)
		"--file="+path, "--dbname="+dsn).CombinedOutput()
	if err != nil {
		return 0, fmt.Errorf("checkpoint: pg_dump: %w: %s", err, out)
	}
	return height, nil
}

// CheckpointError is the error of the last background pg_dump, if it
// failed (blocks went on).
func (b *Backend) CheckpointError() error { return b.ckpt.CheckpointError() }

// WaitCheckpoint waits for a running pg_dump to finish.
func (b *Backend) WaitCheckpoint() { b.ckpt.WaitCheckpoint() }

// LastCheckpoint is the last finished background checkpoint (metrics).
func (b *Backend) LastCheckpoint() backend.CheckpointRun { return b.ckpt.LastCheckpoint() }

// RestoreCheckpoint restores the dump cp into a new database named db on
// the server of dsn (dropping one of that name first) and returns that
// database's DSN. Verifying it is the caller's business.
func RestoreCheckpoint(ctx context.Context, dsn string, cp backend.Checkpoint, db string) (string, error) {
	pgRestore, err := clientBinary("pg_restore")
	if err != nil {
		return "", err
	}
	target, err := CreateDatabase(ctx, dsn, db)
	if err != nil {
		return "", fmt.Errorf("restore checkpoint %d: %w", cp.Height, err)
	}
	// The restoring role (the node's writer) owns everything restored; Open
	// grants the reader its privileges. Dumps of older versions name the
	// superuser and other nodes' roles as owners.
	out, err := exec.CommandContext(ctx, pgRestore, "--exit-on-error", "--single-transaction", "--no-owner", "--no-privileges",
		"--dbname="+target, cp.Path).CombinedOutput()
	if err != nil {
		_ = DropDatabase(context.Background(), dsn, db)
		return "", fmt.Errorf("restore checkpoint %d: pg_restore: %w: %s", cp.Height, err, out)
	}
	return target, nil
}

// CreateDatabase makes a new, empty database named db on the server of
// dsn (dropping one of that name first) as relchain's databases are made
// (UTF8, collation C), and returns its DSN: a database of another engine
// is restored into it (dbrestore.Fill).
func CreateDatabase(ctx context.Context, dsn, db string) (string, error) {
	maint, err := maintenance(ctx, dsn)
	if err != nil {
		return "", err
	}
	defer maint.Close(context.Background())
	name := pgx.Identifier{db}.Sanitize()
	for _, sql := range []string{
		"DROP DATABASE IF EXISTS " + name + " WITH (FORCE)",
		"CREATE DATABASE " + name + " TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'",
	} {
		if _, err := maint.Exec(ctx, sql); err != nil {
			return "", fmt.Errorf("create database %s: %w", db, err)
		}
	}
	return withDatabase(dsn, db)
}

// SwapDatabases renames the database of dsn to replaced and staged to the
// database of dsn, ending every session of both first.
func SwapDatabases(ctx context.Context, dsn, staged, replaced string) error {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return fmt.Errorf("postgres: parse dsn: %w", err)
	}
	maint, err := maintenance(ctx, dsn)
	if err != nil {
		return err
	}
	defer maint.Close(context.Background())
	if err := endSessions(ctx, maint, cfg.Database, staged); err != nil {
		return fmt.Errorf("swap databases: %w", err)
	}
	for _, sql := range []string{
		"ALTER DATABASE " + pgx.Identifier{cfg.Database}.Sanitize() + " RENAME TO " + pgx.Identifier{replaced}.Sanitize(),
		"ALTER DATABASE " + pgx.Identifier{staged}.Sanitize() + " RENAME TO " + pgx.Identifier{cfg.Database}.Sanitize(),
	} {
		if _, err := maint.Exec(ctx, sql); err != nil {
			return fmt.Errorf("swap databases: %w", err)
		}
	}
	return nil
}

// endSessions ends every session of the databases dbs and waits (up to
// 10 s) until the server lists none: a session the node closed a moment
// before may still be listed while its process exits. Only sessions of
// roles whose privileges maint's role has are signalled (a process of
// another role makes pg_terminate_backend fail the whole statement, as
// an exiting reader session did in CI); one that stays makes the rename
// fail, naming the database in use.
func endSessions(ctx context.Context, maint *pgx.Conn, dbs ...string) error {
	const others = `FROM pg_stat_activity WHERE datname = ANY($1) AND pid <> pg_backend_pid()`
	if _, err := maint.Exec(ctx, `SELECT pg_terminate_backend(pid) `+others+` AND pg_has_role(usesysid, 'USAGE')`, dbs); err != nil {
		return err
	}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		var n int
		if err := maint.QueryRow(ctx, `SELECT count(*) `+others, dbs).Scan(&n); err != nil || n == 0 {
			return err
		}
	}
	return nil
}

// DropDatabase drops the database db on the server of dsn.
func DropDatabase(ctx context.Context, dsn, db string) error {
	maint, err := maintenance(ctx, dsn)
	if err != nil {
		return err
	}
	defer maint.Close(context.Background())
	_, err = maint.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{db}.Sanitize()+" WITH (FORCE)")
	return err
}

// maintenance connects to the "postgres" database of dsn's server.
func maintenance(ctx context.Context, dsn string) (*pgx.Conn, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("postgres: parse dsn: %w", err)
	}
	cfg.Database = "postgres"
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres: connect to the maintenance database: %w", err)
	}
	return conn, nil
}

// withDatabase returns dsn (a URL) naming database db instead.
func withDatabase(dsn, db string) (string, error) {
	u, err := url.Parse(dsn)
	if err != nil || u.Scheme == "" {
		return "", fmt.Errorf("postgres: checkpoints need a URL DSN (postgres://…), not %q", dsn)
	}
	u.Path = "/" + db
	return u.String(), nil
}

// DatabaseName is the database a DSN names.
func DatabaseName(dsn string) (string, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return "", fmt.Errorf("postgres: parse dsn: %w", err)
	}
	return cfg.Database, nil
}

// clientBinary finds a PostgreSQL client program: on PATH, else in the
// newest /usr/lib/postgresql/<version>/bin.
func clientBinary(name string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	matches, _ := filepath.Glob(filepath.Join("/usr/lib/postgresql", "*", "bin", name))
	if len(matches) == 0 {
		return "", fmt.Errorf("checkpoint: %s not found on PATH or under /usr/lib/postgresql: %w", name, errors.ErrUnsupported)
	}
	sort.Strings(matches)
	return matches[len(matches)-1], nil
}

// SizeBytes is the database's size on disk (pg_database_size), read on
// the readers' pool: for operators (metrics), never for a block.
func (b *Backend) SizeBytes(ctx context.Context) (int64, error) {
	var n int64
	if err := b.pool.QueryRow(ctx, "SELECT pg_database_size(current_database())").Scan(&n); err != nil {
		return 0, fmt.Errorf("database size: %w", err)
	}
	return n, nil
}
