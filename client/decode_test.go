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

// A failure on a network over several engines records its SQLSTATE's
// class in the result data and the node's own code in the info.
func TestExecResultOwnFailure(t *testing.T) {
	data, _ := json.Marshal(api.FailureData{Statement: 1, Class: "data", SQLState: "22000"})
	r := ExecResult("H", 7, &abci.ExecTxResult{Code: api.CodeExecFailed, Data: data, Info: `{"sqlstate":"22011","class":"data"}`})
	if r.Failure == nil || r.Failure.SQLState != "22000" || r.Own == nil || r.Own.SQLState != "22011" {
		t.Fatalf("failure %+v, own %+v", r.Failure, r.Own)
	}
	for _, info := range []string{"", "not json", `{"sqlstate":"2"}`} {
		if r := ExecResult("H", 7, &abci.ExecTxResult{Code: api.CodeExecFailed, Data: data, Info: info}); r.Own != nil {
			t.Errorf("info %q: own %+v, want none", info, r.Own)
		}
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

// referenceParse decodes a NewBlock event the way CometBFT's own types do
// (libs/json into ctypes.ResultEvent): what parseWSMessage must agree with.
func referenceParse(t testing.TB, msg []byte) *blockData {
	t.Helper()
	var resp struct {
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(msg, &resp); err != nil {
		t.Fatal(err)
	}
	var ev ctypes.ResultEvent
	if err := cmtjson.Unmarshal(resp.Result, &ev); err != nil {
		t.Fatal(err)
	}
	nb := ev.Data.(cmttypes.EventDataNewBlock)
	txs := make([][]byte, len(nb.Block.Txs))
	for i, tx := range nb.Block.Txs {
		txs[i] = tx
	}
	b, err := newBlockData(nb.Block.Height, nb.Block.Time, txs, nb.ResultFinalizeBlock.TxResults)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// fullNewBlockMessage is a NewBlock event as a node sends it, with every
// part parseWSMessage skips filled in: a last commit with signatures,
// finalize-block and per-tx events, gas, app hash, validator updates.
func fullNewBlockMessage(t testing.TB, txs int, txBytes, dataBytes int) []byte {
	t.Helper()
	blk := &cmttypes.Block{Header: cmttypes.Header{ChainID: "relchain-test", Height: 1 << 40, Time: time.Unix(1_800_000_000, 123456789).UTC(),
		AppHash: make([]byte, 32), ProposerAddress: make([]byte, 20)}}
	blk.LastCommit = &cmttypes.Commit{Height: 1<<40 - 1, Signatures: []cmttypes.CommitSig{
		{BlockIDFlag: cmttypes.BlockIDFlagCommit, ValidatorAddress: make([]byte, 20), Timestamp: blk.Time, Signature: make([]byte, 64)},
		{BlockIDFlag: cmttypes.BlockIDFlagAbsent}}}
	res := abci.ResponseFinalizeBlock{AppHash: []byte("apphash"),
		Events: []abci.Event{{Type: "block", Attributes: []abci.EventAttribute{{Key: "k", Value: "v", Index: true}}}}}
	for i := range txs {
		tx := []byte(strings.Repeat(string(rune('a'+i%26)), txBytes))
		blk.Data.Txs = append(blk.Data.Txs, tx)
		r := &abci.ExecTxResult{Code: uint32(i % 3), Data: []byte(strings.Repeat(`{"x":1}`, dataBytes/7)), Log: "log " + strings.Repeat("é", i),
			Info: "info", GasWanted: 7, GasUsed: int64(i), Codespace: "relchain",
			Events: []abci.Event{{Type: "tx", Attributes: []abci.EventAttribute{{Key: "h", Value: "\"quoted\"", Index: true}}}}}
		res.TxResults = append(res.TxResults, r)
	}
	ev := ctypes.ResultEvent{Query: newBlockQuery, Data: cmttypes.EventDataNewBlock{Block: blk, ResultFinalizeBlock: res},
		Events: map[string][]string{"tm.event": {"NewBlock"}}}
	body, err := cmtjson.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	msg, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "result": json.RawMessage(body)})
	if err != nil {
		t.Fatal(err)
	}
	return msg
}

// parseWSMessage decodes only what the follower uses, in one pass; on a
// full event it agrees with CometBFT's own decoder on every field it
// keeps.
func TestParseWSMessageAgreesWithCometBFT(t *testing.T) {
	for _, n := range []int{0, 1, 7} {
		msg := fullNewBlockMessage(t, n, 300, 100)
		got, ack, err := parseWSMessage(msg)
		if err != nil || ack {
			t.Fatalf("%d txs: ack %v, %v", n, ack, err)
		}
		want := referenceParse(t, msg)
		if got.Height != want.Height || !got.Time.Equal(want.Time) || len(got.Txs) != len(want.Txs) {
			t.Fatalf("%d txs: got height %d time %v txs %d, want %d %v %d", n, got.Height, got.Time, len(got.Txs), want.Height, want.Time, len(want.Txs))
		}
		for i := range want.Txs {
			g, w := got.Results[i], want.Results[i]
			if string(got.Txs[i]) != string(want.Txs[i]) || got.Hashes[i] != want.Hashes[i] ||
				g.Code != w.Code || string(g.Data) != string(w.Data) || g.Log != w.Log || g.Codespace != w.Codespace {
				t.Fatalf("%d txs: tx %d: got %q %+v, want %q %+v", n, i, got.Txs[i], g, want.Txs[i], w)
			}
		}
	}
	// Other event types are skipped; a block whose results do not match
	// its txs, or a NewBlock without a block, is an error.
	if b, ack, err := parseWSMessage([]byte(`{"jsonrpc":"2.0","id":1,"result":{"query":"q","data":{"type":"tendermint/event/Tx","value":{}}}}`)); b != nil || ack || err != nil {
		t.Fatalf("Tx event: %v %v %v", b, ack, err)
	}
	if _, _, err := parseWSMessage([]byte(`{"result":{"data":{"type":"tendermint/event/NewBlock","value":{}}}}`)); err == nil {
		t.Fatal("NewBlock without a block accepted")
	}
	if _, _, err := parseWSMessage([]byte(`{"result":{"data":{"type":"tendermint/event/NewBlock","value":{"block":{"header":{"height":"1"},"data":{"txs":["YQ=="]}}}}}}`)); err == nil {
		t.Fatal("a tx without a result accepted")
	}
	if _, _, err := parseWSMessage([]byte(`{"result":{"data":{"type":"tendermint/event/NewBlock","value":{"block":{"header":{"height":1}}}}}}`)); err == nil {
		t.Fatal("a height that is not CometBFT's string accepted")
	}
}

// BenchmarkParseWSMessage decodes a NewBlock event of the size pseudo-sync
// Smallbank makes (3 bc-transactions of 100 wl-transactions each).
//
//	go test ./client -run '^$' -bench ParseWSMessage
func BenchmarkParseWSMessage(b *testing.B) {
	msg := fullNewBlockMessage(b, 3, 30_000, 8_000)
	b.Run("relchain", func(b *testing.B) {
		b.SetBytes(int64(len(msg)))
		for b.Loop() {
			if _, _, err := parseWSMessage(msg); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("cometbft", func(b *testing.B) {
		b.SetBytes(int64(len(msg)))
		for b.Loop() {
			referenceParse(b, msg)
		}
	})
}
