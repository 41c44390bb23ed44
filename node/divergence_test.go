package node

import (
	"bytes"
	"strings"
	"testing"

	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/cometbft/cometbft/types"
)

func TestDivergenceErrorFormat(t *testing.T) {
	base := DivergenceError{Height: 41, Expected: bytes.Repeat([]byte{0xAB}, 32), Local: bytes.Repeat([]byte{0x01}, 32), Home: "/n3"}
	head := "AppHash mismatch at height 41: expected " + strings.Repeat("AB", 32) + " (network), local " + strings.Repeat("01", 32) + "; "

	same := base
	same.SameResults = true
	diff := base
	diff.FirstTx = &TxDiff{Index: 2, Hash: []byte{0xde, 0xad},
		Network: TxOutcome{Code: 0, Data: []byte(`{"results":[{"rows":[[8]]}]}`)},
		Local:   TxOutcome{Code: 5, Data: nil}}
	unknown := base
	unknown.Unknown = "no peer served block 41's results"

	for _, c := range []struct {
		name string
		err  DivergenceError
		want []string
	}{
		{"same results", same, []string{head + "every tx of block 41 had the network's results, so this database differed before the block (changed outside the chain)",
			"`relchain verify --home /n3`", "`relchain recover --home /n3`"}},
		{"first tx", diff, []string{head + `first differing tx: #2 (hash DEAD): network code 0 data "{\"results\":[{\"rows\":[[8]]}]}", local code 5 data ""`,
			"`relchain recover --home /n3`"}},
		{"unknown", unknown, []string{head + "first differing tx: unknown (no peer served block 41's results)"}},
	} {
		msg := c.err.Error()
		if strings.Contains(msg, "\n") {
			t.Errorf("%s: the report is not one line: %q", c.name, msg)
		}
		for _, w := range c.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%s: report\n%s\nlacks\n%s", c.name, msg, w)
			}
		}
	}
	var e error = &diff
	if !strings.HasPrefix(e.Error(), "AppHash mismatch at height 41") {
		t.Errorf("as an error: %v", e)
	}
}

func TestShowData(t *testing.T) {
	for in, want := range map[string]string{
		"":                                `""`,
		`{"a":1}`:                         `"{\"a\":1}"`,
		"\xff\x00":                        "0xFF00",
		strings.Repeat("x", 170):          `"` + strings.Repeat("x", 160) + `"...(170 bytes)`,
		strings.Repeat("é", 100):          `"` + strings.Repeat("é", 80) + `"...(200 bytes)`,
		"x" + strings.Repeat("é", 100):    `"x` + strings.Repeat("é", 79) + `"...(201 bytes)`,
		"\xff" + strings.Repeat("y", 200): "0xFF" + strings.Repeat("79", 159) + "...(201 bytes)",
	} {
		if got := showData([]byte(in)); got != want {
			t.Errorf("showData(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestFirstDifference(t *testing.T) {
	txs := types.Txs{types.Tx("a"), types.Tx("b"), types.Tx("c")}
	res := func(code uint32, data string) *abci.ExecTxResult {
		return &abci.ExecTxResult{Code: code, Data: []byte(data), Log: "ignored " + data}
	}
	local := []*abci.ExecTxResult{res(0, "x"), res(0, "y"), res(1, "")}
	if d := firstDifference(txs, local, []*abci.ExecTxResult{res(0, "x"), {Code: 0, Data: []byte("y"), Log: "other log"}, res(1, "")}); d != nil {
		t.Errorf("equal results (logs aside) differ: %+v", d)
	}
	d := firstDifference(txs, local, []*abci.ExecTxResult{res(0, "x"), res(0, "z"), res(2, "")})
	if d == nil || d.Index != 1 || !bytes.Equal(d.Hash, txs[1].Hash()) || string(d.Local.Data) != "y" || string(d.Network.Data) != "z" {
		t.Errorf("data differs at #1: got %+v", d)
	}
	d = firstDifference(txs, local, []*abci.ExecTxResult{res(0, "x"), res(0, "y"), res(2, "")})
	if d == nil || d.Index != 2 || d.Local.Code != 1 || d.Network.Code != 2 {
		t.Errorf("code differs at #2: got %+v", d)
	}
	d = firstDifference(txs[:2], local[:2], local)
	if d == nil || d.Index != 2 || d.Hash != nil {
		t.Errorf("a result only the network has: got %+v", d)
	}
	// The results a DivergenceError compares are those CometBFT's results
	// hash commits to: code and data.
	if !bytes.Equal(types.NewResults(local).Hash(), types.NewResults([]*abci.ExecTxResult{res(0, "x"), {Code: 0, Data: []byte("y")}, res(1, "")}).Hash()) {
		t.Error("the results hash depends on the log")
	}
}
