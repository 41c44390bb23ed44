package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/app"
	"github.com/relchain/relchain/sqlcheck"
	"github.com/relchain/relchain/txn"
)

func effect(t *testing.T, r app.TxResult) string {
	t.Helper()
	var d api.ExecData
	if err := json.Unmarshal(r.Data, &d); err != nil {
		t.Fatalf("result data %q: %v", r.Data, err)
	}
	return d.Effect
}

// Two nodes execute the same blocks, but one's database was changed
// outside the chain (with the capture triggers active). At the next block
// their AppHashes differ, and their results agree tx by tx up to the first
// tx whose effect touched the changed row: its effect digest names it.
func TestEffectDigestsNameTheFirstDivergingTx(t *testing.T) {
	forEachBackend(t, func(t *testing.T, newStore func() store) {
		honest := mustNewFixture(t, newStore(), app.DefaultParams())
		tampered := mustNewFixture(t, newStore(), app.DefaultParams())
		tampered.key = honest.key
		both := func(txs ...[]byte) ([]app.TxResult, []app.TxResult, bool) {
			t.Helper()
			r1, h1 := honest.block(txs...)
			r2, h2 := tampered.block(txs...)
			return r1, r2, bytes.Equal(h1, h2)
		}
		upd := func(id int64) []byte {
			return honest.tx(stmt("UPDATE acct SET bal = bal + 1 WHERE id = "+ph(honest.dialect, 1), txn.Int(id)))
		}
		if _, _, same := both(honest.tx(stmt("CREATE TABLE acct (id BIGINT PRIMARY KEY, bal BIGINT NOT NULL)"))); !same {
			t.Fatal("AppHashes differ after the same first block")
		}
		r1, r2, same := both(honest.insert(1), honest.insert(2), honest.insert(3))
		if !same {
			t.Fatal("AppHashes differ after the same inserts")
		}
		for i := range r1 {
			e := effect(t, r1[i])
			if len(e) != 64 || e != effect(t, r2[i]) {
				t.Fatalf("insert %d: effects %q and %q, want one equal 32-byte hex digest", i, e, effect(t, r2[i]))
			}
		}
		if effect(t, r1[0]) == effect(t, r1[1]) {
			t.Fatal("two different inserts have the same effect digest")
		}

		// Out of band, on one node: row 2 changes, and nothing is recorded
		// as a block (the height and AppHash stay).
		ctx := context.Background()
		st := tampered.ex.State()
		blk, err := tampered.be.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := blk.Savepoint(ctx, sqlcheck.Env{}); err != nil {
			t.Fatal(err)
		}
		if _, err := blk.Exec(ctx, "UPDATE acct SET bal = 7 WHERE id = 2", nil); err != nil {
			t.Fatal(err)
		}
		if err := blk.Release(ctx); err != nil {
			t.Fatal(err)
		}
		if err := blk.Commit(ctx, st); err != nil {
			t.Fatal(err)
		}

		r1, r2, same = both(upd(1), upd(2), upd(3))
		if same {
			t.Fatal("the tampered node computed the honest node's AppHash")
		}
		var first = -1
		for i := range r1 {
			if r1[i].Code != api.CodeOK || r2[i].Code != api.CodeOK {
				t.Fatalf("update %d failed: %d %s / %d %s", i, r1[i].Code, r1[i].Log, r2[i].Code, r2[i].Log)
			}
			if effect(t, r1[i]) != effect(t, r2[i]) && first < 0 {
				first = i
			}
		}
		if first != 1 {
			t.Fatalf("first tx with differing effects = %d, want 1 (the update of the changed row)", first)
		}
	})
}
