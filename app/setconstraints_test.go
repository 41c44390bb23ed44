package app_test

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/app"
	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/sqlite"
	"github.com/relchain/relchain/protocol"
	"github.com/relchain/relchain/txn"
)

// postgresDialectStores are the stores that speak PostgreSQL's SQL:
// PostgreSQL itself and SQLite in the postgres dialect.
func postgresDialectStores(t *testing.T) map[string]store {
	return map[string]store{
		"postgres": storeNamed(t, "postgres"),
		"sqlite": {dialect: "sqlite", open: func(t *testing.T) backend.Backend {
			b, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "relchain.db"), sqlite.WithPostgresDialect())
			if err != nil {
				t.Fatal(err)
			}
			return b
		}},
	}
}

// Deferred foreign keys are checked at the end of each tx, as PostgreSQL
// checks them at COMMIT, on PostgreSQL storage as on SQLite storage, and a
// tx may change the mode with SET CONSTRAINTS (Django writes `SET
// CONSTRAINTS "name" IMMEDIATE` after adding a foreign key, and `ALL
// IMMEDIATE` when it checks loaded fixtures). The expected outcomes are
// PostgreSQL's for the same transactions. On PostgreSQL storage this is
// protocol version 3's rule; a block of version 1 or 2 keeps the rule it
// had (checks per statement, SET CONSTRAINTS refused with the words it
// had), so that replays reproduce old chains.
func TestDeferredKeysAndSetConstraintsPerTx(t *testing.T) {
	for name, s := range postgresDialectStores(t) {
		t.Run(name, func(t *testing.T) {
			_, admin, _ := ed25519.GenerateKey(nil)
			p := app.DefaultParams()
			p.SQLDialect, p.SQLDialectVersion = "postgres", 1
			p.Admins = []string{hex.EncodeToString(admin.Public().(ed25519.PublicKey))}
			f := mustNewFixture(t, s, p)
			f.dialect, f.key = "postgres", admin
			res, _ := f.block(f.tx(stmt("CREATE TABLE p (id int4 PRIMARY KEY)"),
				stmt("CREATE TABLE c (id int4 PRIMARY KEY, p int4 REFERENCES p (id) DEFERRABLE INITIALLY DEFERRED)"),
				stmt("CREATE TABLE d (id int4 PRIMARY KEY)")))
			if res[0].Code != api.CodeOK {
				t.Fatalf("schema: %d %s", res[0].Code, res[0].Log)
			}
			if name == "postgres" {
				requireLegacyDeferredRules(t, f)
			}
			upgradeTo(t, f, protocol.V3)
			res, _ = f.block(
				// Child before parent: checked at the end, committed.
				f.tx(stmt("INSERT INTO c VALUES (1, 1)"), stmt("INSERT INTO p VALUES (1)")),
				// An orphan: the tx fails as a whole.
				f.tx(stmt("INSERT INTO c VALUES (2, 2)")),
				// The key is deferred again in the next tx of the block.
				f.tx(stmt("INSERT INTO c VALUES (3, 3)"), stmt("INSERT INTO p VALUES (3)")),
				// ALL IMMEDIATE checks at once: the orphan's statement fails.
				f.tx(stmt("SET CONSTRAINTS ALL IMMEDIATE"), stmt("INSERT INTO c VALUES (4, 4)"), stmt("INSERT INTO p VALUES (4)")),
				// A pending violation made IMMEDIATE fails that statement.
				f.tx(stmt("INSERT INTO c VALUES (5, 5)"), stmt("SET CONSTRAINTS ALL IMMEDIATE")),
				// Django's AddField of a foreign key.
				f.tx(stmt(`ALTER TABLE "d" ADD COLUMN "p_id" int4 NULL CONSTRAINT "d_p_id_fk" REFERENCES "p" ("id") DEFERRABLE INITIALLY DEFERRED`),
					stmt(`SET CONSTRAINTS "d_p_id_fk" IMMEDIATE`), stmt(`INSERT INTO d VALUES (1, 1)`)),
				// The new key is deferred in the txs after it.
				f.tx(stmt("INSERT INTO d VALUES (6, 6)"), stmt("INSERT INTO p VALUES (6)")),
			)
			want := []uint32{api.CodeOK, api.CodeExecFailed, api.CodeOK, api.CodeExecFailed, api.CodeExecFailed, api.CodeOK, api.CodeOK}
			for i, r := range res {
				if r.Code != want[i] {
					t.Errorf("tx %d: code %d (%s), want %d", i+1, r.Code, r.Log, want[i])
				}
			}
			wantFailure := map[int]int{1: 0, 3: 2, 4: 2} // tx index: the statement to blame (0: the tx as a whole)
			for i, stmtNo := range wantFailure {
				var fd api.FailureData
				if err := json.Unmarshal(res[i].Data, &fd); err != nil || fd.SQLState != "23503" || fd.Statement != stmtNo {
					t.Errorf("tx %d: failure %+v (%v), want 23503 of statement %d", i+1, fd, err, stmtNo)
				}
			}
			if got := f.ids("c"); !slices.Equal(got, []int64{1, 3}) {
				t.Errorf("rows of c %v, want [1 3]", got)
			}
			if got := f.ids("d"); !slices.Equal(got, []int64{1, 6}) {
				t.Errorf("rows of d %v, want [1 6]", got)
			}
		})
	}
}

