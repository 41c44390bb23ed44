package bench

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// fakeKVNode is a one-block chain whose app reports height 1 (abci_info)
// before block_results can serve it, as CometBFT's kvstore does: its
// FinalizeBlock sets the height, and CometBFT stores the response after.
type fakeKVNode struct {
	mu          sync.Mutex
	unsaved     int // block_results calls for height 1 still answered "not found"
	resultsAsks int
	sent        int
}

func (n *fakeKVNode) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	var result any
	rpcErr := ""
	switch req.Method {
	case "abci_info":
		h := "0"
		if n.sent > 0 {
			h = "1"
		}
		result = map[string]any{"response": map[string]any{"last_block_height": h}}
	case "broadcast_tx_sync":
		n.sent++
		result = map[string]any{"code": 0, "data": "", "log": "", "codespace": "", "hash": "00"}
	case "block_results":
		n.resultsAsks++
		if n.unsaved > 0 {
			n.unsaved--
			rpcErr = "could not find results for height #1"
			break
		}
		result = map[string]any{"height": "1", "txs_results": []any{map[string]any{"code": 0}}}
	case "blockchain":
		result = map[string]any{"last_height": "1", "block_metas": []any{map[string]any{"num_txs": "1", "block_size": "1"}}}
	default:
		rpcErr = "method not served by the fake node: " + req.Method
	}
	resp := map[string]any{"jsonrpc": "2.0", "id": req.ID}
	if rpcErr != "" {
		resp["error"] = map[string]any{"code": -32603, "message": "Internal error", "data": rpcErr}
	} else {
		resp["result"] = result
	}
	_ = json.NewEncoder(w).Encode(resp)
}

// An async run reads the results of every height the app reports; a
// height whose results CometBFT has not stored yet is read again at the
// next poll instead of failing the run (the kvstore ceiling failed so:
// "block_results 3: could not find results for height #3").
func TestAsyncRunWaitsForResultsNotStoredYet(t *testing.T) {
	node := &fakeKVNode{unsaved: 2}
	srv := httptest.NewServer(node)
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := RunMicro(ctx, Config{Workload: "kvstore", Mode: ModeAsync, Clients: 1, Txs: 1, Nodes: []string{srv.URL}})
	if err != nil {
		t.Fatalf("the run failed on results not stored yet: %v", err)
	}
	if res.Succeeded != 1 || res.Failed != 0 {
		t.Fatalf("succeeded %d, failed %d; want the one tx committed", res.Succeeded, res.Failed)
	}
	node.mu.Lock()
	defer node.mu.Unlock()
	if node.resultsAsks != 3 {
		t.Fatalf("block_results asked %d times, want 3 (two misses, then the results)", node.resultsAsks)
	}
}
