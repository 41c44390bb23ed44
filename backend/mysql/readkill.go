package mysql

import (
	"context"
	"database/sql"
)

// readSnapshot is snapshot for a read of the read path: it also returns
// the server's id of the connection (in the height's round trip), for
// readOnServer.
func (b *Backend) readSnapshot(ctx context.Context) (conn *sql.Conn, height, connID int64, err error) {
	conn, err = b.readers.Conn(ctx)
	if err != nil {
		return nil, 0, 0, err
	}
	unlock := b.readGate()
	_, err = conn.ExecContext(ctx, "START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY")
	unlock()
	if err != nil {
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

// readOnServer is the driver context of a read on reader connection connID
// and its end: ctx's end kills the statement on the server (KILL QUERY
// from the reader killer connection, a connection of its own so that a
// pool full of reads can still be cancelled), then, if the read has not
// returned killGrace later (the kill failed), cancels the driver context,
// which drops the connection. cancel also ends the driver context at once
// (a read past its row or byte limit). Call returned when the read has
// returned, before the connection goes back to the pool. See
// cancelOnServer for why the driver must not see ctx.
func (b *Backend) readOnServer(ctx context.Context, connID int64) (driverCtx context.Context, cancel context.CancelFunc, returned func()) {
	driverCtx, cancel = context.WithCancel(context.WithoutCancel(ctx))
	if ctx.Done() == nil || connID <= 0 {
		return driverCtx, cancel, func() {}
	}
	return driverCtx, cancel, cancelOnServer(ctx,
		func() { b.kill(b.readKiller, connID, "QUERY") },
		cancel)
}
