package pgcatalog

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// mustEngine is an Engine of testSchema.
func mustEngine(t *testing.T) *Engine {
	t.Helper()
	e, err := New(testSchema())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// rowsText shows rows as "v1 v2|v1 v2", each value with %v and Go type
// letter where it matters (b bool, i int64, f float64, s string).
func rowsText(rows [][]any) string {
	var out []string
	for _, r := range rows {
		var vs []string
		for _, v := range r {
			switch x := v.(type) {
			case nil:
				vs = append(vs, "NULL")
			case bool:
				vs = append(vs, fmt.Sprintf("b:%v", x))
			case int64:
				vs = append(vs, fmt.Sprintf("i:%d", x))
			case float64:
				vs = append(vs, fmt.Sprintf("f:%g", x))
			case string:
				vs = append(vs, "s:"+x)
			default:
				vs = append(vs, fmt.Sprintf("?%T:%v", v, v))
			}
		}
		out = append(out, strings.Join(vs, " "))
	}
	return strings.Join(out, "|")
}

func TestRunRenders(t *testing.T) {
	e := mustEngine(t)
	for _, c := range []struct {
		sql  string
		args []any
		want string
	}{
		{"SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relkind = 'r' ORDER BY 1",
			nil, "s:authors|s:books"},
		{"SELECT true, false, 1::int8, 1.5::float8, 'x'::text, NULL", nil, "b:true b:false i:1 f:1.5 s:x NULL"},
		{"SELECT 'books'::regclass, 'int4'::regtype, 'public'::regnamespace", nil, "s:books s:integer s:public"},
		{"SELECT ARRAY['a b', NULL, 'c', ''], ARRAY[1,2], ARRAY[true,false], '{}'::text[]", nil,
			`s:{"a b",NULL,c,""} s:{1,2} s:{t,f} s:{}`},
		{"SELECT x FROM (VALUES (2), (NULL), (1)) v(x) ORDER BY x", nil, "i:1|i:2|NULL"},
		{"SELECT x FROM (VALUES (2), (NULL), (1)) v(x) ORDER BY x DESC", nil, "NULL|i:2|i:1"},
		{"SELECT relname FROM pg_class WHERE oid = $1", []any{"16384"}, "s:authors"},
		{"SELECT relname FROM pg_class WHERE oid = $1::regclass", []any{"books"}, "s:books"},
		{"SELECT relname FROM pg_class WHERE relkind = ANY('{r,v}') AND relnamespace = 2200 ORDER BY 1", nil,
			"s:author_names|s:authors|s:books"},
		{"SELECT relname FROM pg_class WHERE relname = ANY($1) ORDER BY 1", []any{"{books,authors,nosuch}"}, "s:authors|s:books"},
		{"SELECT i.indkey, i.indkey[0], i.indkey[1] FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname = 'books_author_id_title_key'",
			nil, "s:2 3 i:2 i:3"},
		{"SELECT conkey, conkey[1] FROM pg_constraint WHERE conname = 'books_author_id_title_key'", nil, "s:{2,3} i:2"},
		{"SELECT '1 2'::int2vector::int4[], ('1 2'::int2vector::int4[])[0], array_upper('1 2'::int2vector::int4[], 1), '23'::oidvector::regtype[]",
			nil, "s:[0:1]={1,2} i:1 i:1 s:[0:0]={integer}"},
		{`SELECT 'a_c' LIKE 'a\_c', 'abc' LIKE 'a\_c', 'ABC' LIKE 'abc', 'ABC' ILIKE 'abc'`, nil, "b:true b:false b:false b:true"},
		{"SELECT count(*) FROM pg_class WHERE relname IN ('authors', 'books')", nil, "i:2"},
		{"SELECT unnest(ARRAY['a','b']), generate_subscripts(ARRAY['a','b'], 1)", nil, "s:a i:1|s:b i:2"},
		{"SELECT * FROM unnest(ARRAY[1,2,3], ARRAY['a']) AS u(n, s)", nil, "i:1 s:a|i:2 NULL|i:3 NULL"},
		{"SELECT g FROM generate_series(5, 1, -2) g", nil, "i:5|i:3|i:1"},
		{"SELECT n FROM pg_class c, generate_series(1, c.relnatts) n WHERE c.relname = 'authors' ORDER BY n DESC LIMIT 2", nil, "i:5|i:4"},
		{"SELECT attname FROM pg_attribute a, unnest(ARRAY[1,3]) WITH ORDINALITY k(num, ord) WHERE a.attrelid = 'authors'::regclass AND a.attnum = k.num ORDER BY k.ord DESC",
			nil, "s:email|s:id"},
		{"SELECT greatest(1, NULL, 3), least(NULL, 2), coalesce(NULL, NULL, 'z')", nil, "i:3 i:2 s:z"},
		{"WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3) SELECT array_agg(n ORDER BY n DESC) FROM r", nil, "s:{3,2,1}"},
		{"SELECT string_agg(relname, ',' ORDER BY relname) FILTER (WHERE relkind = 'r') FROM pg_class WHERE relnamespace = 2200", nil, "s:authors,books"},
		{"SELECT relname, row_number() OVER (ORDER BY relname) FROM pg_class WHERE relkind = 'r' AND relnamespace = 2200", nil, "s:authors i:1|s:books i:2"},
		{"SELECT 'v' || 1 || true, '(' || NULL::int || ')'", nil, "s:v1true NULL"},
		{"SELECT ARRAY['a'] || ARRAY['b', 'c'], ARRAY[1] = '{1}', (ARRAY[1,2])[3]", nil, "s:{a,b,c} b:true NULL"},
		{"SELECT 1 WHERE 2 BETWEEN 1 AND 3 AND 1 IS DISTINCT FROM NULL AND NOT (NULL IS NOT NULL) AND (1 = 1) IS TRUE", nil, "i:1"},
		{"SELECT relname FROM pg_class c WHERE c.oid IN (SELECT indrelid FROM pg_index) AND relnamespace = 2200 ORDER BY relname", nil, "s:authors|s:books"},
	} {
		res, err := e.Query(context.Background(), c.sql, c.args)
		if err != nil {
			t.Errorf("%s: %v", c.sql, err)
			continue
		}
		if got := rowsText(res.Rows); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.sql, got, c.want)
		}
	}
}

