package app_test

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/app"
	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/sqlite"
	"github.com/relchain/relchain/txn"
)

// A postgres-dialect network on SQLite checks DEFERRABLE INITIALLY
// DEFERRED foreign keys at the end of each tx: a tx that inserts the child
// before its parent commits; one that leaves a child without its parent
// fails as a whole (23503, no statement to blame) and leaves nothing, and
// the tx after it in the same block commits. A rehearsal runs a
// transaction so far (the gateway rehearses each statement with the ones
// before it): it does not fail on the violation COMMIT would find.
func TestPostgresDialectDeferredKeyFailsItsTxAtTheEnd(t *testing.T) {
	ctx := context.Background()
	p := app.DefaultParams()
	p.SQLDialect, p.SQLDialectVersion = "postgres", 1
	f := mustNewFixture(t, store{dialect: "sqlite", open: func(t *testing.T) backend.Backend {
		b, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "relchain.db"), sqlite.WithPostgresDialect())
		if err != nil {
			t.Fatal(err)
		}
		return b
	}}, p)
	f.dialect = "postgres"
	res, _ := f.block(f.tx(stmt("CREATE TABLE p (id int4 PRIMARY KEY)"),
		stmt("CREATE TABLE c (id int4 PRIMARY KEY, p int4 REFERENCES p (id) DEFERRABLE INITIALLY DEFERRED)")))
	if res[0].Code != api.CodeOK {
		t.Fatalf("schema: %d %s", res[0].Code, res[0].Log)
	}
	orphan := stmt("INSERT INTO c VALUES (1, 1)")
	r, err := f.ex.Rehearse(ctx, f.key.Public().(ed25519.PublicKey), []txn.Statement{orphan})
	if err != nil || r.Code != api.CodeOK {
		t.Fatalf("rehearsal of a transaction so far: %v, code %d %s", err, r.Code, r.Log)
	}
	res, _ = f.block(
		f.tx(orphan),
		f.tx(stmt("INSERT INTO c VALUES (2, 2)"), stmt("INSERT INTO p VALUES (2)")),
	)
	if res[0].Code != api.CodeExecFailed || res[1].Code != api.CodeOK {
		t.Fatalf("codes %v (%s), want the orphan's tx failed and the next committed", codes(res), res[0].Log)
	}
	var fd api.FailureData
	if err := json.Unmarshal(res[0].Data, &fd); err != nil || fd.SQLState != "23503" || fd.Statement != 0 {
		t.Errorf("failure %+v (%v), want 23503 of the tx as a whole", fd, err)
	}
	if got := f.ids("c"); len(got) != 1 || got[0] != 2 {
		t.Errorf("rows of c %v, want [2]", got)
	}
}
