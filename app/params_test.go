package app_test

import (
	"context"
	"fmt"
	"strings"
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

// A statement whose number of arguments differs from its placeholders is
// refused with code 6 at CheckTx, and a byzantine proposer's block that
// holds it fails that tx with the same code on every node, before
// anything of it runs; a table created earlier in the same tx (SQLite
// cannot count before) is counted in the block.
func TestArgumentCountMustMatchPlaceholders(t *testing.T) {
	my := store{"mysql", func(t *testing.T) backend.Backend {
		b, err := mysql.Open(context.Background(), mysqltest.DSN(t))
		if err != nil {
			t.Fatalf("open mysql: %v", err)
		}
		return b
	}}
	for _, s := range append(stores(t), my) {
		t.Run(s.dialect, func(t *testing.T) { testArgumentCount(t, s) })
	}
}

func testArgumentCount(t *testing.T, s store) {
	place := func(n int) string { // the n-th placeholder
		if s.dialect == "mysql" {
			return "?"
		}
		return ph(s.dialect, n)
	}
	f := mustNewFixture(t, s, app.DefaultParams())
	f.createAcct()
	a := app.New(f.ex, log.NewNopLogger())
	two := "INSERT INTO acct (id, bal) VALUES (" + place(1) + ", " + place(2) + ")"
	tooFew := f.tx(stmt(two, txn.Int(1)))
	tooMany := f.tx(stmt("SELECT 1", txn.Int(1)), stmt(two, txn.Int(2), txn.Int(5), txn.Int(7)))
	// A '?' or '$1' inside a literal is no placeholder.
	literal := f.tx(stmt("INSERT INTO acct (id, bal) VALUES ("+place(1)+", length('? $1 ?2'))", txn.Int(3)))
	good := f.tx(stmt(two, txn.Int(4), txn.Int(40)))
	for _, c := range []struct {
		name string
		tx   []byte
		code uint32
		log  string
	}{
		{"too few", tooFew, api.CodeSyntax, "statement 1 has 2 placeholders but 1 argument was given"},
		{"too many", tooMany, api.CodeSyntax, "statement 1 has 0 placeholders but 1 argument was given"},
		{"literal", literal, api.CodeOK, ""},
		{"good", good, api.CodeOK, ""},
	} {
		r, err := a.CheckTx(context.Background(), &abci.RequestCheckTx{Tx: c.tx})
		if err != nil || r.Code != c.code || !strings.Contains(r.Log, c.log) {
			t.Errorf("CheckTx %s: code %d log %q (%v), want code %d with %q", c.name, r.Code, r.Log, err, c.code, c.log)
		}
	}
	fresh := f.tx(stmt("CREATE TABLE fresh (id BIGINT PRIMARY KEY)"), stmt("INSERT INTO fresh (id) VALUES ("+place(1)+")"))
	if f.dialect != "sqlite" { // PostgreSQL counts on committed state; MySQL wants DDL alone
		fresh = f.tx(stmt("INSERT INTO acct (id, bal) VALUES (9, 9)"), stmt("INSERT INTO acct (id, bal) VALUES ("+place(1)+", 1)"))
	}
	res, _ := f.block(tooFew, tooMany, literal, good, fresh)
	want := []uint32{api.CodeSyntax, api.CodeSyntax, api.CodeOK, api.CodeOK, api.CodeSyntax}
	if got := codes(res); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("codes in block = %v, want %v (logs %q, %q, %q)", got, want, res[0].Log, res[1].Log, res[4].Log)
	}
	if !strings.Contains(res[4].Log, "statement 2 has 1 placeholder but 0 arguments were given") {
		t.Errorf("log of the tx whose second statement lacks its argument: %q", res[4].Log)
	}
	if got := fmt.Sprint(f.ids("acct")); got != "[3 4]" {
		t.Errorf("acct ids after the block = %s, want [3 4]: nothing of a refused tx may apply", got)
	}
}
