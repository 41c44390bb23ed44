package app_test

import (
	"context"
	"crypto/ed25519"
	"github.com/relchain/relchain/backend"
	"testing"

	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/cometbft/cometbft/libs/log"

	"github.com/relchain/relchain/app"
	"github.com/relchain/relchain/backend/mysql"
	"github.com/relchain/relchain/backend/mysql/mysqltest"
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

// A MySQL node that dies after FinalizeBlock ran a block's DDL (MySQL
// committed it) and before Commit replays the block on restart with the
// same results and AppHash as a node that never stopped.
func TestMySQLDDLBlockReplaysAfterACrashBeforeCommit(t *testing.T) {
	ctx := context.Background()
	open := func(dsn string) *app.Executor {
		t.Helper()
		be, err := mysql.Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { be.Close() })
		ex, err := app.NewExecutor(ctx, be, chainID, app.Params{MaxTxBytes: 1 << 20, Backend: "mysql"})
		if err != nil {
			t.Fatal(err)
		}
		return ex
	}
	_, key, _ := ed25519.GenerateKey(nil)
	var nonce uint64
	tx := func(sql string) []byte {
		nonce++
		t := &txn.Tx{ChainID: chainID, Nonce: nonce, Statements: []txn.Statement{{SQL: sql}}}
		t.Sign(key)
		return txn.Encode(t)
	}
	blocks := [][][]byte{
		{tx("CREATE TABLE t (id BIGINT PRIMARY KEY, v VARCHAR(10))")},
		{tx("INSERT INTO t (id, v) VALUES (1, 'a')"), tx("INSERT INTO t (id, v) VALUES (2, 'b')")},
		{tx("ALTER TABLE t ADD COLUMN c BIGINT NOT NULL DEFAULT 7")},
		{tx("UPDATE t SET c = c * id")},
	}
	finalize := func(ex *app.Executor, h int) ([]app.TxResult, []byte) {
		t.Helper()
		res, hash, err := ex.FinalizeBlock(ctx, blockInfo(int64(h+1)), blocks[h])
		if err != nil {
			t.Fatalf("block %d: %v", h+1, err)
		}
		return res, hash
	}
	commit := func(ex *app.Executor) {
		t.Helper()
		if _, err := ex.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}

	ref := open(mysqltest.DSN(t))
	var wantRes [][]app.TxResult
	var wantHash [][]byte
	for h := range blocks {
		res, hash := finalize(ref, h)
		commit(ref)
		wantRes, wantHash = append(wantRes, res), append(wantHash, hash)
		for i, r := range res {
			if r.Code != 0 {
				t.Fatalf("reference block %d tx %d failed: %+v", h+1, i, r)
			}
		}
	}

	dsn := mysqltest.DSN(t)
	ex := open(dsn)
	for h := range 2 {
		finalize(ex, h)
		commit(ex)
	}
	finalize(ex, 2) // the DDL ran; the node dies before Commit
	if err := ex.Backend().Close(); err != nil {
		t.Logf("close: %v", err)
	}
	ex = open(dsn)
	if st := ex.State(); st.Height != 2 {
		t.Fatalf("height after the crash = %d, want 2", st.Height)
	}
	for h := 2; h < len(blocks); h++ {
		res, hash := finalize(ex, h)
		commit(ex)
		if string(hash) != string(wantHash[h]) {
			t.Fatalf("block %d: AppHash %X after the replay, %X on the node that never stopped", h+1, hash, wantHash[h])
		}
		for i := range res {
			if res[i].Code != wantRes[h][i].Code || string(res[i].Data) != string(wantRes[h][i].Data) {
				t.Fatalf("block %d tx %d: result %+v, want %+v", h+1, i, res[i], wantRes[h][i])
			}
		}
	}
}

// On MySQL, CheckTx refuses a tx that holds DDL and other statements, and
// FinalizeBlock fails a DDL tx that is not alone in its block before it
// runs (a byzantine proposer's block): the table is not created.
func TestMySQLDDLTxMustBeAloneInItsBlock(t *testing.T) {
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
	tx := txMaker()
	if _, rej := ex.Check(ctx, tx("CREATE TABLE a (id BIGINT PRIMARY KEY)", "INSERT INTO a (id) VALUES (1)")); rej == nil || rej.Code != 7 {
		t.Fatalf("CheckTx of DDL with another statement: %v, want code 7 (forbidden)", rej)
	}
	res, _, err := ex.FinalizeBlock(ctx, blockInfo(1), [][]byte{tx("CREATE TABLE b (id BIGINT PRIMARY KEY)"), tx("SELECT 1")})
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Code != 10 || res[1].Code != 0 {
		t.Fatalf("results %+v; want the DDL tx failed (code 10) and the other one applied", res)
	}
	if _, err := ex.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	// Reads may not look into information_schema (the gate refuses system
	// schemas on the open query path): ask for the table itself.
	_, _, err = be.Query(ctx, "SELECT id FROM b ORDER BY id", nil)
	if e := backend.AsError(err); e == nil || e.Class != backend.ClassUndefined {
		t.Fatalf("reading table b: %v; want it not created (an undefined-table error)", err)
	}
}
