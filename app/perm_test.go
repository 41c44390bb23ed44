package app_test

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/app"
	"github.com/relchain/relchain/txn"
)

// signer is a client key with its own nonce counter.
type signer struct {
	key   ed25519.PrivateKey
	nonce uint64
}

func newSigner() *signer {
	_, k, _ := ed25519.GenerateKey(nil)
	return &signer{key: k}
}

func (s *signer) pub() []byte { return s.key.Public().(ed25519.PublicKey) }

func (s *signer) tx(stmts ...txn.Statement) []byte {
	s.nonce++
	tx := &txn.Tx{ChainID: chainID, Nonce: s.nonce, Statements: stmts}
	tx.Sign(s.key)
	return txn.Encode(tx)
}

func grant(to *signer, table string) txn.Statement {
	return stmt(api.SystemGrant, txn.Bytes(to.pub()), txn.Text(table))
}

func revoke(from *signer, table string) txn.Statement {
	return stmt(api.SystemRevoke, txn.Bytes(from.pub()), txn.Text(table))
}

// permissioned returns a fixture whose own key (f.key) is the only admin.
func permissioned(t *testing.T, s store) *fixture {
	t.Helper()
	_, admin, _ := ed25519.GenerateKey(nil)
	p := app.DefaultParams()
	p.Admins = []string{hex.EncodeToString(admin.Public().(ed25519.PublicKey))}
	f := mustNewFixture(t, s, p)
	f.key = admin
	f.createAcct()
	res, _ := f.block(f.tx(stmt("CREATE TABLE other (id BIGINT PRIMARY KEY)")))
	if res[0].Code != api.CodeOK {
		t.Fatalf("admin create table: %d %s", res[0].Code, res[0].Log)
	}
	return f
}

// checkAndRun submits raw to CheckTx and then in a block, and expects the
// same code from both with a log containing want.
func (f *fixture) checkAndRun(what string, raw []byte, code uint32, want string) {
	f.t.Helper()
	_, rej := f.ex.Check(context.Background(), raw)
	got := api.CodeOK
	log := ""
	if rej != nil {
		got, log = rej.Code, rej.Error()
	}
	if got != code || !strings.Contains(log, want) {
		f.t.Errorf("%s: CheckTx code %d (%s), want %d containing %q", what, got, log, code, want)
	}
	res, _ := f.block(raw)
	if res[0].Code != code || !strings.Contains(res[0].Log, want) {
		f.t.Errorf("%s: in a block code %d (%s), want %d containing %q", what, res[0].Code, res[0].Log, code, want)
	}
}

