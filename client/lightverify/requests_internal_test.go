package lightverify

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/cometbft/cometbft/crypto/tmhash"
	cmtjson "github.com/cometbft/cometbft/libs/json"
	cmtproto "github.com/cometbft/cometbft/proto/tendermint/types"
	cmtversion "github.com/cometbft/cometbft/proto/tendermint/version"
	ctypes "github.com/cometbft/cometbft/rpc/core/types"
	rpctypes "github.com/cometbft/cometbft/rpc/jsonrpc/types"
	"github.com/cometbft/cometbft/types"
	"github.com/cometbft/cometbft/version"
)

// testChain is a chain of signed blocks, one validator signing them all.
type testChain struct {
	id     string
	blocks []*types.LightBlock // blocks[i] is block i+1
}

// mustNewChain makes a chain of n blocks, a second apart, the last one now.
func mustNewChain(t *testing.T, n int) *testChain {
	t.Helper()
	signer := types.NewMockPV()
	pub, err := signer.GetPubKey()
	if err != nil {
		t.Fatal(err)
	}
	vals := types.NewValidatorSet([]*types.Validator{types.NewValidator(pub, 10)})
	chain := &testChain{id: "test-chain"}
	start := time.Now().Add(-time.Duration(n) * time.Second)
	var last types.BlockID
	for h := int64(1); h <= int64(n); h++ {
		header := &types.Header{
			Version: cmtversion.Consensus{Block: version.BlockProtocol}, ChainID: chain.id,
			Height: h, Time: start.Add(time.Duration(h) * time.Second), LastBlockID: last,
			ValidatorsHash: vals.Hash(), NextValidatorsHash: vals.Hash(), ProposerAddress: pub.Address(),
		}
		id := types.BlockID{Hash: header.Hash(), PartSetHeader: types.PartSetHeader{Total: 1, Hash: tmhash.Sum(header.Hash())}}
		votes := types.NewVoteSet(chain.id, h, 0, cmtproto.PrecommitType, vals)
		commit, err := types.MakeExtCommit(id, h, 0, votes, []types.PrivValidator{signer}, header.Time, false)
		if err != nil {
			t.Fatalf("sign block %d: %v", h, err)
		}
		chain.blocks = append(chain.blocks, &types.LightBlock{
			SignedHeader: &types.SignedHeader{Header: header, Commit: commit.ToCommit()}, ValidatorSet: vals})
		last = id
	}
	return chain
}

// rpcNode serves a testChain over CometBFT's JSON-RPC: the two methods
// the light client's HTTP provider calls (commit and validators), each
// answered after delay (or never, if the caller hangs up first).
type rpcNode struct {
	chain *testChain
	delay time.Duration
}

// mustServe starts an rpcNode on a local port, closed when t ends.
func mustServe(t *testing.T, chain *testChain, delay time.Duration) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(rpcNode{chain: chain, delay: delay})
	t.Cleanup(srv.Close)
	return srv
}

func (n rpcNode) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req rpctypes.RPCRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	select {
	case <-time.After(n.delay):
	case <-r.Context().Done():
		return
	}
	w.Header().Set("Content-Type", "application/json")
	if err := json.NewEncoder(w).Encode(n.answer(req)); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
	}
}

// answer is the response to req, with CometBFT's error texts for a
// height the chain has not made (the provider's ErrHeightTooHigh).
func (n rpcNode) answer(req rpctypes.RPCRequest) rpctypes.RPCResponse {
	var params struct {
		Height json.RawMessage `json:"height"`
	}
	if err := json.Unmarshal(req.Params, &params); err != nil {
		return rpctypes.RPCInvalidParamsError(req.ID, err)
	}
	made := int64(len(n.chain.blocks))
	height := made
	if len(params.Height) > 0 && string(params.Height) != "null" {
		if err := cmtjson.Unmarshal(params.Height, &height); err != nil {
			return rpctypes.RPCInvalidParamsError(req.ID, err)
		}
	}
	if height > made {
		return rpctypes.RPCInternalError(req.ID,
			fmt.Errorf("height %d must be less than or equal to the current blockchain height %d", height, made))
	}
	lb := n.chain.blocks[height-1]
	switch req.Method {
	case "commit":
		return rpctypes.NewRPCSuccessResponse(req.ID, ctypes.NewResultCommit(lb.Header, lb.Commit, true))
	case "validators":
		size := lb.ValidatorSet.Size()
		return rpctypes.NewRPCSuccessResponse(req.ID, &ctypes.ResultValidators{
			BlockHeight: height, Validators: lb.ValidatorSet.Validators, Count: size, Total: size})
	}
	return rpctypes.RPCMethodNotFoundError(req.ID)
}

