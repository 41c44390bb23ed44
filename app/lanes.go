package app

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/sqlcheck"
	"github.com/relchain/relchain/sqlcheck/conflict"
	"github.com/relchain/relchain/txn"
)

// WithLanes sets how many database connections a block's transactions may
// run on at once (issue 38; see "Parallel execution on lanes" in
// DESIGN.md). 1, the default, runs every block serially. It is node-local:
// results, digests and the AppHash are the same whatever it is.
func WithLanes(k int) ExecutorOption {
	return func(o *executorOptions) { o.lanes = k }
}

// lanePlan is a block's parallel schedule: per lane, the indices of the
// txs it runs, in block order.
type lanePlan struct {
	lanes [][]int
}

// verdicts are the envelope verdicts of a block's txs (validateAt), each
// reached once, when first asked: planLanes asks for them all, the
// serial loop then finds them.
type verdicts struct {
	e    *Executor
	txs  [][]byte
	tx   []*txn.Tx
	rej  []*Rejection
	done []bool
}

func (e *Executor) newVerdicts(txs [][]byte) *verdicts {
	return &verdicts{e: e, txs: txs, tx: make([]*txn.Tx, len(txs)), rej: make([]*Rejection, len(txs)), done: make([]bool, len(txs))}
}

// of is tx i decoded (nil if rejected) and its rejection.
func (v *verdicts) of(i int) (*txn.Tx, *Rejection) {
	if !v.done[i] {
		v.tx[i], v.rej[i] = v.e.validateAt(i, v.txs[i], key(v.txs[i]))
		v.done[i] = true
	}
	return v.tx[i], v.rej[i]
}

// errLanesAbandoned: a lane could not go on without another's locks, or
// a tx's failure cost a lane its db-transaction; the block runs again,
// serially.
var errLanesAbandoned = errors.New("parallel execution abandoned; the block runs serially")

// planLanes returns the block's parallel schedule, or nil to run it
// serially: lanes are off or unsupported here, the block has a system
// statement (grants and validator changes are read by later txs'
// admission) or a statement the analysis cannot bound, or its txs form
// fewer than two independent groups. Where lanes are adaptive, a block
// is not analysed while recent ones did not split (planBackoff). Nothing
// in it touches p: the serial path starts from scratch when it returns
// nil.
func (e *Executor) planLanes(ctx context.Context, p *pendingBlock, v *verdicts, forced map[int]TxResult) (*lanePlan, error) {
	txs := v.txs
	k := e.lanesFor(len(txs))
	if k < 2 || e.laneStats.off.Load() || len(forced) > 0 || p.serial || p.shadow != nil || len(p.judges) > 0 ||
		e.params.BlockAtomic {
		return nil, nil
	}
	if _, ok := p.block.(backend.Lanes); !ok {
		return nil, nil
	}
	cataloger, ok := e.Backend().(backend.ConflictCataloger)
	if !ok {
		return nil, nil
	}
	if !e.opts.adaptiveLanes {
		return e.analyseBlock(ctx, cataloger, p.height, v, k)
	}
	if !e.planSkip.analyse() {
		e.laneStats.unanalysed.Add(1)
		p.unanalysed = true
		return nil, nil
	}
	plan, err := e.analyseBlock(ctx, cataloger, p.height, v, k)
	if err == nil {
		e.planSkip.analysed(plan != nil)
	}
	return plan, err
}

// analyseBlock is planLanes's conflict analysis of a block that may run
// on up to k lanes: its schedule, or nil when it does not split.
func (e *Executor) analyseBlock(ctx context.Context, cataloger backend.ConflictCataloger, height int64, v *verdicts, k int) (*lanePlan, error) {
	txs := v.txs
	cat, err := cataloger.ConflictCatalog(ctx)
	if errors.Is(err, backend.ErrNoLanes) {
		e.lanesAbandoned(height, err) // lanes off until restart
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("conflict catalog: %w", err)
	}
	plan := &lanePlan{}
	decoded := make([]*txn.Tx, len(txs))
	weights := make([]int, len(txs))
	for i := range txs {
		tx, _ := v.of(i)
		if tx == nil {
			continue
		}
		decoded[i] = tx
		weights[i] = len(tx.Statements)
		for _, st := range tx.Statements {
			if isSystem(st.SQL) {
				return nil, nil
			}
		}
	}
	access, bounded := analyseTxs(decoded, cat, e.verifyPoolSize())
	if !bounded {
		return nil, nil
	}
	groups := conflict.Schedule(access)
	if len(groups.Groups) < 2 {
		return nil, nil
	}
	plan.lanes = conflict.Assign(groups, weights, k)
	if e.laneAssign != nil { // tests: a wrong schedule, to see the fallback
		plan.lanes = e.laneAssign(len(txs))
	}
	// Fewer groups than lanes leave lanes empty: each would still cost a
	// connection's db-transaction and, at commit, a prepared transaction.
	plan.lanes = slices.DeleteFunc(plan.lanes, func(l []int) bool { return len(l) == 0 })
	if len(plan.lanes) < 2 {
		return nil, nil
	}
	return plan, nil
}

