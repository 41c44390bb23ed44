package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/internal/sqlstore"
)

// transient reports whether err says the connection to the server is gone
// or cannot be made for now (see backend.ErrDatabaseUnavailable):
//
//   - 57P01 admin_shutdown (pg_terminate_backend, a fast shutdown),
//     57P02 crash_shutdown, 57P03 cannot_connect_now (starting up or
//     shutting down), and every 08xxx connection exception;
//   - at connect only: 53300 too_many_connections (a server restarting
//     under a backlog of reconnecting clients) and 55000 (the database
//     does not accept connections for now: ALTER DATABASE …
//     ALLOW_CONNECTIONS false during maintenance);
//   - a failed dial, a closed, reset or broken connection, an
//     unexpected end of stream (backend.ConnectionLost), pgx's "conn
//     closed" (a call on a connection already found dead).
//
// Every other server error is the statement's or a node fault of
// another kind (disk full, a setting): not retried as unavailability.
func transient(err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch {
		case pgErr.Code == "57P01", pgErr.Code == "57P02", pgErr.Code == "57P03":
			return true
		case len(pgErr.Code) == 5 && pgErr.Code[:2] == "08":
			return true
		case pgErr.Code == "53300", pgErr.Code == "55000":
			var ce *pgconn.ConnectError
			return errors.As(err, &ce)
		}
		return false
	}
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) {
		return true // dial or startup failed without a server error
	}
	// pgx's "conn closed" and "conn busy": raised before anything was
	// sent on a connection found dead.
	if pgconn.SafeToRetry(err) {
		return true
	}
	return backend.ConnectionLost(err)
}

// unavailable classifies err (see backend.ClassifyUnavailable).
func unavailable(ctx context.Context, err error) error {
	return backend.ClassifyUnavailable(ctx, err, transient)
}

// classified is the Block Begin hands out: ctxBlock's errors classified.
func classified(k *block) backend.Block {
	return canonClassified{sqlstore.ClassifiedBlock{Inner: ctxBlock{k}, Transient: transient}}
}

// RecordedState implements backend.Backend: on the writer's session
// (connected again if it was lost), it takes a SHARE lock on relchain.meta,
// which waits for any db-transaction that wrote the row and has not ended
// (a lost writer session whose COMMIT the server is still running: the
// block's Commit writes the row before it sends COMMIT), then reads the
// row the last committed db-transaction left.
func (b *Backend) RecordedState(ctx context.Context) (backend.State, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := sqlstore.CheckBegin("postgres", b.closed, b.open != nil); err != nil {
		return backend.State{}, err
	}
	if b.writer != nil && b.writer.IsClosed() {
		b.writer = nil
	}
	if b.writer == nil {
		conn, err := pgx.ConnectConfig(ctx, b.writerCfg)
		if err != nil {
			return backend.State{}, unavailable(ctx, fmt.Errorf("postgres: recorded state: connect writer: %w", err))
		}
		b.writer = conn
	}
	s, err := readRecordedState(ctx, b.writer)
	if err != nil {
		b.dropWriter()
		return backend.State{}, unavailable(ctx, fmt.Errorf("postgres: recorded state: %w", err))
	}
	return s, nil
}

// readRecordedState reads relchain.meta under a SHARE lock (see
// RecordedState) in a db-transaction of its own.
func readRecordedState(ctx context.Context, conn *pgx.Conn) (backend.State, error) {
	tx, err := conn.Begin(ctx)
	if err != nil {
		return backend.State{}, err
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	if _, err := tx.Exec(ctx, "LOCK TABLE relchain.meta IN SHARE MODE"); err != nil {
		return backend.State{}, err
	}
	s := backend.State{AppHash: []byte{}}
	err = tx.QueryRow(ctx, `SELECT height, app_hash FROM relchain.meta WHERE id = 1`).Scan(&s.Height, &s.AppHash)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return backend.State{}, err
	}
	if s.AppHash == nil {
		s.AppHash = []byte{}
	}
	return s, tx.Commit(ctx)
}
