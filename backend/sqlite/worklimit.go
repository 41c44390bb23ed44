package sqlite

import (
	"context"

	"github.com/relchain/relchain/backend"
)

// WorkLimit bounds the work of every client statement in a block, in units
// of the driver's progress callback: one per 1,000 SQLite virtual machine
// instructions (counted from zero for each execution: Exec resets the
// statement's VM_STEP counter, which SQLite otherwise carries across runs of
// a cached statement) plus one per row stepped, plus one per KiB that a
// costed function (costs.go) reads or writes or a statement returns. 100,000 units are about 10^8
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
// virtual machine instructions, and once per step; the costed functions
// (costs.go) charge their work to it. The count never looks at the clock.
//
// Context is the caller's (a deadline in ProcessProposal, none in
// FinalizeBlock): when it is done, Err interrupts the statement with the
// context's error, which Exec returns as a node-local fault, never as a tx
// result.
type fuel struct {
	context.Context
	left      int64
	spent     int64 // calls so far
	out       bool
	cancelled error // the context's error, once it interrupted
}

func newFuel(ctx context.Context, limit int64) *fuel {
	return &fuel{Context: ctx, left: limit}
}

func (f *fuel) Err() error {
	if err := f.Context.Err(); err != nil {
		f.cancelled = err
		return err
	}
	f.spent++
	if f.left <= 0 {
		f.out = true
		return errWorkLimit
	}
	f.left--
	return nil
}

// charge spends n units of work the instruction count does not see; false
// when that overdraws the fuel (the statement then fails with the limit).
func (f *fuel) charge(n int64) bool {
	if n <= 0 {
		return true
	}
	if n > f.left {
		f.left, f.out = 0, true
		return false
	}
	f.left -= n
	return true
}
