package e2e

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/relchain/relchain/client"
	"github.com/relchain/relchain/txn"
)

// Run runs one manifest: network up, schema, load under the fault
// schedule, recovery, checks, network down. The report lists every
// violation found; err is for a run that could not be carried out.
func Run(ctx context.Context, m *Manifest, env Env, seed int64) (rep *Report, err error) {
	started := time.Now()
	nw, err := startNetwork(ctx, m, env)
	if err != nil {
		return nil, err
	}
	defer nw.close()
	rep = &Report{Manifest: m.Name, Backend: m.engines(), Network: nw.mode, Validators: m.Validators, Workload: m.Load.Workload, Seed: seed, Violations: []Violation{}}
	nw.note = func(s string) { env.Logf("%s: %s", m.Name, s); rep.note(s) }
	env.Logf("%s: %d validators on %s, network %s, load %s for %v", m.Name, m.Validators, m.engines(), nw.mode, m.Load.Workload, m.Load.Duration)
	hist, err := NewHistory(filepath.Join(env.ReportDir, "history.jsonl"))
	if err != nil {
		return nil, err
	}
	wl := newWorkload(m)
	if err := setupSchema(ctx, nw, wl); err != nil {
		return nil, err
	}
	r := &run{m: m, nw: nw, ctl: nw, hist: hist, wl: wl, rep: rep, logf: env.Logf, paused: map[int]bool{}}
	r.startWorkers = r.startLoad
	r.load(ctx, timeline(m, seed))
	if err := r.recover(ctx); err != nil {
		rep.violate("recovery", err.Error())
	}
	r.reportCrashes()
	if err := hist.Close(); err != nil {
		return nil, err
	}
	if err := check(ctx, r, env); err != nil {
		// A check that could not be carried out fails the run with
		// everything else found (a node that crashed, say, and so never
		// answered again).
		rep.violate("check", err.Error())
		r.reportCrashes()
	}
	rep.Seconds = time.Since(started).Seconds()
	return rep, rep.save(env.ReportDir)
}

// cluster is what the schedule acts on and watches: the network of a
// run, or a fake in the harness's own tests.
type cluster interface {
	// heights is every node's committed height, -1 for a node that does
	// not answer.
	heights(ctx context.Context) []int64
	// apply carries out one perturbation and confirms it took effect.
	apply(p Perturb) error
	// running reports whether node i's process is alive.
	running(i int) bool
}

// run is the state of one run while the load goes on.
type run struct {
	m  *Manifest
	nw *network
	// ctl is nw, except in tests of the schedule.
	ctl  cluster
	hist *History
	wl   workload
	rep  *Report
	logf func(string, ...any)

	mu     sync.Mutex
	paused map[int]bool
	// seen is the monitor's record of when it first saw each new highest
	// height (written by the monitor only, read after the load).
	seen []heightSeen
	// startWorkers starts the load's goroutines (clients, reader,
	// monitor) on wg until ctx ends: startLoad, or nothing in tests of
	// the schedule.
	startWorkers func(ctx context.Context, wg *sync.WaitGroup)
}

// haltWatch is a fault expected to halt the chain: the highest height at
// its start and at its end.
type haltWatch struct {
	What   string `json:"fault"`
	Before int64  `json:"height_at_start"`
	After  int64  `json:"height_at_end"`
}