// analyseTxs is each tx's Access, the union of its statements' (nil txs:
// rejected, none), computed by workers goroutines at once (the caller's
// among them; the node's pool size, as for the envelopes) claiming txs
// in turn: a statement's analysis is a pure function of its text, its
// arguments and cat, so the answers do not depend on workers. bounded is
// false when a tx is unbounded (All); the workers then stop.
func analyseTxs(txs []*txn.Tx, cat conflict.Catalog, workers int) (access []conflict.Access, bounded bool) {
	access = make([]conflict.Access, len(txs))
	var next atomic.Int64
	var unbounded atomic.Bool
	work := func() {
		for !unbounded.Load() {
			i := int(next.Add(1) - 1)
			if i >= len(txs) {
				return
			}
			if txs[i] == nil {
				continue
			}
			for _, st := range txs[i].Statements {
				access[i].Add(conflict.Analyze(st.SQL, argValues(st.Args), cat))
				if access[i].All {
					unbounded.Store(true)
					return
				}
			}
		}
	}
	var wg sync.WaitGroup
	for range min(workers, len(txs)) - 1 {
		wg.Go(work)
	}
	work()
	wg.Wait()
	return access, !unbounded.Load()
}

// executeLanes is execute on a parallel schedule: the admission of every
// tx first, in block order (the same checks as the serial loop; no tx of
// the block changes grants, see planLanes), then each lane's txs in block
// order on its own connection, the lanes at once. The results are those
// of the serial loop: txs of different lanes touch nothing in common.
func (e *Executor) executeLanes(ctx context.Context, b BlockInfo, p *pendingBlock, txs [][]byte, v *verdicts, plan *lanePlan) ([]TxResult, []*execData, error) {
	results := make([]TxResult, len(txs))
	outs := make([]*execData, len(txs))
	run := make([]bool, len(txs))
	for i := range txs {
		if _, rej := e.admitTx(p, v, i, b.Time); rej != nil {
			results[i] = rejectionResult(0, rej)
			continue
		}
		run[i] = true
	}
	opened, err := p.block.(backend.Lanes).OpenLanes(ctx, len(plan.lanes))
	if backend.IsUnavailable(err) {
		// Waited out and run again like any block (dbfault.go).
		return nil, nil, fmt.Errorf("open %d lanes: %w", len(plan.lanes), err)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%w: open %d lanes: %w", errLanesAbandoned, len(plan.lanes), err)
	}
	p.onLanes = true
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make([]error, len(opened))
	var wg sync.WaitGroup
	for l, lane := range opened {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lp := *p // the lane's view: its own Block; the overlays stay empty (no system statements)
			lp.block = laneBlock{lane}
			for _, i := range plan.lanes[l] {
				if !run[i] {
					continue
				}
				env := sqlcheck.NewEnv(b.Time, b.Hash, i)
				env.Protocol = p.version()
				res, out, err := e.executeLimited(ctx, &lp, v.tx[i], env)
				if err != nil {
					errs[l] = laneError(i, key(txs[i]), err)
					cancel()
					return
				}
				results[i], outs[i] = res, out
			}
		}()
	}
	wg.Wait()
	if err := firstLaneError(errs); err != nil {
		return nil, nil, err
	}
	e.laneStats.parallel.Add(1)
	return results, outs, nil
}

// abandoned reports whether err gives up p's parallel attempt for the
// serial run: an abandonment, or a lane conflict met after the lanes ran
// (while their change records were consumed: a sequence both drew on).
func (p *pendingBlock) abandoned(err error) bool {
	return errors.Is(err, errLanesAbandoned) || p.onLanes && errors.Is(err, backend.ErrLaneConflict)
}

// laneError is what a lane's error on tx i means for the block: a lane
// conflict or a lost db-transaction abandons the parallel run; anything
// else is the backend's failure, as in the serial loop.
func laneError(i int, h [32]byte, err error) error {
	var lost *lostBlock
	if errors.As(err, &lost) || errors.Is(err, backend.ErrLaneConflict) {
		return fmt.Errorf("%w: tx %d: %w", errLanesAbandoned, i, err)
	}
	return &TxError{Index: i, Hash: h[:], Err: err}
}

// firstLaneError picks the error the block reports: a backend failure
// first (it would recur serially), then an abandonment; a lane stopped
// because another cancelled it reports only that.
func firstLaneError(errs []error) error {
	var abandoned, cancelled error
	for _, err := range errs {
		switch {
		case err == nil:
		case errors.Is(err, errLanesAbandoned):
			abandoned = cmp.Or(abandoned, err)
		case errors.Is(err, context.Canceled):
			cancelled = cmp.Or(cancelled, err)
		default:
			return err
		}
	}
	return cmp.Or(abandoned, cancelled)
}

