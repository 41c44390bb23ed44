package sqlite

import (
	"context"

	"github.com/relchain/relchain/backend"
)

// WorkLimit bounds the work of every client statement in a block, in units
// of the driver's progress callback: one per 1,000 SQLite virtual machine
// instructions (counted from zero for each execution: Exec resets the
// statement's VM_STEP counter, which SQLite otherwise carries across runs of
// a cached statement) plus one per row stepped. 100,000 units are about 10^8
// instructions. The count is a function of the statement, the data and the
// SQLite build, never of time, load or the node's statement cache, so a
// statement over the limit fails identically on every node (ClassResource,
// SQLSTATE 54000) instead of running forever (a recursive CTE without a
// bound) and stalling the chain.
//
// SQLite answers the interrupt of a writing statement by rolling back the
// whole transaction, the block's: Exec then returns an error wrapping both
// backend.ErrBlockLost and the work-limit *backend.Error, and the executor
// re-runs the block with that tx failed. A read-only statement's interrupt
// loses nothing (its tx's savepoint stays usable).
//
// Consensus-relevant: changing it changes tx outcomes, so it may only change
// at a fixed height, like the bundled SQLite itself.
const WorkLimit = 100_000

var errWorkLimit = &backend.Error{Class: backend.ClassResource, SQLState: "54000",
	Message: "statement exceeded relchain's deterministic work limit (about 10^8 SQLite instructions); bound recursive CTEs and joins"}

// fuel is the writer's interrupt context while a client statement runs:
// go-sqlite3 consults Err from SQLite's progress handler, every 1,000
// virtual machine instructions, and once per step. It never looks at the
// clock.
type fuel struct {
	context.Context
	left  int64
	spent int64 // calls so far
	out   bool
}

func newFuel(limit int64) *fuel { return &fuel{Context: context.Background(), left: limit} }

func (f *fuel) Err() error {
	f.spent++
	if f.left <= 0 {
		f.out = true
		return errWorkLimit
	}
	f.left--
	return nil
}
