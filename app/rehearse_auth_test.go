package app_test

import (
	"context"
	"crypto/ed25519"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"testing"

	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/cometbft/cometbft/libs/log"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/app"
	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/mysql"
	"github.com/relchain/relchain/backend/mysql/mysqltest"
	"github.com/relchain/relchain/txn"
)

// threeStores are stores(t) and MariaDB.
func threeStores(t *testing.T) []store {
	return append(stores(t), store{"mysql", func() func(t *testing.T) backend.Backend {
		var dsn string
		return func(t *testing.T) backend.Backend {
			if dsn == "" {
				dsn = mysqltest.DSN(t)
			}
			b, err := mysql.Open(context.Background(), dsn)
			if err != nil {
				t.Fatalf("open mysql: %v", err)
			}
			return b
		}
	}()})
}

// bigFixture is a network with one admin (f.key) and a table big of 20
// rows.
func bigFixture(t *testing.T, s store) *fixture {
	t.Helper()
	_, admin, _ := ed25519.GenerateKey(nil)
	p := app.DefaultParams()
	p.Admins = []string{hex.EncodeToString(admin.Public().(ed25519.PublicKey))}
	f := mustNewFixture(t, s, p)
	f.key = admin
	if res, _ := f.block(f.tx(stmt("CREATE TABLE big (k BIGINT PRIMARY KEY, v VARCHAR(20))"))); res[0].Code != api.CodeOK {
		t.Fatalf("create big: %d %s", res[0].Code, res[0].Log)
	}
	var rows []txn.Statement
	for k := 1; k <= 20; k++ {
		rows = append(rows, stmt("INSERT INTO big (k, v) VALUES ("+strconv.Itoa(k)+", 'x')"))
	}
	if res, _ := f.block(f.tx(rows...)); res[0].Code != api.CodeOK {
		t.Fatalf("fill big: %d %s", res[0].Code, res[0].Log)
	}
	return f
}

// v1Rehearsal is the format relchain spoke before signed rehearsals: the
// bare public key, a statement count and the statements.
func v1Rehearsal(pub ed25519.PublicKey, stmts ...txn.Statement) []byte {
	b := binary.AppendUvarint(nil, uint64(len(pub)))
	b = append(b, pub...)
	b = binary.AppendUvarint(b, uint64(len(stmts)))
	for _, s := range stmts {
		b = txn.AppendStatement(b, s)
	}
	return b
}

// TestRehearsalRequiresTheKeysSignature is issue 32's reproduction 5: a
// rehearsal acting as the admin's key without the admin's signature
// (version 1's bare key, another key's signature, a valid request of
// another key with the admin's key put in, no signature), signed for
// another chain, or at a height outside the freshness window, is refused
// with its code before anything runs; the admin's own signed request runs.
func TestRehearsalRequiresTheKeysSignature(t *testing.T) {
	for _, s := range threeStores(t) {
		t.Run(s.dialect, func(t *testing.T) {
			f := bigFixture(t, s)
			a := app.New(f.ex, log.NewNopLogger())
			// Past the window, so that a stale height exists.
			for f.ex.State().Height <= api.RehearsalWindow+1 {
				f.block()
			}
			h := f.ex.State().Height
			adminPub := f.key.Public().(ed25519.PublicKey)
			_, other, _ := ed25519.GenerateKey(nil)
			del := []txn.Statement{stmt("DELETE FROM big WHERE k < 10")}
			resigned := func(mutate func(r *txn.Rehearsal)) []byte {
				r, err := txn.DecodeRehearsal(txn.SignRehearsal(other, chainID, h, del))
				if err != nil {
					t.Fatal(err)
				}
				mutate(r)
				return txn.EncodeRehearsal(r)
			}
			refused := []struct {
				name string
				data []byte
				code uint32
			}{
				{"version 1, the admin's bare key", v1Rehearsal(adminPub, del...), api.CodeQueryBadInput},
				{"version 1, DROP TABLE as the admin", v1Rehearsal(adminPub, stmt("DROP TABLE big")), api.CodeQueryBadInput},
				{"the admin's key with another key's signature", resigned(func(r *txn.Rehearsal) { r.Sender = adminPub }), api.CodeBadSignature},
				{"the admin's key without a signature", resigned(func(r *txn.Rehearsal) { r.Sender, r.Signature = adminPub, nil }), api.CodeBadSignature},
				{"another key's request, statements changed", resigned(func(r *txn.Rehearsal) { r.Statements = []txn.Statement{stmt("DROP TABLE big")} }), api.CodeBadSignature},
				{"signed for another chain", txn.SignRehearsal(f.key, "another-chain", h, del), api.CodeWrongChain},
				{"a stale height", txn.SignRehearsal(f.key, chainID, h-api.RehearsalWindow-1, del), api.CodeStaleRequest},
				{"a future height", txn.SignRehearsal(f.key, chainID, h+api.RehearsalAhead+1, del), api.CodeStaleRequest},
			}
			for _, c := range refused {
				before := f.ex.RehearsalsRun()
				resp, err := a.Query(context.Background(), &abci.RequestQuery{Path: api.RehearsePath, Data: c.data})
				if err != nil || resp.Code != c.code || len(resp.Value) != 0 {
					t.Errorf("%s: %v code %d (%s) value %q, want code %d (%s) and nothing run", c.name, err, resp.Code, resp.Log, resp.Value, c.code, api.CodeName(c.code))
				}
				if n := f.ex.RehearsalsRun() - before; n != 0 {
					t.Errorf("%s: %d rehearsals ran", c.name, n)
				}
				if c.code == api.CodeStaleRequest && resp.Height != h {
					t.Errorf("%s: the refusal says height %d, want the node's %d", c.name, resp.Height, h)
				}
			}
			// The admin's own request runs, at either end of the window.
			for _, at := range []int64{h - api.RehearsalWindow, h + api.RehearsalAhead} {
				resp, err := a.Query(context.Background(), &abci.RequestQuery{Path: api.RehearsePath, Data: txn.SignRehearsal(f.key, chainID, at, del)})
				var r api.RehearseResponse
				if err != nil || resp.Code != api.CodeOK || json.Unmarshal(resp.Value, &r) != nil || r.Code != api.CodeOK || len(r.Statements) != 1 || r.Statements[0].RowsAffected != 9 {
					t.Fatalf("the admin's signed rehearsal at %d: %v %+v", at, err, resp)
				}
			}
			rows, _, err := f.be.Query(context.Background(), "SELECT count(*) FROM big", nil)
			if err != nil || fmt.Sprint(rows.Rows[0][0]) != "20" {
				t.Fatalf("big after the rehearsals: %v %+v", err, rows)
			}
		})
	}
}
