package e2e

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/client"
	"github.com/relchain/relchain/txn"
)

// rpcProxy is a TCP proxy in front of a node's RPC port. It can cut every
// connection through it at once, and notes whether a client ever sent a
// request naming a given RPC method.
type rpcProxy struct {
	t      *testing.T
	ln     net.Listener
	target string
	watch  []byte

	mu    sync.Mutex
	conns map[net.Conn]struct{}
	seen  atomic.Bool // watch appeared in client->node bytes
	cuts  atomic.Int64
	// refuseWS makes the proxy close connections that ask for the
	// websocket endpoint.
	refuseWS atomic.Bool
}

func startProxy(t *testing.T, rpcURL string, watch string) *rpcProxy {
	t.Helper()
	u, err := url.Parse(rpcURL)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &rpcProxy{t: t, ln: ln, target: u.Host, watch: []byte(watch), conns: map[net.Conn]struct{}{}}
	go p.serve()
	t.Cleanup(func() { ln.Close(); p.cut() })
	return p
}

func (p *rpcProxy) URL() string { return "http://" + p.ln.Addr().String() }

func (p *rpcProxy) serve() {
	for {
		in, err := p.ln.Accept()
		if err != nil {
			return
		}
		out, err := net.Dial("tcp", p.target)
		if err != nil {
			in.Close()
			continue
		}
		p.mu.Lock()
		p.conns[in], p.conns[out] = struct{}{}, struct{}{}
		p.mu.Unlock()
		done := func() {
			in.Close()
			out.Close()
			p.mu.Lock()
			delete(p.conns, in)
			delete(p.conns, out)
			p.mu.Unlock()
		}
		go func() { defer done(); _, _ = io.Copy(out, &watcher{p: p, r: in}) }()
		go func() { defer done(); _, _ = io.Copy(in, out) }()
	}
}

// watcher scans the client's bytes for the watched method name and for
// websocket upgrades (refused when refuseWS is set).
type watcher struct {
	p    *rpcProxy
	r    io.Reader
	tail []byte
}

func (w *watcher) Read(b []byte) (int, error) {
	n, err := w.r.Read(b)
	if n > 0 {
		buf := append(w.tail, b[:n]...)
		if len(w.p.watch) > 0 && bytes.Contains(buf, w.p.watch) {
			w.p.seen.Store(true)
		}
		if w.p.refuseWS.Load() && bytes.Contains(buf, []byte("GET /websocket")) {
			return 0, errors.New("websocket refused by the test proxy")
		}
		keep := min(len(buf), 64)
		w.tail = append([]byte(nil), buf[len(buf)-keep:]...)
	}
	return n, err
}

// cut closes every connection through the proxy.
func (p *rpcProxy) cut() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := len(p.conns)
	for c := range p.conns {
		c.Close()
	}
	p.cuts.Add(1)
	return n
}

// proxiedClient is a client of node i through a new proxy.
func (c *cluster) proxiedClient(i int, key []byte, watch string) (*client.Client, *rpcProxy) {
	c.t.Helper()
	direct := c.client(i, nil)
	p := startProxy(c.t, direct.URL(), watch)
	cl, err := client.New(p.URL(), key)
	if err != nil {
		c.t.Fatal(err)
	}
	cl.SetChainID(c.chainID)
	return cl, p
}

