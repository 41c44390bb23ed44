package bench

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/bench/workload"
	"github.com/relchain/relchain/client"
	"github.com/relchain/relchain/txn"
)

// SetupMicro prepares the update micro-workload's table through consensus.
func SetupMicro(ctx context.Context, cfg Config) error {
	if cfg.Workload != "update" {
		return nil
	}
	c, err := newClient(cfg.Nodes[0])
	if err != nil {
		return err
	}
	st, err := c.Status(ctx)
	if err != nil {
		return fmt.Errorf("set up update workload: %w", err)
	}
	fill, err := workload.Lookup(updateFills, "bench's updateFills", st.Backend)
	if err != nil {
		return fmt.Errorf("set up update workload: %w", err)
	}
	bcs := workload.DDLAlone(st.Backend, [][]txn.Statement{{
		{SQL: "CREATE TABLE bench_acct (id BIGINT PRIMARY KEY, bal BIGINT NOT NULL)"},
		{SQL: fill(cfg.Rows)},
	}})
	for _, stmts := range bcs {
		res, err := c.Exec(ctx, client.ModeCommit, stmts...)
		if err != nil {
			return fmt.Errorf("set up update workload: %w", err)
		}
		if err := res.Err(); err != nil {
			return fmt.Errorf("set up update workload: %w", err)
		}
	}
	return nil
}

// updateFills is, by dialect name, the INSERT of the update workload's
// rows 1..n (a test holds that every database has one). Each dialect's
// gate admits one bounded row generator: PostgreSQL generate_series with
// constant bounds (no WITH RECURSIVE), SQLite a recursive CTE (no
// generate_series), which its work limit bounds, MySQL neither (a cross
// join of digit tables, as Smallbank does).
var updateFills = map[string]func(n int) string{
	workload.SQLite: func(n int) string {
		return fmt.Sprintf("WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < %d) INSERT INTO bench_acct (id, bal) SELECT i, 0 FROM s", n)
	},
	workload.Postgres: func(n int) string {
		return fmt.Sprintf("INSERT INTO bench_acct (id, bal) SELECT i, 0 FROM generate_series(1, %d) AS s(i)", n)
	},
	workload.MySQL: func(n int) string {
		return fmt.Sprintf("INSERT INTO bench_acct (id, bal) SELECT x, 0 FROM (%s) AS s WHERE x <= %d", workload.MySQLSeries(1, n), n)
	},
}

func newClient(url string) (*client.Client, error) {
	_, key, err := ed25519.GenerateKey(nil)
	if err != nil {
		return nil, err
	}
	return client.New(url, key)
}

// txMaker builds the i-th tx of a client.
type txMaker func(c *client.Client, r *rand.Rand) ([]byte, error)

func maker(ctx context.Context, cfg Config) txMaker {
	if cfg.Workload == "kvstore" {
		var seq atomic.Int64
		return func(c *client.Client, r *rand.Rand) ([]byte, error) {
			n := seq.Add(1)
			return []byte(fmt.Sprintf("k%d=v%d", r.IntN(1<<30), n)), nil
		}
	}
	sql := "UPDATE bench_acct SET bal = bal + 1 WHERE id = " + workload.OnlyPlaceholder(cfg.Dialect)
	return func(c *client.Client, r *rand.Rand) ([]byte, error) {
		id := int64(r.IntN(cfg.Rows)) + 1
		return c.Sign(ctx, []txn.Statement{{SQL: sql, Args: []txn.Arg{txn.Int(id)}}})
	}
}

