package app_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/cometbft/cometbft/libs/log"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/app"
	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/mysql"
	"github.com/relchain/relchain/backend/mysql/mysqltest"
	"github.com/relchain/relchain/txn"
)

// mapIndex is a tx index over the txs of committed blocks, as the node's
// CometBFT kv indexer would hold them.
type mapIndex map[string]app.CommittedTx

func (m mapIndex) add(h int64, txs [][]byte, res []app.TxResult) {
	for i, raw := range txs {
		m[string(txn.Hash(raw))] = app.CommittedTx{Height: h, Code: res[i].Code}
	}
}

func (m mapIndex) lookup(hash []byte) (app.CommittedTx, bool, error) {
	tx, ok := m[string(hash)]
	return tx, ok, nil
}

// A committed tx resubmitted after a restart (the mempool cache is gone)
// is refused with CodeCommitted naming its block and code, whether it
// succeeded or failed there; another tx reusing its nonce is still a
// replay (code 8); without a tx index, or with one that cannot answer, the
// refusal is a replay that says why the index could not tell. Recheck is
// unchanged. Backend-neutral (the replay window and CheckTx's answer do not
// depend on the database), run on each: SQLite, PostgreSQL, MySQL/MariaDB.
func TestCheckTxTellsCommittedFromReplayed(t *testing.T) {
	for _, s := range append(stores(t), mysqlStore()) {
		t.Run(s.dialect, func(t *testing.T) { testCommittedFromReplayed(t, s) })
	}
}

// mysqlStore is a MySQL/MariaDB database that a test can close and
// reopen (see store).
func mysqlStore() store {
	var dsn string
	return store{"mysql", func(t *testing.T) backend.Backend {
		if dsn == "" {
			dsn = mysqltest.DSN(t)
		}
		b, err := mysql.Open(context.Background(), dsn)
		if err != nil {
			t.Fatalf("open mysql: %v", err)
		}
		return b
	}}
}

func testCommittedFromReplayed(t *testing.T, s store) {
	f := mustNewFixture(t, s, app.DefaultParams())
	f.createAcct()
	ok1, failing := f.insert(1), f.insert(1) // the second fails: duplicate key
	txs := [][]byte{ok1, failing}
	res, _ := f.block(txs...)
	if got := fmt.Sprint(codes(res)); got != "[0 10]" {
		t.Fatalf("codes = %s, want [0 10]", got)
	}
	idx := mapIndex{}
	idx.add(f.ex.State().Height, txs, res)
	sameNonce := func() []byte { f.nonce--; return f.insert(2) }()

	// A restart: a new executor and app on the same database.
	if err := f.be.Close(); err != nil {
		t.Fatal(err)
	}
	be := s.open(t)
	t.Cleanup(func() { be.Close() })
	ex, err := app.NewExecutor(context.Background(), be, chainID, app.Params{MaxTxBytes: 1 << 20, Backend: s.dialect})
	if err != nil {
		t.Fatal(err)
	}
	a := app.New(ex, log.NewNopLogger())
	check := func(raw []byte, typ abci.CheckTxType) *abci.ResponseCheckTx {
		t.Helper()
		r, err := a.CheckTx(context.Background(), &abci.RequestCheckTx{Tx: raw, Type: typ})
		if err != nil {
			t.Fatalf("CheckTx: %v", err)
		}
		return r
	}
	height := ex.State().Height

	// No index (the socket variant, or before the node set it).
	if r := check(ok1, abci.CheckTxType_New); r.Code != api.CodeReplayed {
		t.Fatalf("without a tx index: code %d log %q, want %d", r.Code, r.Log, api.CodeReplayed)
	}
	a.SetTxIndex(idx.lookup)
	for _, c := range []struct {
		name string
		raw  []byte
		code uint32
		want string
	}{
		{"committed", ok1, api.CodeCommitted, fmt.Sprintf("already committed, in block %d with code 0 (ok)", height)},
		{"committed with a failure", failing, api.CodeCommitted, fmt.Sprintf("already committed, in block %d with code 10 (exec_failed)", height)},
		{"another tx reusing the nonce", sameNonce, api.CodeReplayed, "already executed (replay)"},
	} {
		r := check(c.raw, abci.CheckTxType_New)
		if r.Code != c.code || !strings.Contains(r.Log, c.want) {
			t.Errorf("%s: code %d log %q, want code %d and %q", c.name, r.Code, r.Log, c.code, c.want)
		}
		if c.code == api.CodeCommitted && !strings.Contains(r.Log, fmt.Sprintf("%X", txn.Hash(c.raw))) {
			t.Errorf("%s: log %q does not name the tx hash", c.name, r.Log)
		}
		// Recheck evicts from the mempool: a replay, as before.
		if r := check(c.raw, abci.CheckTxType_Recheck); r.Code != api.CodeReplayed {
			t.Errorf("%s: recheck code %d, want %d", c.name, r.Code, api.CodeReplayed)
		}
	}

	// An index that cannot answer: a replay, saying why.
	a.SetTxIndex(func([]byte) (app.CommittedTx, bool, error) {
		return app.CommittedTx{}, false, fmt.Errorf("lookup: %w", app.ErrTxIndexOff)
	})
	r := check(ok1, abci.CheckTxType_New)
	if r.Code != api.CodeReplayed || !strings.Contains(r.Log, `indexer = "null"`) {
		t.Errorf("index off: code %d log %q, want code %d naming the indexer setting", r.Code, r.Log, api.CodeReplayed)
	}

	// The same bytes in a block are still a replay (code 8): the
	// block's result never depends on a node's index.
	f.ex, f.be = ex, be
	res, _ = f.block(ok1)
	if res[0].Code != api.CodeReplayed {
		t.Errorf("committed tx in a later block: code %d, want %d", res[0].Code, api.CodeReplayed)
	}
}