// Commit mode waits for the tx's block without broadcast_tx_commit, and
// returns the height and statement results the tx RPC reports.
func TestClientCommitModeWithoutBroadcastTxCommit(t *testing.T) {
	runBesideOtherNetworks(t)
	c := mustStartCluster(t, clusterOptions{})
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	c.mustExec(ctx, 0, stmt("CREATE TABLE kv (k INTEGER PRIMARY KEY, v TEXT NOT NULL)"))
	cl, proxy := c.proxiedClient(1, newKey(t), "broadcast_tx_commit")
	defer cl.Close()
	direct := c.client(1, nil)
	for i := 1; i <= 5; i++ {
		res, err := cl.Exec(ctx, client.ModeCommit, stmt("INSERT INTO kv (k, v) VALUES (?1, ?2) RETURNING k, v", txn.Int(int64(i)), txn.Text(fmt.Sprint("v", i))))
		if err != nil {
			t.Fatalf("exec %d: %v", i, err)
		}
		if !res.OK() || res.Height <= 0 {
			t.Fatalf("exec %d: %+v", i, res)
		}
		if len(res.Results) != 1 || len(res.Results[0].Rows) != 1 || asInt(t, res.Results[0].Rows[0][0]) != int64(i) || res.Results[0].Rows[0][1] != fmt.Sprint("v", i) {
			t.Fatalf("exec %d: results %+v", i, res.Results)
		}
		h, _ := hex.DecodeString(res.Hash)
		var tx *int64
		if err := waitFor(ctx, "tx indexed", func() bool {
			r, err := direct.RPC().Tx(ctx, h, false)
			if err == nil {
				tx = &r.Height
			}
			return err == nil
		}); err != nil {
			t.Fatal(err)
		}
		if *tx != res.Height {
			t.Fatalf("exec %d: height %d, the tx RPC says %d", i, res.Height, *tx)
		}
	}
	// A CheckTx rejection comes back at once, with its code and no height
	// (nothing else is sent now: no block would come if it waited for one,
	// and the test's context would end it).
	res, err := cl.Exec(ctx, client.ModeCommit, stmt("INSERT INTO kv VALUES ((("))
	if err != nil {
		t.Fatalf("rejected exec: %v", err)
	}
	if res.Code != api.CodeSyntax || res.Height != 0 {
		t.Fatalf("rejected exec: code %s height %d, want %s at height 0 (%s)", codeName(res.Code), res.Height, codeName(api.CodeSyntax), res.Error)
	}
	// An execution failure is a committed result with its code.
	res, err = cl.Exec(ctx, client.ModeCommit, stmt("INSERT INTO kv (k, v) VALUES (1, 'dup')"))
	if err != nil || res.Code != api.CodeExecFailed || res.Height == 0 || res.Failure == nil || res.Failure.Class != "constraint" {
		t.Fatalf("duplicate key: %v %+v", err, res)
	}
	if proxy.seen.Load() {
		t.Fatal("the client called broadcast_tx_commit")
	}

	// Latency side by side (logged only): commit mode vs broadcast_tx_commit.
	fast := c.client(3, newKey(t))
	var viaSync, viaCommit []time.Duration
	for i := 0; i < 20; i++ {
		t0 := time.Now()
		if res, err := fast.Exec(ctx, client.ModeCommit, stmt("INSERT INTO kv (k, v) VALUES (?1, 'sync')", txn.Int(int64(1000+i)))); err != nil || !res.OK() {
			t.Fatalf("exec: %v %+v", err, res)
		}
		viaSync = append(viaSync, time.Since(t0))
		raw, err := fast.Sign(ctx, []txn.Statement{stmt("INSERT INTO kv (k, v) VALUES (?1, 'commit')", txn.Int(int64(2000+i)))})
		if err != nil {
			t.Fatal(err)
		}
		t0 = time.Now()
		if r, err := fast.RPC().BroadcastTxCommit(ctx, raw); err != nil || r.TxResult.Code != 0 {
			t.Fatalf("broadcast_tx_commit: %v %+v", err, r)
		}
		viaCommit = append(viaCommit, time.Since(t0))
	}
	t.Logf("commit-mode latency p50: broadcast_tx_sync + NewBlock event %v, broadcast_tx_commit %v", median(viaSync), median(viaCommit))

	// Without a websocket the client polls the tx RPC instead.
	nows, p2 := c.proxiedClient(2, newKey(t), "")
	p2.refuseWS.Store(true)
	res, err = nows.Exec(ctx, client.ModeCommit, stmt("INSERT INTO kv (k, v) VALUES (100, 'polled')"))
	if err != nil || !res.OK() || res.Height == 0 {
		t.Fatalf("exec without websocket: %v %+v", err, res)
	}
}

