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
	inflight := cfg.Inflight
	if inflight < 1 {
		inflight = DefaultInflight
	}
	var mu sync.Mutex
	var committed []committedBC
	reads := map[int64][]workload.WL{}
	blockLat := map[int64][]float64{}
	bcs := 0
	var lastCommit time.Time
	start := time.Now()
	err := runClients(len(clients), func(ci int) error {
		c := clients[ci]
		s, err := c.Stream(ctx, client.MaxBlocks(1000))
		if err != nil {
			return fmt.Errorf("client %d: %w", ci, err)
		}
		// The listener: every submitted bc-transaction's outcome, once.
		var listenErr error
		listened := make(chan struct{})
		go func() {
			defer close(listened)
			for o := range s.Results() {
				tag := o.Tag.(*asyncBC)
				if o.Err != nil || !o.Included() {
					if listenErr == nil {
						listenErr = fmt.Errorf("client %d: %s not committed: %v", ci, tag.wls[0].Kind, o.Err)
					}
					continue
				}
				var outs []wlOutcome
				if tag.batch {
					outs = batchOutcomes(o.Result.Code, o.Result.Error, o.Result.Batch, len(tag.wls))
				} else {
					outs = []wlOutcome{{Code: o.Result.Code, Log: o.Result.Error, Results: o.Result.Results}}
				}
				lat := o.Latency()
				for i, wl := range tag.wls {
					if outs[i].Code != api.CodeOK && outs[i].Code != api.CodeExecFailed && !wl.MayFail && listenErr == nil {
						listenErr = fmt.Errorf("client %d: %s rejected in block %d (code %d %s): %s", ci, wl.Kind, o.Height, outs[i].Code, api.CodeName(outs[i].Code), outs[i].Log)
					}
					rec.add(wl.Kind, outs[i].Code == api.CodeOK, lat)
				}
				mu.Lock()
				committed = append(committed, committedBC{height: o.Height, index: o.Index, wls: tag.wls, outs: outs})
				for range tag.wls {
					blockLat[o.Height] = append(blockLat[o.Height], float64(lat.Microseconds())/1000)
				}
				if o.CommitTime.After(lastCommit) {
					lastCommit = o.CommitTime
				}
				mu.Unlock()
			}
		}()
		// The senders: the client's stream of wl-transactions, grouped
		// WLPerBC to a bc-transaction, Inflight submissions at a time.
		gen := w.Generator(cfg.Dialect, cfg.Seed, ci)
		n := split(cfg.Txs, len(clients), ci)
		work := make(chan *asyncBC)
		var sendErr error
		var sendMu sync.Mutex
		var wg sync.WaitGroup
		for k := 0; k < inflight; k++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for bc := range work {
					var err error
					if bc.read {
						wl := bc.wls[0]
						t0 := time.Now()
						var h int64
						if h, err = read(ctx, c, wl); err == nil {
							rec.add(wl.Kind, true, time.Since(t0))
							mu.Lock()
							reads[h] = append(reads[h], wl)
							mu.Unlock()
						}
					} else if bc.batch {
						err = s.SubmitBatch(ctx, bc, statementsOf(bc.wls))
					} else {
						err = s.Submit(ctx, bc, bc.wls[0].Statements...)
					}
					if err != nil {
						sendMu.Lock()
						if sendErr == nil {
							sendErr = fmt.Errorf("client %d: %w", ci, err)
						}
						sendMu.Unlock()
					}
				}
			}()
		}
		var pending []workload.WL
		sent := 0
		for k := 0; k < n && ctx.Err() == nil; k++ {
			wl := gen.Next()
			if wl.ReadOnly {
				// Reads go through the query path on the same workers, so
				// they never hold up the submissions behind them.
				work <- &asyncBC{wls: []workload.WL{wl}, read: true}
				continue
			}
			pending = append(pending, wl)
			if len(pending) == cfg.WLPerBC {
				work <- &asyncBC{wls: pending, batch: cfg.WLPerBC > 1}
				sent++
				pending = nil
			}
		}
		if len(pending) > 0 {
			work <- &asyncBC{wls: pending, batch: cfg.WLPerBC > 1}
			sent++
		}
		close(work)
		wg.Wait()
		ferr := s.Flush(ctx)
		s.Close()
		<-listened
		mu.Lock()
		bcs += sent
		mu.Unlock()
		if sendErr != nil {
			return sendErr
		}
		if ferr != nil {
			return ferr
		}
		return listenErr
	})
	res.BCTxs = bcs
	if err != nil {
		return err
	}
	if !lastCommit.IsZero() {
		// The run ends when the last block was seen, not when the
		// streams finished closing.
		res.Seconds = lastCommit.Sub(start).Seconds()
	}
	sort.Slice(committed, func(i, j int) bool {
		if committed[i].height != committed[j].height {
			return committed[i].height < committed[j].height
		}
		return committed[i].index < committed[j].index
	})
	// The trace: every height that committed one of our bc-transactions
	// or answered one of our reads, in order.
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
	res.blockLatency = blockLat
	return nil
}
