package app_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/app"
	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/txn"
)

// batch signs one bc-transaction carrying the given wl-transactions.
func (f *fixture) batch(wls ...[]txn.Statement) []byte {
	f.nonce++
	tx := &txn.Tx{ChainID: chainID, Nonce: f.nonce}
	for _, wl := range wls {
		tx.Statements = append(tx.Statements, wl...)
		tx.Groups = append(tx.Groups, len(wl))
	}
	tx.Sign(f.key)
	return txn.Encode(tx)
}

func TestBatchRollsBackAFailingWLTransactionAlone(t *testing.T) {
	forEachBackend(t, func(t *testing.T, newStore func() store) {
		f := mustNewFixture(t, newStore(), app.DefaultParams())
		f.createAcct()
		ins := func(id int64) txn.Statement {
			return stmt("INSERT INTO acct (id, bal) VALUES ("+ph(f.dialect, 1)+", 100)", txn.Int(id))
		}
		raw := f.batch(
			[]txn.Statement{ins(1), stmt("SELECT count(*) FROM acct")},
			[]txn.Statement{ins(2), ins(1)}, // duplicate key: both of its inserts go
			[]txn.Statement{ins(3)},
		)
		res, _ := f.block(raw)
		if res[0].Code != api.CodeOK {
			t.Fatalf("batch code %d (%s), want 0", res[0].Code, res[0].Log)
		}
		if got := fmt.Sprint(f.ids("acct")); got != "[1 3]" {
			t.Fatalf("rows after the batch: %s, want [1 3]", got)
		}
		var d api.ExecData
		if err := json.Unmarshal(res[0].Data, &d); err != nil {
			t.Fatalf("result data %q: %v", res[0].Data, err)
		}
		if len(d.Batch) != 3 {
			t.Fatalf("batch results: %d, want 3: %s", len(d.Batch), res[0].Data)
		}
		if d.Batch[0].Code != api.CodeOK || len(d.Batch[0].Results) != 2 || fmt.Sprint(d.Batch[0].Results[1].Rows) != "[[1]]" {
			t.Errorf("wl 1 = %+v, want ok with count 1", d.Batch[0])
		}
		if b := d.Batch[1]; b.Code != api.CodeExecFailed || b.Failure == nil || b.Failure.Statement != 2 || b.Failure.Class != string(backend.ClassConstraint) {
			t.Errorf("wl 2 = %+v, want exec_failed at its statement 2, class constraint", b)
		}
		if d.Batch[2].Code != api.CodeOK || d.Batch[2].Results[0].RowsAffected != 1 {
			t.Errorf("wl 3 = %+v, want ok, 1 row", d.Batch[2])
		}
		if d.Effects == "" {
			t.Errorf("batch that changed rows has no effect digest")
		}
	})
}

func TestBatchUnderBlockAtomicAbortsTheBlock(t *testing.T) {
	forEachBackend(t, func(t *testing.T, newStore func() store) {
		p := app.DefaultParams()
		p.BlockAtomic = true
		f := mustNewFixture(t, newStore(), p)
		f.createAcct()
		raw := f.batch(
			[]txn.Statement{stmt("INSERT INTO acct (id, bal) VALUES (1, 1)")},
			[]txn.Statement{stmt("INSERT INTO acct (id, bal) VALUES (2, 1)"), stmt("INSERT INTO acct (id, bal) VALUES (2, 1)")},
		)
		res, _ := f.block(f.insert(7), raw)
		if got := codes(res); fmt.Sprint(got) != fmt.Sprint([]uint32{api.CodeBlockAborted, api.CodeExecFailed}) {
			t.Fatalf("codes = %v, want [11 10]", got)
		}
		var fd api.FailureData
		if err := json.Unmarshal(res[1].Data, &fd); err != nil || fd.Statement != 3 {
			t.Fatalf("failure data %s (%v): want statement 3 of the bc-transaction", res[1].Data, err)
		}
		if got := f.ids("acct"); len(got) != 0 {
			t.Fatalf("rows after an aborted block: %v, want none", got)
		}
	})
}

func TestBatchGivesEachWLTransactionItsOwnRandomSeed(t *testing.T) {
	forEachBackend(t, func(t *testing.T, newStore func() store) {
		f := mustNewFixture(t, newStore(), app.DefaultParams())
		res, _ := f.block(f.batch([]txn.Statement{stmt("SELECT random()")}, []txn.Statement{stmt("SELECT random()")}))
		var d api.ExecData
		if err := json.Unmarshal(res[0].Data, &d); err != nil || len(d.Batch) != 2 {
			t.Fatalf("result data %s: %v", res[0].Data, err)
		}
		a, b := fmt.Sprint(d.Batch[0].Results[0].Rows), fmt.Sprint(d.Batch[1].Results[0].Rows)
		if a == b {
			t.Fatalf("both wl-transactions drew %s: the seed is not per wl-transaction", a)
		}
	})
}
