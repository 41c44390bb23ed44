package app_test

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
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

// BenchmarkCheckTx measures CheckTx (Executor.Check) per one-statement
// tx on SQLite and PostgreSQL: "repeated", the same statement text every
// time (the gate's verdict cached, the usual case), and "distinct", a text
// never seen before (a trailing comment differs: the pre-scan, the parse
// and the gate run). Signing is not measured.
//
//	go test ./app -run '^$' -bench CheckTx -benchtime 2000x -count 5
func BenchmarkCheckTx(b *testing.B) {
	for _, db := range []string{"sqlite", "postgres"} {
		for _, distinct := range []bool{false, true} {
			name := db + "/repeated"
			if distinct {
				name = db + "/distinct"
			}
			b.Run(name, func(b *testing.B) { benchCheckTx(b, db, distinct) })
		}
	}
}

func benchCheckTx(b *testing.B, db string, distinct bool) {
	ctx := context.Background()
	var be backend.Backend
	var err error
	sql := "INSERT INTO kv (k, v) VALUES (?1, ?2)"
	if db == "sqlite" {
		be, err = sqlite.Open(ctx, filepath.Join(b.TempDir(), "relchain.db"))
	} else {
		be, err = postgres.Open(ctx, pgtest.DSN(b))
		sql = "INSERT INTO kv (k, v) VALUES ($1, $2)"
	}
	if err != nil {
		b.Fatal(err)
	}
	defer be.Close()
	p := benchParams()
	p.Backend = db
	ex, err := app.NewExecutor(ctx, be, benchChainID, p)
	if err != nil {
		b.Fatal(err)
	}
	seed := sha256.Sum256([]byte("checktx"))
	key := ed25519.NewKeyFromSeed(seed[:])
	nonce := uint64(0)
	sign := func(stmts ...txn.Statement) []byte {
		nonce++
		tx := &txn.Tx{ChainID: benchChainID, Nonce: nonce, Statements: stmts}
		tx.Sign(key)
		return txn.Encode(tx)
	}
	info := app.BlockInfo{Height: ex.State().Height + 1, Time: time.Unix(1_700_000_000, 0).UTC(), Hash: seed[:]}
	res, _, err := ex.FinalizeBlock(ctx, info, [][]byte{sign(txn.Statement{SQL: "CREATE TABLE kv (k BIGINT PRIMARY KEY, v TEXT NOT NULL)"})})
	if err != nil || res[0].Code != api.CodeOK {
		b.Fatalf("create table: %v %+v", err, res)
	}
	if _, err := ex.Commit(ctx); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		text := sql
		if distinct {
			text = fmt.Sprintf("%s -- %d", sql, i)
		}
		raw := sign(txn.Statement{SQL: text, Args: []txn.Arg{txn.Int(int64(i)), txn.Text("value")}})
		b.StartTimer()
		if _, rej := ex.Check(ctx, raw); rej != nil {
			b.Fatalf("check: %v", rej)
		}
	}
}
