package app_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/cometbft/cometbft/libs/log"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/app"
)

// Read (the in-process query path of the node's PostgreSQL listener)
// answers exactly what abci_query's api.QueryPath answers once its JSON is
// decoded: the same columns, types and values, the same failures with the
// same codes, logs and SQLSTATEs, and the same argument types (an integral
// float is bound as an integer, as JSON carries it).
func TestReadAnswersAsAbciQuery(t *testing.T) {
	forEachBackend(t, func(t *testing.T, newStore func() store) {
		f := mustNewFixture(t, newStore(), app.DefaultParams())
		f.block(f.tx(stmt("CREATE TABLE r (id INTEGER PRIMARY KEY, name TEXT, score DOUBLE PRECISION, raw " + blobType(f.dialect) + ")")))
		f.block(f.tx(stmt("INSERT INTO r VALUES (1, 'a', 1.5, NULL), (2, NULL, -0.001, NULL), (3, 'c', 1e300, " + blobLiteral(f.dialect) + "), (4, 'd', 100000000, NULL)")))
		a := app.New(f.ex, log.NewNopLogger())
		for _, q := range []struct {
			sql  string
			args []any
		}{
			{"SELECT * FROM r", nil},
			{"SELECT id, name FROM r WHERE id = $1", []any{int64(2)}},
			{"SELECT id FROM r WHERE id = $1", []any{2.0}},
			{"SELECT id FROM r WHERE score > $1 ORDER BY id", []any{0.5}},
			{"SELECT count(*), sum(score) FROM r WHERE name <> $1", []any{"zz"}},
			{"SELECT name FROM r WHERE id = $1", []any{nil}},
			{"SELECT * FROM r WHERE name = $1", []any{true}},
			{"SELECT * FROM missing", nil},
			{"DELETE FROM r", nil},
			{"SELEC 1", nil},
			{"SELECT * FROM r WHERE id = $1", []any{struct{}{}}},
		} {
			got, gerr := a.Read(context.Background(), 1, placeholders(f.dialect, q.sql), q.args, false)
			want, werr := abciRead(t, a, 1, placeholders(f.dialect, q.sql), q.args)
			if gerr != nil || werr != nil {
				var re *app.ReadError
				if !errors.As(gerr, &re) || werr == nil || re.Code != werr.Code || re.Log != werr.Log || fmt.Sprint(re.Failure) != fmt.Sprint(werr.Failure) {
					t.Errorf("%s: Read error %#v, abci_query error %#v", q.sql, gerr, werr)
				}
				continue
			}
			got.Height, want.Height = 0, 0 // Read's is a lower bound on PostgreSQL
			if g, w := fmt.Sprintf("%#v", got), fmt.Sprintf("%#v", want); g != w {
				t.Errorf("%s:\nRead        %s\nabci_query  %s", q.sql, g, w)
			}
		}
	})
}

// Read at a min height the node has not reached waits at most
// MaxQueryWait and then fails with api.CodeQueryTimeout.
func TestReadWaitsForMinHeight(t *testing.T) {
	forEachBackend(t, func(t *testing.T, newStore func() store) {
		f := mustNewFixture(t, newStore(), app.DefaultParams())
		f.block(f.tx(stmt("CREATE TABLE r (id INTEGER PRIMARY KEY)")))
		a := app.New(f.ex, log.NewNopLogger())
		a.MaxQueryWait = 100 * time.Millisecond
		_, err := a.Read(context.Background(), f.ex.State().Height+1, "SELECT count(*) FROM r", nil, false)
		var re *app.ReadError
		if !errors.As(err, &re) || re.Code != api.CodeQueryTimeout || !strings.Contains(re.Log, "not reached") {
			t.Fatalf("Read above the node's height: %v, want code %d", err, api.CodeQueryTimeout)
		}
		resp, err := a.Read(context.Background(), f.ex.State().Height, "SELECT count(*) FROM r", nil, true)
		if err != nil || resp.Height != f.ex.State().Height {
			t.Fatalf("exact Read at the node's height: %+v, %v", resp, err)
		}
	})
}

// abciRead is the same read through App.Query, its JSON decoded as the Go
// client decodes it.
func abciRead(t *testing.T, a *app.App, minHeight int64, sql string, args []any) (*api.QueryResponse, *app.ReadError) {
	t.Helper()
	body, err := json.Marshal(api.QueryRequest{SQL: sql, Args: args, MinHeight: minHeight})
	if err != nil {
		return nil, &app.ReadError{Code: api.CodeQueryBadInput, Log: bodyError(args)}
	}
	r, err := a.Query(context.Background(), &abci.RequestQuery{Path: api.QueryPath, Data: body})
	if err != nil {
		t.Fatal(err)
	}
	if r.Code != api.CodeOK {
		e := &app.ReadError{Code: r.Code, Log: r.Log}
		if len(r.Value) > 0 {
			e.Failure = &api.FailureData{}
			if err := json.Unmarshal(r.Value, e.Failure); err != nil {
				t.Fatal(err)
			}
		}
		return nil, e
	}
	var out api.QueryResponse
	dec := json.NewDecoder(strings.NewReader(string(r.Value)))
	dec.UseNumber()
	if err := dec.Decode(&out); err != nil {
		t.Fatal(err)
	}
	return &out, nil
}

// bodyError is what Read says of an argument JSON cannot carry (abci_query
// never receives such a request: the client cannot encode it).
func bodyError(args []any) string {
	for i, a := range args {
		switch a.(type) {
		case nil, string, bool, int64, float64:
		default:
			return fmt.Sprintf("argument %d: only null, booleans, numbers and strings are accepted", i+1)
		}
	}
	return ""
}

func blobType(dialect string) string {
	if dialect == "postgres" {
		return "BYTEA"
	}
	return "BLOB"
}

// placeholders writes $n as the dialect binds it (SQLite: ?n).
func placeholders(dialect, sql string) string {
	if dialect == "sqlite" {
		return strings.ReplaceAll(sql, "$", "?")
	}
	return sql
}

func blobLiteral(dialect string) string {
	if dialect == "postgres" {
		return `'\x00ff'::bytea`
	}
	return "X'00FF'"
}
