package app_test

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/cometbft/cometbft/libs/log"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/app"
	"github.com/relchain/relchain/protocol"
	"github.com/relchain/relchain/txn"
)

// rowsText is a read's rows in short form, one line per row.
func rowsText(resp *api.QueryResponse) string {
	var lines []string
	for _, r := range resp.Rows {
		cells := make([]string, len(r))
		for i, c := range r {
			cells[i] = fmt.Sprint(c)
		}
		lines = append(lines, strings.Join(cells, " "))
	}
	return strings.Join(lines, "\n")
}

// Issue 36, item 5: the history relation over the wire. A read names
// relchain_history('acct'[, from]) in FROM and gets the table's versions
// as rows (the event format's fields as columns), with SQL over them:
// WHERE on a key through the after image, ORDER BY, aggregates, joins
// with the table itself; the query path, the in-process read and describe
// agree; bad calls and unknown tables are refused naming the form.
func TestHistoryRelationOverTheWire(t *testing.T) {
	for _, s := range historyStores() {
		t.Run(s.dialect, func(t *testing.T) {
			f := mustNewFixture(t, s, authParams(s, protocol.V4))
			f.dialect = "postgres"
			f.block(f.tx(stmt("CREATE TABLE acct (id int8 PRIMARY KEY, name text NOT NULL)")))
			f.block(f.tx(stmt("INSERT INTO acct VALUES (1, 'a'), (2, 'it''s')")))
			f.block(f.tx(stmt("UPDATE acct SET name = 'A' WHERE id = 1")), f.tx(stmt("DELETE FROM acct WHERE id = 2")))
			a := app.New(f.ex, log.NewNopLogger())
			read := func(sql string) *api.QueryResponse {
				t.Helper()
				resp, err := a.Read(context.Background(), 0, sql, nil, true)
				if err != nil {
					t.Fatalf("%s: %v", sql, err)
				}
				return resp
			}
			all := read("SELECT height, op, key_values::text, after->>'name', before->>'name', before_known, tx_index FROM relchain_history('acct') ORDER BY height, key")
			want := "2 c [1] a <nil> true 0\n2 c [2] it's <nil> true 0\n3 u [1] A a true 0\n3 d [2] <nil> it's true 1"
			if got := rowsText(all); got != want {
				t.Fatalf("relchain_history('acct'):\n%s\nwant:\n%s", got, want)
			}
			one := read("SELECT h.op, a.name FROM relchain_history('acct', 3) AS h JOIN acct a ON a.id = CAST(h.after->>'id' AS int8)")
			if got := rowsText(one); got != "u A" {
				t.Fatalf("from height 3, joined with acct: %q", got)
			}
			agg := read("SELECT count(*), max(block_time) IS NOT NULL, min(length(tx_hash)), min(length(signer)), min(length(app_hash)) FROM relchain_history('acct')")
			if got := rowsText(agg); got != "4 true 64 64 64" {
				t.Fatalf("aggregates: %q", got)
			}
			if got := rowsText(read("SELECT count(*) FROM relchain_history('acct', 4)")); got != "0" {
				t.Fatalf("from a height past every version: %q", got)
			}
			viaQuery, err := a.Query(context.Background(), queryRequest("SELECT op FROM relchain_history('acct') WHERE height = 3 ORDER BY key"))
			if err != nil || viaQuery.Code != api.CodeOK || !strings.Contains(string(viaQuery.Value), `[["u"],["d"]]`) {
				t.Fatalf("query path: %d %s %s", viaQuery.Code, viaQuery.Log, viaQuery.Value)
			}
			checkHistoryRelationDescribed(t, a)
			r, err := f.ex.Rehearse(context.Background(), f.key.Public().(ed25519.PublicKey), []txn.Statement{stmt("SELECT count(*) FROM relchain_history('acct')")})
			if err != nil || r.Code == api.CodeOK || !strings.Contains(r.Log, "read outside a transaction") {
				t.Fatalf("the history relation inside a transaction: %v, %d %s", err, r.Code, r.Log)
			}
			for sql, want := range map[string]string{
				"SELECT * FROM relchain_history('nope')":     `no table "nope" has row history`,
				"SELECT relchain_history('acct')":            "is a relation",
				"SELECT * FROM relchain_history('acct', -1)": "non-negative integer",
			} {
				if _, err := a.Read(context.Background(), 0, sql, nil, true); err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("%s: %v, want an error saying %q", sql, err, want)
				}
			}
		})
	}
}

// checkHistoryRelationDescribed: describe gives the relation's columns
// and types without reading the history.
func checkHistoryRelationDescribed(t *testing.T, a *app.App) {
	t.Helper()
	data, _ := json.Marshal(api.DescribeRequest{SQL: "SELECT height, op, after, block_time, before_known FROM relchain_history('acct')"})
	resp, err := a.Query(context.Background(), &abci.RequestQuery{Path: api.DescribePath, Data: data})
	if err != nil || resp.Code != api.CodeOK {
		t.Fatalf("describe: %d %s", resp.Code, resp.Log)
	}
	var d api.DescribeResponse
	if err := json.Unmarshal(resp.Value, &d); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range d.Columns {
		got = append(got, c.Name+" "+c.Type)
	}
	t.Logf("described: %v", got)
	if len(got) != 5 || !strings.HasPrefix(got[0], "height ") || !strings.HasPrefix(got[4], "before_known ") {
		t.Fatalf("describe: %v", got)
	}
}