// Callers whose waits end while the light client's requests are in
// flight — to a slow primary, or to a slow witness after a fast one has
// answered — leave the verifier with its primary and all its witnesses:
// no node misbehaved, so none is dropped; a caller that may wait then
// gets its header.
func TestEndedWaitsKeepPrimaryAndWitnesses(t *testing.T) {
	chain := mustNewChain(t, 40)
	primary := mustServe(t, chain, 50*time.Millisecond)
	fast := mustServe(t, chain, 0)
	slow := mustServe(t, chain, 500*time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	v, err := New(ctx, FromHeader(chain.id, 1, chain.blocks[0].Hash()), primary.URL, []string{fast.URL, slow.URL})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(v.Close)

	next := int64(2)
	for round := 0; round < 2; round++ {
		for _, wait := range []time.Duration{30 * time.Millisecond, 300 * time.Millisecond, 700 * time.Millisecond} {
			expectHeaderOrNone(t, v, wait, next)
			next++
			expectHeaderOrNone(t, v, wait, int64(len(chain.blocks))+1) // not made yet
			waitCtx, stop := context.WithTimeout(ctx, wait)
			_, _ = v.Latest(waitCtx) // its error, if any, is the ended wait
			stop()
		}
	}

	hd, err := v.Header(ctx, 30)
	if err != nil || hd.Hash().String() != chain.blocks[29].Hash().String() {
		t.Errorf("header 30 with time to wait: %v, %v", hd, err)
	}
	if got, want := fmt.Sprint(v.lc.Primary()), providerName(primary.URL); got != want {
		t.Errorf("primary %s, want %s", got, want)
	}
	checkWitnesses(t, v, fast.URL, slow.URL)
}

// expectHeaderOrNone asks v for header h, waiting at most wait: the
// header or ErrNoHeader are right, any other error is not.
func expectHeaderOrNone(t *testing.T, v *Verifier, wait time.Duration, h int64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if _, err := v.Header(ctx, h); err != nil && !errors.Is(err, ErrNoHeader) {
		t.Errorf("header %d within %v: %v, want the header or ErrNoHeader", h, wait, err)
	}
}

// providerName is how the light client's HTTP provider names a node.
func providerName(url string) string { return "http{" + url + "}" }

// A closed verifier asks no node: calls that would fail with ErrClosed,
// while headers it verified before stay at hand.
func TestClosedVerifierAsksNoNode(t *testing.T) {
	chain := mustNewChain(t, 5)
	node := mustServe(t, chain, 0)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	v, err := New(ctx, FromHeader(chain.id, 1, chain.blocks[0].Hash()), node.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.Header(ctx, 3); err != nil {
		t.Fatalf("header 3: %v", err)
	}
	v.Close()
	if _, err := v.Latest(ctx); !errors.Is(err, ErrClosed) {
		t.Errorf("latest after Close: %v, want ErrClosed", err)
	}
	if _, err := v.Header(ctx, 4); !errors.Is(err, ErrClosed) {
		t.Errorf("header 4 after Close: %v, want ErrClosed", err)
	}
	if _, err := v.Header(ctx, 3); err != nil {
		t.Errorf("header 3, verified before Close: %v", err)
	}
}

// hangUpNode is an rpcNode that closes a connection, unanswered, when a
// second request comes on it: what a client sees when a node's idle
// timeout closes a kept connection just as a request goes out on it.
type hangUpNode struct {
	rpcNode
	mu     sync.Mutex
	served map[string]int // by the client's address: one per connection
}

func (n *hangUpNode) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n.mu.Lock()
	n.served[r.RemoteAddr]++
	second := n.served[r.RemoteAddr] == 2
	n.mu.Unlock()
	if second {
		if c, _, err := w.(http.Hijacker).Hijack(); err == nil {
			c.Close()
		}
		return
	}
	n.rpcNode.ServeHTTP(w, r)
}

// A witness whose kept connections close under the light client's next
// request (the node's idle timeout) stays a witness: the request is sent
// again on a new connection. Before, the provider's "EOF" made CometBFT's
// light client drop the witness as faulty.
func TestAWitnessThatClosedAKeptConnectionStays(t *testing.T) {
	chain := mustNewChain(t, 12)
	primary := mustServe(t, chain, 0)
	fast := mustServe(t, chain, 0)
	hangUp := httptest.NewServer(&hangUpNode{rpcNode: rpcNode{chain: chain}, served: map[string]int{}})
	t.Cleanup(hangUp.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	v, err := New(ctx, FromHeader(chain.id, 1, chain.blocks[0].Hash()), primary.URL, []string{fast.URL, hangUp.URL})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(v.Close)
	for h := int64(2); h <= 12; h++ {
		if _, err := v.Header(ctx, h); err != nil {
			t.Fatalf("header %d: %v", h, err)
		}
	}
	checkWitnesses(t, v, fast.URL, hangUp.URL)
}

// checkWitnesses fails t unless v's light client keeps exactly the
// witnesses at urls.
func checkWitnesses(t *testing.T, v *Verifier, urls ...string) {
	t.Helper()
	var witnesses, want []string
	for _, w := range v.lc.Witnesses() {
		witnesses = append(witnesses, fmt.Sprint(w))
	}
	for _, u := range urls {
		want = append(want, providerName(u))
	}
	slices.Sort(witnesses)
	slices.Sort(want)
	if !slices.Equal(witnesses, want) {
		t.Errorf("witnesses %v, want %v", witnesses, want)
	}
}
