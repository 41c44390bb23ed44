package bench

import (
	"context"
	"crypto/ed25519"
	"encoding/binary"
	"errors"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/bench/workload"
	"github.com/relchain/relchain/client"
)

// Step is one unit of a client's work as the chain executed it: a read
// (one read-only wl-transaction through the query path) or one
// bc-transaction carrying one or more write wl-transactions.
type Step struct {
	Read bool
	WLs  []workload.WL
}

// TraceBlock is one committed block of an async run: its bc-transactions
// in block order (each a list of wl-transactions), and the reads that
// were answered at its height.
type TraceBlock struct {
	Height int64
	BCs    [][]workload.WL
	Reads  []workload.WL
}

// Trace is what the chain executed, in the shape the raw baseline replays:
// per client its steps in order (sync, pseudo-sync), or the blocks in
// height order (async).
type Trace struct {
	Mode    string
	Clients [][]Step
	Blocks  []TraceBlock
	// Applied lists the write wl-transactions with their outcomes, in
	// commit order, for the workload's consistency check.
	Applied []workload.Applied
	// StartHeight is the last height before the run; EndHeight the last
	// height of the run.
	StartHeight, EndHeight int64
}

// sample is one wl-transaction's outcome.
type sample struct {
	kind   string
	ok     bool
	millis float64
}

// recorder gathers samples from every client.
type recorder struct {
	mu      sync.Mutex
	samples []sample
	done    atomic.Int64
	prog    func(int)
}

func (r *recorder) add(kind string, ok bool, d time.Duration) {
	r.mu.Lock()
	r.samples = append(r.samples, sample{kind, ok, float64(d.Microseconds()) / 1000})
	r.mu.Unlock()
	n := r.done.Add(1)
	if r.prog != nil {
		r.prog(int(n))
	}
}

// fill computes the result's counts, latencies and kinds.
func (r *recorder) fill(res *Result) {
	r.mu.Lock()
	defer r.mu.Unlock()
	all := make([]float64, 0, len(r.samples))
	byKind := map[string][]float64{}
	res.Kinds = map[string]*KindStat{}
	for _, s := range r.samples {
		all = append(all, s.millis)
		k := res.Kinds[s.kind]
		if k == nil {
			k = &KindStat{}
			res.Kinds[s.kind] = k
		}
		k.Count++
		if s.ok {
			res.Succeeded++
		} else {
			res.Failed++
			k.Failed++
		}
		byKind[s.kind] = append(byKind[s.kind], s.millis)
	}
	res.LatencyMS = summarize(all)
	for kind, l := range byKind {
		res.Kinds[kind].LatencyMS = summarize(l)
	}
}

// RunWorkload measures a workload on the network cfg.Nodes, already set up
// (SetupWorkload). It returns the result and the trace the baseline
// replays.
func RunWorkload(ctx context.Context, cfg Config, w workload.Workload) (*Result, *Trace, error) {
	if len(cfg.Nodes) == 0 {
		return nil, nil, errors.New("no nodes to send to")
	}
	if cfg.Clients < 1 {
		cfg.Clients = 1
	}
	if cfg.WLPerBC < 1 || cfg.Mode == ModeSync {
		cfg.WLPerBC = 1
	}
	clients := make([]*client.Client, cfg.Clients)
	for i := range clients {
		c, err := client.New(cfg.Nodes[i%len(cfg.Nodes)], clientKey(cfg.Seed, i))
		if err != nil {
			return nil, nil, err
		}
		if _, err := c.ChainID(ctx); err != nil {
			return nil, nil, err
		}
		clients[i] = c
	}
	obs, err := client.New(cfg.Nodes[0], nil)
	if err != nil {
		return nil, nil, err
	}
	start, err := latestHeight(ctx, obs)
	if err != nil {
		return nil, nil, err
	}
	res := &Result{Workload: cfg.Workload, Mode: cfg.Mode, WLPerBC: cfg.WLPerBC, Clients: cfg.Clients, Txs: cfg.Txs, Started: time.Now().UTC()}
	tr := &Trace{Mode: cfg.Mode, StartHeight: start}
	rec := &recorder{prog: cfg.Progress}
	t0 := time.Now()
	switch cfg.Mode {
	case ModeSync, ModePseudo:
		err = runWaiting(ctx, cfg, w, clients, rec, res, tr)
	case ModeAsync:
		err = runAsyncWorkload(ctx, cfg, w, clients, rec, res, tr)
	default:
		err = fmt.Errorf("unknown mode %q: use sync, pseudo or async", cfg.Mode)
	}
	res.Seconds = time.Since(t0).Seconds()
	if err != nil {
		return nil, nil, err
	}
	rec.fill(res)
	if res.Seconds > 0 {
		res.TPS = float64(res.Succeeded+res.Failed) / res.Seconds
	}
	end, err := latestHeight(ctx, obs)
	if err != nil {
		return nil, nil, err
	}
	tr.EndHeight = end
	if err := countBlocks(ctx, obs, start+1, end, res); err != nil {
		return nil, nil, err
	}
	if err := collectPhases(ctx, obs, start+1, end, res); err != nil {
		return nil, nil, err
	}
	return res, tr, nil
}

