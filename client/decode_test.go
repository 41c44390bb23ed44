package client

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	abci "github.com/cometbft/cometbft/abci/types"
	cmtjson "github.com/cometbft/cometbft/libs/json"
	ctypes "github.com/cometbft/cometbft/rpc/core/types"
	cmttypes "github.com/cometbft/cometbft/types"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/txn"
)

func TestExecResultBatch(t *testing.T) {
	data, _ := json.Marshal(api.ExecData{Results: []api.StatementResult{}, Batch: []api.WLResult{
		{Code: api.CodeOK, Results: []api.StatementResult{{RowsAffected: 1}}},
		{Code: api.CodeExecFailed, Failure: &api.FailureData{Statement: 2, Class: "constraint", SQLState: "23505"}},
	}})
	r := ExecResult("H", 7, &abci.ExecTxResult{Data: data, Log: "wl-transaction 2: duplicate"})
	b, err := batchResult(r, 2)
	if err != nil {
		t.Fatal(err)
	}
	if !b.OK() || b.Height != 7 || len(b.WL) != 2 || b.Committed() != 1 {
		t.Fatalf("%+v", b)
	}
	if b.WLErr(0) != nil {
		t.Fatal(b.WLErr(0))
	}
	var te *TxError
	if err := b.WLErr(1); !errors.As(err, &te) || te.Code != api.CodeExecFailed || !strings.Contains(err.Error(), "statement 2") {
		t.Fatalf("wl 2: %v", err)
	}
	if _, err := batchResult(r, 3); err == nil {
		t.Fatal("a batch of 3 with 2 outcomes was accepted")
	}
	// A rejected batch has no wl outcomes.
	b, _ = batchResult(&Result{Hash: "H", Code: api.CodeSyntax, Error: "bad"}, 2)
	if b.OK() || b.WLErr(0) == nil || b.Err() == nil {
		t.Fatalf("rejected: %+v", b)
	}
}

func TestFlattenBatch(t *testing.T) {
	s := func(q string) txn.Statement { return txn.Statement{SQL: q} }
	stmts, groups, err := flattenBatch([][]txn.Statement{{s("a")}, {s("b"), s("c")}})
	if err != nil || len(stmts) != 3 || len(groups) != 2 || groups[1] != 2 {
		t.Fatalf("%v %v %v", stmts, groups, err)
	}
	tx := &txn.Tx{Statements: stmts, Groups: groups}
	if err := tx.CheckGroups(); err != nil {
		t.Fatal(err)
	}
	if _, _, err := flattenBatch(nil); err == nil {
		t.Fatal("empty batch accepted")
	}
	if _, _, err := flattenBatch([][]txn.Statement{{s("a")}, {}}); err == nil {
		t.Fatal("empty wl-transaction accepted")
	}
}

// A NewBlock event as CometBFT writes it on the websocket decodes into the
// block's txs, hashes and results.
func TestParseWSMessage(t *testing.T) {
	txs := cmttypes.Txs{cmttypes.Tx("one"), cmttypes.Tx("two")}
	blk := &cmttypes.Block{Header: cmttypes.Header{Height: 42, Time: time.Unix(1000, 0).UTC()}, Data: cmttypes.Data{Txs: txs}}
	ev := ctypes.ResultEvent{Query: newBlockQuery, Data: cmttypes.EventDataNewBlock{Block: blk,
		ResultFinalizeBlock: abci.ResponseFinalizeBlock{TxResults: []*abci.ExecTxResult{{Code: 0}, {Code: 10, Log: "x"}}}}}
	res, err := cmtjson.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "result": json.RawMessage(res)})
	b, ack, err := parseWSMessage(msg)
	if err != nil || ack || b == nil {
		t.Fatalf("%v %v %v", b, ack, err)
	}
	if b.Height != 42 || len(b.Txs) != 2 || b.Hashes[1] != hashHex([]byte("two")) || b.Results[1].Code != 10 || !b.Time.Equal(blk.Time) {
		t.Fatalf("%+v", b)
	}
	if _, ack, err := parseWSMessage([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}`)); !ack || err != nil {
		t.Fatalf("ack: %v %v", ack, err)
	}
	_, _, err = parseWSMessage([]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"Server error","data":"subscription was canceled (reason: client is not pulling messages fast enough)"}}`))
	if err == nil || !strings.Contains(err.Error(), "not pulling") {
		t.Fatalf("cancellation: %v", err)
	}
}

func TestWSURL(t *testing.T) {
	for in, want := range map[string]string{
		"http://127.0.0.1:26657":   "ws://127.0.0.1:26657/websocket",
		"https://node.example/rpc": "wss://node.example/rpc/websocket",
		"tcp://10.0.0.1:26657":     "ws://10.0.0.1:26657/websocket",
	} {
		if got, err := wsURL(in); err != nil || got != want {
			t.Errorf("%s: %s %v, want %s", in, got, err, want)
		}
	}
	if _, err := wsURL("unix:///tmp/rpc.sock"); err == nil {
		t.Error("unix socket got a websocket address")
	}
}

func TestCompareAnswers(t *testing.T) {
	row := func(v string) *api.QueryResponse {
		return &api.QueryResponse{Height: 9, Columns: []string{"a"}, Rows: [][]any{{json.Number("1"), v}}}
	}
	nodes := []string{"n0", "n1", "n2", "n3"}
	if r, err := compareAnswers("q", nodes, []*api.QueryResponse{row("x"), row("x"), row("x"), row("x")}); err != nil || r == nil {
		t.Fatalf("agreeing: %v", err)
	}
	_, err := compareAnswers("q", nodes, []*api.QueryResponse{row("x"), row("x"), row("evil"), row("x")})
	var me *MismatchError
	if !errors.As(err, &me) || !me.Majority || len(me.Disagreeing) != 1 || me.Disagreeing[0] != "n2" || me.Height != 9 || me.Answer.Rows[0][1] != "x" {
		t.Fatalf("one byzantine node: %v %+v", err, me)
	}
	if !strings.Contains(err.Error(), "n2") {
		t.Fatalf("error does not name the node: %v", err)
	}
	_, err = compareAnswers("q", nodes, []*api.QueryResponse{row("x"), row("y"), row("y"), row("x")})
	if !errors.As(err, &me) || me.Majority || len(me.Agreeing) != 2 || len(me.Disagreeing) != 2 {
		t.Fatalf("split: %v %+v", err, me)
	}
	// Columns count too.
	other := row("x")
	other.Columns = []string{"b"}
	if _, err := compareAnswers("q", nodes[:2], []*api.QueryResponse{row("x"), other}); !errors.As(err, &me) {
		t.Fatalf("column names: %v", err)
	}
}
