package client

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"sync"
	"testing"
	"time"

	abci "github.com/cometbft/cometbft/abci/types"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/txn"
)

// fakeNode answers broadcast_tx_sync as told by decide, and tx from
// committed (nil: "not found").
type fakeNode struct {
	mu        sync.Mutex
	decide    func(tx []byte) (code uint32, rpcErr string)
	query     func(api.QueryRequest) *api.QueryResponse
	committed func() (tx []byte, height int64, ok bool)
	seen      [][]byte
	// earliest, when not 0, is the earliest block height status reports
	// (at latest height 2); 0: status is not served.
	earliest int64
}

func (n *fakeNode) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Tx   string `json:"tx"`
			Data string `json:"data"` // abci_query, hex
		} `json:"params"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), 400)
		return
	}
	reply := func(result any, rpcErr string) {
		resp := map[string]any{"jsonrpc": "2.0", "id": req.ID}
		if rpcErr != "" {
			resp["error"] = map[string]any{"code": -32603, "message": "Internal error", "data": rpcErr}
		} else {
			resp["result"] = result
		}
		_ = json.NewEncoder(w).Encode(resp)
	}
	switch req.Method {
	case "broadcast_tx_sync":
		tx, _ := base64.StdEncoding.DecodeString(req.Params.Tx)
		n.mu.Lock()
		n.seen = append(n.seen, tx)
		code, rpcErr := n.decide(tx)
		n.mu.Unlock()
		reply(map[string]any{"code": code, "data": "", "log": fmt.Sprintf("code %d", code), "codespace": "", "hash": hashHex(tx)}, rpcErr)
	case "tx":
		n.mu.Lock()
		var tx []byte
		var height int64
		ok := false
		if n.committed != nil {
			tx, height, ok = n.committed()
		}
		n.mu.Unlock()
		if !ok {
			reply(nil, "tx not found")
			return
		}
		reply(map[string]any{"hash": hashHex(tx), "height": fmt.Sprint(height), "index": 0, "tx": tx,
			"tx_result": map[string]any{"code": 0, "data": []byte(`{"results":[{"rows_affected":7}]}`)}}, "")
	case "abci_query":
		var q api.QueryRequest
		b, _ := hex.DecodeString(req.Params.Data)
		_ = json.Unmarshal(b, &q)
		n.mu.Lock()
		out := n.query(q)
		n.mu.Unlock()
		v, _ := json.Marshal(out)
		reply(map[string]any{"response": map[string]any{"code": 0, "value": v}}, "")
	case "status":
		if n.earliest == 0 {
			reply(nil, "method not served by the fake node")
			return
		}
		reply(map[string]any{"sync_info": map[string]any{"latest_block_height": "2", "earliest_block_height": fmt.Sprint(n.earliest)}}, "")
	default:
		reply(nil, "method not served by the fake node")
	}
}

// addBlock appends a block with the given txs and results.
func (c *fakeChain) addBlock(txs [][]byte, res []*abci.ExecTxResult) int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.height++
	b, err := newBlockData(c.height, time.Unix(c.height, 0), txs, res)
	if err != nil {
		panic(err)
	}
	c.blocks[c.height] = b
	return c.height
}

// installFollower makes f the shared follower of url.
func installFollower(t *testing.T, url string, f *follower) {
	t.Helper()
	if err := f.start(context.Background()); err != nil {
		t.Fatal(err)
	}
	close(f.ready)
	registryMu.Lock()
	registry[url] = f
	registryMu.Unlock()
}

func TestStreamReportsEveryTxOnce(t *testing.T) {
	before := runtime.NumGoroutine()
	node := &fakeNode{}
	srv := httptest.NewServer(node)
	defer srv.Close()
	_, key, _ := ed25519.GenerateKey(nil)
	c, err := New(srv.URL, key)
	if err != nil {
		t.Fatal(err)
	}
	c.SetChainID("fake")
	chain := newFakeChain()
	chain.grow(2)
	f := newFollower(c.url, chain, nil, fastTiming)
	installFollower(t, c.url, f)

	// Tags: "ok" and "full" are committed, "bad" is rejected by CheckTx,
	// "lost" is never committed, "open" is pending at Close.
	fullTries := 0
	node.decide = func(tx []byte) (uint32, string) {
		d, _ := txn.Decode(tx)
		switch d.Statements[0].SQL {
		case "bad":
			return api.CodeSyntax, ""
		case "full":
			if fullTries++; fullTries <= 2 {
				return 0, "mempool is full: number of txs 5000 (max: 5000)"
			}
		}
		return 0, ""
	}
	var blocks []BlockInfo
	s, err := c.Stream(context.Background(), MaxBlocks(3), OnBlock(func(b BlockInfo) { blocks = append(blocks, b) }))
	if err != nil {
		t.Fatal(err)
	}
	raws := map[string][]byte{}
	for _, tag := range []string{"ok", "full", "bad", "lost"} {
		if err := s.Submit(context.Background(), tag, txn.Statement{SQL: tag}); err != nil {
			t.Fatalf("submit %s: %v", tag, err)
		}
		node.mu.Lock()
		raws[tag] = node.seen[len(node.seen)-1]
		node.mu.Unlock()
	}
	if fullTries != 3 {
		t.Fatalf("mempool full: %d tries, want 3", fullTries)
	}
	okData, _ := json.Marshal(api.ExecData{Results: []api.StatementResult{{RowsAffected: 1}}})
	h := chain.addBlock([][]byte{[]byte("someone else's"), raws["ok"], raws["full"]},
		[]*abci.ExecTxResult{{}, {Data: okData}, {Code: api.CodeExecFailed, Log: "boom", Data: []byte(`{"statement":1,"class":"constraint"}`)}})
	for range 4 { // "lost" gives up after 3 blocks
		chain.addBlock(nil, nil)
	}
	if err := s.Flush(ctxTimeout(t, 5*time.Second)); err != nil {
		t.Fatal(err)
	}
	if err := s.Submit(context.Background(), "open", txn.Statement{SQL: "open"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Submit(context.Background(), "late", txn.Statement{SQL: "late"}); !errors.Is(err, ErrStreamClosed) {
		t.Fatalf("submit after close: %v", err)
	}
	got := map[string]Outcome{}
	for o := range s.Results() {
		tag := o.Tag.(string)
		if _, dup := got[tag]; dup {
			t.Fatalf("%s reported twice", tag)
		}
		got[tag] = o
	}
	if len(got) != 5 {
		t.Fatalf("%d outcomes: %v", len(got), got)
	}
	if o := got["ok"]; !o.OK() || o.Height != h || o.Index != 1 || o.Result.Results[0].RowsAffected != 1 || o.Latency() < 0 {
		t.Errorf("ok: %+v", o)
	}
	if o := got["full"]; o.Height != h || o.Index != 2 || o.Result.Code != api.CodeExecFailed || o.Result.Failure.Class != "constraint" || o.Err != nil {
		t.Errorf("full: %+v", o)
	}
	if o := got["bad"]; o.Included() || o.Result.Code != api.CodeSyntax || o.Err == nil {
		t.Errorf("bad: %+v", o)
	}
	if o := got["lost"]; o.Included() || !errors.Is(o.Err, ErrNotCommitted) {
		t.Errorf("lost: %+v", o)
	}
	if o := got["open"]; o.Included() || !errors.Is(o.Err, ErrStreamClosed) {
		t.Errorf("open: %+v", o)
	}
	if len(blocks) == 0 || blocks[0].Height != h || blocks[0].Txs != 3 || blocks[0].Mine != 2 {
		t.Errorf("blocks %+v", blocks)
	}
	stopAllFollowers()
	srv.CloseClientConnections()
	c.rpc.Remote() // keep c alive until here
	waitUntil(t, "goroutines to end", func() bool { return runtime.NumGoroutine() <= before+2 })
}

func ctxTimeout(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// Cancelling the stream's context closes it and its Results.
func TestStreamContextCancel(t *testing.T) {
	node := &fakeNode{decide: func([]byte) (uint32, string) { return 0, "" }}
	srv := httptest.NewServer(node)
	defer srv.Close()
	_, key, _ := ed25519.GenerateKey(nil)
	c, _ := New(srv.URL, key)
	c.SetChainID("fake")
	chain := newFakeChain()
	f := newFollower(c.url, chain, nil, fastTiming)
	installFollower(t, c.url, f)
	defer stopAllFollowers()
	ctx, cancel := context.WithCancel(context.Background())
	s, err := c.Stream(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if err := s.Submit(ctx, i, txn.Statement{SQL: "x"}); err != nil {
			t.Fatal(err)
		}
	}
	cancel()
	select {
	case <-s.pumpDone:
	case <-time.After(5 * time.Second):
		t.Fatal("stream did not end after its context was cancelled")
	}
	for range s.Results() {
	}
	if err := s.Submit(context.Background(), 9, txn.Statement{SQL: "x"}); !errors.Is(err, ErrStreamClosed) {
		t.Fatalf("submit after cancel: %v", err)
	}
}

// QueryAll re-asks until the nodes answer at one height, then names the
// node whose rows differ.
func TestQueryAllAgainstFakeNodes(t *testing.T) {
	var clients []*Client
	var asked [4][]int64
	for i := range 4 {
		n := &fakeNode{query: func(q api.QueryRequest) *api.QueryResponse {
			asked[i] = append(asked[i], q.MinHeight)
			h := max(q.MinHeight, 9)
			if i == 3 {
				h = max(h, 10) // one node is ahead
			}
			v := "x"
			if i == 2 {
				v = "evil"
			}
			return &api.QueryResponse{Height: h, Columns: []string{"v"}, Rows: [][]any{{v}}}
		}}
		srv := httptest.NewServer(n)
		t.Cleanup(srv.Close)
		c, _ := New(srv.URL, nil)
		clients = append(clients, c)
	}
	ctx := ctxTimeout(t, 5*time.Second)
	_, err := QueryAll(ctx, clients, 5, "SELECT v")
	var me *MismatchError
	if !errors.As(err, &me) || len(me.Disagreeing) != 1 || me.Disagreeing[0] != clients[2].URL() || me.Height != 10 || !me.Majority {
		t.Fatalf("%v %+v", err, me)
	}
	if fmt.Sprint(asked[0]) != "[5 10]" {
		t.Fatalf("node 0 was asked with min heights %v, want [5 10]", asked[0])
	}
	// Agreement among the honest three.
	r, err := QueryAll(ctx, []*Client{clients[0], clients[1], clients[3]}, 0, "SELECT v")
	if err != nil || r.Height != 10 {
		t.Fatalf("%v %+v", err, r)
	}
}

// A node that always answers above the others' height never lets them
// meet: QueryAll gives up after QueryAllRounds rounds.
func TestQueryAllNoCommonHeight(t *testing.T) {
	var clients []*Client
	for i := range 2 {
		n := &fakeNode{query: func(q api.QueryRequest) *api.QueryResponse {
			h := q.MinHeight
			if i == 1 {
				h++
			}
			return &api.QueryResponse{Height: h}
		}}
		srv := httptest.NewServer(n)
		t.Cleanup(srv.Close)
		c, _ := New(srv.URL, nil)
		clients = append(clients, c)
	}
	_, err := QueryAll(ctxTimeout(t, 5*time.Second), clients, 1, "SELECT 1")
	var nc *NoCommonHeightError
	if !errors.As(err, &nc) || nc.Rounds != QueryAllRounds {
		t.Fatalf("%v", err)
	}
}

// Commit mode through a live follower: the result comes from the block;
// a CheckTx rejection returns at once; a tx that never comes is given up
// after SetCommitBlocks blocks.
func TestExecCommitThroughFollower(t *testing.T) {
	before := runtime.NumGoroutine()
	node := &fakeNode{decide: func(tx []byte) (uint32, string) {
		if d, _ := txn.Decode(tx); d.Statements[0].SQL == "bad" {
			return api.CodeSyntax, ""
		}
		return 0, ""
	}}
	srv := httptest.NewServer(node)
	defer srv.Close()
	_, key, _ := ed25519.GenerateKey(nil)
	c, _ := New(srv.URL, key)
	c.SetChainID("fake")
	chain := newFakeChain()
	chain.grow(3)
	evs := &fakeEvents{subs: make(chan *fakeSub, 10)}
	f := newFollower(c.url, chain, evs, fastTiming)
	installFollower(t, c.url, f)
	sub := <-evs.subs
	ctx := ctxTimeout(t, 5*time.Second)

	// The node makes a block every few milliseconds with the txs it
	// accepted (except "lost"), announced as an event.
	done := make(chan struct{})
	pctx, stopProducing := context.WithCancel(ctx)
	go func() {
		defer close(done)
		seen := 0
		for {
			select {
			case <-pctx.Done():
				return
			case <-time.After(2 * time.Millisecond):
			}
			node.mu.Lock()
			txs := node.seen[seen:]
			seen = len(node.seen)
			node.mu.Unlock()
			var in [][]byte
			var res []*abci.ExecTxResult
			for _, tx := range txs {
				d, _ := txn.Decode(tx)
				if d.Statements[0].SQL == "ok" || len(d.Groups) > 0 {
					in = append(in, tx)
					data, _ := json.Marshal(api.ExecData{Batch: []api.WLResult{{Code: 0}, {Code: api.CodeExecFailed}}})
					if len(d.Groups) == 0 {
						data, _ = json.Marshal(api.ExecData{Results: []api.StatementResult{{RowsAffected: 3}}})
					}
					res = append(res, &abci.ExecTxResult{Data: data})
				}
			}
			h := chain.addBlock(in, res)
			select {
			case sub.events <- chain.block(h):
			case <-pctx.Done():
			}
		}
	}()
	res, err := c.Exec(ctx, ModeCommit, txn.Statement{SQL: "ok"})
	if err != nil || !res.OK() || res.Height == 0 || res.Results[0].RowsAffected != 3 {
		t.Fatalf("ok: %v %+v", err, res)
	}
	res, err = c.Exec(ctx, ModeCommit, txn.Statement{SQL: "bad"})
	if err != nil || res.Code != api.CodeSyntax || res.Height != 0 {
		t.Fatalf("bad: %v %+v", err, res)
	}
	b, err := c.ExecBatch(ctx, [][]txn.Statement{{{SQL: "a"}}, {{SQL: "b"}}})
	if err != nil || b.Height == 0 || b.WLErr(0) != nil || b.WLErr(1) == nil {
		t.Fatalf("batch: %v %+v", err, b)
	}
	c.SetCommitBlocks(2)
	_, err = c.Exec(ctx, ModeCommit, txn.Statement{SQL: "lost"})
	if !errors.Is(err, ErrNotCommitted) {
		t.Fatalf("lost: %v", err)
	}
	if fmt.Sprint(f.snapshot().Fetched) != "0" {
		t.Errorf("blocks fetched by RPC although every event came: %+v", f.snapshot())
	}
	stopProducing()
	<-done
	stopAllFollowers()
	srv.CloseClientConnections()
	waitUntil(t, "goroutines to end", func() bool { return runtime.NumGoroutine() <= before+2 })
}

// A submission cut in transit is sent again; the node already has it
// ("tx already exists in cache"), so the stream keeps waiting and reports
// it, once, from its block.
func TestStreamResendsAfterTransportFailure(t *testing.T) {
	node := &fakeNode{}
	calls := 0
	node.decide = func([]byte) (uint32, string) {
		calls++
		if calls == 2 {
			return 0, "tx already exists in cache"
		}
		return 0, ""
	}
	var mu sync.Mutex
	cut := true
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		first := cut
		cut = false
		mu.Unlock()
		node.ServeHTTP(w, r)
		if first { // the node took the tx, the answer is lost
			hj, _ := w.(http.Hijacker)
			if conn, _, err := hj.Hijack(); err == nil {
				conn.Close()
			}
		}
	}))
	defer srv.Close()
	_, key, _ := ed25519.GenerateKey(nil)
	c, _ := New(srv.URL, key)
	c.SetChainID("fake")
	chain := newFakeChain()
	f := newFollower(c.url, chain, nil, fastTiming)
	installFollower(t, c.url, f)
	defer stopAllFollowers()
	ctx := ctxTimeout(t, 5*time.Second)
	s, err := c.Stream(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Submit(ctx, "x", txn.Statement{SQL: "x"}); err != nil {
		t.Fatalf("submit: %v", err)
	}
	if calls != 2 {
		t.Fatalf("%d broadcasts, want 2", calls)
	}
	node.mu.Lock()
	raw := node.seen[0]
	node.mu.Unlock()
	chain.addBlock([][]byte{raw}, []*abci.ExecTxResult{{Data: []byte(`{"results":[]}`)}})
	if err := s.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	s.Close()
	n := 0
	for o := range s.Results() {
		n++
		if !o.OK() || o.Height != 1 {
			t.Errorf("%+v", o)
		}
	}
	if n != 1 {
		t.Fatalf("%d outcomes", n)
	}
}

// A commit-mode wait whose tx is committed in a block its follower never
// hands it (here: the node's events and block RPCs never show it) learns
// of the commit at its next probe: the node answers that it has the tx,
// the wait looks the tx up by hash and returns its result, instead of
// waiting until its deadline.
func TestExecCommitFindsATxTheFollowerMissed(t *testing.T) {
	node := &fakeNode{}
	node.decide = func(tx []byte) (uint32, string) {
		if len(node.seen) == 1 {
			return 0, ""
		}
		return 0, "tx already exists in cache"
	}
	node.committed = func() ([]byte, int64, bool) {
		if len(node.seen) < 2 { // only after the probe
			return nil, 0, false
		}
		return node.seen[0], 9, true
	}
	c, _ := probingClient(t, node, &fakeEvents{subs: make(chan *fakeSub, 10)}, 3)
	res, err := c.Exec(ctxTimeout(t, 5*time.Second), ModeCommit, txn.Statement{SQL: "x"})
	if err != nil {
		t.Fatalf("the wait did not find the committed tx: %v", err)
	}
	if !res.OK() || res.Height != 9 || len(res.Results) != 1 || res.Results[0].RowsAffected != 7 {
		t.Fatalf("result %+v, want the index's (height 9, 7 rows)", res)
	}
	node.mu.Lock()
	defer node.mu.Unlock()
	if len(node.seen) < 2 {
		t.Fatalf("%d submissions: the wait never probed", len(node.seen))
	}
}

// A stream learns within seconds that the node quarantined a tx it had
// admitted: its probe re-submits long-pending txs and reports the
// quarantined one with ErrQuarantined, long before MaxBlocks. A tx the
// node still holds in its mempool stays pending and is reported once,
// from its block.
func TestStreamReportsAQuarantinedTxEarly(t *testing.T) {
	node := &fakeNode{}
	sent := map[string]int{}
	node.decide = func(tx []byte) (uint32, string) {
		d, _ := txn.Decode(tx)
		sql := d.Statements[0].SQL
		sent[sql]++
		switch {
		case sent[sql] == 1:
			return 0, ""
		case sql == "slow":
			return api.CodeQuarantined, ""
		default:
			return 0, "tx already exists in cache"
		}
	}
	c, chain := probingClient(t, node, nil, 2)
	ctx := ctxTimeout(t, 5*time.Second)
	s, err := c.Stream(ctx, MaxBlocks(1000))
	if err != nil {
		t.Fatal(err)
	}
	for _, sql := range []string{"slow", "fine"} {
		if err := s.Submit(ctx, sql, txn.Statement{SQL: sql}); err != nil {
			t.Fatal(err)
		}
	}
	o := <-s.Results()
	if o.Tag != "slow" || !errors.Is(o.Err, ErrQuarantined) || o.Included() {
		t.Fatalf("first outcome %+v (err %v); want tx \"slow\" with ErrQuarantined", o, o.Err)
	}
	// "fine" has been probed and is still pending; its block reports it.
	waitUntil(t, "a probe of the pending tx", func() bool {
		node.mu.Lock()
		defer node.mu.Unlock()
		return sent["fine"] >= 2
	})
	var fine []byte
	node.mu.Lock()
	for _, tx := range node.seen {
		if d, _ := txn.Decode(tx); d.Statements[0].SQL == "fine" {
			fine = tx
		}
	}
	node.mu.Unlock()
	chain.addBlock([][]byte{fine}, []*abci.ExecTxResult{{Data: []byte(`{"results":[]}`)}})
	if err := s.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	s.Close()
	var got []Outcome
	for o := range s.Results() {
		got = append(got, o)
	}
	if len(got) != 1 || got[0].Tag != "fine" || !got[0].OK() || got[0].Height != 3 {
		t.Fatalf("outcomes after the quarantine: %+v; want \"fine\" once, committed at height 3", got)
	}
}

// A stream tx evicted from the mempool (a recheck refused it: too old, or
// its nonce used) is reported once its probe's resubmission is refused as
// a replay and a node holding the whole chain has no such tx: not
// included, with an error saying so (a *TxError of CodeReplayed). Before,
// its outcome had neither a height nor an error.
func TestStreamReportsAnEvictedTxWithAnError(t *testing.T) {
	node := &fakeNode{earliest: 1}
	sent := 0
	node.decide = func([]byte) (uint32, string) {
		sent++
		if sent == 1 {
			return 0, ""
		}
		return api.CodeReplayed, ""
	}
	// one look-up in the index, and time for it and the node's status
	// within a probe
	lag := indexLagTries
	indexLagTries = []time.Duration{0}
	t.Cleanup(func() { indexLagTries = lag })
	c, _ := probingClient(t, node, nil, 2)
	c.probeEvery = 500 * time.Millisecond
	ctx := ctxTimeout(t, 5*time.Second)
	s, err := c.Stream(ctx, MaxBlocks(1000))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Submit(ctx, "evicted", txn.Statement{SQL: "INSERT INTO t VALUES (1)"}); err != nil {
		t.Fatal(err)
	}
	o := <-s.Results()
	var te *TxError
	if o.Tag != "evicted" || o.Included() || !errors.As(o.Err, &te) || te.Code != api.CodeReplayed {
		t.Fatalf("outcome %+v (err %v); want the evicted tx, not included, with a replay TxError", o, o.Err)
	}
	s.Close()
}

// probingClient is a client of node whose waits probe every 20 ms, with
// a follower of a fake chain of height blocks installed for it (events
// nil: polling only); everything is stopped when the test ends.
func probingClient(t *testing.T, node *fakeNode, events eventSource, height int64) (*Client, *fakeChain) {
	t.Helper()
	srv := httptest.NewServer(node)
	t.Cleanup(srv.Close)
	_, key, _ := ed25519.GenerateKey(nil)
	c, err := New(srv.URL, key)
	if err != nil {
		t.Fatal(err)
	}
	c.SetChainID("fake")
	c.probeEvery = 20 * time.Millisecond
	chain := newFakeChain()
	chain.grow(height)
	installFollower(t, c.url, newFollower(c.url, chain, events, fastTiming))
	t.Cleanup(stopAllFollowers)
	return c, chain
}
