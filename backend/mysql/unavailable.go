package mysql

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/internal/sqlstore"
)

// transient reports whether err says the connection to the server is gone
// or cannot be made for now (see backend.ErrDatabaseUnavailable): the
// server errors 2006 (server has gone away), 2013 (lost connection), 1053
// (server shutdown in progress), 1927 (connection killed, MariaDB), 3169
// (session killed, MySQL), 4031 (disconnected by the server), 1040 (too
// many connections, while clients reconnect) and 1158..1161 (network read
// and write errors); the driver's "invalid connection" and "commands out
// of sync", driver.ErrBadConn, and every transport failure
// (backend.ConnectionLost). A COMMIT that fails so is ambiguous: see
// Backend.RecordedState.
func transient(err error) bool {
	switch mysqlNumber(err) {
	case 0:
	case 2006, 2013, 1053, 1927, 3169, 4031, 1040, 1158, 1159, 1160, 1161:
		return true
	default:
		return false
	}
	if errors.Is(err, gomysql.ErrInvalidConn) || errors.Is(err, gomysql.ErrPktSync) || errors.Is(err, gomysql.ErrPktSyncMul) {
		return true
	}
	return backend.ConnectionLost(err)
}

// unavailable classifies err (see backend.ClassifyUnavailable).
func unavailable(ctx context.Context, err error) error {
	return backend.ClassifyUnavailable(ctx, err, transient)
}

// classified is the Block Begin hands out: k's errors classified.
func classified(k *block) backend.Block {
	return canonBlock{ClassifiedBlock: sqlstore.ClassifiedBlock{Inner: k, Transient: transient}, k: k}
}

// errLockWaitResolve: a lock wait timeout while RecordedState waits for
// a lost session's db-transaction; it is retried like unavailability.
const errLockWaitResolve = errLockWaitTimeout

// RecordedState implements backend.Backend: on a writer connection (a
// new one if the last was lost), in a db-transaction of its own, it reads
// relchain_meta's row with a locking read, which waits for any
// db-transaction that wrote the row and has not ended (a lost writer
// session whose COMMIT the server is still running: the block's Commit
// writes the row before it sends COMMIT; a killed session's rollback),
// then returns the row as committed.
func (b *Backend) RecordedState(ctx context.Context) (backend.State, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := sqlstore.CheckBegin("mysql", b.closed, b.open != nil); err != nil {
		return backend.State{}, err
	}
	conn, err := b.writer.Conn(ctx)
	if err != nil {
		return backend.State{}, unavailable(ctx, fmt.Errorf("mysql: recorded state: connect writer: %w", err))
	}
	s, err := readRecordedState(ctx, conn)
	if err != nil {
		_ = conn.Raw(func(any) error { return driver.ErrBadConn })
		conn.Close()
		if mysqlNumber(err) == errLockWaitResolve {
			return backend.State{}, backend.Unavailable(fmt.Errorf("mysql: recorded state: waiting for the lost session's db-transaction: %w", err))
		}
		return backend.State{}, unavailable(ctx, fmt.Errorf("mysql: recorded state: %w", err))
	}
	conn.Close()
	return s, nil
}

// readRecordedState reads relchain_meta FOR UPDATE in a db-transaction of
// its own (see RecordedState).
func readRecordedState(ctx context.Context, conn *sql.Conn) (backend.State, error) {
	if _, err := conn.ExecContext(ctx, "START TRANSACTION"); err != nil {
		return backend.State{}, err
	}
	s := backend.State{AppHash: []byte{}}
	err := conn.QueryRowContext(ctx, `SELECT height, app_hash FROM relchain_meta WHERE id = 1 FOR UPDATE`).Scan(&s.Height, &s.AppHash)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		_, _ = conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
		return backend.State{}, err
	}
	if s.AppHash == nil {
		s.AppHash = []byte{}
	}
	if _, err := conn.ExecContext(ctx, "COMMIT"); err != nil {
		return backend.State{}, err
	}
	return s, nil
}
