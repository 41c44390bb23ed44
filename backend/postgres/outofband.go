package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/relchain/relchain/backend"
)

// anyChangeSQL asks whether relchain.changes holds any record.
const anyChangeSQL = "SELECT EXISTS (SELECT 1 FROM relchain.changes)"

// outOfBand returns a *backend.OutOfBandChange if relchain.changes holds
// records at the start of a block (conn is in the block's fresh
// db-transaction): every block consumes its own before it commits and a
// rolled-back block's vanish with it, so any record there was committed
// by a write outside the chain (psql, another program) while the capture
// triggers were active. begin is the answer to beginSQL and anyChangeSQL, sent
// in one round trip: the common case (an empty table) costs no other.
func outOfBand(ctx context.Context, conn *pgx.Conn, begin []*pgconn.Result) error {
	if len(begin) < 2 {
		return fmt.Errorf("read change records: unexpected answer to %q", anyChangeSQL)
	}
	last := begin[len(begin)-1]
	if len(last.Rows) != 1 || len(last.Rows[0]) != 1 {
		return fmt.Errorf("read change records: unexpected answer to %q", anyChangeSQL)
	}
	if string(last.Rows[0][0]) != "t" {
		return nil
	}
	rows, err := conn.Query(ctx, fmt.Sprintf(`SELECT tbl, count(*) FROM relchain.changes GROUP BY tbl ORDER BY tbl COLLATE "C" LIMIT %d`, backend.MaxOutOfBandTables+1))
	if err != nil {
		return fmt.Errorf("read change records: %w", err)
	}
	defer rows.Close()
	return backend.ReadOutOfBand(rows)
}
