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
	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/registry"
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
			ex := mixedExecutor(t, be, c.engines...)
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

// mixedExecutor is the executor of a validator on be of a network over
// engines speaking PostgreSQL's SQL at protocol version 5, with the
// translator versions a new genesis writes and the schema judges its
// validators need (a network with SQLite needs no shadow on be: SQLite).
func mixedExecutor(t *testing.T, be backend.Backend, engines ...string) *app.Executor {
	t.Helper()
	p := app.DefaultParams()
	p.Backend, p.Backends = "", engines
	p.SQLDialect, p.ProtocolVersion = "postgres", protocol.V5
	var err error
	if p.SQLDialectVersion, p.SQLDialectVersions, err = registry.GenesisSQLDialectVersions(engines, "postgres"); err != nil {
		t.Fatal(err)
	}
	ex, err := app.NewExecutor(context.Background(), be, chainID, p, app.WithSchemaJudges(registry.SchemaJudges(engines)))
	if err != nil {
		t.Fatal(err)
	}
	return ex
}

// On a network with MariaDB validators, every validator judges a
// statement by MariaDB's translation too (its schema judge, on the
// network's committed DDL): what MariaDB's translation refuses fails on a
// SQLite validator with MariaDB's verdict, DDL MariaDB cannot create
// included; a table created by a committed block is known to the judge
// at once and after a restart (the DDL log replayed).
func TestSchemaJudgeRefusesWhatMariaDBCannotRun(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "relchain.db")
	open := func() (backend.Backend, *app.Executor) {
		be, err := sqlite.Open(ctx, path, sqlite.WithPostgresDialect())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { be.Close() })
		return be, mixedExecutor(t, be, "mysql", "postgres", "sqlite")
	}
	_, ex := open()
	tx := txMaker()
	height := int64(0)
	run := func(ex *app.Executor, sqls ...string) app.TxResult {
		t.Helper()
		height++
		res, _, err := ex.FinalizeBlock(ctx, blockInfo(height), [][]byte{tx(sqls...)})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ex.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		return res[0]
	}
	refusedByMariaDB := func(r app.TxResult, what string) {
		t.Helper()
		if r.Code != api.CodeExecFailed || !strings.Contains(r.Log, "MariaDB") || !strings.Contains(string(r.Data), `"0A000"`) {
			t.Fatalf("%s: code %d data %s (%s); want MariaDB's refusal, 0A000", what, r.Code, r.Data, r.Log)
		}
	}
	refusedByMariaDB(run(ex, "CREATE TABLE r (id int8 PRIMARY KEY, p int8 REFERENCES r (id))"), "a foreign key")
	if r := run(ex, "CREATE TABLE a (id int8 PRIMARY KEY, v text)"); r.Code != api.CodeOK {
		t.Fatalf("CREATE TABLE a: %d %s", r.Code, r.Log)
	}
	if r := run(ex, "INSERT INTO a (id, v) VALUES (1, 'x')"); r.Code != api.CodeOK {
		t.Fatalf("an INSERT into the table the last block created: %d %s", r.Code, r.Log)
	}
	refusedByMariaDB(run(ex, "INSERT INTO a (id, v) VALUES (1, 'y') ON CONFLICT (id) DO NOTHING"), "ON CONFLICT")
	if err := ex.Close(ctx); err != nil {
		t.Fatal(err)
	}
	_, ex = open()
	if r := run(ex, "UPDATE a SET v = 'z' WHERE id = 1"); r.Code != api.CodeOK {
		t.Fatalf("after a restart, an UPDATE of a table an earlier block created: %d %s", r.Code, r.Log)
	}
	refusedByMariaDB(run(ex, "SELECT id FROM a UNION SELECT 2"), "UNION after a restart")
}

// What a translation refuses on the committed schema is refused at
// CheckTx (code 7), with the translation's message naming its engine, on
// every validator: its own gate's translation (SQLite), a schema judge's
// (MariaDB). A statement whose verdict depends on the block (a table not
// there yet) is admitted: the block decides.
func TestTranslationRefusalsAreRefusedAtCheckTx(t *testing.T) {
	ctx := context.Background()
	be, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "relchain.db"), sqlite.WithPostgresDialect())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { be.Close() })
	ex := mixedExecutor(t, be, "mysql", "postgres", "sqlite")
	tx := txMaker()
	if res, _, err := ex.FinalizeBlock(ctx, blockInfo(1), [][]byte{tx("CREATE TABLE a (id int8 PRIMARY KEY, v text)")}); err != nil || res[0].Code != api.CodeOK {
		t.Fatalf("CREATE TABLE a: %v %+v", err, res)
	}
	if _, err := ex.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ sql, engine string }{
		{"INSERT INTO a (id, v) VALUES (1, 'y') ON CONFLICT (id) DO NOTHING", "MariaDB"},
		{"CREATE TABLE r (id int8 PRIMARY KEY, p int8 REFERENCES r (id))", "MariaDB"},
		{"CREATE VIEW w AS SELECT id FROM a", "SQLite"},
	} {
		_, rej := ex.Check(ctx, tx(c.sql))
		if rej == nil || rej.Code != api.CodeForbidden || !strings.Contains(rej.Reason, "on "+c.engine+" does not support") {
			t.Errorf("%s: rejection %+v; want code %d naming %s", c.sql, rej, api.CodeForbidden, c.engine)
		}
	}
	for _, sql := range []string{"INSERT INTO a (id, v) VALUES (2, 'z')", "INSERT INTO later (id) VALUES (1)"} {
		if _, rej := ex.Check(ctx, tx(sql)); rej != nil {
			t.Errorf("%s: rejected at CheckTx: %+v", sql, rej)
		}
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
