package sqlite

import (
	"fmt"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/statedigest"
)

// Out-of-band changes in hook mode (issue 19, item 4).
//
// Without capture triggers, a write by another connection (the sqlite3
// shell, another process) leaves no change record. Two checks replace
// them, both at Begin, inside the block's BEGIN IMMEDIATE (no other writer
// can commit until the block ends):
//   - PRAGMA data_version: the writer's value changes exactly when another
//     connection committed since the writer last looked (relchain's read
//     connections never write). One kept statement per block.
//   - after Open, the first Begin compares every replicated table with its
//     stored sum (a full scan, ScanState's cost): a write made while the
//     node was stopped is not seen by data_version.
//
// When either fires, every table is scanned and compared with the sums the
// last block stored; the tables that differ are reported as an
// *backend.OutOfBandChange (Scanned set: the report names the tables, not
// record counts), and the block does not start, so the change never enters
// a digest. A commit by another connection that changed no replicated row
// (a checkpoint tool, a read-only transaction) passes.

// checkDataVersion returns a *backend.OutOfBandChange if another
// connection changed a replicated table since the last check. The caller
// holds wmu inside the block's BEGIN IMMEDIATE.
func (b *Backend) checkDataVersion() error {
	b.internal = true
	defer func() { b.internal = false }()
	v, err := b.dataVersion()
	if err != nil {
		return err
	}
	if v == b.hook.dataVersion && !b.hook.verifyNext {
		return nil
	}
	if err := b.compareWithScan(); err != nil {
		return err
	}
	b.hook.dataVersion, b.hook.verifyNext = v, false
	return nil
}

// dataVersion reads the writer's PRAGMA data_version (kept compiled).
func (b *Backend) dataVersion() (int64, error) {
	st, err := b.internalStmt("PRAGMA data_version")
	if err != nil {
		return 0, fmt.Errorf("read data version: %w", err)
	}
	v, err := schemaVersionOf(st, 0)
	if err != nil {
		return 0, fmt.Errorf("read data version: %w", err)
	}
	return v, nil
}

// compareWithScan scans every replicated table and compares it with the
// stored sums. The caller sets the internal flag.
func (b *Backend) compareWithScan() error {
	scanned, err := scanTables(b.w)
	if err != nil {
		return fmt.Errorf("look for out-of-band changes: %w", err)
	}
	stored, err := loadSums(b.w)
	if err != nil {
		return fmt.Errorf("look for out-of-band changes: %w", err)
	}
	var oob backend.OutOfBandChange
	for _, name := range statedigest.Diff(stored, scanned) {
		if emptyOnOneSide(stored, scanned, name) {
			continue // an empty table without a stored sum
		}
		if len(oob.Tables) == backend.MaxOutOfBandTables {
			oob.More = true
			break
		}
		oob.Tables = append(oob.Tables, backend.TableChanges{Table: name})
	}
	if len(oob.Tables) == 0 {
		return nil
	}
	oob.Scanned = true
	return &oob
}

// emptyOnOneSide reports whether table name is missing from one of a and
// b and has a zero sum in the other.
func emptyOnOneSide(a, b statedigest.Tables, name string) bool {
	x, okA := a[name]
	y, okB := b[name]
	switch {
	case !okA:
		return y.IsZero()
	case !okB:
		return x.IsZero()
	}
	return false
}
