package app_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"testing"
	"time"

	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/cometbft/cometbft/libs/log"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/app"
)

// slowQuery is a statement the gate admits that takes far longer than the
// tests' proposal timeout: about a second of work, bounded.
func slowQuery(dialect string) string {
	if dialect == "postgres" {
		return "SELECT count(DISTINCT md5(md5(a::text))) FROM generate_series(1, 1000000) a"
	}
	return "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 2000000) SELECT count(*) FROM c"
}

// proposal is the ABCI request of a proposed block at height h whose hash
// also depends on salt (two proposals of one height differ in hash).
func proposal(h int64, salt string, txs ...[]byte) *abci.RequestProcessProposal {
	b := blockInfo(h)
	sum := sha256.Sum256(append(b.Hash, salt...))
	return &abci.RequestProcessProposal{Height: h, Time: b.Time, Hash: sum[:], Txs: txs}
}

func finalizeReq(p *abci.RequestProcessProposal) *abci.RequestFinalizeBlock {
	return &abci.RequestFinalizeBlock{Height: p.Height, Time: p.Time, Hash: p.Hash, Txs: p.Txs}
}

func TestProposalThatRunsOutOfTimeIsRejectedAndItsTxQuarantined(t *testing.T) {
	forEachBackend(t, func(t *testing.T, newStore func() store) {
		ctx := context.Background()
		f := mustNewFixture(t, newStore(), app.DefaultParams())
		f.createAcct()
		a := app.New(f.ex, log.NewNopLogger())
		a.TxTimeout = 30 * time.Millisecond
		good, slow := f.insert(1), f.tx(stmt(slowQuery(f.dialect)))
		h := f.ex.State().Height + 1

		resp, err := a.ProcessProposal(ctx, proposal(h, "a", good, slow))
		if err != nil || resp.Status != abci.ResponseProcessProposal_REJECT {
			t.Fatalf("proposal with a tx that runs out of time: %v, %v; want REJECT", resp, err)
		}
		for _, typ := range []abci.CheckTxType{abci.CheckTxType_New, abci.CheckTxType_Recheck} {
			ct, _ := a.CheckTx(ctx, &abci.RequestCheckTx{Tx: slow, Type: typ})
			if ct.Code != api.CodeQuarantined {
				t.Errorf("CheckTx (%v) of the quarantined tx: code %d, want %d (quarantined)", typ, ct.Code, api.CodeQuarantined)
			}
		}
		prep, _ := a.PrepareProposal(ctx, &abci.RequestPrepareProposal{Height: h, MaxTxBytes: 1 << 20, Txs: [][]byte{good, slow}})
		if len(prep.Txs) != 1 || !bytes.Equal(prep.Txs[0], good) {
			t.Errorf("PrepareProposal kept %d txs; want only the good one", len(prep.Txs))
		}
		// Another proposer's block with the quarantined tx is refused at once.
		if resp, _ := a.ProcessProposal(ctx, proposal(h, "b", slow)); resp.Status != abci.ResponseProcessProposal_REJECT {
			t.Errorf("a proposal holding a quarantined tx was %v; want REJECT", resp.Status)
		}
		// The network goes on without it.
		next := proposal(h, "c", prep.Txs...)
		if resp, _ := a.ProcessProposal(ctx, next); resp.Status != abci.ResponseProcessProposal_ACCEPT {
			t.Fatalf("the proposal without the slow tx was %v; want ACCEPT", resp.Status)
		}
		fin, err := a.FinalizeBlock(ctx, finalizeReq(next))
		if err != nil || fin.TxResults[0].Code != api.CodeOK {
			t.Fatalf("finalize the accepted proposal: %v %v", fin, err)
		}
		if _, err := a.Commit(ctx, &abci.RequestCommit{}); err != nil {
			t.Fatalf("commit: %v", err)
		}
		if got := f.ids("acct"); len(got) != 1 || got[0] != 1 {
			t.Errorf("acct holds %v after the block; want [1]", got)
		}
	})
}

func TestSpeculationOutOfTimeNamesTheTxAndLeavesTheBackendUsable(t *testing.T) {
	forEachBackend(t, func(t *testing.T, newStore func() store) {
		f := mustNewFixture(t, newStore(), app.DefaultParams())
		f.createAcct()
		h := f.ex.State().Height + 1
		err := f.ex.Speculate(context.Background(), blockInfo(h), [][]byte{f.insert(1), f.tx(stmt(slowQuery(f.dialect)))}, 30*time.Millisecond)
		var txErr *app.TxError
		if !errors.Is(err, context.DeadlineExceeded) || !errors.As(err, &txErr) || txErr.Index != 1 {
			t.Fatalf("speculation past its deadline returned %v; want a *app.TxError for tx 1 wrapping context.DeadlineExceeded", err)
		}
		// The same block decided: applied in full, without a deadline.
		res, _ := f.block(f.insert(2), f.tx(stmt("SELECT count(*) FROM acct")))
		if got := codes(res); got[0] != api.CodeOK || got[1] != api.CodeOK {
			t.Fatalf("block after the cancelled speculation: codes %v", got)
		}
		if got := f.ids("acct"); len(got) != 1 || got[0] != 2 {
			t.Errorf("acct holds %v; want [2] (nothing of the cancelled speculation)", got)
		}
	})
}

func TestFinalizeReusesTheSpeculatedBlockAndAgreesWithDirectExecution(t *testing.T) {
	forEachBackend(t, func(t *testing.T, newStore func() store) {
		ctx := context.Background()
		spec := mustNewFixture(t, newStore(), app.DefaultParams())
		direct := mustNewFixture(t, newStore(), app.DefaultParams())
		direct.key = spec.key
		spec.createAcct()
		direct.createAcct()
		h := spec.ex.State().Height + 1
		txs := [][]byte{spec.insert(7), spec.tx(stmt("UPDATE acct SET id = id + 1 WHERE id = 7")), spec.insert(7)}

		// A proposal of round 0 is executed, then round 1's different block
		// is decided: the first attempt must leave no trace.
		other := blockInfo(h)
		other.Hash = append([]byte("other"), other.Hash...)
		if err := spec.ex.Speculate(ctx, other, txs[:1], time.Minute); err != nil {
			t.Fatal(err)
		}
		if err := spec.ex.Speculate(ctx, blockInfo(h), txs, time.Minute); err != nil {
			t.Fatal(err)
		}
		if !spec.ex.Speculated(blockInfo(h)) {
			t.Fatal("the speculated block is not kept for FinalizeBlock")
		}
		if spec.ex.Speculated(other) {
			t.Error("a discarded speculation is still reported as kept")
		}
		res1, hash1, err := spec.ex.FinalizeBlock(ctx, blockInfo(h), txs)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := spec.ex.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		res2, hash2, err := direct.ex.FinalizeBlock(ctx, blockInfo(h), txs)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(hash1, hash2) {
			t.Errorf("AppHash after speculation %X differs from direct execution %X", hash1, hash2)
		}
		for i := range res1 {
			if res1[i].Code != res2[i].Code || !bytes.Equal(res1[i].Data, res2[i].Data) {
				t.Errorf("tx %d: speculated %d %s, direct %d %s", i, res1[i].Code, res1[i].Data, res2[i].Code, res2[i].Data)
			}
		}
		if got := spec.ids("acct"); len(got) != 2 || got[0] != 7 || got[1] != 8 {
			t.Errorf("acct holds %v; want [7 8]", got)
		}
	})
}
