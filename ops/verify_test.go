package ops

import (
	"context"
	"testing"

	"github.com/relchain/relchain/app"
	"github.com/relchain/relchain/node"
)

// verify recomputes the AppHash too: system state (replay windows,
// grants) changed behind the chain's back is caught although every table
// matches.
func TestVerifyCatchesForgedSystemState(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	if _, err := node.Init(home, node.InitOptions{ChainID: "c", Backend: node.BackendConfig{Kind: "sqlite"}, Params: app.DefaultParams()}); err != nil {
		t.Fatal(err)
	}
	be := openHome(t, home, "")
	ex, err := app.NewExecutor(ctx, be, "c", app.DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	runBlocks(t, ex, "c",
		"CREATE TABLE acct (id INTEGER PRIMARY KEY, bal INTEGER NOT NULL)",
		"INSERT INTO acct (id, bal) VALUES (1, 10)")
	st := ex.State()
	be.Close()

	r, err := Verify(ctx, home)
	if err != nil || !r.OK() || r.Height != st.Height {
		t.Fatalf("verify of an intact database: %+v, %v", r, err)
	}

	be = openHome(t, home, "")
	blk, err := be.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := blk.SaveSystem(ctx, map[string][]byte{"grant/forged": []byte(`["acct"]`)}); err != nil {
		t.Fatal(err)
	}
	if err := blk.Commit(ctx, st); err != nil {
		t.Fatal(err)
	}
	be.Close()
	r, err = Verify(ctx, home)
	if err != nil || r.OK() || !r.AppHashDiffers || len(r.Differ) != 0 {
		t.Fatalf("verify after forging a grant: %+v, %v; want AppHashDiffers with every table matching", r, err)
	}
}

// A record that the node stopped at a protocol upgrade is reported, but is
// no fault: verify is OK with it; a divergence's record is not.
func TestVerifyCountsHaltFaultsOnly(t *testing.T) {
	for _, c := range []struct {
		halt *node.HaltRecord
		ok   bool
	}{
		{nil, true},
		{&node.HaltRecord{Height: 41, Kind: node.HaltUpgrade, Reason: "this chain runs protocol version 2 from height 42"}, true},
		{&node.HaltRecord{Height: 41, Kind: node.HaltDivergence}, false},
		{&node.HaltRecord{Height: 41, Kind: node.HaltOutOfBand}, false},
	} {
		if got := (VerifyReport{Height: 41, Halt: c.halt}).OK(); got != c.ok {
			t.Errorf("OK with halt record %+v = %v, want %v", c.halt, got, c.ok)
		}
	}
}