// RunMicro measures relchain's micro-workloads: "update" (single-row
// UPDATEs) and "kvstore" (CometBFT's example app, the consensus ceiling).
// Modes are "commit" (alias sync) and "async". The network must already be
// set up (SetupMicro).
func RunMicro(ctx context.Context, cfg Config) (*Result, error) {
	if len(cfg.Nodes) == 0 {
		return nil, errors.New("no nodes to send to")
	}
	if cfg.Clients < 1 {
		cfg.Clients = 1
	}
	clients := make([]*client.Client, cfg.Clients)
	for i := range clients {
		c, err := newClient(cfg.Nodes[i%len(cfg.Nodes)])
		if err != nil {
			return nil, err
		}
		if cfg.Workload != "kvstore" {
			if _, err := c.ChainID(ctx); err != nil {
				return nil, err
			}
		}
		clients[i] = c
	}
	obs, err := newClient(cfg.Nodes[0])
	if err != nil {
		return nil, err
	}
	startHeight, err := latestHeight(ctx, obs)
	if err != nil {
		return nil, err
	}
	res := &Result{Workload: cfg.Workload, Mode: cfg.Mode, Clients: cfg.Clients, Txs: cfg.Txs}
	switch cfg.Mode {
	case "commit", ModeSync, ModePseudo:
		err = runCommit(ctx, cfg, clients, res)
	case "async":
		err = runAsync(ctx, cfg, clients, obs, startHeight, res)
	default:
		err = fmt.Errorf("unknown mode %q: use commit or async", cfg.Mode)
	}
	if err != nil {
		return nil, err
	}
	end, err := latestHeight(ctx, obs)
	if err != nil {
		return nil, err
	}
	if err := countBlocks(ctx, obs, startHeight+1, end, res); err != nil {
		return nil, err
	}
	if res.Seconds > 0 {
		res.TPS = float64(res.Succeeded+res.Failed) / res.Seconds
	}
	return res, nil
}

// latestHeight is the last height the node's application reports (the
// block store's height can be one ahead). relchain reports a height once
// committed, when CometBFT has stored its results; CometBFT's kvstore as
// soon as FinalizeBlock ran, so block_results may not serve it yet
// (resultsNotSavedYet).
func latestHeight(ctx context.Context, c *client.Client) (int64, error) {
	info, err := c.RPC().ABCIInfo(ctx)
	if err != nil {
		return 0, fmt.Errorf("abci_info: %w", err)
	}
	return info.Response.LastBlockHeight, nil
}

func split(total, parts, i int) int {
	n := total / parts
	if i < total%parts {
		n++
	}
	return n
}

// submitAll has every client send its share of the workload's txs through
// send, concurrently. The channel closes when all are done; firstErr then
// gives the first error (a client stops at its first error).
func submitAll(ctx context.Context, cfg Config, clients []*client.Client, send func(c *client.Client, raw []byte) error) (done <-chan struct{}, firstErr func() error) {
	mk := maker(ctx, cfg)
	var mu sync.Mutex
	var first error
	ch := make(chan struct{})
	var wg sync.WaitGroup
	for ci, c := range clients {
		wg.Add(1)
		go func(ci int, c *client.Client) {
			defer wg.Done()
			r := rand.New(rand.NewPCG(cfg.Seed, uint64(ci)))
			for k := 0; k < split(cfg.Txs, len(clients), ci); k++ {
				raw, err := mk(c, r)
				if err == nil {
					err = send(c, raw)
				}
				if err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
					return
				}
			}
		}(ci, c)
	}
	go func() { wg.Wait(); close(ch) }()
	return ch, func() error { mu.Lock(); defer mu.Unlock(); return first }
}

func runCommit(ctx context.Context, cfg Config, clients []*client.Client, res *Result) error {
	var mu sync.Mutex
	var lat []float64
	var done atomic.Int64
	start := time.Now()
	finished, firstErr := submitAll(ctx, cfg, clients, func(c *client.Client, raw []byte) error {
		t0 := time.Now()
		out, err := c.Broadcast(ctx, client.ModeCommit, raw)
		d := time.Since(t0)
		if err != nil {
			return err
		}
		mu.Lock()
		lat = append(lat, float64(d.Microseconds())/1000)
		if out.Code == api.CodeOK {
			res.Succeeded++
		} else {
			res.Failed++
		}
		mu.Unlock()
		if cfg.Progress != nil {
			cfg.Progress(int(done.Add(1)))
		}
		return nil
	})
	<-finished
	res.Seconds = time.Since(start).Seconds()
	if err := firstErr(); err != nil {
		return err
	}
	res.LatencyMS = summarize(lat)
	return nil
}