// requireLegacyDeferredRules: under protocol version 1, PostgreSQL
// storage checks a deferred key per statement and refuses SET CONSTRAINTS
// as a session setting, in the words it always had.
func requireLegacyDeferredRules(t *testing.T, f *fixture) {
	t.Helper()
	res, _ := f.block(
		f.tx(stmt("INSERT INTO c VALUES (101, 101)"), stmt("INSERT INTO p VALUES (101)")),
		f.tx(stmt("SET CONSTRAINTS ALL DEFERRED")))
	var fd api.FailureData
	if err := json.Unmarshal(res[0].Data, &fd); res[0].Code != api.CodeExecFailed || err != nil || fd.Statement != 1 || fd.SQLState != "23503" {
		t.Errorf("version 1, child before parent: code %d %+v, want statement 1 failed with 23503", res[0].Code, fd)
	}
	if res[1].Code != api.CodeForbidden || !strings.Contains(res[1].Log, "session settings (SET, RESET, SHOW, DISCARD, ALTER SYSTEM) are not allowed: relchain pins the session") {
		t.Errorf("version 1, SET CONSTRAINTS: code %d %s, want the gate's old refusal", res[1].Code, res[1].Log)
	}
	if got := f.ids("c"); len(got) != 0 {
		t.Errorf("version 1: rows of c %v, want none", got)
	}
}

// upgradeTo schedules protocol version v (f.key is an admin) and runs
// empty blocks until the chain runs it.
func upgradeTo(t *testing.T, f *fixture, v uint64) {
	t.Helper()
	h := f.ex.State().Height + 1 + protocol.MinUpgradeDelay
	res, _ := f.block(f.tx(stmt(protocol.UpgradeStatement, txn.Int(int64(v)), txn.Int(h))))
	if res[0].Code != api.CodeOK {
		t.Fatalf("upgrade to %d at %d: %d %s", v, h, res[0].Code, res[0].Log)
	}
	for f.ex.State().Height < h {
		f.block()
	}
	if got := f.ex.Protocol().Version; got != v {
		t.Fatalf("protocol version %d after the upgrade height, want %d", got, v)
	}
}

// storeNamed is stores' store of the named backend.
func storeNamed(t *testing.T, dialect string) store {
	for _, s := range stores(t) {
		if s.dialect == dialect {
			return s
		}
	}
	t.Fatalf("no store %q", dialect)
	return store{}
}
