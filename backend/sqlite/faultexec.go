//go:build testhooks

package sqlite

import (
	"fmt"
	"time"

	sqlite3 "github.com/ncruces/go-sqlite3"
)

// UnsafeExecOutOfBand runs stmts, in order, on the database file at path
// directly, outside the chain and outside this package's Backend (no
// block, no gate, no capture of its own): a write by an intruder or a
// careless operator. FAULT INJECTION ONLY (relchain debug tamper, the e2e
// harness's tamper perturbation), in test-hooks builds only. A running
// node may hold the write lock for a moment: it waits up to 30 s for it.
func UnsafeExecOutOfBand(path string, stmts []string) error {
	db, err := sqlite3.Open(path)
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	defer db.Close()
	if err := db.BusyTimeout(30 * time.Second); err != nil {
		return fmt.Errorf("busy timeout: %w", err)
	}
	for _, s := range stmts {
		if err := db.Exec(s); err != nil {
			return fmt.Errorf("%s: %w", s, err)
		}
	}
	return nil
}
