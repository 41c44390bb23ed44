package node

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	rpchttp "github.com/cometbft/cometbft/rpc/client/http"
)

// blockResultsServer answers every JSON-RPC call with an empty block 5's
// results and counts the requests it served.
func blockResultsServer(served *atomic.Int64) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID json.RawMessage `json:"id"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		served.Add(1)
		_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID,
			"result": map[string]any{"height": "5", "txs_results": []any{}}})
	})
}

func askBlockResults(t *testing.T, p *peerClients, addr string) error {
	t.Helper()
	h := int64(5)
	return p.call(context.Background(), addr, func(ctx context.Context, c *rpchttp.HTTP) error {
		res, err := c.BlockResults(ctx, &h)
		if err == nil && res.Height != 5 {
			t.Errorf("height %d, want 5", res.Height)
		}
		return err
	})
}

// A peer's node info says "tcp://host:port" whether or not its RPC
// serves TLS: the watcher asks over http, and a peer that answers as a
// TLS server is asked again over https and remembered as one.
func TestPeerClientsFindAPeerServingTLS(t *testing.T) {
	var served atomic.Int64
	srv := httptest.NewTLSServer(blockResultsServer(&served))
	defer srv.Close()
	addr := "http://" + strings.TrimPrefix(srv.URL, "https://")
	p := newPeerClients()
	if err := askBlockResults(t, p, addr); err != nil {
		t.Fatalf("a peer serving its RPC over TLS was not reached: %v", err)
	}
	if !p.servesTLS[addr] {
		t.Errorf("the peer at %s is not remembered as serving TLS", addr)
	}
	if err := askBlockResults(t, p, addr); err != nil {
		t.Fatalf("second call: %v", err)
	}
	if n := served.Load(); n != 2 {
		t.Errorf("the TLS peer served %d calls, want 2", n)
	}
}

// A peer serving plain HTTP is asked over http only; an unreachable one
// fails without a TLS attempt being remembered.
func TestPeerClientsPlainPeer(t *testing.T) {
	var served atomic.Int64
	srv := httptest.NewServer(blockResultsServer(&served))
	defer srv.Close()
	p := newPeerClients()
	if err := askBlockResults(t, p, srv.URL); err != nil {
		t.Fatal(err)
	}
	if p.servesTLS[srv.URL] || served.Load() != 1 {
		t.Errorf("plain peer: servesTLS %v, served %d; want false, 1", p.servesTLS[srv.URL], served.Load())
	}
	dead := "http://127.0.0.1:1"
	if err := askBlockResults(t, p, dead); err == nil {
		t.Fatal("an unreachable peer answered")
	}
	if p.servesTLS[dead] {
		t.Error("an unreachable peer was remembered as serving TLS")
	}
}
