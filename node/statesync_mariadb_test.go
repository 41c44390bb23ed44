package node

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/json"
	"testing"
	"time"

	abci "github.com/cometbft/cometbft/abci/types"

	"github.com/relchain/relchain/app"
	"github.com/relchain/relchain/backend/mysql/mysqltest"
	"github.com/relchain/relchain/backend/registry"
	"github.com/relchain/relchain/protocol"
	"github.com/relchain/relchain/txn"
)

// mariaDBParams are the parameters of a network over MariaDB, PostgreSQL
// and SQLite at protocol version 5.
func mariaDBParams(t *testing.T) app.Params {
	t.Helper()
	p := app.DefaultParams()
	p.SQLDialect = "postgres"
	p.Backend, p.Backends, p.ProtocolVersion = "", []string{"mysql", "postgres", "sqlite"}, protocol.V5
	var err error
	if p.SQLDialectVersion, p.SQLDialectVersions, err = registry.GenesisSQLDialectVersions(p.Backends, p.SQLDialect); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	parsed, err := app.ParseParams(b)
	if err != nil {
		t.Fatal(err)
	}
	return parsed
}

// A MariaDB validator of a network over MariaDB, PostgreSQL and SQLite
// exports its checkpoint as a SQLite database speaking PostgreSQL's SQL
// (snapshot format 2) through its dump in PostgreSQL's SQL (issue 37): a
// SQLite node and a PostgreSQL node both restore it, reproduce its
// AppHash, hold its rows and go on with its defaults and constraints.
func TestPortableSnapshotOfAMariaDBValidator(t *testing.T) {
	ctx := context.Background()
	params := mariaDBParams(t)
	w, r := mysqltest.Accounts(t)
	my := mixedJoiner(t, params, BackendConfig{Kind: "mysql", DSN: w, ReaderDSN: r}) // a MariaDB node, used here as the source
	runBlocks(t, my.ex, "c",
		"CREATE TABLE acct (id int8 PRIMARY KEY, bal numeric(12,2) NOT NULL CHECK (bal > -100), note text, ok bool DEFAULT true, seen timestamptz)",
		"CREATE INDEX acct_note ON acct (note)",
		`INSERT INTO acct (id, bal, note, seen) VALUES (1, 10.50, 'a\b', '2026-01-02 03:04:05+02'), (2, 20, NULL, NULL), (3, -30, 'c''d', NULL)`,
		"UPDATE acct SET bal = bal + 1 WHERE id = 2")
	want := my.ex.State()
	const query = "SELECT * FROM acct ORDER BY id"
	rows, _, err := my.ex.Backend().Query(ctx, query, nil)
	if err != nil {
		t.Fatal(err)
	}
	wantRows := jsonText(rows.Rows)
	d, s, err := my.rc.BackendSpec(my.home)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.CheckpointNow(ctx, s, CheckpointDir(my.home)); err != nil {
		t.Fatal(err)
	}
	if my.portable == nil {
		t.Fatal("a MariaDB validator of a mixed network serves no portable snapshots")
	}
	my.portable.refresh()
	my.portable.wg.Wait()
	if cps, err := my.portable.src.List(); err != nil || len(cps) != 1 || cps[0].Height != want.Height {
		t.Fatalf("portable checkpoints %v, %v; want one at height %d", cps, err, want.Height)
	}
	for _, joiner := range []*stateSync{sqliteJoiner(t, params), pgJoiner(t, params)} {
		kind := joiner.rc.Backend.Kind
		if res := offerFrom(t, joiner, my.portable.src, want.AppHash); res.Result != abci.ResponseApplySnapshotChunk_ACCEPT {
			t.Fatalf("%s node: portable snapshot: %v", kind, res)
		}
		if st := joiner.ex.State(); st.Height != want.Height || !bytes.Equal(st.AppHash, want.AppHash) {
			t.Fatalf("after state sync the %s node is at %d/%X, want %d/%X", kind, st.Height, st.AppHash, want.Height, want.AppHash)
		}
		rows, _, err := joiner.ex.Backend().Query(ctx, query, nil)
		if err != nil || jsonText(rows.Rows) != wantRows {
			t.Fatalf("%s node: restored rows %v, %v; want %s", kind, rows, err, wantRows)
		}
		runBlocks(t, joiner.ex, "c", "INSERT INTO acct (id, bal) VALUES (4, 40)")
		rows, _, err = joiner.ex.Backend().Query(ctx, "SELECT ok FROM acct WHERE id = 4", nil)
		if err != nil || jsonText(rows.Rows) != "[[true]]" {
			t.Fatalf("%s node: the default after state sync: %v, %v", kind, rows, err)
		}
		if code := failingBlock(t, joiner.ex, "INSERT INTO acct (id, bal) VALUES (5, -100)"); code == 0 {
			t.Fatalf("%s node: the CHECK is lost after state sync", kind)
		}
	}
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// failingBlock commits sql as one block's tx, which must fail, and returns
// its result code.
func failingBlock(t *testing.T, ex *app.Executor, sql string) uint32 {
	t.Helper()
	ctx := context.Background()
	_, key, _ := ed25519.GenerateKey(nil)
	tx := &txn.Tx{ChainID: "c", Nonce: 1, Statements: []txn.Statement{{SQL: sql}}}
	tx.Sign(key)
	h := ex.State().Height + 1
	res, _, err := ex.FinalizeBlock(ctx, app.BlockInfo{Height: h, Time: time.Unix(h, 0).UTC(), Hash: []byte{byte(h)}}, [][]byte{txn.Encode(tx)})
	if err != nil {
		t.Fatalf("block %d: %v", h, err)
	}
	if _, err := ex.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	return res[0].Code
}
