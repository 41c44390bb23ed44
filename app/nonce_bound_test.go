package app_test

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/app"
	"github.com/relchain/relchain/txn"
)

// signedAt signs a tx of f's key with nonce n (f's counter is left alone).
func (f *fixture) signedAt(n uint64, stmts ...txn.Statement) []byte {
	tx := &txn.Tx{ChainID: chainID, Nonce: n, Statements: stmts}
	tx.Sign(f.key)
	return txn.Encode(tx)
}

func TestNonceAtTheTopIsRefusedAndTheKeyKeepsSending(t *testing.T) {
	f := mustNewFixture(t, stores(t)[0], app.DefaultParams())
	f.createAcct()
	top := f.signedAt(math.MaxUint64, stmt("INSERT INTO acct (id, bal) VALUES (1, 100)"))
	if _, rej := f.ex.Check(context.Background(), top); rej == nil || rej.Code != api.CodeReplayed || !strings.Contains(rej.Reason, "too far ahead") {
		t.Fatalf("CheckTx of nonce 2^64-1: %v, want code %d saying the nonce is too far ahead", rej, api.CodeReplayed)
	}
	res, _ := f.block(top)
	if res[0].Code != api.CodeReplayed || !strings.Contains(res[0].Log, "too far ahead") {
		t.Fatalf("nonce 2^64-1 in a block: code %d log %q, want code %d, too far ahead", res[0].Code, res[0].Log, api.CodeReplayed)
	}
	// The key still sends: a counter from 1 and a clock-based counter
	// (client.Client's, here the chain's clock) both work, in order.
	clock := uint64(blockInfo(f.ex.State().Height + 1).Time.UnixNano())
	res, _ = f.block(f.insert(2), f.signedAt(clock+1, stmt("INSERT INTO acct (id, bal) VALUES (3, 1)")), f.signedAt(clock+2, stmt("INSERT INTO acct (id, bal) VALUES (4, 1)")))
	for i, r := range res {
		if r.Code != api.CodeOK {
			t.Fatalf("tx %d of a normal sequence after the refused one: code %d log %q", i, r.Code, r.Log)
		}
	}
}

func TestNonceBoundEdgeIsTheSameAtCheckTxAndInTheBlock(t *testing.T) {
	f := mustNewFixture(t, stores(t)[0], app.DefaultParams())
	f.createAcct() // commits a block: CheckTx now knows the chain's time
	last := uint64(blockInfo(f.ex.State().Height).Time.UnixNano())
	edge := last + app.MaxNonceAhead
	atEdge := f.signedAt(edge, stmt("INSERT INTO acct (id, bal) VALUES (1, 1)"))
	past := f.signedAt(edge+1, stmt("INSERT INTO acct (id, bal) VALUES (2, 1)"))
	if _, rej := f.ex.Check(context.Background(), atEdge); rej != nil {
		t.Fatalf("CheckTx of the nonce at the bound: %v", rej)
	}
	if _, rej := f.ex.Check(context.Background(), past); rej == nil || !strings.Contains(rej.Reason, "too far ahead") {
		t.Fatalf("CheckTx of the nonce one past the bound: %v, want too far ahead", rej)
	}
	// In the block the bound is the block's time (one second later in
	// these tests): one past the CheckTx bound passes, one past the
	// block's bound does not.
	next := uint64(blockInfo(f.ex.State().Height + 1).Time.UnixNano())
	beyond := f.signedAt(next+app.MaxNonceAhead+app.MaxNonceStep+1, stmt("INSERT INTO acct (id, bal) VALUES (3, 1)"))
	res, _ := f.block(atEdge, past, beyond)
	if res[0].Code != api.CodeOK || res[1].Code != api.CodeOK {
		t.Fatalf("nonces at and one past the CheckTx bound in a later block: codes %d %d (%q %q), want 0 0", res[0].Code, res[1].Code, res[0].Log, res[1].Log)
	}
	if res[2].Code != api.CodeReplayed || !strings.Contains(res[2].Log, "too far ahead") {
		t.Fatalf("a nonce past both bounds: code %d log %q, want %d too far ahead", res[2].Code, res[2].Log, api.CodeReplayed)
	}
}
