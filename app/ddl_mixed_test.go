package app_test

import (
	"context"
	"crypto/ed25519"
	"path/filepath"
	"strings"
	"testing"

	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/cometbft/cometbft/libs/log"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/app"
	"github.com/relchain/relchain/backend/sqlite"
	"github.com/relchain/relchain/protocol"
	"github.com/relchain/relchain/txn"
)

// MySQL's DDL rule (a bc-transaction with DDL is one statement, alone in
// its block) binds every validator of a network one of whose engines is
// MySQL, not only the MySQL ones: a SQLite validator that ran a DDL tx
// beside others would apply what the MySQL validator fails. CheckTx
// refuses the tx with more statements, PrepareProposal puts it alone, and
// FinalizeBlock fails it in a block with other txs; a network over
// PostgreSQL and SQLite alone keeps transactional DDL.
func TestDDLAloneBindsEveryValidatorOfANetworkWithMySQL(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		engines []string
		alone   bool
	}{
		{[]string{"mysql", "sqlite"}, true},
		{[]string{"postgres", "sqlite"}, false},
	} {
		t.Run(strings.Join(c.engines, "+"), func(t *testing.T) {
			be, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "relchain.db"), sqlite.WithPostgresDialect())
			if err != nil {
				t.Fatal(err)
			}
			defer be.Close()
			p := app.DefaultParams()
			p.Backend, p.Backends = "", c.engines
			p.SQLDialect, p.SQLDialectVersion, p.ProtocolVersion = "postgres", 1, protocol.V5
			ex, err := app.NewExecutor(ctx, be, chainID, p)
			if err != nil {
				t.Fatal(err)
			}
			tx := txMaker()
			_, rej := ex.Check(ctx, tx("CREATE TABLE a (id bigint PRIMARY KEY)", "INSERT INTO a (id) VALUES (1)"))
			if refused := rej != nil && rej.Code == api.CodeForbidden && strings.Contains(rej.Reason, "alone in its block"); refused != c.alone {
				t.Fatalf("CheckTx of DDL with another statement: %v; want refused: %v", rej, c.alone)
			}
			dml, ddl := tx("SELECT 1"), tx("CREATE TABLE b (id bigint PRIMARY KEY)")
			prop, err := app.New(ex, log.NewNopLogger()).PrepareProposal(ctx, &abci.RequestPrepareProposal{Txs: [][]byte{dml, ddl}, MaxTxBytes: 1 << 20})
			if err != nil {
				t.Fatal(err)
			}
			if want := map[bool]int{true: 1, false: 2}[c.alone]; len(prop.Txs) != want {
				t.Fatalf("proposal of a query then DDL: %d txs, want %d", len(prop.Txs), want)
			}
			res, _, err := ex.FinalizeBlock(ctx, blockInfo(1), [][]byte{ddl, dml})
			if err != nil {
				t.Fatal(err)
			}
			if failed := res[0].Code == api.CodeExecFailed && strings.Contains(res[0].Log, "alone in its block"); failed != c.alone || res[1].Code != api.CodeOK {
				t.Fatalf("a DDL tx beside another in a block: results %+v; want the DDL tx failed: %v, the other applied", res, c.alone)
			}
		})
	}
}

// txMaker returns a function that encodes a tx of its statements, signed
// by one new key, with the next nonce.
func txMaker() func(sqls ...string) []byte {
	_, key, _ := ed25519.GenerateKey(nil)
	var nonce uint64
	return func(sqls ...string) []byte {
		nonce++
		t := &txn.Tx{ChainID: chainID, Nonce: nonce}
		for _, s := range sqls {
			t.Statements = append(t.Statements, txn.Statement{SQL: s})
		}
		t.Sign(key)
		return txn.Encode(t)
	}
}
