package abciserver_test

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	abcicli "github.com/cometbft/cometbft/abci/client"
	"github.com/cometbft/cometbft/abci/example/kvstore"
	"github.com/cometbft/cometbft/abci/types"

	"github.com/relchain/relchain/abciserver"
)

func listen(t *testing.T, app types.Application) *abciserver.Server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := abciserver.Serve(ln, app, nil)
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func connect(t *testing.T, addr string) abcicli.Client {
	t.Helper()
	c := abcicli.NewSocketClient(addr, true)
	if err := c.Start(); err != nil {
		t.Fatalf("connect to %s: %v", addr, err)
	}
	t.Cleanup(func() { _ = c.Stop() })
	return c
}

// A stock CometBFT socket client drives a real application through the
// server: a block written on one connection is read on another.
func TestKVStoreOverTheSocket(t *testing.T) {
	s := listen(t, kvstore.NewInMemoryApplication())
	consensus, query := connect(t, s.Addr()), connect(t, s.Addr())
	ctx := context.Background()

	chk, err := query.CheckTx(ctx, &types.RequestCheckTx{Tx: []byte("k=v")})
	if err != nil || chk.Code != 0 {
		t.Fatalf("CheckTx: %v %+v", err, chk)
	}
	fin, err := consensus.FinalizeBlock(ctx, &types.RequestFinalizeBlock{Height: 1, Txs: [][]byte{[]byte("k=v")}})
	if err != nil {
		t.Fatalf("FinalizeBlock: %v", err)
	}
	if len(fin.TxResults) != 1 || fin.TxResults[0].Code != 0 || len(fin.AppHash) == 0 {
		t.Fatalf("FinalizeBlock: %+v", fin)
	}
	if _, err := consensus.Commit(ctx, &types.RequestCommit{}); err != nil {
		t.Fatalf("Commit: %v", err)
	}
	q, err := query.Query(ctx, &types.RequestQuery{Data: []byte("k")})
	if err != nil || string(q.Value) != "v" {
		t.Fatalf("Query after the block: %v %q", err, q.Value)
	}
	info, err := query.Info(ctx, &types.RequestInfo{})
	if err != nil || info.LastBlockHeight != 1 {
		t.Fatalf("Info: %v %+v", err, info)
	}
}

// waitingApp answers Query only once FinalizeBlock has run, as relchain's
// Query with min_height does. It closes queried when the Query has reached
// it.
type waitingApp struct {
	types.BaseApplication
	queried   chan struct{}
	finalized chan struct{}
}

func (a *waitingApp) Query(ctx context.Context, _ *types.RequestQuery) (*types.ResponseQuery, error) {
	close(a.queried)
	select {
	case <-a.finalized:
		return &types.ResponseQuery{Value: []byte("after")}, nil
	case <-time.After(10 * time.Second):
		return &types.ResponseQuery{Code: 1, Log: "timed out waiting for the block"}, nil
	}
}

func (a *waitingApp) FinalizeBlock(context.Context, *types.RequestFinalizeBlock) (*types.ResponseFinalizeBlock, error) {
	close(a.finalized)
	return &types.ResponseFinalizeBlock{}, nil
}

// Connections are served concurrently: a Query blocked on the query
// connection does not hold up FinalizeBlock on the consensus connection
// (CometBFT's own socket server would deadlock here until the timeout).
func TestConnectionsAreServedConcurrently(t *testing.T) {
	app := &waitingApp{queried: make(chan struct{}), finalized: make(chan struct{})}
	s := listen(t, app)
	consensus, query := connect(t, s.Addr()), connect(t, s.Addr())
	ctx := context.Background()

	got := make(chan *types.ResponseQuery, 1)
	go func() {
		q, err := query.Query(ctx, &types.RequestQuery{})
		if err != nil {
			t.Error(err)
		}
		got <- q
	}()
	// FinalizeBlock only once the Query waits in the app: sent before, it
	// would let the Query answer at once, serialised or not.
	select {
	case <-app.queried:
	case <-time.After(10 * time.Second):
		t.Fatal("the Query never reached the application")
	}
	if _, err := consensus.FinalizeBlock(ctx, &types.RequestFinalizeBlock{Height: 1}); err != nil {
		t.Fatalf("FinalizeBlock: %v", err)
	}
	// Had the server serialised the connections, the Query would have
	// given up waiting (its 10 s guard) before FinalizeBlock could run.
	if q := <-got; q == nil || q.Code != 0 || string(q.Value) != "after" {
		t.Fatalf("Query: %+v, want the answer after the block (the block ran while the query waited)", q)
	}
}

type failingApp struct{ types.BaseApplication }

func (failingApp) Info(context.Context, *types.RequestInfo) (*types.ResponseInfo, error) {
	return nil, errors.New("database unreachable")
}

// An application error reaches the client as an exception, naming it.
func TestApplicationErrorIsAnException(t *testing.T) {
	s := listen(t, failingApp{})
	c := abcicli.NewSocketClient(s.Addr(), true)
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = c.Stop() }()
	_, err := c.Info(context.Background(), &types.RequestInfo{})
	if err == nil || !strings.Contains(err.Error(), "database unreachable") {
		t.Fatalf("Info: %v, want the application's error", err)
	}
}

func TestCloseIsIdempotentAndStopsServing(t *testing.T) {
	s := listen(t, kvstore.NewInMemoryApplication())
	addr := s.Addr()
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	c := abcicli.NewSocketClient(addr, true)
	if err := c.Start(); err == nil {
		_ = c.Stop()
		t.Fatal("a closed server still accepts connections")
	}
}
