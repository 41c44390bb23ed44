package app_test

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/app"
	"github.com/relchain/relchain/protocol"
	"github.com/relchain/relchain/txn"
)

// A network speaking PostgreSQL's SQL upgraded to version 5: DDL that
// leaves a new table without canonical form fails, naming it, while a
// table left out under version 4 does not fail other DDL and can be given
// a key; rows without ORDER BY come in canonical order; the database
// alone gives the AppHash again (canonical inputs, sequences included),
// and so does a restart.
func TestCanonicalVersionOnPostgresSQL(t *testing.T) {
	for _, s := range authStores() {
		t.Run(s.dialect, func(t *testing.T) {
			p := authParams(s, protocol.V4)
			f := adminFixture(t, s, p)
			f.dialect = "postgres"
			mustOK(t, f, f.tx(stmt("CREATE TABLE loose (a integer NOT NULL)"), stmt("CREATE TABLE loose2 (a integer)")),
				f.tx(stmt("CREATE TABLE item (id serial PRIMARY KEY, v text NOT NULL)")))
			upgradeTo(t, f, protocol.V5)
			res, _ := f.block(f.tx(stmt("CREATE TABLE bad (a integer)")))
			if res[0].Code != api.CodeExecFailed || !strings.Contains(res[0].Log, "table bad has no primary key") {
				t.Fatalf("a new table without a primary key at version 5: %d %s", res[0].Code, res[0].Log)
			}
			mustOK(t, f, f.tx(stmt("CREATE TABLE good (id integer PRIMARY KEY)")),
				f.tx(stmt("ALTER TABLE loose ADD PRIMARY KEY (a)")))
			res, _ = f.block(f.tx(stmt("INSERT INTO item (v) VALUES ('b'), ('a'), ('c')")),
				f.tx(stmt("SELECT v, id FROM item WHERE id > $1", txn.Int(0))))
			rows := decodeRows(t, res[1])
			if got := fmt.Sprint(rows); got != "[[a 2] [b 1] [c 3]]" {
				t.Fatalf("rows without ORDER BY at version 5: %s, want canonical order [[a 2] [b 1] [c 3]]", got)
			}
			if _, err := app.VerifyState(context.Background(), f.be); err != nil {
				t.Fatalf("verify at version 5: %v", err)
			}
			want := f.ex.State()
			f.restart(t, s, p)
			if err := f.ex.StartCheck(); err != nil || string(f.ex.State().AppHash) != string(want.AppHash) {
				t.Fatalf("restart at version 5: %v, AppHash %X, want %X", err, f.ex.State().AppHash, want.AppHash)
			}
			mustOK(t, f, f.tx(stmt("INSERT INTO item (v) VALUES ('d')")))
		})
	}
}

// A network in SQLite's own SQL cannot run version 5: this release's
// CheckTx refuses the upgrade, naming why; scheduled by a block anyway
// (a node of an older release admitted it), the chain keeps version 4's
// rules at version 5, the same on every node.
func TestCanonicalVersionNeedsPostgresSQL(t *testing.T) {
	s := storeNamed(t, "sqlite")
	p := app.DefaultParams()
	p.ProtocolVersion = protocol.V4
	f := adminFixture(t, s, p)
	h := f.ex.State().Height + 1 + protocol.MinUpgradeDelay
	_, rej := f.ex.Check(context.Background(), f.tx(stmt(protocol.UpgradeStatement, txn.Int(int64(protocol.V5)), txn.Int(h))))
	if rej == nil || !strings.Contains(rej.Reason, "needs a network speaking PostgreSQL's SQL") {
		t.Fatalf("CheckTx of an upgrade to 5 on a SQLite-dialect network: %+v", rej)
	}
	upgradeTo(t, f, protocol.V5)
	mustOK(t, f, f.tx(stmt("CREATE TABLE loose (a INTEGER)")))
	if _, err := app.VerifyState(context.Background(), f.be); err != nil {
		t.Fatalf("verify: %v", err)
	}
}

// adminFixture is a fixture whose key is the network's admin.
func adminFixture(t *testing.T, s store, p app.Params) *fixture {
	_, admin, _ := ed25519.GenerateKey(nil)
	p.Admins = []string{hex.EncodeToString(admin.Public().(ed25519.PublicKey))}
	f := mustNewFixture(t, s, p)
	f.key = admin
	return f
}

// mustOK runs one block of txs and fails unless each succeeded.
func mustOK(t *testing.T, f *fixture, txs ...[]byte) {
	t.Helper()
	res, _ := f.block(txs...)
	for i, r := range res {
		if r.Code != api.CodeOK {
			t.Fatalf("tx %d: %d %s", i, r.Code, r.Log)
		}
	}
}

// decodeRows is the rows of a tx's only statement.
func decodeRows(t *testing.T, r app.TxResult) [][]any {
	t.Helper()
	var d api.ExecData
	if err := json.Unmarshal(r.Data, &d); err != nil || len(d.Results) != 1 {
		t.Fatalf("result data %s: %v", r.Data, err)
	}
	return d.Results[0].Rows
}