func summarize(lat []float64) *Latency {
	if len(lat) == 0 {
		return nil
	}
	sort.Float64s(lat)
	q := func(p float64) float64 { return lat[int(p*float64(len(lat)-1)+0.5)] }
	return &Latency{P50: q(0.50), P95: q(0.95), P99: q(0.99)}
}

// runAsync submits every tx with broadcast_tx_sync (admitted to the
// mempool) from all clients at once, then follows committed blocks until
// all admitted txs are in blocks. Time runs from the first submission to
// the moment the last tx is seen committed.
func runAsync(ctx context.Context, cfg Config, clients []*client.Client, obs *client.Client, startHeight int64, res *Result) error {
	mode := client.ModeSync
	if cfg.Submit == "async" {
		mode = client.ModeAsync
	}
	var admitted, rejected atomic.Int64
	start := time.Now()
	submitDone, firstErr := submitAll(ctx, cfg, clients, func(c *client.Client, raw []byte) error {
		for attempt := 0; ; attempt++ {
			out, err := c.Broadcast(ctx, mode, raw)
			if err != nil && strings.Contains(err.Error(), "mempool is full") && attempt < 1000 {
				time.Sleep(10 * time.Millisecond)
				continue
			}
			if err != nil {
				return err
			}
			if out.Code == api.CodeOK {
				admitted.Add(1)
			} else {
				rejected.Add(1)
			}
			return nil
		}
	})
	// Follow the chain while submitting, until every admitted tx is in a
	// committed block.
	var committed, ok, failed int
	var missing resultsWait
	next := startHeight + 1
	for {
		submitted := false
		select {
		case <-submitDone:
			submitted = true
		default:
		}
		h, err := latestHeight(ctx, obs)
		if err != nil {
			return err
		}
		for ; next <= h; next++ {
			br, err := obs.RPC().BlockResults(ctx, &next)
			if err != nil && resultsNotSavedYet(err) && missing.wait(next) {
				// The app reported the height before CometBFT saved its
				// results (kvstore does): read it at the next poll.
				break
			}
			if err != nil {
				return fmt.Errorf("block_results %d: %w", next, err)
			}
			for _, r := range br.TxsResults {
				committed++
				if r.Code == api.CodeOK {
					ok++
				} else {
					failed++
				}
			}
		}
		if cfg.Progress != nil {
			cfg.Progress(committed)
		}
		if submitted && int64(committed) >= admitted.Load() {
			break
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
	res.Seconds = time.Since(start).Seconds()
	if err := firstErr(); err != nil {
		return err
	}
	res.Succeeded = ok
	res.Failed = failed + int(rejected.Load())
	return nil
}

// resultsGrace bounds how long a height the app reported may lack its
// results in CometBFT's store before the run fails.
const resultsGrace = 10 * time.Second

// resultsNotSavedYet is block_results' answer for a height whose
// FinalizeBlock response CometBFT has not stored yet. An app's Info may
// report a height before that (CometBFT's kvstore sets its height in
// FinalizeBlock, and CometBFT stores the response after it returns).
func resultsNotSavedYet(err error) bool {
	return strings.Contains(err.Error(), "could not find results for height")
}

// resultsWait remembers since when one height's results are awaited.
type resultsWait struct {
	height int64
	since  time.Time
}

// wait reports whether height h may still be waited for: true until
// resultsGrace has passed since its results were first found missing.
func (w *resultsWait) wait(h int64) bool {
	if w.height != h {
		w.height, w.since = h, time.Now()
	}
	return time.Since(w.since) < resultsGrace
}

func countBlocks(ctx context.Context, c *client.Client, from, to int64, res *Result) error {
	txs := 0
	for lo := from; lo <= to; lo += 20 {
		hi := min(lo+19, to)
		info, err := c.RPC().BlockchainInfo(ctx, lo, hi)
		if err != nil {
			return fmt.Errorf("blockchain %d-%d: %w", lo, hi, err)
		}
		for _, m := range info.BlockMetas {
			res.Blocks++
			if m.NumTxs > 0 {
				res.TxBlocks++
				txs += m.NumTxs
			}
		}
	}
	if res.TxBlocks > 0 {
		res.TxsPerBlockMean = float64(txs) / float64(res.TxBlocks)
	}
	return nil
}
