package sqlite_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/relchain/relchain/backend"
)

// uuid and jsonb through the backend (gate, translation, runtime
// functions, Describe): parameters are typed uuid and jsonb, values come
// back as PostgreSQL's text, jsonb equality is numeric (1.0 = 1), and a
// bad uuid is PostgreSQL's 22P02.
func TestPostgresDialectUUIDAndJSONB(t *testing.T) {
	b := mustOpenPostgresDialect(t)
	ctx := context.Background()
	pgBlock(t, b, 1, pgStmt{sql: "CREATE TABLE docs (id uuid PRIMARY KEY, body jsonb NOT NULL)"},
		pgStmt{sql: "INSERT INTO docs VALUES ($1, $2)", args: []any{"{A0EEBC99-9C0B4EF8-BB6D6BB9-BD380A11}", `{"n": 1.0, "b": [1, 2], "a": "x"}`}})
	d, err := b.Describe(ctx, "SELECT body -> 'b', body ->> 'a' FROM docs WHERE id = $1 AND body @> $2")
	if err != nil || !reflect.DeepEqual(d.Params, []string{"uuid", "jsonb"}) || len(d.Columns) != 2 || d.Columns[0].Type != "jsonb" || d.Columns[1].Type != "text" {
		t.Fatalf("describe = %+v, %v; want params uuid, jsonb and columns jsonb, text", d, err)
	}
	rows, _, err := b.Query(ctx, "SELECT id, body, body -> 'b', body ->> 'a' FROM docs WHERE body = $1 AND body @> '{\"n\": 1}'",
		[]any{`{"a":"x","b":[1,2.00],"n":1}`})
	want := [][]any{{"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", `{"a": "x", "b": [1, 2], "n": 1.0}`, "[1, 2]", "x"}}
	if err != nil || !reflect.DeepEqual(rows.Rows, want) || !reflect.DeepEqual(rows.Types, []string{"uuid", "jsonb", "jsonb", "text"}) {
		t.Errorf("query = %+v, %v; want %v of types uuid, jsonb, jsonb, text", rows, err, want)
	}
	_, _, err = b.Query(ctx, "SELECT body FROM docs WHERE id = $1", []any{"a0eebc99"})
	if e := backend.AsError(err); e == nil || e.SQLState != "22P02" || e.Message != `invalid input syntax for type uuid: "a0eebc99"` {
		t.Errorf("uuid parameter \"a0eebc99\" = %v, want 22P02 invalid input syntax for type uuid", err)
	}
}
