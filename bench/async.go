package bench

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/bench/workload"
	"github.com/relchain/relchain/client"
)

// DefaultInflight is how many bc-transactions an async client keeps in
// flight at once (each Submit waits for the node's CheckTx).
const DefaultInflight = 8

// asyncBC is the tag of one submitted bc-transaction (or, with read
// set, one read-only wl-transaction for the query path).
type asyncBC struct {
	wls   []workload.WL
	batch bool
	read  bool
}

// committedBC is one bc-transaction as the chain committed it.
type committedBC struct {
	height int64
	index  int
	wls    []workload.WL
	outs   []wlOutcome
}

// runAsyncWorkload is async mode: every client submits its bc-transactions
// without waiting for them (Inflight at a time, each handed over with
// broadcast_tx_sync), and learns their outcomes from its results stream,
// which follows the committed blocks. Reads go through the query path as
// they come. Latency is from submission to the stream seeing the block.
func runAsyncWorkload(ctx context.Context, cfg Config, w workload.Workload, clients []*client.Client, rec *recorder, res *Result, tr *Trace) error {
	a := &asyncRun{cfg: cfg, w: w, nclients: len(clients), rec: rec,
		reads: map[int64][]workload.WL{}, blockLat: map[int64][]float64{}}
	if a.cfg.Inflight < 1 {
		a.cfg.Inflight = DefaultInflight
	}
	start := time.Now()
	err := runClients(len(clients), func(ci int) error { return a.runClient(ctx, ci, clients[ci]) })
	res.BCTxs = a.bcs
	if err != nil {
		return err
	}
	if !a.lastCommit.IsZero() {
		// The run ends when the last block was seen, not when the
		// streams finished closing.
		res.Seconds = a.lastCommit.Sub(start).Seconds()
	}
	asyncTrace(a.committed, a.reads, tr)
	res.blockLatency = a.blockLat
	return nil
}

// asyncRun is the state the clients of one async run share.
type asyncRun struct {
	cfg      Config
	w        workload.Workload
	nclients int
	rec      *recorder

	mu         sync.Mutex // guards the fields below
	committed  []committedBC
	reads      map[int64][]workload.WL // by the height that answered them
	blockLat   map[int64][]float64     // wl-transaction latencies (ms) by height
	bcs        int                     // bc-transactions submitted
	lastCommit time.Time
}

// runClient is client ci: a listener on its results stream, Inflight
// senders, and the generator of its wl-transactions feeding them.
func (a *asyncRun) runClient(ctx context.Context, ci int, c *client.Client) error {
	s, err := c.Stream(ctx, client.MaxBlocks(1000))
	if err != nil {
		return fmt.Errorf("client %d: %w", ci, err)
	}
	var listenErr error
	listened := make(chan struct{})
	go func() {
		defer close(listened)
		listenErr = a.listen(ci, s)
	}()
	work := make(chan *asyncBC)
	var sendErr error
	var sendMu sync.Mutex
	fail := func(err error) { // keeps the first error of any sender
		sendMu.Lock()
		if sendErr == nil {
			sendErr = fmt.Errorf("client %d: %w", ci, err)
		}
		sendMu.Unlock()
	}
	var wg sync.WaitGroup
	for k := 0; k < a.cfg.Inflight; k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a.send(ctx, c, s, work, fail)
		}()
	}
	sent := a.generate(ctx, ci, work)
	close(work)
	wg.Wait()
	ferr := s.Flush(ctx)
	s.Close()
	<-listened
	a.mu.Lock()
	a.bcs += sent
	a.mu.Unlock()
	if sendErr != nil {
		return sendErr
	}
	if ferr != nil {
		return ferr
	}
	return listenErr
}

