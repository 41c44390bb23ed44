package app_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"fmt"
	"slices"
	"testing"

	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/cometbft/cometbft/libs/log"
	cmtcrypto "github.com/cometbft/cometbft/proto/tendermint/crypto"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/app"
	"github.com/relchain/relchain/txn"
)

func newValKey() []byte {
	pub, _, _ := ed25519.GenerateKey(nil)
	return pub
}

func addVal(key []byte, power int64, force bool) txn.Statement {
	return stmt(api.SystemValidatorAdd, txn.Bytes(key), txn.Int(power), txn.Bool(force))
}

func powerVal(key []byte, power int64, force bool) txn.Statement {
	return stmt(api.SystemValidatorPower, txn.Bytes(key), txn.Int(power), txn.Bool(force))
}

func removeVal(key []byte, force bool) txn.Statement {
	return stmt(api.SystemValidatorRemove, txn.Bytes(key), txn.Bool(force))
}

// genesisVals is n validators of power 10 each.
func genesisVals(n int) []app.ValidatorUpdate {
	out := make([]app.ValidatorUpdate, n)
	for i := range out {
		out[i] = app.ValidatorUpdate{PubKey: newValKey(), Power: 10}
	}
	return out
}

// valFixture is a node of a network whose only admin is admin and whose
// genesis validators (InitChain's) are vals; no block is committed yet.
func valFixture(t *testing.T, s store, admin ed25519.PrivateKey, vals []app.ValidatorUpdate) *fixture {
	t.Helper()
	p := app.DefaultParams()
	p.Admins = []string{hex.EncodeToString(admin.Public().(ed25519.PublicKey))}
	f := mustNewFixture(t, s, p)
	f.key = admin
	if err := f.ex.InitValidators(vals); err != nil {
		t.Fatalf("init validators: %v", err)
	}
	return f
}

func newAdmin() ed25519.PrivateKey {
	_, k, _ := ed25519.GenerateKey(nil)
	return k
}

// sortedSet is vals sorted by key, as Executor.Validators reports them.
func sortedSet(vals []app.ValidatorUpdate) []app.ValidatorUpdate {
	out := slices.Clone(vals)
	slices.SortFunc(out, func(a, b app.ValidatorUpdate) int { return bytes.Compare(a.PubKey, b.PubKey) })
	return out
}

// valBlock finalizes and commits a block and returns its results, AppHash
// and validator updates.
func (f *fixture) valBlock(txs ...[]byte) ([]app.TxResult, []byte, []app.ValidatorUpdate) {
	f.t.Helper()
	res, hash := f.finalize(txs...)
	us := f.ex.ValidatorUpdates(f.ex.State().Height + 1)
	if _, err := f.ex.Commit(context.Background()); err != nil {
		f.t.Fatalf("commit: %v", err)
	}
	return res, hash, us
}

func (f *fixture) mustValidators(want []app.ValidatorUpdate) {
	f.t.Helper()
	got, known := f.ex.Validators()
	if !known || fmt.Sprint(got) != fmt.Sprint(sortedSet(want)) {
		f.t.Fatalf("validator set = %v (known %v), want %v", got, known, sortedSet(want))
	}
}

// Every change of a block comes back as one update per key, sorted by key
// whatever the order of the statements and txs, and every node computes
// the same updates and AppHash.
func TestValidatorUpdatesAreSortedAndAlike(t *testing.T) {
	forEachBackend(t, func(t *testing.T, newStore func() store) {
		admin, genesis := newAdmin(), genesisVals(4)
		a := valFixture(t, newStore(), admin, genesis)
		b := valFixture(t, newStore(), admin, genesis)
		_, _, us := a.valBlock()
		b.block()
		if len(us) != 0 {
			t.Fatalf("block 1 (the genesis set recorded) returned updates %v, want none", us)
		}
		// Added in descending key order (the updates must come out sorted)
		// and ascending power: each addition keeps the faults the set
		// tolerates (a powerful validator first would lower them and be
		// refused with code 14, whatever the keys drawn).
		added := make([]app.ValidatorUpdate, 20)
		for i := range added {
			added[i] = app.ValidatorUpdate{PubKey: newValKey()}
		}
		slices.SortFunc(added, func(x, y app.ValidatorUpdate) int { return -bytes.Compare(x.PubKey, y.PubKey) })
		var stmts []txn.Statement
		for i := range added {
			added[i].Power = int64(i + 1)
			stmts = append(stmts, addVal(added[i].PubKey, added[i].Power, false))
		}
		txs := [][]byte{a.tx(stmts...), a.tx(removeVal(genesis[2].PubKey, false)), a.tx(powerVal(genesis[0].PubKey, 12, false))}
		resA, hashA, gotA := a.valBlock(txs...)
		resB, hashB, gotB := b.valBlock(txs...)
		for i := range resA {
			if resA[i].Code != api.CodeOK {
				t.Fatalf("tx %d: code %d %s", i, resA[i].Code, resA[i].Log)
			}
		}
		want := append(slices.Clone(added), app.ValidatorUpdate{PubKey: genesis[2].PubKey, Power: 0}, app.ValidatorUpdate{PubKey: genesis[0].PubKey, Power: 12})
		if fmt.Sprint(gotA) != fmt.Sprint(sortedSet(want)) {
			t.Fatalf("updates = %v\nwant (sorted by key) %v", gotA, sortedSet(want))
		}
		if fmt.Sprint(gotA) != fmt.Sprint(gotB) || !bytes.Equal(hashA, hashB) || fmt.Sprint(resA) != fmt.Sprint(resB) {
			t.Fatalf("two nodes disagree: updates %v / %v, AppHash %X / %X", gotA, gotB, hashA, hashB)
		}
		set := append(slices.Clone(added), app.ValidatorUpdate{PubKey: genesis[0].PubKey, Power: 12}, genesis[1], genesis[3])
		a.mustValidators(set)
		// A validator added and removed in one block is no update
		// (CometBFT refuses to remove a validator it does not know).
		k := newValKey()
		if _, _, us := a.valBlock(a.tx(addVal(k, 5, false), removeVal(k, false))); len(us) != 0 {
			t.Fatalf("add and remove in one block returned updates %v, want none", us)
		}
		a.mustValidators(set)
	})
}

