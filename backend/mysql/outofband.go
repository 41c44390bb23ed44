package mysql

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/relchain/relchain/backend"
)

// outOfBand returns a *backend.OutOfBandChange if relchain_changes holds
// records at the start of a block (conn is in the block's fresh
// db-transaction): every block consumes its own before it commits and a
// rolled-back block's vanish with it (a DDL's schema record is written
// after its implicit commit, in the block's reopened db-transaction), so
// any record there was committed by a write outside the chain while the
// capture triggers were active. The common case is one round trip that
// finds the table empty.
func outOfBand(ctx context.Context, conn *sql.Conn) error {
	rows, err := conn.QueryContext(ctx, fmt.Sprintf("SELECT tbl, COUNT(*) FROM relchain_changes GROUP BY tbl ORDER BY tbl LIMIT %d", backend.MaxOutOfBandTables+1))
	if err != nil {
		return fmt.Errorf("read change records: %w", err)
	}
	defer rows.Close()
	return backend.ReadOutOfBand(rows)
}
