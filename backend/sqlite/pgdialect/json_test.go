package pgdialect

import (
	"reflect"
	"testing"
)

var jsonCatalog = staticCatalog{
	"d": {col("id", "uuid", -1), col("body", "jsonb", -1), col("raw", "json", -1)},
}

// TestUUIDAndJSONBParamsAndColumns: placeholders beside uuid and jsonb
// columns are typed uuid (OID 2950 in Describe) and jsonb, and the json
// operators' result types are PostgreSQL's.
func TestUUIDAndJSONBParamsAndColumns(t *testing.T) {
	uuid, jsonb, text := Type{"uuid", -1}, Type{"jsonb", -1}, Type{"text", -1}
	cases := []struct {
		sql    string
		params []Type
		cols   []ResultColumn
	}{
		{"SELECT id FROM d WHERE id = $1", []Type{uuid}, []ResultColumn{{"id", uuid}}},
		{"SELECT body -> 'a', body ->> $1, raw -> 0 FROM d WHERE body @> $2", []Type{text, jsonb},
			[]ResultColumn{{"?column?", jsonb}, {"?column?", text}, {"?column?", Type{"json", -1}}}},
		{"SELECT body #> '{a,b}', body ? 'k', jsonb_typeof(body) FROM d", nil,
			[]ResultColumn{{"?column?", jsonb}, {"?column?", Type{"bool", -1}}, {"jsonb_typeof", text}}},
	}
	for _, c := range cases {
		tr, err := Translate(c.sql, jsonCatalog)
		if err != nil {
			t.Errorf("%s: %v", c.sql, err)
			continue
		}
		if !reflect.DeepEqual(tr.Params, c.params) || !reflect.DeepEqual(tr.Columns, c.cols) {
			t.Errorf("%s\n got params %v columns %v\nwant params %v columns %v", c.sql, tr.Params, tr.Columns, c.params, c.cols)
		}
	}
}

// TestJSONBTranslationText pins how jsonb equality and the json
// operators translate (a change is a new Version).
func TestJSONBTranslationText(t *testing.T) {
	cases := []struct{ pg, sqlite string }{
		{"SELECT id FROM d WHERE body = '{\"b\":1.0,\"a\":2}'",
			`SELECT "d"."id" AS "id" FROM "d" AS "d" WHERE (pg_jsonb_key("d"."body") = '{"a": 35000012, "b": 35000011}')`},
		{"SELECT '1.0'::jsonb = '1'::jsonb", `SELECT 1 AS "?column?"`},
		{"SELECT body ->> 'a' FROM d WHERE body ? 'a'",
			`SELECT pg_json_get('jsonb', '->>', "d"."body", 'a') AS "?column?" FROM "d" AS "d" WHERE pg_jsonb_op('?', "d"."body", 'a')`},
		{"SELECT id FROM d WHERE id = 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11'",
			`SELECT "d"."id" AS "id" FROM "d" AS "d" WHERE ("d"."id" = 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11')`},
	}
	for _, c := range cases {
		tr, err := Translate(c.pg, jsonCatalog)
		if err != nil {
			t.Errorf("%s: %v", c.pg, err)
			continue
		}
		if got := tr.Statements[0]; got != c.sqlite {
			t.Errorf("%s\n got %s\nwant %s", c.pg, got, c.sqlite)
		}
	}
}

// TestJSONBRefusesTextOrder: where SQLite would compare jsonb's stored
// text itself, the translation refuses (0A000) instead of answering by it.
func TestJSONBRefusesTextOrder(t *testing.T) {
	for _, sql := range []string{
		"SELECT body FROM d ORDER BY body", "SELECT body FROM d GROUP BY body", "SELECT DISTINCT body FROM d",
		"SELECT body FROM d UNION SELECT body FROM d", "SELECT count(DISTINCT body) FROM d",
		"SELECT greatest(body, '1') FROM d", "SELECT id FROM d WHERE body < '1'", "CREATE TABLE e (j jsonb UNIQUE)",
		"CREATE INDEX di ON d (body)", "SELECT body || '1' FROM d",
	} {
		if _, err := Translate(sql, jsonCatalog); !errIs(err, "0A000") {
			t.Errorf("%s: %v, want 0A000", sql, err)
		}
	}
}