// clientKey is benchmark client i's signing key, derived from the seed.
func clientKey(seed uint64, i int) ed25519.PrivateKey {
	var s [32]byte
	copy(s[:], "relchain bench client key")
	binary.BigEndian.PutUint64(s[16:], seed)
	binary.BigEndian.PutUint64(s[24:], uint64(i))
	return ed25519.NewKeyFromSeed(s[:])
}

// runClients runs fn for every client concurrently and returns the first
// error.
func runClients(n int, fn func(i int) error) error {
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			errs[i] = fn(i)
		}(i)
	}
	wg.Wait()
	return errors.Join(errs...)
}

// read runs a read-only wl-transaction through the query path.
func read(ctx context.Context, c *client.Client, wl workload.WL) (int64, error) {
	var h int64
	for j, st := range wl.Statements {
		args := make([]any, len(st.Args))
		for k, a := range st.Args {
			args[k] = a.Value()
		}
		r, err := c.Query(ctx, 0, st.SQL, args...)
		if err != nil {
			return 0, fmt.Errorf("%s statement %d: %w", wl.Kind, j+1, err)
		}
		h = r.Height
	}
	return h, nil
}

// runWaiting is sync and pseudo-sync mode: every client sends one
// bc-transaction of WLPerBC write wl-transactions at a time and waits for
// its block; reads go through the query path as they come. In pseudo-sync
// mode a client prepares its next batch (and runs the reads that come
// before it) while the previous one is in flight, as an application
// would; sync mode stays strictly sequential, one wl-transaction after the
// other.
func runWaiting(ctx context.Context, cfg Config, w workload.Workload, clients []*client.Client, rec *recorder, res *Result, tr *Trace) error {
	tr.Clients = make([][]Step, len(clients))
	r := &waitingRun{cfg: cfg, w: w, nclients: len(clients), rec: rec, tr: tr, pseudo: cfg.Mode == ModePseudo}
	err := runClients(len(clients), func(ci int) error {
		wc := &waitingClient{run: r, ci: ci, c: clients[ci]}
		if err := wc.runAll(ctx); err != nil {
			return err
		}
		tr.Clients[ci] = wc.steps
		return nil
	})
	res.BCTxs = int(r.bcs.Load())
	return err
}

// waitingRun is the state the clients of one sync or pseudo-sync run
// share.
type waitingRun struct {
	cfg      Config
	w        workload.Workload
	nclients int
	rec      *recorder
	pseudo   bool
	bcs      atomic.Int64 // bc-transactions executed
	mu       sync.Mutex   // guards tr.Applied
	tr       *Trace
}

// waitingClient is one client of a sync or pseudo-sync run.
type waitingClient struct {
	run   *waitingRun
	ci    int
	c     *client.Client
	steps []Step
	// The batch in flight (pseudo-sync), if any: its result arrives on
	// inflight.
	inflight      chan error
	inflightBatch []workload.WL
}

// runAll draws the client's wl-transactions: reads run through the query
// path at once, writes go WLPerBC to a bc-transaction. It returns when
// every bc-transaction it sent has its outcome.
func (wc *waitingClient) runAll(ctx context.Context) error {
	r := wc.run
	gen := r.w.Generator(r.cfg.Dialect, r.cfg.Seed, wc.ci)
	n := split(r.cfg.Txs, r.nclients, wc.ci)
	var pending []workload.WL
	for k := 0; k < n; k++ {
		wl := gen.Next()
		if wl.ReadOnly {
			t0 := time.Now()
			if _, err := read(ctx, wc.c, wl); err != nil {
				_ = wc.wait()
				return fmt.Errorf("client %d: %w", wc.ci, err)
			}
			r.rec.add(wl.Kind, true, time.Since(t0))
			wc.steps = append(wc.steps, Step{Read: true, WLs: []workload.WL{wl}})
			continue
		}
		pending = append(pending, wl)
		if len(pending) == r.cfg.WLPerBC {
			if err := wc.flush(ctx, pending); err != nil {
				_ = wc.wait()
				return err
			}
			pending = nil
		}
	}
	if err := wc.flush(ctx, pending); err != nil {
		_ = wc.wait()
		return err
	}
	return wc.wait()
}

