package app_test

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/relchain/relchain/app"
	"github.com/relchain/relchain/txn"
)

// A database must reproduce its AppHash from its contents alone (what
// recover and state sync check), also after empty blocks and a restart,
// and must stop doing so when its system state is changed behind the
// chain's back.
func TestVerifyStateReproducesTheAppHash(t *testing.T) {
	forEachBackend(t, func(t *testing.T, newStore func() store) {
		ctx := context.Background()
		f := mustNewFixture(t, newStore(), app.DefaultParams())
		f.createAcct()
		f.block(f.insert(1), f.insert(2))
		f.block(f.tx(stmt("UPDATE acct SET bal = bal + 5 WHERE id = "+ph(f.dialect, 1), txn.Int(1))))
		_, emptyHash := f.block()
		st := f.ex.State()
		if !bytes.Equal(emptyHash, st.AppHash) {
			t.Fatalf("AppHash after the empty block %X, state says %X", emptyHash, st.AppHash)
		}
		got, err := app.VerifyState(ctx, f.be)
		if err != nil {
			t.Fatalf("verify: %v", err)
		}
		if got.Height != st.Height || !bytes.Equal(got.AppHash, st.AppHash) {
			t.Fatalf("verified %d/%X, committed %d/%X", got.Height, got.AppHash, st.Height, st.AppHash)
		}

		// A restarted executor computes the same state: an empty block
		// leaves the AppHash alone.
		ex2, err := app.NewExecutor(ctx, f.be, chainID, f.ex.Params())
		if err != nil {
			t.Fatal(err)
		}
		f.ex = ex2
		if _, h := f.block(); !bytes.Equal(h, st.AppHash) {
			t.Fatalf("an empty block after a restart changed the AppHash: %X -> %X", st.AppHash, h)
		}

		// System state written outside the chain (a replay window here).
		blk, err := f.be.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := blk.SaveSystem(ctx, map[string][]byte{"replay/forged": []byte(`{}`)}); err != nil {
			t.Fatal(err)
		}
		if err := blk.Commit(ctx, f.ex.State()); err != nil {
			t.Fatal(err)
		}
		if _, err := app.VerifyState(ctx, f.be); !errors.Is(err, app.ErrStateMismatch) {
			t.Fatalf("verify after forging system state: %v, want ErrStateMismatch", err)
		}
	})
}