// laneBlock runs a lane's txs through the executor's serial code: a
// Block whose per-tx methods are the lane's; the block-wide ones belong
// to the Block itself and are never called on a lane.
type laneBlock struct{ backend.Lane }

var errNotOnLane = errors.New("not available on a lane of a parallel block")

func (laneBlock) ChangeDigest(context.Context) (backend.Changes, error) {
	return backend.Changes{}, errNotOnLane
}
func (laneBlock) StateDigest(context.Context) ([]byte, error) { return nil, errNotOnLane }
func (laneBlock) SaveSystem(context.Context, map[string][]byte) error {
	return errNotOnLane
}
func (laneBlock) Commit(context.Context, backend.State) error { return errNotOnLane }
func (laneBlock) Rollback(context.Context) error              { return errNotOnLane }

// lanesAbandoned logs a parallel attempt given up for the serial run.
// It is no fault: the schedule is conservative about what it knows, the
// database may lock more than it knows.
func (e *Executor) lanesAbandoned(height int64, why error) {
	e.db.mu.Lock()
	logger := e.db.logger
	e.db.mu.Unlock()
	e.laneStats.abandoned.Add(1)
	if errors.Is(why, backend.ErrNoLanes) {
		e.laneStats.off.Store(true)
		logger.Error("[block] lanes is set but the database cannot give lanes: every block runs serially until the node restarts (docs/parallel-execution.md)",
			"height", height, "why", why.Error())
		return
	}
	logger.Info("a block's parallel run was abandoned; it runs serially", "height", height, "why", why.Error())
}

// LaneStats counts this executor's parallel runs since it started.
type LaneStats struct {
	Parallel  int64 // blocks whose txs ran on lanes
	Abandoned int64 // attempts given up for the serial run
	// Declined: blocks that split but ran serially, measured faster here
	// (WithAdaptiveLanes).
	Declined int64
	// Unanalysed: blocks that could have run on lanes but were not
	// analysed, recent ones having not split (planBackoff;
	// WithAdaptiveLanes).
	Unanalysed int64
	// SerialCost and LanesCost are the measured costs per tx of blocks
	// that split, run serially and on lanes (WithAdaptiveLanes; 0 before
	// the first of each).
	SerialCost, LanesCost time.Duration
}

// laneCounters are LaneStats' counters, and off: the database cannot
// give lanes (backend.ErrNoLanes), every block runs serially until the
// node restarts.
type laneCounters struct {
	parallel, abandoned, declined, unanalysed atomic.Int64
	off                                       atomic.Bool
}

// LaneStats returns the executor's parallel-run counters.
func (e *Executor) LaneStats() LaneStats {
	serial, lanes := e.laneChoice.costs()
	return LaneStats{Parallel: e.laneStats.parallel.Load(), Abandoned: e.laneStats.abandoned.Load(), Declined: e.laneStats.declined.Load(),
		Unanalysed: e.laneStats.unanalysed.Load(), SerialCost: serial, LanesCost: lanes}
}

// laneWarmTimeout bounds one background warmLanes run.
const laneWarmTimeout = time.Minute

// laneWarming is the state of warmLanes: one run at a time, and a wait
// for tests.
type laneWarming struct {
	running atomic.Bool
	wg      sync.WaitGroup
}

// warmLanes has the backend make its lanes ready for the next parallel
// block (backend.LaneWarmer: connections, and statements prepared on
// them) and read the conflict catalog of the committed schema, in the
// background, off the block path, so that the first block on lanes (and
// the first after a schema change) does not pay for them. Only where
// blocks may run on lanes; one run at a time (a call while one runs does
// nothing: the next Commit calls again). A failure only leaves the block
// path to do it; it is logged at debug level.
func (e *Executor) warmLanes() {
	e.mu.Lock()
	be, mixed := e.be, e.shadow != nil || len(e.judges) > 0
	e.mu.Unlock()
	w, ok := be.(backend.LaneWarmer)
	if !ok || mixed || e.opts.lanes < 2 || e.laneStats.off.Load() || e.params.BlockAtomic ||
		!e.laneWarm.running.CompareAndSwap(false, true) {
		return
	}
	e.laneWarm.wg.Add(1)
	go func() {
		defer e.laneWarm.wg.Done()
		defer e.laneWarm.running.Store(false)
		ctx, cancel := context.WithTimeout(context.Background(), laneWarmTimeout)
		defer cancel()
		err := w.WarmLanes(ctx, e.opts.lanes)
		if c, ok := be.(backend.ConflictCataloger); ok && err == nil {
			_, err = c.ConflictCatalog(ctx)
		}
		if err != nil && !errors.Is(err, backend.ErrNoLanes) {
			e.db.mu.Lock()
			logger := e.db.logger
			e.db.mu.Unlock()
			logger.Debug("warming the lanes failed; the next parallel block sets up what it needs itself", "why", err.Error())
		}
	}()
}
