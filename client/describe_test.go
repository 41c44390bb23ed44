package client

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"

	"github.com/relchain/relchain/api"
)

// queryNode answers abci_query with answer(path, data): a code, a log and
// a value.
type queryNode struct {
	answer func(path string, data []byte) (uint32, string, any)
}

func (n *queryNode) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Path string `json:"path"`
			Data string `json:"data"` // hex
		} `json:"params"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Method != "abci_query" {
		http.Error(w, "not an abci_query", 400)
		return
	}
	data, _ := hex.DecodeString(req.Params.Data)
	code, log, value := n.answer(req.Params.Path, data)
	v, _ := json.Marshal(value)
	_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID,
		"result": map[string]any{"response": map[string]any{"code": code, "log": log, "value": v}}})
}

func TestDescribeAndQueryTypesReachTheClient(t *testing.T) {
	want := &api.DescribeResponse{Height: 4, Params: []string{"int8", ""}, Columns: []api.ColumnType{{Name: "id", Type: "int8"}}}
	node := &queryNode{answer: func(path string, data []byte) (uint32, string, any) {
		switch path {
		case api.DescribePath:
			var r api.DescribeRequest
			if err := json.Unmarshal(data, &r); err != nil || r.SQL == "" {
				return api.CodeQueryBadInput, "bad request", nil
			}
			if r.SQL == "SELEC" {
				return api.CodeQueryFailed, "syntax error", api.FailureData{Class: "syntax", SQLState: "42601"}
			}
			return api.CodeOK, "", want
		case api.QueryPath:
			return api.CodeOK, "", api.QueryResponse{Height: 4, Columns: []string{"id"}, Types: []string{"int8"}, Rows: [][]any{{1}}}
		}
		return api.CodeUnknownPath, "unknown path", nil
	}}
	srv := httptest.NewServer(node)
	defer srv.Close()
	c, err := New(srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	got, err := c.Describe(ctx, "SELECT id FROM t WHERE id = $1 AND v = $2")
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("Describe = %+v, %v; want %+v", got, err, want)
	}
	var qe *QueryError
	if _, err := c.Describe(ctx, "SELEC"); !errors.As(err, &qe) || qe.Code != api.CodeQueryFailed {
		t.Fatalf("Describe of a syntax error: %v, want a *QueryError with CodeQueryFailed", err)
	}
	if qe.Failure == nil || qe.Failure.SQLState != "42601" {
		t.Fatalf("Describe of a syntax error: failure %+v, want the node's SQLSTATE 42601", qe.Failure)
	}
	q, err := c.Query(ctx, 0, "SELECT id FROM t")
	if err != nil || !reflect.DeepEqual(q.Types, []string{"int8"}) {
		t.Fatalf("Query = %+v, %v; want types [int8]", q, err)
	}
}
