package app_test

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/app"
	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/postgres"
	"github.com/relchain/relchain/backend/postgres/pgtest"
	"github.com/relchain/relchain/backend/sqlite"
	"github.com/relchain/relchain/txn"
)

// BenchmarkFinalizeUnseen measures the wall time of FinalizeBlock of a
// block of 256 txs this node never saw in CheckTx (each decoded and its
// signature verified in the block), each one small INSERT by one of 64
// keys, on a real SQLite file, with verification pools of 1 (one tx after
// the other on the block's goroutine) and 2 (verifyahead.go). Commit and
// signing are not timed.
//
//	go test ./app -run '^$' -bench FinalizeUnseen -benchtime 20x -count 5
func BenchmarkFinalizeUnseen(b *testing.B) {
	for _, pool := range []int{1, 2} {
		b.Run(fmt.Sprintf("pool=%d", pool), func(b *testing.B) {
			be, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "relchain.db"))
			if err != nil {
				b.Fatal(err)
			}
			benchFinalizeUnseen(b, be, pool, func(k int64) txn.Statement {
				return txn.Statement{SQL: "INSERT INTO kv (k, v) VALUES (?1, ?2)", Args: []txn.Arg{txn.Int(k), txn.Text("value")}}
			})
		})
	}
}

// BenchmarkFinalizeUnseenPostgres is BenchmarkFinalizeUnseen on
// PostgreSQL (RELCHAIN_TEST_PG) with the literals inlined, so that every
// tx brings a text the gate never judged (the pool also judges those
// ahead: backend.TextGate.Warm).
//
//	go test ./app -run '^$' -bench FinalizeUnseenPostgres -benchtime 20x -count 5
func BenchmarkFinalizeUnseenPostgres(b *testing.B) {
	for _, pool := range []int{1, 2} {
		b.Run(fmt.Sprintf("pool=%d", pool), func(b *testing.B) {
			be, err := postgres.Open(context.Background(), pgtest.DSN(b))
			if err != nil {
				b.Fatal(err)
			}
			benchFinalizeUnseen(b, be, pool, func(k int64) txn.Statement {
				return txn.Statement{SQL: fmt.Sprintf("INSERT INTO kv (k, v) VALUES (%d, 'value')", k)}
			})
		})
	}
}

func benchFinalizeUnseen(b *testing.B, be backend.Backend, pool int, insert func(k int64) txn.Statement) {
	const txsPerBlock, clients = 256, 64
	ctx := context.Background()
	defer be.Close()
	p := benchParams()
	p.Backend = be.Dialect()
	ex, err := app.NewExecutor(ctx, be, benchChainID, p, app.WithVerifyPool(pool))
	if err != nil {
		b.Fatal(err)
	}
	keys := make([]ed25519.PrivateKey, clients)
	nonces := make([]uint64, clients)
	for i := range keys {
		seed := sha256.Sum256([]byte{'u', byte(i)})
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
		b.StartTimer()
		results, _, err := ex.FinalizeBlock(ctx, info, raws)
		b.StopTimer()
		if err != nil {
			b.Fatal(err)
		}
		if _, err := ex.Commit(ctx); err != nil {
			b.Fatal(err)
		}
		return results
	}
	b.StopTimer()
	if r := run([][]byte{sign(0, txn.Statement{SQL: "CREATE TABLE kv (k BIGINT PRIMARY KEY, v TEXT NOT NULL)"})}); r[0].Code != api.CodeOK {
		b.Fatalf("create table: %s", r[0].Log)
	}
	next := int64(0)
	b.ResetTimer()
	b.StopTimer()
	for range b.N {
		raws := make([][]byte, txsPerBlock)
		for i := range raws {
			next++
			raws[i] = sign(i%clients, insert(next))
		}
		for i, r := range run(raws) {
			if r.Code != api.CodeOK {
				b.Fatalf("block %d tx %d: code %d: %s", height, i, r.Code, r.Log)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*txsPerBlock), "us/tx")
}
