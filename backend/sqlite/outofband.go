package sqlite

import (
	"fmt"

	"github.com/relchain/relchain/backend"
)

const anyChangeSQL = "SELECT EXISTS (SELECT 1 FROM " + changesTable + ")"

// outOfBand returns a *backend.OutOfBandChange if relchain_changes holds
// records at the start of a block: every block consumes its own before it
// commits and a rolled-back block's vanish with it, so any record there was
// left by a write outside the chain (another connection, the sqlite3
// shell). The caller holds wmu inside the block's BEGIN IMMEDIATE, so no
// other writer can add one until the block ends. The common case costs one
// kept statement that finds the table empty (a few microseconds).
func (b *Backend) outOfBand() error {
	b.internal = true
	defer func() { b.internal = false }()
	probe, err := b.internalStmt(anyChangeSQL)
	if err != nil {
		return fmt.Errorf("read change records: %w", err)
	}
	found := probe.Step() && probe.ColumnBool(0)
	err = probe.Err()
	if rerr := probe.Reset(); err == nil {
		err = rerr
	}
	if err != nil {
		return fmt.Errorf("read change records: %w", err)
	}
	if !found {
		return nil
	}
	st, _, err := b.w.Prepare(fmt.Sprintf("SELECT tbl, count(*) FROM %s GROUP BY tbl ORDER BY tbl LIMIT %d", changesTable, backend.MaxOutOfBandTables+1))
	if err != nil {
		return fmt.Errorf("read change records: %w", err)
	}
	defer st.Close()
	oob := &backend.OutOfBandChange{}
	for st.Step() {
		if len(oob.Tables) == backend.MaxOutOfBandTables {
			oob.More = true
			break
		}
		oob.Tables = append(oob.Tables, backend.TableChanges{Table: st.ColumnText(0), Rows: st.ColumnInt64(1)})
	}
	if err := st.Err(); err != nil {
		return fmt.Errorf("read change records: %w", err)
	}
	return oob
}
