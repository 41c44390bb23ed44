package app_test

import (
	"context"
	"crypto/ed25519"
	"path/filepath"
	"strings"
	"testing"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/app"
	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/sqlite"
	"github.com/relchain/relchain/protocol"
	"github.com/relchain/relchain/txn"
)

// A PostgreSQL validator of a network over PostgreSQL and SQLite refuses
// to start without its shadow gate; with it, the gate's schema follows
// the chain's DDL (only the DDL of txs that committed) and is built again
// from the system state's DDL log when the node restarts, so a statement
// the translation refuses for the schema's sake (a column SQLite's
// translation cannot see) fails alike after the restart.
func TestShadowGateFollowsTheSchemaAcrossRestarts(t *testing.T) {
	s := storeNamed(t, "postgres")
	p := app.DefaultParams()
	p.Backend, p.Backends = "", []string{"postgres", "sqlite"}
	p.SQLDialect, p.SQLDialectVersion, p.ProtocolVersion = "postgres", 1, protocol.V5
	be := s.open(t)
	t.Cleanup(func() { be.Close() })
	if _, err := app.NewExecutor(context.Background(), be, chainID, p); err == nil || !strings.Contains(err.Error(), "needs the shadow gate") {
		t.Fatalf("a PostgreSQL validator of a mixed network without its shadow gate: %v", err)
	}
	opens := 0
	shadow := app.WithShadow(func(ctx context.Context) (backend.Backend, error) {
		opens++
		return sqlite.Open(ctx, filepath.Join(t.TempDir(), "shadow.db"), sqlite.WithPostgresDialect())
	})
	ex, err := app.NewExecutor(context.Background(), be, chainID, p, shadow)
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{t: t, dialect: "postgres", be: be, ex: ex, key: adminFixture(t, storeNamed(t, "sqlite"), app.DefaultParams()).key}
	mustOK(t, f, f.tx(stmt("CREATE TABLE acct (id integer PRIMARY KEY, bal bigint NOT NULL)")))
	// What SQLite's translation refuses is refused at CheckTx on a
	// PostgreSQL validator too, by its shadow gate, naming SQLite.
	if _, rej := ex.Check(context.Background(), f.tx(stmt("CREATE VIEW v AS SELECT id FROM acct"))); rej == nil || rej.Code != api.CodeForbidden || !strings.Contains(rej.Reason, "on SQLite does not support") {
		t.Fatalf("CREATE VIEW at CheckTx on a PostgreSQL validator: %+v; want SQLite's refusal, code %d", rej, api.CodeForbidden)
	}
	// A tx whose DDL ran but which failed leaves no trace in the gate.
	res, _ := f.block(f.tx(stmt("CREATE TABLE gone (id integer PRIMARY KEY)"), stmt("INSERT INTO nowhere VALUES (1)")))
	if res[0].Code == api.CodeOK {
		t.Fatal("a tx inserting into a missing table succeeded")
	}
	refused := func(when string) {
		t.Helper()
		res, _ := f.block(f.tx(stmt("INSERT INTO acct (id, bal) VALUES (1, 1) RETURNING (SELECT max(bal) FROM acct)")),
			f.tx(stmt("CREATE VIEW v AS SELECT id FROM acct")),
			f.tx(stmt("INSERT INTO gone (id) VALUES ($1)", txn.Int(1))))
		for i, r := range res {
			if r.Code == api.CodeOK {
				t.Fatalf("%s: tx %d succeeded on PostgreSQL, which SQLite's translation refuses", when, i)
			}
		}
		mustOK(t, f, f.tx(stmt("INSERT INTO acct (id, bal) VALUES ($1, 5) ON CONFLICT (id) DO UPDATE SET bal = acct.bal + 1", txn.Int(2))))
	}
	refused("before the restart")
	rehearsalRefuses(t, f)
	_ = f.ex.Close(context.Background())
	if f.ex, err = app.NewExecutor(context.Background(), be, chainID, p, shadow); err != nil {
		t.Fatal(err)
	}
	refused("after the restart")
	// Had the failed tx's CREATE TABLE stayed in the gate, its shadow
	// would refuse this one as a duplicate.
	mustOK(t, f, f.tx(stmt("CREATE TABLE gone (id integer PRIMARY KEY)")))
	if opens != 2 {
		t.Fatalf("the shadow was opened %d times, want once per executor", opens)
	}
}

// rehearsalRefuses checks that a rehearsal (the gateway's interactive
// transaction) on a PostgreSQL validator with a shadow gate refuses, at
// the statement, what the block would refuse (a view; a subquery in
// RETURNING), and that nothing of it stays in the shadow: a table a
// rehearsal creates is not known to the next block's gate.
func rehearsalRefuses(t *testing.T, f *fixture) {
	t.Helper()
	ctx := context.Background()
	sender := f.key.Public().(ed25519.PublicKey)
	for _, sql := range []string{"CREATE VIEW v AS SELECT id FROM acct", "INSERT INTO acct (id, bal) VALUES (9, 1) RETURNING (SELECT max(bal) FROM acct)"} {
		r, err := f.ex.Rehearse(ctx, sender, []txn.Statement{stmt(sql)})
		if err != nil || r.Code == api.CodeOK {
			t.Fatalf("rehearsal of %q: code %d %v, want the shadow's refusal (%s)", sql, r.Code, err, r.Log)
		}
	}
	r, err := f.ex.Rehearse(ctx, sender, []txn.Statement{stmt("CREATE TABLE rehearsed (id integer PRIMARY KEY)"), stmt("INSERT INTO rehearsed (id) VALUES (1)")})
	if err != nil || r.Code != api.CodeOK {
		t.Fatalf("rehearsal of a new table: code %d %v (%s)", r.Code, err, r.Log)
	}
	mustOK(t, f, f.tx(stmt("CREATE TABLE rehearsed (id integer PRIMARY KEY)")))
}
