package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/relchain/relchain/backend/postgres/pgsetup"
)

// WithoutGate turns the gate off, for tests (withoutGate).
func WithoutGate() Option { return withoutGate() }

// WithTruncatedChanges is withTruncatedChanges, for BenchmarkCapture.
func WithTruncatedChanges() Option { return withTruncatedChanges() }

// RowImages is every row image of table ident, in the current format, in
// the order of ident's first column.
func RowImages(ctx context.Context, dsn, ident string) ([]string, error) {
	conn, err := writerConn(ctx, dsn)
	if err != nil {
		return nil, err
	}
	defer conn.Close(context.Background())
	rows, err := conn.Query(ctx, scanTableSQL(ident, imagesText)+" ORDER BY 1")
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// DowngradeImages makes the database of dsn (which no Backend has open)
// one that a relchain before row image format 2 left: its table sums are
// those of row_to_json images and relchain.format has no row.
func DowngradeImages(ctx context.Context, dsn string) error {
	conn, err := writerConn(ctx, dsn)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	tx, err := conn.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(context.Background())
	tables, err := scanTables(ctx, tx, imagesJSON)
	if err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "DELETE FROM relchain.digest; DELETE FROM relchain.format"); err != nil {
		return err
	}
	for name, sum := range tables {
		if _, err := tx.Exec(ctx, "INSERT INTO relchain.digest (tbl, sum) VALUES ($1, $2)", name, sum[:]); err != nil {
			return err
		}
	}
	return tx.Commit(ctx)
}

func writerConn(ctx context.Context, dsn string) (*pgx.Conn, error) {
	writerDSN, _, err := pgsetup.SplitDSN(dsn)
	if err != nil {
		return nil, err
	}
	cfg, err := writerConfig(writerDSN)
	if err != nil {
		return nil, err
	}
	return pgx.ConnectConfig(ctx, cfg)
}

// SetLaneCommitHook sets the function a parallel block's Commit calls at
// each of its crash points (lanes.go), nil to clear it.
func SetLaneCommitHook(f func(step string, lane int)) { laneCommitHook = f }

// TryPublish takes b's read gate as a parallel block's Commit does, if it
// is free now.
func TryPublish(b *Backend) (unlock func(), ok bool) { return b.laneGate.TryPublish() }

// HoldReader takes a connection of b's reader pool until release.
func HoldReader(ctx context.Context, b *Backend) (release func(), err error) {
	c, err := b.pool.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	return c.Release, nil
}

// DatabaseOf is the database a node's DSN names.
func DatabaseOf(dsn string) (string, error) {
	writerDSN, _, err := pgsetup.SplitDSN(dsn)
	if err != nil {
		return "", err
	}
	cfg, err := pgx.ParseConfig(writerDSN)
	if err != nil {
		return "", err
	}
	return cfg.Database, nil
}

// blockStatementsSQL lists a session's prepared block statements
// (blockStmts names them relchain_b<n>), by text.
const blockStatementsSQL = `SELECT statement FROM pg_catalog.pg_prepared_statements
	WHERE name LIKE 'relchain\_b%' ORDER BY statement`

// WriterStatements are the block statements prepared on the writer's
// session.
func WriterStatements(ctx context.Context, b *Backend) ([]string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return sessionStatements(ctx, b.writer)
}

// LaneStatements are, per kept lane connection, the block statements
// prepared on it.
func LaneStatements(ctx context.Context, b *Backend) ([][]string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out [][]string
	for _, lc := range b.laneConns {
		s, err := sessionStatements(ctx, lc.conn)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

func sessionStatements(ctx context.Context, conn *pgx.Conn) ([]string, error) {
	rows, err := conn.Query(ctx, blockStatementsSQL, pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}