// A batch envelope reports one outcome per wl-transaction; a failing one
// is rolled back alone.
func TestClientExecBatch(t *testing.T) {
	runBesideOtherNetworks(t)
	c := mustStartCluster(t, clusterOptions{})
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	c.mustExec(ctx, 0, stmt("CREATE TABLE acct (id INTEGER PRIMARY KEY, bal INTEGER NOT NULL)"),
		stmt("INSERT INTO acct VALUES (1, 100)"))
	cl := c.client(2, newKey(t))
	defer cl.Close()
	br, err := cl.ExecBatch(ctx, [][]txn.Statement{
		{stmt("INSERT INTO acct VALUES (2, 20)")},
		{stmt("INSERT INTO acct VALUES (10, 1)"), stmt("INSERT INTO acct VALUES (1, 999)")}, // duplicate key: rolled back
		{stmt("UPDATE acct SET bal = bal - 5 WHERE id = 1"), stmt("SELECT bal FROM acct WHERE id = 1")},
	})
	if err != nil {
		t.Fatalf("exec batch: %v", err)
	}
	if !br.OK() || br.Height == 0 || len(br.WL) != 3 {
		t.Fatalf("batch: %+v", br)
	}
	if br.WLErr(0) != nil || br.WLErr(2) != nil {
		t.Fatalf("wl 1: %v, wl 3: %v", br.WLErr(0), br.WLErr(2))
	}
	var te *client.TxError
	if err := br.WLErr(1); !errors.As(err, &te) || te.Code != api.CodeExecFailed || te.Failure == nil || te.Failure.Statement != 2 || te.Failure.Class != "constraint" {
		t.Fatalf("wl 2: %v (%+v), want exec_failed at statement 2, class constraint", err, br.WL[1])
	}
	if br.Committed() != 2 {
		t.Fatalf("committed %d wl-transactions, want 2", br.Committed())
	}
	if rows := br.WL[2].Results[1].Rows; len(rows) != 1 || asInt(t, rows[0][0]) != 95 {
		t.Fatalf("wl 3's SELECT: %v", rows)
	}
	q, err := cl.Query(ctx, br.Height, "SELECT id, bal FROM acct ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(q.Rows); got != "[[1 95] [2 20]]" {
		t.Fatalf("rows %s, want [[1 95] [2 20]] (wl 2 rolled back alone)", got)
	}
}