// Every refusal has code 14 (or 9 for a key that is no admin), the same
// in CheckTx and in a block, and changes nothing.
func TestValidatorChangesRefused(t *testing.T) {
	forEachBackend(t, func(t *testing.T, newStore func() store) {
		genesis := genesisVals(4)
		f := valFixture(t, newStore(), newAdmin(), genesis)
		f.block()
		user, k := newSigner(), newValKey()
		r := api.CodeValidatorRefused
		f.checkAndRun("a key that is no admin", user.tx(addVal(k, 10, false)), api.CodeUnauthorized, "only an admin key may change the validator set")
		f.checkAndRun("a 31-byte key", f.tx(addVal(k[:31], 10, false)), r, "has 31 bytes")
		f.checkAndRun("an all-zero key", f.tx(addVal(make([]byte, 32), 10, false)), r, "all zeros")
		f.checkAndRun("power 0 on add", f.tx(addVal(k, 0, false)), r, "out of range")
		f.checkAndRun("negative power", f.tx(addVal(k, -5, false)), r, "out of range")
		f.checkAndRun("power beyond CometBFT's bound", f.tx(addVal(k, app.MaxValidatorPower+1, false)), r, "out of range")
		f.checkAndRun("power as text", f.tx(stmt(api.SystemValidatorAdd, txn.Bytes(k), txn.Text("10"), txn.Bool(false))), r, "argument 2 is text")
		f.checkAndRun("no force flag", f.tx(stmt(api.SystemValidatorRemove, txn.Bytes(genesis[0].PubKey))), r, "takes 2 arguments")
		f.checkAndRun("power of an unknown validator", f.tx(powerVal(k, 10, false)), r, "not in the set")
		f.checkAndRun("removal of an unknown validator", f.tx(removeVal(k, false)), r, "not in the set")
		f.checkAndRun("duplicate add", f.tx(addVal(genesis[1].PubKey, 10, false)), r, "already in the set")
		f.checkAndRun("duplicate add in one tx", f.tx(addVal(k, 1, false), addVal(k, 1, false)), r, "already in the set")
		// 4 x 10 tolerates one fault; 3 x 10 none, 10+10+10+20 none.
		f.checkAndRun("removal losing a fault", f.tx(removeVal(genesis[0].PubKey, false)), r, "from 1 to 0")
		f.checkAndRun("power losing a fault", f.tx(powerVal(genesis[0].PubKey, 20, false)), r, "from 1 to 0")
		f.checkAndRun("a failed statement rolls back the tx's other changes", f.tx(addVal(k, 10, false), removeVal(newValKey(), false)), r, "not in the set")
		f.mustValidators(genesis)
		// Forced, the same changes apply; the last validator never goes.
		f.checkAndRun("forced removal", f.tx(removeVal(genesis[0].PubKey, true)), api.CodeOK, "")
		f.checkAndRun("forced power", f.tx(powerVal(genesis[1].PubKey, 20, true)), api.CodeOK, "")
		f.checkAndRun("forced removal", f.tx(removeVal(genesis[2].PubKey, true)), api.CodeOK, "")
		f.checkAndRun("forced removal", f.tx(removeVal(genesis[3].PubKey, true)), api.CodeOK, "")
		f.checkAndRun("the last validator", f.tx(removeVal(genesis[1].PubKey, true)), r, "remove the last validator")
		f.mustValidators([]app.ValidatorUpdate{{PubKey: genesis[1].PubKey, Power: 20}})
		// Changes that keep or raise the faults tolerated need no force.
		f.checkAndRun("a fault-neutral power change", f.tx(powerVal(genesis[1].PubKey, 7, false)), api.CodeOK, "")
	})
}

