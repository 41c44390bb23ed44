package backend

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/relchain/relchain/sqlcheck"
	"github.com/relchain/relchain/sqlcheck/conflict"
)

// Lanes is implemented by a Block whose database can run a block's
// bc-transactions on several connections at once (issue 38: conflict-free
// parallel execution). The executor asks for lanes only for a block whose
// transactions it split into groups that touch nothing in common
// (package sqlcheck/conflict); each group runs, in block order, on one
// lane.
//
// OpenLanes opens n lanes, n >= 2, before any Savepoint, Exec or
// ChangeDigest of the Block; lane 0 is the Block's own connection, the
// others are db-transactions of their own, begun on the state the Block
// began on. Until ChangeDigest, the executor uses the lanes, never the
// Block's own Savepoint/Exec. Each lane is driven by one goroutine at a
// time; lanes run concurrently.
//
// The block stays one unit: ChangeDigest consumes the change records of
// every lane (the digests are those a serial run of the same transactions
// gives: records are digested in canonical order, whatever lane wrote
// them); StateDigest folds them all; Commit makes every lane's changes and
// the State durable atomically (the lanes are prepared, the Block's own
// db-transaction records the State and commits, then the prepared ones
// commit; a crash in between is resolved when the backend opens: a
// prepared lane of a recorded height commits, any other rolls back); no
// read through Backend.Query sees a height whose lanes have not all
// committed. Rollback rolls back every lane.
//
// OpenLanes fails with an error wrapping ErrNoLanes when the database
// cannot run this block on lanes (PostgreSQL: max_prepared_transactions
// is below n-1): the Block is as before, and the executor runs it
// serially. A schema change (DDL, TRUNCATE) on a lane fails with
// ErrLaneConflict: a parallel block never changes the schema. Any error
// of OpenLanes leaves the Block as it was, to run serially.
type Lanes interface {
	OpenLanes(ctx context.Context, n int) ([]Lane, error)
}

// Lane is one connection's share of a parallel block: Savepoint, Release,
// RollbackTo and Exec behave as the Block's own. An error wrapping
// ErrLaneConflict means the lane waited for a lock another lane holds (the
// schedule was wrong, or the database locks more than the analysis
// assumed): not a tx's failure. The executor then rolls the block back
// and runs it serially.
type Lane interface {
	Savepoint(ctx context.Context, env sqlcheck.Env) error
	Release(ctx context.Context) error
	RollbackTo(ctx context.Context) error
	Exec(ctx context.Context, sql string, args []any) (*Rows, error)
}

// ErrLaneConflict: a lane of a parallel block could not go on without
// another lane's locks (see Lane).
var ErrLaneConflict = errors.New("a lane of a parallel block waited for another lane's lock")

// ConflictCataloger is implemented by a Backend that can describe its
// committed schema for conflict analysis (package sqlcheck/conflict): the
// executor runs a block on Lanes only with it.
type ConflictCataloger interface {
	ConflictCatalog(ctx context.Context) (conflict.Catalog, error)
}

// LaneWarmer is implemented by a Backend that can make its lanes ready
// between blocks: WarmLanes opens what n lanes need (connections, and on
// them what the block's statements need) while no block is open, so that
// a parallel block does not pay for it on its own path. The executor calls
// it in the background after each block's Commit; it must be cheap when
// nothing changed, must do nothing while a block is open, and must change
// no result (a block's outcome never depends on what was warmed). An error
// only means the next parallel block sets up what is missing itself.
type LaneWarmer interface {
	WarmLanes(ctx context.Context, n int) error
}

// ErrNoLanes: the database cannot open lanes for this block (see Lanes);
// the block runs serially.
var ErrNoLanes = errors.New("the database cannot run this block on lanes")

// ReadGate keeps reads from seeing half a parallel block: the block's
// Commit holds it exclusively (Publish) from the deciding COMMIT until
// every lane has committed, and a read holds it shared (Read) while it
// takes its snapshot — only then, so that a Commit waits for no read's
// work. A reader must never wait for anything else while holding it (a
// pool's connection, a lock): the Commit waiting for the gate holds the
// backend, and, the gate preferring the waiting Commit, new readers then
// wait behind it, holding their connections; take the connection first.
// Serial blocks never take it. The zero value is ready.
type ReadGate struct{ mu sync.RWMutex }

// Read takes the gate for a read's snapshot; call the result once the
// snapshot is taken.
func (g *ReadGate) Read() (unlock func()) {
	g.mu.RLock()
	return g.mu.RUnlock
}

// Publish takes the gate for a parallel block's commit; call the result
// once every lane has committed.
func (g *ReadGate) Publish() (unlock func()) {
	g.mu.Lock()
	return g.mu.Unlock
}

// TryPublish is Publish if the gate is free now (ok), for a caller that
// must not wait: tests that check no read holds the gate while it waits.
func (g *ReadGate) TryPublish() (unlock func(), ok bool) {
	if !g.mu.TryLock() {
		return nil, false
	}
	return g.mu.Unlock, true
}

// EachLane runs step on every lane at once (each lane is a connection of
// its own) and returns their errors, each named by its lane's number
// (number), joined in the lanes' order. A
// backend prepares and commits a parallel block's lanes with it, so that
// the server's group commit takes their log flushes together instead of
// one after another.
func EachLane[L any](lanes []L, number func(L) int, step func(L) error) error {
	errs := make([]error, len(lanes))
	var wg sync.WaitGroup
	for i, l := range lanes {
		wg.Go(func() {
			if err := step(l); err != nil {
				errs[i] = fmt.Errorf("lane %d: %w", number(l), err)
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}