// The async stream reports every submitted tx exactly once, with the
// height and code the chain has, even when its websocket is cut mid-run.
func TestClientStreamExactlyOnceAcrossDrops(t *testing.T) {
	c := mustStartCluster(t, clusterOptions{})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c.mustExec(ctx, 0, stmt("CREATE TABLE ev (id INTEGER PRIMARY KEY, w INTEGER NOT NULL)"))
	cl, proxy := c.proxiedClient(0, newKey(t), "broadcast_tx_commit")
	defer cl.Close()

	var blocks []client.BlockInfo
	s, err := cl.Stream(ctx, client.OnBlock(func(b client.BlockInfo) { blocks = append(blocks, b) }))
	if err != nil {
		t.Fatal(err)
	}
	const n, writers = 300, 6
	outcomes := map[int]client.Outcome{}
	var dups []int
	collected := make(chan struct{})
	go func() {
		defer close(collected)
		for o := range s.Results() {
			id := o.Tag.(int)
			if _, ok := outcomes[id]; ok {
				dups = append(dups, id)
			}
			outcomes[id] = o
		}
	}()

	var submitted atomic.Int64
	var wg sync.WaitGroup
	var submitErrs sync.Map
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for id := w; id < n; id += writers {
				st := stmt("INSERT INTO ev (id, w) VALUES (?1, ?2)", txn.Int(int64(id)), txn.Int(int64(w)))
				if id%50 == 7 {
					st = stmt("INSERT INTO ev (id, w) VALUES (?1, (((", txn.Int(int64(id))) // CheckTx rejects it
				} else if id%50 == 13 {
					st = stmt("INSERT INTO ev (id, w) VALUES (?1, NULL)", txn.Int(int64(id))) // fails in the block
				}
				var err error
				if id%50 == 21 {
					// A batch: its second wl-transaction repeats the key
					// of the first and is rolled back alone.
					err = s.SubmitBatch(ctx, id, [][]txn.Statement{{st}, {st}})
				} else {
					err = s.Submit(ctx, id, st)
				}
				if err != nil {
					submitErrs.Store(id, err)
				}
				submitted.Add(1)
				time.Sleep(40 * time.Millisecond)
			}
		}()
	}
	// Cut every connection through the proxy three times while txs flow;
	// after the second cut, refuse websockets for a while so that blocks
	// are committed while the stream has no subscription.
	for k := 0; k < 3; k++ {
		if err := waitFor(ctx, "submissions", func() bool { return submitted.Load() >= int64((k+1)*n/5) }); err != nil {
			t.Fatal(err)
		}
		if err := waitFor(ctx, "a live subscription", func() bool { st := s.Stats(); return st.Subscribed > st.Drops }); err != nil {
			t.Fatal(err)
		}
		var refusedAt int64
		if k == 1 {
			proxy.refuseWS.Store(true)
			refusedAt = c.maxHeight(ctx, 0)
		}
		t.Logf("cut %d: closed %d connections after %d submissions", k+1, proxy.cut(), submitted.Load())
		if err := waitFor(ctx, "the stream to notice", func() bool { return s.Stats().Drops > int64(k) }); err != nil {
			t.Fatal(err)
		}
		if k == 1 {
			// Two blocks after the refusal: at least one was committed
			// entirely while the stream had no subscription.
			if err := waitFor(ctx, "blocks committed without a subscription", func() bool { return c.maxHeight(ctx, 0) >= refusedAt+2 }); err != nil {
				t.Fatal(err)
			}
			proxy.refuseWS.Store(false)
		}
	}
	wg.Wait()
	submitErrs.Range(func(k, v any) bool {
		t.Errorf("submit %v: %v", k, v)
		return true
	})
	if err := s.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-collected:
	case <-ctx.Done():
		t.Fatal("Results was not closed after Close")
	}
	if len(dups) > 0 {
		t.Fatalf("reported twice: %v", dups)
	}
	if len(outcomes) != n {
		t.Fatalf("%d outcomes, want %d", len(outcomes), n)
	}
	st := s.Stats()
	t.Logf("follower: %+v; %d blocks seen", st, len(blocks))
	if st.Drops < 3 || st.Fetched == 0 {
		t.Errorf("the subscription was lost %d times and %d blocks were fetched by RPC; want at least 3 and 1", st.Drops, st.Fetched)
	}
	direct := c.client(0, nil)
	hashes := map[string]int{}
	mine := 0
	for id, o := range outcomes {
		if other, ok := hashes[o.Hash]; ok {
			t.Fatalf("txs %d and %d have the same hash", id, other)
		}
		hashes[o.Hash] = id
		switch {
		case id%50 == 7:
			if o.Included() || o.Result.Code != api.CodeSyntax || o.Err == nil {
				t.Errorf("tx %d: height %d code %s err %v, want a CheckTx rejection (syntax)", id, o.Height, codeName(o.Result.Code), o.Err)
			}
			continue
		case o.Err != nil || !o.Included():
			t.Errorf("tx %d: not committed: %v", id, o.Err)
			continue
		case id%50 == 21:
			if !o.OK() || len(o.Result.Batch) != 2 || o.Result.Batch[0].Code != api.CodeOK || o.Result.Batch[1].Code != api.CodeExecFailed {
				t.Errorf("batch %d: code %s batch %+v", id, codeName(o.Result.Code), o.Result.Batch)
			}
		case id%50 == 13:
			if o.Result.Code != api.CodeExecFailed {
				t.Errorf("tx %d: code %s, want exec_failed", id, codeName(o.Result.Code))
			}
		case !o.OK():
			t.Errorf("tx %d: code %s: %s", id, codeName(o.Result.Code), o.Result.Error)
		}
		mine++
		h, _ := hex.DecodeString(o.Hash)
		var r struct {
			height int64
			code   uint32
			index  uint32
		}
		if err := waitFor(ctx, "tx indexed", func() bool {
			x, err := direct.RPC().Tx(ctx, h, false)
			if err == nil {
				r.height, r.code, r.index = x.Height, x.TxResult.Code, x.Index
			}
			return err == nil
		}); err != nil {
			t.Fatalf("tx %d (%s): %v", id, o.Hash, err)
		}
		if r.height != o.Height || r.code != o.Result.Code || int(r.index) != o.Index {
			t.Errorf("tx %d: outcome height %d index %d code %d, the tx RPC says %d/%d/%d", id, o.Height, o.Index, o.Result.Code, r.height, r.index, r.code)
		}
		if o.CommitTime.Before(o.SubmitTime) {
			t.Errorf("tx %d committed before it was submitted", id)
		}
	}
	// Blocks come in order, each once, and account for every committed tx.
	sum := 0
	for i, b := range blocks {
		if i > 0 && b.Height != blocks[i-1].Height+1 {
			t.Fatalf("block %d follows block %d", b.Height, blocks[i-1].Height)
		}
		sum += b.Mine
	}
	if sum != mine {
		t.Errorf("OnBlock counted %d of the stream's txs, %d were committed", sum, mine)
	}
	if proxy.seen.Load() {
		t.Error("the stream called broadcast_tx_commit")
	}
	// Every committed insert is there: all ids but the rejected and the
	// failing ones.
	want := 0
	for id := 0; id < n; id++ {
		if id%50 != 7 && id%50 != 13 {
			want++
		}
	}
	q, err := c.client(0, nil).Query(ctx, 0, "SELECT count(*) FROM ev")
	if err != nil {
		t.Fatal(err)
	}
	if got := asInt(t, q.Rows[0][0]); got != int64(want) {
		t.Errorf("%d rows, want %d", got, want)
	}
}