func TestOpenNetworkRefusesValidatorChanges(t *testing.T) {
	f := mustNewFixture(t, stores(t)[0], app.DefaultParams())
	if err := f.ex.InitValidators(genesisVals(1)); err != nil {
		t.Fatal(err)
	}
	f.checkAndRun("validator add on an open network", f.tx(addVal(newValKey(), 1, true)), api.CodeUnauthorized, "no key may change the validator set")
}

// The set is system state: in the AppHash, reproduced by VerifyState
// (checkpoints, snapshots), and loaded again after a restart.
func TestValidatorSetInAppHashAndAfterRestart(t *testing.T) {
	forEachBackend(t, func(t *testing.T, newStore func() store) {
		admin, genesis := newAdmin(), genesisVals(4)
		s := newStore()
		a := valFixture(t, s, admin, genesis)
		b := valFixture(t, newStore(), admin, genesis)
		ref := valFixture(t, newStore(), admin, genesis[:3])
		_, h1 := a.block()
		_, h1b := b.block()
		_, h1ref := ref.block()
		if !bytes.Equal(h1, h1b) || bytes.Equal(h1, h1ref) {
			t.Fatalf("block 1 AppHash: %X, same genesis %X, other genesis set %X: the genesis set must be in it", h1, h1b, h1ref)
		}
		k := newValKey()
		_, ha := a.block(a.tx(addVal(k, 10, false)))
		_, hb := b.block(b.tx(addVal(k, 11, false)))
		if bytes.Equal(ha, hb) {
			t.Fatalf("adding a validator with power 10 or 11 gave the same AppHash %X", ha)
		}
		st, err := app.VerifyState(context.Background(), a.be)
		if err != nil || !bytes.Equal(st.AppHash, ha) {
			t.Fatalf("VerifyState = %X, %v; want %X", st.AppHash, err, ha)
		}
		// Restart: the set comes from the database, not from InitChain.
		if err := a.be.Close(); err != nil {
			t.Fatal(err)
		}
		be := s.open(t)
		t.Cleanup(func() { be.Close() })
		ex, err := app.NewExecutor(context.Background(), be, chainID, a.ex.Params())
		if err != nil {
			t.Fatal(err)
		}
		a.be, a.ex = be, ex
		a.mustValidators(append(slices.Clone(genesis), app.ValidatorUpdate{PubKey: k, Power: 10}))
		a.checkAndRun("duplicate add after a restart", a.tx(addVal(k, 10, false)), api.CodeValidatorRefused, "already in the set")
	})
}

// The ABCI adapter: InitChain's validators are recorded, FinalizeBlock
// returns the block's changes as ed25519 ValidatorUpdates.
func TestABCIValidatorUpdates(t *testing.T) {
	admin := newAdmin()
	p := app.DefaultParams()
	p.Admins = []string{hex.EncodeToString(admin.Public().(ed25519.PublicKey))}
	f := mustNewFixture(t, stores(t)[0], p)
	f.key = admin
	a := app.New(f.ex, log.NewNopLogger())
	genesis := genesisVals(4)
	var init []abci.ValidatorUpdate
	for _, v := range genesis {
		init = append(init, abci.ValidatorUpdate{PubKey: cmtcrypto.PublicKey{Sum: &cmtcrypto.PublicKey_Ed25519{Ed25519: v.PubKey}}, Power: v.Power})
	}
	appState := fmt.Sprintf(`{"admins":[%q]}`, p.Admins[0])
	ctx := context.Background()
	if _, err := a.InitChain(ctx, &abci.RequestInitChain{ChainId: chainID, AppStateBytes: []byte(appState), Validators: init}); err != nil {
		t.Fatal(err)
	}
	k := newValKey()
	for h, txs := range [][][]byte{nil, {f.tx(addVal(k, 3, false))}} {
		bi := blockInfo(int64(h + 1))
		resp, err := a.FinalizeBlock(ctx, &abci.RequestFinalizeBlock{Height: bi.Height, Time: bi.Time, Hash: bi.Hash, Txs: txs})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := a.Commit(ctx, &abci.RequestCommit{}); err != nil {
			t.Fatal(err)
		}
		us := resp.ValidatorUpdates
		switch {
		case h == 0 && len(us) != 0:
			t.Fatalf("block 1: ValidatorUpdates = %v, want none", us)
		case h == 1 && (len(us) != 1 || !bytes.Equal(us[0].PubKey.GetEd25519(), k) || us[0].Power != 3):
			t.Fatalf("block 2: ValidatorUpdates = %v, want ed25519 %X power 3", us, k)
		}
	}
	f.mustValidators(append(genesis, app.ValidatorUpdate{PubKey: k, Power: 3}))
}
