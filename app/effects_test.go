package app_test

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/app"
	"github.com/relchain/relchain/txn"
)

// effects returns the effect digest in a result's data ("" when there is
// none), failing the test when the data holds an "effects" field it must
// not (a failed tx) or a malformed one.
func effects(t *testing.T, r app.TxResult) string {
	t.Helper()
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(r.Data, &raw); err != nil {
		t.Fatalf("result data %q: %v", r.Data, err)
	}
	if r.Code != api.CodeOK {
		if _, ok := raw["effects"]; ok {
			t.Fatalf("failed tx (code %d) carries effects: %s", r.Code, r.Data)
		}
		return ""
	}
	var d api.ExecData
	if err := json.Unmarshal(r.Data, &d); err != nil {
		t.Fatalf("result data %q: %v", r.Data, err)
	}
	if d.Effects != "" {
		if b, err := hex.DecodeString(d.Effects); err != nil || len(b) != 32 || hex.EncodeToString(b) != d.Effects {
			t.Fatalf("effects %q: want 64 lower-case hex digits (SHA-256)", d.Effects)
		}
	}
	return d.Effects
}

func (f *fixture) update(id int64) []byte {
	return f.tx(stmt("UPDATE acct SET bal = bal + 1 WHERE id = "+ph(f.dialect, 1), txn.Int(id)))
}

// A successful tx that changed rows carries its effect digest in its
// result data; a failed one, and one that changed nothing, carry none.
func TestResultsCarryEffectDigests(t *testing.T) {
	forEachBackend(t, func(t *testing.T, newStore func() store) {
		f := mustNewFixture(t, newStore(), app.DefaultParams())
		f.createAcct()
		res, _ := f.block(f.insert(1), f.insert(2))
		for i, r := range res {
			if r.Code != api.CodeOK || effects(t, r) == "" {
				t.Fatalf("insert %d: code %d, data %s: want an effect digest", i, r.Code, r.Data)
			}
		}
		failing := f.tx(
			stmt("UPDATE acct SET bal = bal + 1 WHERE id = 2"),
			stmt("INSERT INTO acct (id, bal) VALUES (1, 0)"), // duplicate key
		)
		res, _ = f.block(f.update(1), failing, f.tx(stmt("SELECT bal FROM acct WHERE id = 1")), f.update(2), f.update(99))
		if got := fmt.Sprint(codes(res)); got != fmt.Sprint([]uint32{api.CodeOK, api.CodeExecFailed, api.CodeOK, api.CodeOK, api.CodeOK}) {
			t.Fatalf("codes %s", got)
		}
		e1, e2 := effects(t, res[0]), effects(t, res[3])
		if e1 == "" || e2 == "" || e1 == e2 {
			t.Fatalf("updates of rows 1 and 2: effects %q and %q, want two different digests", e1, e2)
		}
		if e := effects(t, res[1]); e != "" {
			t.Fatalf("failed update: effects %q", e)
		}
		if e := effects(t, res[2]); e != "" {
			t.Fatalf("SELECT: effects %q, want none (it changed nothing)", e)
		}
		if e := effects(t, res[4]); e != "" {
			t.Fatalf("UPDATE of no row: effects %q, want none", e)
		}

		// The same statement again changes row 1 from 101 to 102: other
		// row images, other effects.
		res, _ = f.block(f.tx(stmt("SELECT 1")), f.update(1))
		if e := effects(t, res[1]); e == "" || e == e1 {
			t.Fatalf("second update of row 1: effects %q, want a digest other than the first's %q", e, e1)
		}
	})
}

// block_atomic: a block with a failure commits no row, and no result
// carries effects.
func TestBlockAtomicAbortCarriesNoEffects(t *testing.T) {
	forEachBackend(t, func(t *testing.T, newStore func() store) {
		p := app.DefaultParams()
		p.BlockAtomic = true
		f := mustNewFixture(t, newStore(), p)
		f.createAcct()
		res, _ := f.block(f.insert(1), f.insert(1), f.insert(2))
		for i, r := range res {
			if e := effects(t, r); e != "" || r.Code == api.CodeOK {
				t.Fatalf("tx %d of an aborted block: code %d, effects %q", i, r.Code, e)
			}
		}
		res, _ = f.block(f.insert(5))
		if res[0].Code != api.CodeOK || effects(t, res[0]) == "" {
			t.Fatalf("block after the abort: code %d, data %s, want an effect digest", res[0].Code, res[0].Data)
		}
	})
}