// QueryAll agrees across the nodes.
func TestClientQueryAll(t *testing.T) {
	runBesideOtherNetworks(t)
	c := mustStartCluster(t, clusterOptions{})
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	res := c.mustExec(ctx, 0, stmt("CREATE TABLE q (id INTEGER PRIMARY KEY, s TEXT)"),
		stmt("INSERT INTO q VALUES (1, 'a'), (2, 'b')"))
	clients := make([]*client.Client, len(c.nodes))
	for i := range clients {
		clients[i] = c.client(i, nil)
	}
	q, err := client.QueryAll(ctx, clients, res.Height, "SELECT id, s FROM q ORDER BY id")
	if err != nil {
		t.Fatalf("QueryAll: %v", err)
	}
	if q.Height < res.Height || fmt.Sprint(q.Rows) != "[[1 a] [2 b]]" {
		t.Fatalf("QueryAll: height %d rows %v", q.Height, q.Rows)
	}
	// A node that does not answer is named.
	bad, _ := client.New("http://127.0.0.1:1", nil)
	_, err = client.QueryAll(ctx, append(clients[:3:3], bad), res.Height, "SELECT 1")
	if err == nil || !strings.Contains(err.Error(), "127.0.0.1:1") {
		t.Fatalf("QueryAll with an unreachable node: %v", err)
	}
}

func median(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}