// flush sends batch as one bc-transaction: in sync mode it waits for its
// outcome; in pseudo-sync mode it waits for the previous batch, sends this
// one and returns to prepare the next (one batch in flight per client).
func (wc *waitingClient) flush(ctx context.Context, batch []workload.WL) error {
	if len(batch) == 0 {
		return nil
	}
	if !wc.run.pseudo {
		if err := wc.send(ctx, batch); err != nil {
			return err
		}
		wc.steps = append(wc.steps, Step{WLs: batch})
		return nil
	}
	if err := wc.wait(); err != nil {
		return err
	}
	wc.inflight, wc.inflightBatch = make(chan error, 1), batch
	go func(ch chan error) { ch <- wc.send(ctx, batch) }(wc.inflight)
	return nil
}

// wait waits for the batch in flight, if any, and returns its error.
func (wc *waitingClient) wait() error {
	if wc.inflight == nil {
		return nil
	}
	err := <-wc.inflight
	wc.inflight = nil
	wc.steps = append(wc.steps, Step{WLs: wc.inflightBatch})
	return err
}

// send executes one batch and records its outcome.
func (wc *waitingClient) send(ctx context.Context, batch []workload.WL) error {
	r := wc.run
	t0 := time.Now()
	outs, err := execBC(ctx, wc.c, batch, r.pseudo)
	d := time.Since(t0)
	if err != nil {
		return err
	}
	r.bcs.Add(1)
	applied := make([]workload.Applied, len(batch))
	for i, wl := range batch {
		o := outs[i]
		if o.Code != api.CodeOK && !wl.MayFail && o.Code != api.CodeExecFailed {
			return fmt.Errorf("client %d: %s rejected (code %d %s): %s", wc.ci, wl.Kind, o.Code, api.CodeName(o.Code), o.Log)
		}
		r.rec.add(wl.Kind, o.Code == api.CodeOK, d)
		applied[i] = workload.Applied{WL: wl, Code: o.Code, Results: o.Results}
	}
	r.mu.Lock()
	r.tr.Applied = append(r.tr.Applied, applied...)
	r.mu.Unlock()
	return nil
}

// wlOutcome is one wl-transaction's outcome on the chain.
type wlOutcome struct {
	Code    uint32
	Log     string
	Results []api.StatementResult
}

// collectPhases reads node 0's per-block phase timings for the run's
// blocks (abci_query /stats/blocks) into res.PerBlock and averages them,
// over blocks with transactions, into res.Phases.
func collectPhases(ctx context.Context, c *client.Client, from, to int64, res *Result) error {
	if to < from {
		return nil
	}
	timings, err := c.BlockTimings(ctx, from, to)
	if err != nil {
		return err
	}
	var sum Phases
	n := 0
	for _, t := range timings {
		ph := Phases{Propose: float64(t.ProposeUS) / 1000, Consensus: float64(t.ConsensusUS) / 1000, Execute: float64(t.ExecuteUS) / 1000, Commit: float64(t.CommitUS) / 1000}
		bs := BlockStat{Height: t.Height, BCTxs: t.Txs, Phases: ph, Lanes: t.Lanes}
		if lat := res.blockLatency[t.Height]; len(lat) > 0 {
			sum := 0.0
			for _, l := range lat {
				sum += l
			}
			bs.WLTxs, bs.LatencyMS = len(lat), sum/float64(len(lat))
		}
		res.PerBlock = append(res.PerBlock, bs)
		if t.Txs > 0 && t.Lanes != "" {
			if res.LaneBlocks == nil {
				res.LaneBlocks = map[string]int{}
			}
			res.LaneBlocks[t.Lanes]++
		}
		if t.Txs > 0 {
			n++
			sum.Propose += ph.Propose
			sum.Consensus += ph.Consensus
			sum.Execute += ph.Execute
			sum.Commit += ph.Commit
		}
	}
	if n > 0 {
		f := float64(n)
		res.Phases = &Phases{Propose: sum.Propose / f, Consensus: sum.Consensus / f, Execute: sum.Execute / f, Commit: sum.Commit / f}
	}
	sort.Slice(res.PerBlock, func(i, j int) bool { return res.PerBlock[i].Height < res.PerBlock[j].Height })
	return nil
}
