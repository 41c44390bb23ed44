package app_test

import (
	"context"
	"testing"
	"time"

	abcicli "github.com/cometbft/cometbft/abci/client"
	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/cometbft/cometbft/libs/log"
	"github.com/cometbft/cometbft/proxy"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/app"
	"github.com/relchain/relchain/internal/racetest"
)

// CheckTx overlaps block execution: with the client creator the node uses
// (node.go: proxy.NewConnSyncLocalClientCreator, one mutex per ABCI
// connection), a CheckTx on the mempool connection completes while
// FinalizeBlock of a block held open by a slow statement (a bounded
// recursive count, about a second of SQLite work) runs on the consensus
// connection; nothing of the executor's (e.mu, the block slot, the gate's
// read connections) makes it wait for the block. With CometBFT's default
// creator (proxy.NewLocalClientCreator: one mutex for all connections)
// the same CheckTx waits for the block, which is why the node does not
// use it. Latencies are logged (go test -v).
func TestCheckTxCompletesWhileABlockExecutes(t *testing.T) {
	racetest.Heavy(t) // a block held open by a long count: 53 s under -race, about 3 s without
	for _, c := range []struct {
		name    string
		creator func(abci.Application) proxy.ClientCreator
		overlap bool
	}{
		{"conn-sync (the node's)", proxy.NewConnSyncLocalClientCreator, true},
		{"global mutex", proxy.NewLocalClientCreator, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			f := mustNewFixture(t, storeNamed(t, "sqlite"), app.DefaultParams())
			f.createAcct()
			a := app.New(f.ex, log.NewNopLogger())
			creator := c.creator(a)
			conn := func() abcicli.Client {
				cl, err := creator.NewABCIClient()
				if err != nil {
					t.Fatal(err)
				}
				return cl
			}
			consensus, mempool := conn(), conn()
			checkTx := func() time.Duration {
				start := time.Now()
				r, err := mempool.CheckTx(ctx, &abci.RequestCheckTx{Tx: f.insert(int64(1000 + f.nonce)), Type: abci.CheckTxType_New})
				if err != nil || r.Code != api.CodeOK {
					t.Fatalf("check tx: %v %v", r, err)
				}
				return time.Since(start)
			}
			idle := checkTx()
			b := blockInfo(f.ex.State().Height + 1)
			slow := f.tx(stmt(slowQuery("sqlite")))
			done := make(chan time.Time, 1)
			blockStart := time.Now()
			go func() {
				if _, err := consensus.FinalizeBlock(ctx, &abci.RequestFinalizeBlock{Height: b.Height, Time: b.Time, Hash: b.Hash, Txs: [][]byte{slow}}); err != nil {
					t.Error(err)
				}
				done <- time.Now()
			}()
			time.Sleep(100 * time.Millisecond) // the block is in its slow statement
			during := checkTx()
			checkEnd := time.Now()
			blockEnd := <-done
			t.Logf("CheckTx idle %v, issued 100 ms into the block %v; the block took %v", idle, during, blockEnd.Sub(blockStart))
			switch overlapped := checkEnd.Before(blockEnd); {
			case c.overlap && !overlapped:
				t.Fatalf("the block (%v) ended before the CheckTx issued 100 ms into it (%v)", blockEnd.Sub(blockStart), during)
			case !c.overlap && overlapped:
				t.Fatal("CheckTx completed during the block under one global mutex: the test does not hold the block open")
			}
			if _, err := consensus.Commit(ctx, &abci.RequestCommit{}); err != nil {
				t.Fatal(err)
			}
		})
	}
}
