package mysql

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"

	"github.com/relchain/relchain/backend"
	mycheck "github.com/relchain/relchain/backend/mysql/mysqlgate"
)

// snapshot takes a connection of pool (Query's readers, or the internal
// pool for state reads), opens a read-only transaction with
// a consistent snapshot (REPEATABLE READ, pinned on readers) and reads the
// committed height in it.
func (b *Backend) snapshot(ctx context.Context, pool *sql.DB) (*sql.Conn, int64, error) {
	conn, err := pool.Conn(ctx)
	if err != nil {
		return nil, 0, err
	}
	unlock := b.readGate()
	_, err = conn.ExecContext(ctx, "START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY")
	unlock()
	if err != nil {
		discard(conn)
		return nil, 0, err
	}
	var height int64
	if err := conn.QueryRowContext(ctx, "SELECT COALESCE((SELECT height FROM relchain_meta WHERE id = 1), 0)").Scan(&height); err != nil {
		b.endSnapshot(conn)
		return nil, 0, err
	}
	return conn, height, nil
}

// endSnapshot rolls the read transaction back and returns the connection,
// or discards it if that fails.
func (b *Backend) endSnapshot(conn *sql.Conn) {
	if _, err := conn.ExecContext(context.Background(), "ROLLBACK"); err != nil {
		discard(conn)
		return
	}
	conn.Close()
}

// discard closes a connection whose state is unknown instead of pooling it.
func discard(conn *sql.Conn) {
	_ = conn.Raw(func(any) error { return driver.ErrBadConn })
	conn.Close()
}

// Query implements backend.Backend. The statement runs in a read-only
// transaction with a consistent snapshot that also reads the height, so
// rows and height describe the same committed state. Only queries run
// (SELECT, WITH, VALUES, TABLE): MySQL commits DDL implicitly, even in a
// read-only transaction, so a write is refused before it is sent; the
// READ ONLY transaction refuses DML as a backstop. A PostgreSQL catalog
// query (pgcatalog.Wants, catalogText) is answered from the emulated catalog
// (catalogQuery), before the gate: never by MySQL's own information_schema.
func (b *Backend) Query(ctx context.Context, sql string, args []any) (*backend.Rows, int64, error) {
	if text, ok := catalogText(sql); ok {
		return b.catalogQuery(ctx, text, args)
	}
	if b.opts.pg {
		return b.queryPostgres(ctx, sql, args)
	}
	// Reads pass the gate too: abci_query is open to anyone who reaches
	// a node, and the gate is what refuses executable comments
	// (/*! ... */), LOAD_FILE, INTO OUTFILE, locking reads, system schemas
	// and node-local functions; the backstop alone only checks the kind.
	st, err := b.verdict.gated(sql)
	if err != nil {
		if be := backend.AsError(err); be != nil && be.Class == backend.ClassPermission {
			if rerr := mycheck.ReadRefusal(sql); rerr != nil {
				return nil, 0, permission("refused by relchain's read policy: " + rerr.Error())
			}
		}
		return nil, 0, b.syntaxFirst(ctx, st, err)
	}
	if !st.read {
		return nil, 0, permission("Query runs read-only statements only (SELECT, WITH, VALUES, TABLE), not " + st.kind)
	}
	conn, height, connID, err := b.readSnapshot(ctx)
	if err != nil {
		return nil, 0, fmt.Errorf("mysql: query: %w", err)
	}
	defer b.endSnapshot(conn)
	// The caller's cancellation (a block that changes the schema cancels
	// the reads in flight, a client goes away) stops the statement on the
	// server. Past a row or byte limit, cancel makes the driver drop the
	// connection instead of reading the rest of the result (the server's
	// max_statement_time bounds the statement itself).
	driverCtx, cancel, returned := b.readOnServer(ctx, connID)
	defer cancel()
	rows, err := runStmt(driverCtx, conn, st, args, limits{rows: b.opts.maxRows, bytes: b.opts.maxBytes, stop: cancel, types: true})
	returned()
	if err != nil {
		if cerr := ctx.Err(); cerr != nil {
			// What the caller sees is its own cancellation, not the
			// server's "interrupted" that the kill caused.
			return nil, 0, fmt.Errorf("mysql: query: %w (%w)", cerr, err)
		}
		if be := asBackendError(err); be != nil {
			return nil, 0, be
		}
		return nil, 0, fmt.Errorf("mysql: query: %w", err)
	}
	return rows, height, nil
}