// TestRunCompositeOfExpandarray: pgjdbc's getPrimaryKeys reads a field of
// _pg_expandarray's composite through a subquery.
func TestRunCompositeOfExpandarray(t *testing.T) {
	e := mustEngine(t)
	sql := `SELECT result.TABLE_SCHEM, result.TABLE_NAME, result.COLUMN_NAME, result.KEY_SEQ, result.PK_NAME
	FROM (SELECT NULL AS TABLE_CAT, n.nspname AS TABLE_SCHEM, ct.relname AS TABLE_NAME, a.attname AS COLUMN_NAME,
	  (information_schema._pg_expandarray(i.indkey)).n AS KEY_SEQ, ci.relname AS PK_NAME,
	  information_schema._pg_expandarray(i.indkey) AS KEYS, a.attnum AS A_ATTNUM
	  FROM pg_catalog.pg_class ct JOIN pg_catalog.pg_attribute a ON (ct.oid = a.attrelid)
	  JOIN pg_catalog.pg_namespace n ON (ct.relnamespace = n.oid) JOIN pg_catalog.pg_index i ON (a.attrelid = i.indrelid)
	  JOIN pg_catalog.pg_class ci ON (ci.oid = i.indexrelid)
	  WHERE true AND ct.relname = E'books' AND i.indisunique AND NOT i.indisprimary) result
	WHERE result.A_ATTNUM = (result.KEYS).x ORDER BY result.table_name, result.pk_name, result.key_seq`
	res, err := e.Query(context.Background(), sql, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := "s:public s:books s:author_id i:1 s:books_author_id_title_key|s:public s:books s:title i:2 s:books_author_id_title_key"
	if got := rowsText(res.Rows); got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
	if got := res.Columns[3]; got.Name != "key_seq" || got.Type != "int4" {
		t.Errorf("column key_seq: %+v", got)
	}
}

func TestRunErrors(t *testing.T) {
	e := mustEngine(t)
	for _, c := range []struct {
		sql  string
		args []any
		code string
	}{
		{"SELECT 'nosuch'::regclass", nil, "42P01"},
		{"SELECT relname FROM pg_class WHERE oid = $1", []any{"x"}, "22P02"},
		{"SELECT relname FROM pg_class WHERE oid = $1", nil, "08P01"},
		{"SELECT 1 FROM pg_class WHERE relname = ANY($1)", []any{"{a"}, "22P02"},
		{"SELECT relnatts / (relnatts - relnatts) FROM pg_class", nil, "22012"},
		{"SELECT 1 % $1", []any{"0"}, "22012"},
		{"SELECT (SELECT relname FROM pg_class)", nil, "21000"},
	} {
		_, err := e.Query(context.Background(), c.sql, c.args)
		var pe *Error
		if !errors.As(err, &pe) || pe.Code != c.code {
			t.Errorf("%s: %v, want SQLSTATE %s", c.sql, err, c.code)
			continue
		}
		if m := strings.ToLower(pe.Message); strings.Contains(m, "sqlite") || strings.Contains(m, "json") {
			t.Errorf("%s: the message shows the emulation's internals: %s", c.sql, pe.Message)
		}
	}
}

func TestRunCancelled(t *testing.T) {
	e := mustEngine(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := e.Query(ctx, "SELECT count(*) FROM pg_attribute a, pg_attribute b, pg_attribute c", nil)
	var pe *Error
	if !errors.As(err, &pe) || pe.Code != "57014" {
		t.Fatalf("got %v, want 57014", err)
	}
}
