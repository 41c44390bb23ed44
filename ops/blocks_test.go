package ops

import (
	"context"
	"crypto/ed25519"
	"testing"
	"time"

	"github.com/relchain/relchain/app"
	"github.com/relchain/relchain/txn"
)

// runBlocks commits one block per statement, each one tx of a fresh key's
// (the same helper as node's statesync_test.go).
func runBlocks(t *testing.T, ex *app.Executor, chainID string, stmts ...string) {
	t.Helper()
	ctx := context.Background()
	_, key, _ := ed25519.GenerateKey(nil)
	for i, sql := range stmts {
		tx := &txn.Tx{ChainID: chainID, Nonce: uint64(i + 1), Statements: []txn.Statement{{SQL: sql}}}
		tx.Sign(key)
		h := ex.State().Height + 1
		res, _, err := ex.FinalizeBlock(ctx, app.BlockInfo{Height: h, Time: time.Unix(h, 0).UTC(), Hash: []byte{byte(h)}}, [][]byte{txn.Encode(tx)})
		if err != nil || res[0].Code != 0 {
			t.Fatalf("block %d: %v %+v", h, err, res)
		}
		if _, err := ex.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

// runFailing runs sql as one block's tx, which must fail, and returns its
// result code.
func runFailing(t *testing.T, ex *app.Executor, sql string) uint32 {
	t.Helper()
	ctx := context.Background()
	_, key, _ := ed25519.GenerateKey(nil)
	tx := &txn.Tx{ChainID: "c", Nonce: 1, Statements: []txn.Statement{{SQL: sql}}}
	tx.Sign(key)
	h := ex.State().Height + 1
	res, _, err := ex.FinalizeBlock(ctx, app.BlockInfo{Height: h, Time: time.Unix(h, 0).UTC(), Hash: []byte{byte(h)}}, [][]byte{txn.Encode(tx)})
	if err != nil {
		t.Fatalf("block %d: %v", h, err)
	}
	if _, err := ex.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	return res[0].Code
}