func TestPermissions(t *testing.T) {
	forEachBackend(t, func(t *testing.T, newStore func() store) {
		s := newStore()
		f := permissioned(t, s)
		user := newSigner()
		ins := func(table string, id int) txn.Statement {
			return stmt(fmt.Sprintf("INSERT INTO %s (id) VALUES (%d)", table, id))
		}
		insAcct := func(id int) txn.Statement {
			return stmt(fmt.Sprintf("INSERT INTO acct (id, bal) VALUES (%d, 0)", id))
		}

		f.checkAndRun("a key without grants", user.tx(stmt("SELECT 1")), api.CodeUnauthorized, "holds no grant")
		f.checkAndRun("a non-admin grants itself", user.tx(grant(user, "acct")), api.CodeUnauthorized, "only an admin")

		f.checkAndRun("admin grants acct", f.tx(grant(user, "acct")), api.CodeOK, "")
		f.checkAndRun("granted key writes acct", user.tx(insAcct(1)), api.CodeOK, "")
		f.checkAndRun("granted key reads anything", user.tx(stmt("SELECT count(*) FROM other")), api.CodeOK, "")
		f.checkAndRun("granted key writes another table", user.tx(ins("other", 1)), api.CodeUnauthorized, `no grant to write table "other"`)
		f.checkAndRun("write hidden in a CTE", user.tx(stmt("WITH x AS (SELECT 1 AS id) INSERT INTO other (id) SELECT id FROM x")), api.CodeUnauthorized, `"other"`)
		f.checkAndRun("non-admin DDL", user.tx(stmt("CREATE TABLE mine (id BIGINT PRIMARY KEY)")), api.CodeUnauthorized, "only an admin key may change the schema")
		f.checkAndRun("non-admin DROP", user.tx(stmt("DROP TABLE acct")), api.CodeUnauthorized, "only an admin key may change the schema")

		// A tx that fails rolls back its grant changes.
		res, _ := f.block(f.tx(grant(user, "other"), stmt("INSERT INTO nowhere (id) VALUES (1)")))
		if res[0].Code != api.CodeExecFailed {
			t.Fatalf("grant with a failing statement: code %d %s", res[0].Code, res[0].Log)
		}
		f.checkAndRun("grant of a failed tx did not happen", user.tx(ins("other", 2)), api.CodeUnauthorized, `"other"`)

		// Grants seen by later txs of the same block.
		g, w := f.tx(grant(user, "*")), user.tx(ins("other", 3))
		res, _ = f.block(g, w)
		if res[0].Code != api.CodeOK || res[1].Code != api.CodeOK {
			t.Fatalf("grant * then write in one block: %d %s / %d %s", res[0].Code, res[0].Log, res[1].Code, res[1].Log)
		}
		if got := fmt.Sprint(f.ids("other")); got != "[3]" {
			t.Fatalf("other = %s, want [3]", got)
		}
		view := f.ex.Grants()
		if view.Open || len(view.Admins) != 1 || fmt.Sprint(view.Grants[hex.EncodeToString(user.pub())]) != "[* acct]" {
			t.Fatalf("grants view = %+v", view)
		}

		// Revoking * revokes everything; the key then may send nothing.
		f.checkAndRun("admin revokes *", f.tx(revoke(user, "*")), api.CodeOK, "")
		f.checkAndRun("revoked key", user.tx(insAcct(2)), api.CodeUnauthorized, "holds no grant")

		// Grants survive a restart (they are committed with the block).
		f.checkAndRun("admin grants acct again", f.tx(grant(user, "acct")), api.CodeOK, "")
		if err := f.be.Close(); err != nil {
			t.Fatal(err)
		}
		be := s.open(t)
		t.Cleanup(func() { be.Close() })
		ex, err := app.NewExecutor(context.Background(), be, chainID, f.ex.Params())
		if err != nil {
			t.Fatal(err)
		}
		f.be, f.ex = be, ex
		f.checkAndRun("granted key after restart", user.tx(insAcct(4)), api.CodeOK, "")
		f.checkAndRun("ungranted table after restart", user.tx(ins("other", 4)), api.CodeUnauthorized, `"other"`)
		f.checkAndRun("revoke a single table", f.tx(revoke(user, "acct")), api.CodeOK, "")
		f.checkAndRun("revoked table", user.tx(insAcct(5)), api.CodeUnauthorized, "holds no grant")

		// Bad system statements are refused with a reason.
		f.checkAndRun("grant with a bad key", f.tx(stmt(api.SystemGrant, txn.Bytes([]byte{1, 2}), txn.Text("acct"))), api.CodeSyntax, "public key has 2 bytes")
		f.checkAndRun("grant without a table", f.tx(stmt(api.SystemGrant, txn.Bytes(user.pub()))), api.CodeSyntax, "takes two arguments")
	})
}

func TestOpenNetworkRefusesGrants(t *testing.T) {
	f := mustNewFixture(t, stores(t)[0], app.DefaultParams())
	f.createAcct()
	user := newSigner()
	f.checkAndRun("any key writes on an open network", user.tx(stmt("INSERT INTO acct (id, bal) VALUES (1, 1)")), api.CodeOK, "")
	f.checkAndRun("grant on an open network", f.tx(grant(user, "acct")), api.CodeUnauthorized, "names no admin")
}

func TestGenesisAdminsAreValidated(t *testing.T) {
	for _, bad := range []string{`{"admins":["zz"]}`, `{"admins":["abcd"]}`} {
		if _, err := app.ParseParams([]byte(bad)); err == nil || !strings.Contains(err.Error(), "admins") {
			t.Errorf("ParseParams(%s) = %v, want an error naming admins", bad, err)
		}
	}
	k := strings.Repeat("AB", 32)
	p, err := app.ParseParams([]byte(`{"admins":["` + k + `","` + strings.ToLower(k) + `"]}`))
	if err != nil || len(p.Admins) != 1 || p.Admins[0] != strings.ToLower(k) {
		t.Fatalf("admins normalized = %v (%v), want one lower-case key", p.Admins, err)
	}
}

// A tx admitted to the mempool is evicted at the recheck after the block
// that revoked its key's last grant, and kept while the key holds one.
func TestRecheckEvictsTxsOfARevokedKey(t *testing.T) {
	forEachBackend(t, func(t *testing.T, newStore func() store) {
		f := permissioned(t, newStore())
		user := newSigner()
		f.checkAndRun("admin grants acct", f.tx(grant(user, "acct")), api.CodeOK, "")
		pending, err := txn.Decode(user.tx(stmt("INSERT INTO acct (id, bal) VALUES (7, 0)")))
		if err != nil {
			t.Fatal(err)
		}
		if rej := f.ex.Recheck(pending); rej != nil {
			t.Fatalf("recheck while granted: %v", rej)
		}
		f.checkAndRun("admin revokes acct", f.tx(revoke(user, "acct")), api.CodeOK, "")
		rej := f.ex.Recheck(pending)
		if rej == nil || rej.Code != api.CodeUnauthorized || !strings.Contains(rej.Reason, "holds no grant") {
			t.Fatalf("recheck after the revoke = %v, want unauthorized (holds no grant)", rej)
		}
	})
}
