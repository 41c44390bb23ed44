package app_test

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/cometbft/cometbft/libs/log"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/app"
)

func describePath(t *testing.T, a *app.App, data []byte) *abci.ResponseQuery {
	t.Helper()
	resp, err := a.Query(context.Background(), &abci.RequestQuery{Path: api.DescribePath, Data: data})
	if err != nil {
		t.Fatalf("describe path: %v", err)
	}
	return resp
}

func describeBody(sql string) []byte {
	b, _ := json.Marshal(api.DescribeRequest{SQL: sql})
	return b
}

// The describe path answers with the statement's parameter and column
// types on committed state, writes nothing, and turns hostile input into
// clear answers, never a panic.
func TestDescribePath(t *testing.T) {
	forEachBackend(t, func(t *testing.T, newStore func() store) {
		f := mustNewFixture(t, newStore(), app.DefaultParams())
		f.createAcct()
		a := app.New(f.ex, log.NewNopLogger())

		resp := describePath(t, a, describeBody("SELECT id, bal FROM acct WHERE id = "+ph(f.dialect, 1)))
		if resp.Code != api.CodeOK {
			t.Fatalf("describe SELECT: code %d %s", resp.Code, resp.Log)
		}
		var d api.DescribeResponse
		if err := json.Unmarshal(resp.Value, &d); err != nil {
			t.Fatalf("describe response %s: %v", resp.Value, err)
		}
		want := api.DescribeResponse{Height: 1, Params: []string{"int8"}, Columns: []api.ColumnType{{Name: "id", Type: "int8"}, {Name: "bal", Type: "int8"}}}
		if f.dialect == "sqlite" {
			want.Params = []string{""} // SQLite does not type parameters
		}
		if !reflect.DeepEqual(d, want) || resp.Height != 1 {
			t.Errorf("describe SELECT = %+v (height %d), want %+v", d, resp.Height, want)
		}

		resp = describePath(t, a, describeBody("INSERT INTO acct (id, bal) VALUES (7, 1)"))
		if resp.Code != api.CodeOK || !strings.Contains(string(resp.Value), `"columns":[]`) || !strings.Contains(string(resp.Value), `"params":[]`) {
			t.Errorf("describe INSERT: code %d %s %s, want no columns and no params", resp.Code, resp.Log, resp.Value)
		}
		if rows, _, err := f.be.Query(context.Background(), "SELECT id FROM acct", nil); err != nil || len(rows.Rows) != 0 {
			t.Errorf("after describe of an INSERT: %v, rows %v, want none", err, rows)
		}

		for name, c := range map[string]struct {
			data []byte
			code uint32
			log  string
		}{
			"not JSON":       {[]byte("{sql"), api.CodeQueryBadInput, "not valid JSON"},
			"empty body":     {nil, api.CodeQueryBadInput, "not valid JSON"},
			"wrong type":     {[]byte(`{"sql": 5}`), api.CodeQueryBadInput, "not valid JSON"},
			"empty sql":      {describeBody(""), api.CodeQueryBadInput, "no sql"},
			"huge sql":       {describeBody("SELECT " + strings.Repeat("1+", 1<<20) + "1"), api.CodeQueryBadInput, "max_tx_bytes"},
			"syntax error":   {describeBody("SELEC id FROM acct"), api.CodeQueryFailed, "syntax"},
			"deep nesting":   {describeBody("SELECT " + strings.Repeat("(", 50000) + "1" + strings.Repeat(")", 50000)), api.CodeQueryFailed, ""},
			"two statements": {describeBody("SELECT 1; SELECT 2"), api.CodeQueryFailed, ""},
			"missing table":  {describeBody("SELECT * FROM nope"), api.CodeQueryFailed, "nope"},
		} {
			resp := describePath(t, a, c.data)
			if resp.Code != c.code || !strings.Contains(resp.Log, c.log) {
				t.Errorf("%s: code %d %q, want code %d mentioning %q", name, resp.Code, resp.Log, c.code, c.log)
			}
		}

		// A statement the database cannot compile is classified, as a
		// failed read is: the gateway answers Parse with its SQLSTATE.
		var failure api.FailureData
		bad := describePath(t, a, describeBody("SELEC id FROM acct"))
		if err := json.Unmarshal(bad.Value, &failure); err != nil || failure.Class != "syntax" {
			t.Errorf("syntax error: value %q (%v), want the failure's class syntax", bad.Value, err)
		}

		resp, err := a.Query(context.Background(), &abci.RequestQuery{Path: "/nope"})
		if err != nil || resp.Code != api.CodeUnknownPath || !strings.Contains(resp.Log, api.DescribePath) {
			t.Errorf("unknown path: %v %d %q, want the describe path listed", err, resp.Code, resp.Log)
		}
	})
}

// The query path's response carries the columns' types; a block's
// committed results do not (they enter the AppHash and keep their JSON).
func TestQueryPathReportsTypes(t *testing.T) {
	forEachBackend(t, func(t *testing.T, newStore func() store) {
		f := mustNewFixture(t, newStore(), app.DefaultParams())
		f.createAcct()
		res, _ := f.block(f.tx(stmt("INSERT INTO acct (id, bal) VALUES (1, 5) RETURNING id, bal")))
		if res[0].Code != api.CodeOK || !strings.Contains(string(res[0].Data), `"columns":["id","bal"]`) || strings.Contains(string(res[0].Data), "types") {
			t.Errorf("block result: code %d %s, want results without types", res[0].Code, res[0].Data)
		}
		a := app.New(f.ex, log.NewNopLogger())
		body, _ := json.Marshal(api.QueryRequest{SQL: "SELECT id, bal, (SELECT count(*) FROM acct) AS n FROM acct"})
		resp, err := a.Query(context.Background(), &abci.RequestQuery{Path: api.QueryPath, Data: body})
		if err != nil || resp.Code != api.CodeOK {
			t.Fatalf("query: %v %+v", err, resp)
		}
		var q api.QueryResponse
		if err := json.Unmarshal(resp.Value, &q); err != nil {
			t.Fatalf("query response %s: %v", resp.Value, err)
		}
		if want := []string{"int8", "int8", "int8"}; !reflect.DeepEqual(q.Types, want) {
			t.Errorf("query types = %q, want %q", q.Types, want)
		}
	})
}