// setupSchema creates the workload's tables, one statement per tx.
func setupSchema(ctx context.Context, nw *network, wl workload) error {
	_, key, _ := ed25519.GenerateKey(nil)
	c := nw.client(0, key)
	stmts := wl.setup()
	if nw.m.mixed() {
		stmts = keyedSchema(stmts)
	}
	for _, sql := range stmts {
		sctx, cancel := context.WithTimeout(ctx, time.Minute)
		res, err := c.Exec(sctx, client.ModeCommit, txn.Statement{SQL: sql})
		cancel()
		if err != nil {
			return fmt.Errorf("schema %q: %w", sql, err)
		}
		if !res.OK() {
			return fmt.Errorf("schema %q: %w", sql, res.Err())
		}
		// Every node must have the schema before clients write through it.
		for i := range nw.net.Nodes {
			wctx, cancel := context.WithTimeout(ctx, time.Minute)
			err := nw.net.WaitHeight(wctx, i, res.Height)
			cancel()
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// load runs the clients, a reader and the fault schedule until the
// load's duration is over, every client has finished its operation and
// every event of the schedule was applied and checked: an undo due at
// the load's very end is applied then, with its checks (the schedule
// runs on ctx, not on the load's deadline).
func (r *run) load(ctx context.Context, evs []event) {
	lctx, cancel := context.WithTimeout(ctx, r.m.Load.Duration.Duration)
	defer cancel()
	var wg sync.WaitGroup
	r.startWorkers(lctx, &wg)
	r.schedule(ctx, evs)
	wg.Wait()
}

// startLoad starts the clients, the reader and the monitor.
func (r *run) startLoad(ctx context.Context, wg *sync.WaitGroup) {
	for k := range r.m.Load.Clients {
		wg.Add(1)
		go func() { defer wg.Done(); r.client(ctx, k) }()
	}
	wg.Add(2)
	go func() { defer wg.Done(); r.reader(ctx) }()
	go func() { defer wg.Done(); r.monitor(ctx) }()
}

// client submits writes at its share of the rate, one at a time, each in
// commit mode with the operation timeout. It starts on node k mod n and
// moves to the next node after an unknown outcome, where it sends the
// same signed bytes again (an application retrying). On a share of its
// ticks (load.resend) it sends again one of its last writes instead of a
// new one, whatever that write's outcome: replays must answer the
// committed outcome.
func (r *run) client(ctx context.Context, k int) {
	_, key, _ := ed25519.GenerateKey(nil)
	n := len(r.nw.net.Nodes)
	clients := make([]*client.Client, n)
	for i := range clients {
		clients[i] = r.nw.client(i, key)
		clients[i].SetCommitBlocks(30)
	}
	rng := rand.New(rand.NewPCG(uint64(k), 42))
	every := time.Duration(float64(time.Second) * float64(r.m.Load.Clients) / r.m.Load.Rate)
	tick := time.NewTicker(every)
	defer tick.Stop()
	node := k % n
	var recent []sentWrite
	for seq := int64(1); ; seq++ {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if len(recent) > 0 && rng.Float64() < r.m.Load.Resend {
			s := recent[rng.IntN(len(recent))]
			if !r.resend(clients[node], node, s.id, s.raw, ResendRandom) {
				node = (node + 1) % n
			}
			continue
		}
		w := write{ID: int64(k+1)*1_000_000 + seq, Client: k}
		raw, known := r.submit(clients[node], node, &w, r.wl.next(&w, rng))
		if raw == nil {
			continue
		}
		recent = append(recent, sentWrite{w.ID, raw})
		if len(recent) > recentWrites {
			recent = recent[1:]
		}
		if !known {
			node = (node + 1) % n
			if !r.resend(clients[node], node, w.ID, raw, ResendUnknown) {
				node = (node + 1) % n
			}
		}
	}
}

// recentWrites is how many of its last writes a client may send again.
const recentWrites = 32

// sentWrite is a write a client may send again.
type sentWrite struct {
	id  int64
	raw []byte
}

// submit signs and submits one write and logs its outcome. It returns
// the signed bytes (nil: nothing was sent, no operation) and whether the
// outcome is known.
func (r *run) submit(c *client.Client, node int, w *write, stmts []txn.Statement) ([]byte, bool) {
	octx, cancel := context.WithTimeout(context.Background(), r.m.Load.OpTimeout.Duration)
	defer cancel()
	raw, err := c.Sign(octx, stmts)
	if err != nil {
		return nil, false // nothing was sent: no operation
	}
	w.Hash = strings.ToUpper(hex.EncodeToString(txn.Hash(raw)))
	w.Raw = raw
	r.hist.Invoke(*w, node)
	res, err := c.Broadcast(octx, client.ModeCommit, raw)
	switch {
	case err != nil:
		r.hist.Complete(w.ID, node, PhaseUnknown, 0, 0, err.Error())
		return raw, false
	case res.OK():
		r.hist.Complete(w.ID, node, PhaseOK, res.Height, 0, "")
	default:
		r.hist.Complete(w.ID, node, PhaseFail, res.Height, res.Code, res.Error)
	}
	return raw, true
}

// resend sends write id's signed bytes again to node and logs what it
// answered; false means the outcome is unknown.
func (r *run) resend(c *client.Client, node int, id int64, raw []byte, why string) bool {
	octx, cancel := context.WithTimeout(context.Background(), r.m.Load.OpTimeout.Duration)
	defer cancel()
	k := r.hist.Resend(id, node, why)
	res, err := c.Broadcast(octx, client.ModeCommit, raw)
	switch {
	case err != nil:
		r.hist.CompleteResend(id, k, PhaseUnknown, 0, 0, err.Error())
		return false
	case res.OK():
		r.hist.CompleteResend(id, k, PhaseOK, res.Height, 0, "")
	default:
		r.hist.CompleteResend(id, k, PhaseFail, res.Height, res.Code, res.Error)
	}
	return true
}

// reader reads the log table every half second at the highest
// acknowledged height, from each node in turn, and records which writes
// acknowledged at or below the height it was answered at it did not see.
func (r *run) reader(ctx context.Context) {
	n := len(r.nw.net.Nodes)
	for i := 0; ; i++ {
		select {
		case <-ctx.Done():
			return
		case <-time.After(500 * time.Millisecond):
		}
		_, top := r.hist.AckedUpTo(0)
		if top == 0 {
			continue
		}
		r.readOnce(ctx, i%n, top)
	}
}

func (r *run) readOnce(ctx context.Context, node int, minHeight int64) {
	qctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	res, err := r.nw.client(node, nil).Query(qctx, minHeight, "SELECT id FROM "+r.wl.logTable())
	if err != nil {
		r.hist.Read(Op{Node: node, Phase: PhaseFail, Height: minHeight, Error: err.Error()})
		return
	}
	// Acknowledgements taken after the answer: an ack at a height the
	// answer covers happened before it was recorded here.
	acked, _ := r.hist.AckedUpTo(res.Height)
	seen := map[int64]bool{}
	for _, row := range res.Rows {
		if id, ok := cellInt(row[0]); ok {
			seen[id] = true
		}
	}
	var missing []int64
	for _, id := range acked {
		if !seen[id] {
			missing = append(missing, id)
		}
	}
	r.hist.Read(Op{Node: node, Phase: PhaseOK, Height: res.Height, Seen: len(res.Rows), Missing: missing})
}

// monitor polls every node's height four times a second and records the
// chain's stalls (no node committing for more than 3 s) and when it first
// saw each height (block-times-sane).
func (r *run) monitor(ctx context.Context) {
	var top int64
	last := time.Now()
	var prevStart time.Time
	for {
		select {
		case <-ctx.Done():
			r.rep.noteStall(time.Since(last))
			return
		case <-time.After(250 * time.Millisecond):
		}
		start := time.Now()
		h := maxOf(r.nw.heights(ctx))
		if h > top {
			r.rep.noteStall(time.Since(last))
			top, last = h, time.Now()
			r.seen = append(r.seen, heightSeen{Height: h, At: last, Before: prevStart})
		}
		prevStart = start
	}
}

func maxOf(hs []int64) int64 {
	var m int64 = -1
	for _, h := range hs {
		m = max(m, h)
	}
	return m
}

// schedule applies the events at their times, all of them, even those
// due when the load ends (ctx is the run's, not the load's). A fault's
// effect is judged between real heights: the highest height some node
// answered when the fault was in place and when it was undone; a height
// nobody answered is a violation, never a -1 that makes every check
// pass. An undo also measures how long the network takes to commit past
// the height at the undo.
func (r *run) schedule(ctx context.Context, evs []event) {
	start := time.Now()
	before := map[int]int64{}
	failed := map[int]bool{} // faults that did not take effect: their undo judges nothing
	var recoveries sync.WaitGroup
	defer recoveries.Wait()
	for k, e := range evs {
		select {
		case <-ctx.Done():
			r.rep.violate("perturbation", fmt.Sprintf("%s: not applied: %v", e, ctx.Err()))
			continue
		case <-time.After(time.Until(start.Add(e.At))):
		}
		h := r.topHeight(ctx)
		at := time.Now()
		if err := r.applyEvent(e); err != nil {
			r.rep.violate("perturbation", fmt.Sprintf("%s: %v", e, err))
			failed[k] = true
			continue
		}
		r.logf("%s: %s (height %d)", r.m.Name, e, h)
		r.rep.addEvent(e.String())
		if e.P.isInstant() {
			if e.P.Action == ActRestartAll {
				r.resendAfterRestart(ctx, 40)
			}
			recoveries.Add(1)
			go func() { defer recoveries.Done(); r.measureRecovery(ctx, e.String(), h, at) }()
			continue
		}
		if !e.IsUndo {
			// A fault's effect is judged from the height it is fully in
			// place at: applying one takes a process per cut link (eight
			// for a 2-2 partition), and a loaded machine's blocks go on
			// committing meanwhile (CI saw 30 → 33 across a partition
			// whose application it had not waited for).
			before[k] = max(h, r.topHeight(ctx))
			continue
		}
		fault := evs[e.Fault]
		if failed[e.Fault] {
			continue // already a violation; undone so the run can go on
		}
		if fault.P.ExpectHalt {
			r.rep.addHalt(haltWatch{What: fault.String(), Before: before[e.Fault], After: h})
		}
		if stopsOnlyItsNode(fault.P.Action) {
			r.rep.addGoOn(haltWatch{What: fault.String(), Before: before[e.Fault], After: h})
		}
		recoveries.Add(1)
		go func() { defer recoveries.Done(); r.measureRecovery(ctx, fault.String(), h, at) }()
	}
}

// topHeight is the highest height any node answers, polled for up to
// 5 s while no node answers; -1 if none did.
func (r *run) topHeight(ctx context.Context) int64 {
	deadline := time.Now().Add(5 * time.Second)
	for {
		h := maxOf(r.ctl.heights(context.WithoutCancel(ctx)))
		if h >= 1 || time.Now().After(deadline) {
			return h
		}
		select {
		case <-ctx.Done():
			return h
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func (r *run) applyEvent(e event) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.ctl.apply(e.P); err != nil {
		return err
	}
	switch e.P.Action {
	case ActPause:
		r.paused[e.P.Node] = true
	case ActResume:
		delete(r.paused, e.P.Node)
	}
	return nil
}

// measureRecovery waits until every live node has committed a block
// above top, the highest height at the undo, and records how long that
// took since the undo began (start: applying and confirming it count)
// and the heights. A node a later fault killed or paused is not
// waited for. A top below 1 (no node answered at the undo) is a
// violation: against it any height would read as an instant recovery.
func (r *run) measureRecovery(ctx context.Context, what string, top int64, start time.Time) {
	if top < 1 {
		r.rep.violate("recovery", fmt.Sprintf("after %s: no node answered its height at the undo: nothing to measure recovery against", what))
		return
	}
	deadline := start.Add(r.m.Check.MaxRecovery.Duration)
	for time.Now().Before(deadline) {
		if low := r.lowestLiveHeight(ctx); low > top {
			r.rep.noteRecovery(Recovery{After: what, Seconds: time.Since(start).Seconds(), FromHeight: top, ToHeight: low})
			return
		}
		select {
		case <-ctx.Done():
		case <-time.After(200 * time.Millisecond):
		}
	}
	r.rep.violate("recovery", fmt.Sprintf("after %s: some node did not pass height %d within %v", what, top, r.m.Check.MaxRecovery))
}

// lowestLiveHeight is the lowest height of the nodes that run and are
// not paused; -1 when there is none, or when one of them does not
// answer.
func (r *run) lowestLiveHeight(ctx context.Context) int64 {
	hs := r.ctl.heights(context.WithoutCancel(ctx))
	r.mu.Lock()
	defer r.mu.Unlock()
	low, found := int64(0), false
	for i, h := range hs {
		if r.ctl.running(i) && !r.paused[i] && (!found || h < low) {
			low, found = h, true
		}
	}
	if !found {
		return -1
	}
	return low
}

func minOf(hs []int64) int64 {
	m := hs[0]
	for _, h := range hs {
		m = min(m, h)
	}
	return m
}

// recover ends every fault still in force and waits until all nodes are
// at one height with empty mempools, so that no tx is still on its way.
func (r *run) recover(ctx context.Context) error {
	r.mu.Lock()
	err := r.nw.undoAll(r.paused)
	clear(r.paused)
	r.mu.Unlock()
	if err != nil {
		return fmt.Errorf("undo faults: %w", err)
	}
	wctx, cancel := context.WithTimeout(ctx, r.m.Check.MaxRecovery.Duration)
	defer cancel()
	for {
		hs := r.nw.heights(wctx)
		if minOf(hs) >= 0 && minOf(hs) == maxOf(hs) && r.mempoolsEmpty(wctx) {
			return nil
		}
		select {
		case <-wctx.Done():
			return fmt.Errorf("nodes did not settle with empty mempools within %v: heights %v", r.m.Check.MaxRecovery, hs)
		case <-time.After(300 * time.Millisecond):
		}
	}
}

func (r *run) mempoolsEmpty(ctx context.Context) bool {
	for i := range r.nw.net.Nodes {
		res, err := r.nw.client(i, nil).RPC().NumUnconfirmedTxs(ctx)
		if err != nil || res.Total > 0 {
			return false
		}
	}
	return true
}

// cellInt reads an integer cell of a query result.
func cellInt(v any) (int64, bool) {
	switch x := v.(type) {
	case interface{ Int64() (int64, error) }:
		n, err := x.Int64()
		return n, err == nil
	case float64:
		return int64(x), true
	case int64:
		return x, true
	case string:
		var n int64
		_, err := fmt.Sscan(x, &n)
		return n, err == nil
	}
	return 0, false
}
