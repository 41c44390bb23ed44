package client

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"testing"

	abci "github.com/cometbft/cometbft/abci/types"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/txn"
)

// Rehearse signs its request with the client's key for the chain, at the
// height the node last reported; a stale answer makes it sign again once
// at the node's height, and a second stale answer is the caller's error.
func TestRehearseSignsAndFollowsTheNodesHeight(t *testing.T) {
	_, key, _ := ed25519.GenerateKey(nil)
	c, err := New("http://127.0.0.1:1", key)
	if err != nil {
		t.Fatal(err)
	}
	c.SetChainID("chain-R")
	var seen []*txn.Rehearsal
	nodeHeight, stale := int64(500), 1
	c.SetLocalQueries(func(_ context.Context, req *abci.RequestQuery) (*abci.ResponseQuery, error) {
		if req.Path != api.RehearsePath {
			t.Fatalf("path %q", req.Path)
		}
		r, err := txn.DecodeRehearsal(req.Data)
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Verify(); err != nil || r.ChainID != "chain-R" || !r.Sender.Equal(key.Public()) {
			t.Fatalf("request %+v: %v", r, err)
		}
		seen = append(seen, r)
		if r.Height != nodeHeight || stale > 1 {
			return &abci.ResponseQuery{Code: api.CodeStaleRequest, Log: "stale", Height: nodeHeight}, nil
		}
		v, _ := json.Marshal(api.RehearseResponse{Height: nodeHeight})
		return &abci.ResponseQuery{Code: api.CodeOK, Value: v, Height: nodeHeight}, nil
	})
	stmts := []txn.Statement{{SQL: "SELECT 1"}}
	if _, err := c.Rehearse(context.Background(), stmts); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 2 || seen[0].Height != 0 || seen[1].Height != 500 {
		t.Fatalf("first rehearsal: requests at %v, want heights 0 then 500", heights(seen))
	}
	seen = nil
	if _, err := c.Rehearse(context.Background(), stmts); err != nil || len(seen) != 1 || seen[0].Height != 500 {
		t.Fatalf("second rehearsal: %v, requests at %v, want one at 500", err, heights(seen))
	}
	seen, stale = nil, 2
	_, err = c.Rehearse(context.Background(), stmts)
	var qe *QueryError
	if !errors.As(err, &qe) || qe.Code != api.CodeStaleRequest || len(seen) != 2 {
		t.Fatalf("a node that keeps answering stale: %v after %d requests, want CodeStaleRequest after 2", err, len(seen))
	}
}

func heights(rs []*txn.Rehearsal) []int64 {
	var h []int64
	for _, r := range rs {
		h = append(h, r.Height)
	}
	return h
}
