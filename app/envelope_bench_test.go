package app_test

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/binary"
	"path/filepath"
	"testing"
	"time"

	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/cometbft/cometbft/libs/log"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/app"
	"github.com/relchain/relchain/backend/sqlite"
	"github.com/relchain/relchain/txn"
)

// BenchmarkCheckAndFinalize measures the CPU a node spends per tx on the
// path every tx takes: CheckTx (Executor.Check), then FinalizeBlock and
// Commit of blocks of 64 txs, each one small INSERT, on a real SQLite
// file. "seen" is the usual case, the node admitted every tx in CheckTx
// before the block; "unseen" is a block of txs the node never saw (a
// byzantine proposer's, or txs gossip had not brought yet);
// "seen-uncached" is "seen" with the executor's envelope cache dropped
// (every envelope decoded and verified in CheckTx and again in the block).
// Signing is
// not measured. CPU time is the process's user+system time
// (getrusage), steadier than wall time on a shared machine.
//
//	go test ./app -run '^$' -bench CheckAndFinalize -benchtime 100x -count 3
func BenchmarkCheckAndFinalize(b *testing.B) {
	b.Run("seen", func(b *testing.B) { benchCheckAndFinalize(b, true, true) })
	b.Run("unseen", func(b *testing.B) { benchCheckAndFinalize(b, false, true) })
	b.Run("seen-uncached", func(b *testing.B) { benchCheckAndFinalize(b, true, false) })
}

func benchCheckAndFinalize(b *testing.B, seen, cache bool) {
	const txsPerBlock, clients = 64, 4
	ctx := context.Background()
	be, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "relchain.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer be.Close()
	ex, err := app.NewExecutor(ctx, be, benchChainID, benchParams())
	if err != nil {
		b.Fatal(err)
	}
	if !cache {
		ex.DropEnvelopeCache()
	}
	keys := make([]ed25519.PrivateKey, clients)
	nonces := make([]uint64, clients)
	for i := range keys {
		seed := sha256.Sum256([]byte{'k', byte(i)})
		keys[i] = ed25519.NewKeyFromSeed(seed[:])
	}
	sign := func(c int, stmts ...txn.Statement) []byte {
		nonces[c]++
		tx := &txn.Tx{ChainID: benchChainID, Nonce: nonces[c], Statements: stmts}
		tx.Sign(keys[c])
		return txn.Encode(tx)
	}
	height := ex.State().Height
	run := func(raws [][]byte) []app.TxResult {
		height++
		var hb [8]byte
		binary.BigEndian.PutUint64(hb[:], uint64(height))
		hash := sha256.Sum256(hb[:])
		info := app.BlockInfo{Height: height, Time: time.Unix(1_700_000_000+height, 0).UTC(), Hash: hash[:]}
		results, _, err := ex.FinalizeBlock(ctx, info, raws)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := ex.Commit(ctx); err != nil {
			b.Fatal(err)
		}
		return results
	}
	if r := run([][]byte{sign(0, txn.Statement{SQL: "CREATE TABLE kv (k BIGINT PRIMARY KEY, v TEXT NOT NULL)"})}); r[0].Code != api.CodeOK {
		b.Fatalf("create table: %s", r[0].Log)
	}
	next := int64(0)
	var check, finalize time.Duration
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		raws := make([][]byte, txsPerBlock)
		for i := range raws {
			next++
			raws[i] = sign(i%clients, txn.Statement{SQL: "INSERT INTO kv (k, v) VALUES (?1, ?2)", Args: []txn.Arg{txn.Int(next), txn.Text("value")}})
		}
		b.StartTimer()
		c0 := cpuTime()
		if seen {
			for _, raw := range raws {
				if _, rej := ex.Check(ctx, raw); rej != nil {
					b.Fatalf("check: %v", rej)
				}
			}
		}
		c1 := cpuTime()
		results := run(raws)
		check += c1 - c0
		finalize += cpuTime() - c1
		for i, r := range results {
			if r.Code != api.CodeOK {
				b.Fatalf("block %d tx %d: code %d: %s", height, i, r.Code, r.Log)
			}
		}
	}
	n := float64(b.N * txsPerBlock)
	b.ReportMetric(float64(check.Microseconds())/n, "check-cpu-us/tx")
	b.ReportMetric(float64(finalize.Microseconds())/n, "finalize-cpu-us/tx")
	b.ReportMetric(float64((check+finalize).Microseconds())/n, "cpu-us/tx")
}

// BenchmarkRecheck measures CheckTx's recheck of a tx still in the
// mempool, which CometBFT asks for every mempool tx after every block: it
// only re-checks the replay window and the sender's grants, on the
// decoded envelope.
//
//	go test ./app -run '^$' -bench Recheck -count 3
func BenchmarkRecheck(b *testing.B) {
	ctx := context.Background()
	be, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "relchain.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer be.Close()
	ex, err := app.NewExecutor(ctx, be, benchChainID, benchParams())
	if err != nil {
		b.Fatal(err)
	}
	a := app.New(ex, log.NewNopLogger())
	seed := sha256.Sum256([]byte("recheck"))
	key := ed25519.NewKeyFromSeed(seed[:])
	raws := make([][]byte, 64)
	for i := range raws {
		tx := &txn.Tx{ChainID: benchChainID, Nonce: uint64(i + 1), Statements: []txn.Statement{{SQL: "SELECT ?1, ?2", Args: []txn.Arg{txn.Int(int64(i)), txn.Text("value")}}}}
		tx.Sign(key)
		raws[i] = txn.Encode(tx)
		if r, err := a.CheckTx(ctx, &abci.RequestCheckTx{Tx: raws[i]}); err != nil || r.Code != api.CodeOK {
			b.Fatalf("check tx %d: %v %v", i, err, r)
		}
	}
	b.ResetTimer()
	c0 := cpuTime()
	for i := 0; b.Loop(); i++ {
		r, err := a.CheckTx(ctx, &abci.RequestCheckTx{Tx: raws[i%len(raws)], Type: abci.CheckTxType_Recheck})
		if err != nil || r.Code != api.CodeOK {
			b.Fatalf("recheck: %v %v", err, r)
		}
	}
	b.ReportMetric(float64((cpuTime()-c0).Nanoseconds())/float64(b.N), "cpu-ns/op")
}