// listen takes every submitted bc-transaction's outcome, once, until the
// stream closes, and returns the first failure.
func (a *asyncRun) listen(ci int, s *client.Stream) error {
	var first error
	for o := range s.Results() {
		if err := a.record(ci, o); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// record accounts for one bc-transaction's outcome: its wl-transactions'
// latencies and codes, and the committed bc-transaction for the trace.
func (a *asyncRun) record(ci int, o client.Outcome) error {
	tag := o.Tag.(*asyncBC)
	if o.Err != nil || !o.Included() {
		return fmt.Errorf("client %d: %s not committed: %v", ci, tag.wls[0].Kind, o.Err)
	}
	var outs []wlOutcome
	if tag.batch {
		outs = batchOutcomes(o.Result.Code, o.Result.Error, o.Result.Batch, len(tag.wls))
	} else {
		outs = []wlOutcome{{Code: o.Result.Code, Log: o.Result.Error, Results: o.Result.Results}}
	}
	lat := o.Latency()
	var err error
	for i, wl := range tag.wls {
		if outs[i].Code != api.CodeOK && outs[i].Code != api.CodeExecFailed && !wl.MayFail && err == nil {
			err = fmt.Errorf("client %d: %s rejected in block %d (code %d %s): %s", ci, wl.Kind, o.Height, outs[i].Code, api.CodeName(outs[i].Code), outs[i].Log)
		}
		a.rec.add(wl.Kind, outs[i].Code == api.CodeOK, lat)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.committed = append(a.committed, committedBC{height: o.Height, index: o.Index, wls: tag.wls, outs: outs})
	for range tag.wls {
		a.blockLat[o.Height] = append(a.blockLat[o.Height], float64(lat.Microseconds())/1000)
	}
	if o.CommitTime.After(a.lastCommit) {
		a.lastCommit = o.CommitTime
	}
	return err
}

// send is one sender: it submits the bc-transactions from work (or runs
// a read through the query path), passing errors to fail, until work
// closes.
func (a *asyncRun) send(ctx context.Context, c *client.Client, s *client.Stream, work <-chan *asyncBC, fail func(error)) {
	for bc := range work {
		var err error
		switch {
		case bc.read:
			wl := bc.wls[0]
			t0 := time.Now()
			var h int64
			if h, err = read(ctx, c, wl); err == nil {
				a.rec.add(wl.Kind, true, time.Since(t0))
				a.mu.Lock()
				a.reads[h] = append(a.reads[h], wl)
				a.mu.Unlock()
			}
		case bc.batch:
			err = s.SubmitBatch(ctx, bc, statementsOf(bc.wls))
		default:
			err = s.Submit(ctx, bc, bc.wls[0].Statements...)
		}
		if err != nil {
			fail(err)
		}
	}
}

// generate draws client ci's wl-transactions, groups the writes WLPerBC
// to a bc-transaction and hands them and the reads to the senders; it
// returns how many bc-transactions it handed over.
func (a *asyncRun) generate(ctx context.Context, ci int, work chan<- *asyncBC) int {
	gen := a.w.Generator(a.cfg.Dialect, a.cfg.Seed, ci)
	n := split(a.cfg.Txs, a.nclients, ci)
	batch := a.cfg.WLPerBC > 1
	var pending []workload.WL
	sent := 0
	pace := a.pacer(ctx)
	for k := 0; k < n && ctx.Err() == nil; k++ {
		pace(k)
		wl := gen.Next()
		if wl.ReadOnly {
			// Reads go through the query path on the same workers, so
			// they never hold up the submissions behind them.
			work <- &asyncBC{wls: []workload.WL{wl}, read: true}
			continue
		}
		pending = append(pending, wl)
		if len(pending) == a.cfg.WLPerBC {
			work <- &asyncBC{wls: pending, batch: batch}
			sent++
			pending = nil
		}
	}
	if len(pending) > 0 {
		work <- &asyncBC{wls: pending, batch: batch}
		sent++
	}
	return sent
}

// pacer returns the wait before a client's k-th wl-transaction: none
// without Rate; with it, each client holds to Rate/clients a second from
// its start.
func (a *asyncRun) pacer(ctx context.Context) func(k int) {
	if a.cfg.Rate <= 0 {
		return func(int) {}
	}
	start := time.Now()
	every := time.Duration(float64(time.Second) * float64(a.nclients) / a.cfg.Rate)
	return func(k int) {
		wait := time.Until(start.Add(time.Duration(k) * every))
		if wait <= 0 {
			return
		}
		t := time.NewTimer(wait)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
		}
	}
}

// asyncTrace fills tr from an async run: every height that committed one
// of its bc-transactions or answered one of its reads, in order, and the
// committed bc-transactions in block order.
func asyncTrace(committed []committedBC, reads map[int64][]workload.WL, tr *Trace) {
	sort.Slice(committed, func(i, j int) bool {
		if committed[i].height != committed[j].height {
			return committed[i].height < committed[j].height
		}
		return committed[i].index < committed[j].index
	})
	seen := map[int64]bool{}
	var heights []int64
	note := func(h int64) {
		if !seen[h] {
			seen[h] = true
			heights = append(heights, h)
		}
	}
	for _, c := range committed {
		note(c.height)
	}
	for h := range reads {
		note(h)
	}
	sort.Slice(heights, func(i, j int) bool { return heights[i] < heights[j] })
	at := make(map[int64]int, len(heights))
	tr.Blocks = make([]TraceBlock, len(heights))
	for i, h := range heights {
		tr.Blocks[i] = TraceBlock{Height: h, Reads: reads[h]}
		at[h] = i
	}
	for _, c := range committed {
		b := &tr.Blocks[at[c.height]]
		b.BCs = append(b.BCs, c.wls)
		for i, wl := range c.wls {
			tr.Applied = append(tr.Applied, workload.Applied{WL: wl, Code: c.outs[i].Code, Results: c.outs[i].Results})
		}
	}
}