// A statement that costs SQLite the block's db-transaction (INSERT OR
// ROLLBACK on a conflict) makes the executor run the block again without
// it: the effect digests are those of the final run, identical to a block
// in which that tx changed nothing.
func TestEffectsAfterBlockRerun(t *testing.T) {
	f := mustNewFixture(t, stores(t)[0], app.DefaultParams())
	ref := mustNewFixture(t, stores(t)[0], app.DefaultParams())
	for _, x := range []*fixture{f, ref} {
		x.createAcct()
		x.block(x.insert(1), x.insert(2))
	}
	res, _ := f.block(f.update(1), f.tx(stmt("INSERT OR ROLLBACK INTO acct (id, bal) VALUES (1, 0)")), f.update(2))
	want, _ := ref.block(ref.update(1), ref.tx(stmt("SELECT 1")), ref.update(2))
	if got := fmt.Sprint(codes(res)); got != fmt.Sprint([]uint32{api.CodeOK, api.CodeExecFailed, api.CodeOK}) {
		t.Fatalf("codes %s, want [0 10 0]", got)
	}
	for _, i := range []int{0, 2} {
		if !bytes.Equal(res[i].Data, want[i].Data) || effects(t, res[i]) == "" {
			t.Fatalf("tx %d: data %s, want %s with an effect digest", i, res[i].Data, want[i].Data)
		}
	}
	if e := effects(t, res[1]); e != "" {
		t.Fatalf("the tx that lost the block carries effects %q", e)
	}
}

// Two nodes execute the same blocks, but one's database was changed
// outside the chain (with the capture triggers active). At the next block
// their AppHashes differ, and their results agree tx by tx up to the first
// tx whose effects touched the changed row: its effect digest names it.
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
		if _, _, same := both(honest.tx(stmt("CREATE TABLE acct (id BIGINT PRIMARY KEY, bal BIGINT NOT NULL)"))); !same {
			t.Fatal("AppHashes differ after the same first block")
		}
		if _, _, same := both(honest.insert(1), honest.insert(2), honest.insert(3)); !same {
			t.Fatal("AppHashes differ after the same inserts")
		}

		// Out of band, on one node: row 2 changes, in a db-transaction of
		// its own that records no block (height and AppHash stay).
		ctx := context.Background()
		blk, err := tampered.be.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := blk.Exec(ctx, "UPDATE acct SET bal = 7 WHERE id = 2", nil); err != nil {
			t.Fatal(err)
		}
		// Its change records are consumed (as a tamperer who knows
		// relchain would), so that the next block starts: records left
		// behind would stop it (TestOutOfBandWriteStopsTheNextBlock).
		if _, err := blk.ChangeDigest(ctx); err != nil {
			t.Fatal(err)
		}
		if err := blk.Commit(ctx, tampered.ex.State()); err != nil {
			t.Fatal(err)
		}

		r1, r2, same := both(honest.update(1), honest.update(2), honest.update(3))
		if same {
			t.Fatal("the tampered node computed the honest node's AppHash")
		}
		first := -1
		for i := range r1 {
			if r1[i].Code != api.CodeOK || r2[i].Code != api.CodeOK {
				t.Fatalf("update %d failed: %d %s / %d %s", i, r1[i].Code, r1[i].Log, r2[i].Code, r2[i].Log)
			}
			if effects(t, r1[i]) != effects(t, r2[i]) && first < 0 {
				first = i
			}
		}
		if first != 1 {
			t.Fatalf("first tx with differing effects = %d, want 1 (the update of the changed row)", first)
		}
	})
}
