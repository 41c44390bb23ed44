package app_test

import (
	"context"
	"crypto/ed25519"
	"testing"

	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/cometbft/cometbft/libs/log"

	"github.com/relchain/relchain/app"
	"github.com/relchain/relchain/backend/mysql"
	"github.com/relchain/relchain/internal/mysqltest"
	"github.com/relchain/relchain/txn"
)

// On MySQL a proposal ends before a bc-transaction with DDL, which opens
// the next proposal alone; the reaped order is kept.
func TestPrepareProposalPutsMySQLDDLAlone(t *testing.T) {
	ctx := context.Background()
	be, err := mysql.Open(ctx, mysqltest.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	ex, err := app.NewExecutor(ctx, be, chainID, app.Params{MaxTxBytes: 1 << 20, Backend: "mysql"})
	if err != nil {
		t.Fatal(err)
	}
	a := app.New(ex, log.NewNopLogger())
	_, key, _ := ed25519.GenerateKey(nil)
	var nonce uint64
	tx := func(sql string) []byte {
		nonce++
		t := &txn.Tx{ChainID: chainID, Nonce: nonce, Statements: []txn.Statement{{SQL: sql}}}
		t.Sign(key)
		return txn.Encode(t)
	}
	dml1, ddl, dml2 := tx("INSERT INTO t (id) VALUES (1)"), tx("CREATE TABLE u (id BIGINT PRIMARY KEY)"), tx("INSERT INTO t (id) VALUES (2)")
	for _, tc := range []struct {
		name string
		in   [][]byte
		want [][]byte
	}{
		{"DML then DDL", [][]byte{dml1, ddl, dml2}, [][]byte{dml1}},
		{"DDL first", [][]byte{ddl, dml1, dml2}, [][]byte{ddl}},
		{"no DDL", [][]byte{dml1, dml2}, [][]byte{dml1, dml2}},
	} {
		res, err := a.PrepareProposal(ctx, &abci.RequestPrepareProposal{Txs: tc.in, MaxTxBytes: 1 << 20})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Txs) != len(tc.want) {
			t.Fatalf("%s: proposal of %d txs, want %d", tc.name, len(res.Txs), len(tc.want))
		}
		for i := range tc.want {
			if string(res.Txs[i]) != string(tc.want[i]) {
				t.Fatalf("%s: tx %d is not the expected one", tc.name, i)
			}
		}
	}
}
