package mysql

import (
	"context"
	"database/sql"
	"strconv"
)

// readSnapshot is snapshot for a read of the read path: it also returns
// the server's id of the connection (in the height's round trip), for
// killOnDone.
func (b *Backend) readSnapshot(ctx context.Context) (conn *sql.Conn, height, connID int64, err error) {
	conn, err = b.readers.Conn(ctx)
	if err != nil {
		return nil, 0, 0, err
	}
	if _, err := conn.ExecContext(ctx, "START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY"); err != nil {
		discard(conn)
		return nil, 0, 0, err
	}
	row := conn.QueryRowContext(ctx, "SELECT COALESCE((SELECT height FROM relchain_meta WHERE id = 1), 0), CONNECTION_ID()")
	if err := row.Scan(&height, &connID); err != nil {
		b.endSnapshot(conn)
		return nil, 0, 0, err
	}
	return conn, height, connID, nil
}

// killOnDone makes ctx's end stop the statement that reader connection
// connID runs on the server: KILL QUERY from the reader killer connection
// (an account may kill its own threads without PROCESS or SUPER; a
// connection of its own, so that a pool full of reads can still be
// cancelled). On cancellation the driver only closes its connection, and
// the server would run the statement on, holding its metadata locks (a
// DDL block waits for them), until max_statement_time. stop waits for the
// kill if it started, so that the connection is never killed once it is
// back in the pool; call it before the connection is released.
func (b *Backend) killOnDone(ctx context.Context, connID int64) (stop func()) {
	if ctx.Done() == nil || connID <= 0 {
		return func() {}
	}
	finished := make(chan struct{})
	after := context.AfterFunc(ctx, func() {
		defer close(finished)
		kctx, cancel := context.WithTimeout(context.Background(), killTimeout)
		defer cancel()
		_, _ = b.readKiller.ExecContext(kctx, "KILL QUERY "+strconv.FormatInt(connID, 10))
	})
	return func() {
		if !after() {
			<-finished
		}
	}
}
