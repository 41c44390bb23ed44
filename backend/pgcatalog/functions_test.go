package pgcatalog

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// TestFunctions checks the functions' results against what PostgreSQL
// 15 prints (each expectation taken from PostgreSQL 15.20).
func TestFunctions(t *testing.T) {
	db := openTestDB(t)
	checks := []struct{ q, want string }{
		{"SELECT format_type(23, -1)", "integer"},
		{"SELECT format_type(1043, 24)", "character varying(20)"},
		{"SELECT format_type(1700, 655366)", "numeric(10,2)"},
		{"SELECT format_type(1184, 3)", "timestamp(3) with time zone"},
		{"SELECT format_type(1083, 3)", "time(3) without time zone"},
		{"SELECT format_type(1015, 24)", "character varying(20)[]"},
		{"SELECT format_type(1042, 17)", "character(13)"},
		{"SELECT format_type(1042, NULL)", "character"},
		{"SELECT format_type(1042, -1)", "bpchar"},
		{"SELECT format_type(1560, 5)", "bit(5)"},
		{"SELECT format_type(1009, NULL)", "text[]"},
		{"SELECT format_type(18, NULL)", `"char"`},
		{"SELECT format_type(9999, -1)", "???"},
		{"SELECT format_type(NULL, -1)", "NULL"},
		{"SELECT pg_get_indexdef(oid) FROM pg_class WHERE relname = 'authors_pkey'", "CREATE UNIQUE INDEX authors_pkey ON public.authors USING btree (id)"},
		{"SELECT pg_get_indexdef(oid, 2, 1) FROM pg_class WHERE relname = 'books_author_id_title_key'", "title"},
		{"SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE conname = 'books_author_id_fkey'", "FOREIGN KEY (author_id) REFERENCES authors(id) ON DELETE CASCADE"},
		{"SELECT pg_get_constraintdef(oid, 1) FROM pg_constraint WHERE conname = 'books_author_id_title_key'", "UNIQUE (author_id, title)"},
		{"SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE conname = 'authors_rating_check'", "CHECK ((rating >= (0)::numeric))"},
		{"SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE conname = 'authors_pkey'", "PRIMARY KEY (id)"},
		{"SELECT pg_get_expr(adbin, adrelid) FROM pg_attrdef WHERE adnum = 5", "now()"},
		{"SELECT pg_get_viewdef('author_names')", " SELECT authors.id,\n    authors.name\n   FROM authors;"},
		{"SELECT pg_get_userbyid(relowner) FROM pg_class WHERE relname = 'books'", "alice"},
		{"SELECT pg_get_userbyid(4)", "unknown (OID=4)"},
		{"SELECT pg_get_serial_sequence('authors', 'id')", "public.authors_id_seq"},
		{"SELECT pg_get_serial_sequence('public.books', 'id')", "public.books_id_seq"},
		{"SELECT pg_get_serial_sequence('books', 'title')", "NULL"},
		{"SELECT obj_description(oid, 'pg_class') FROM pg_class WHERE relname = 'authors'", "people who write"},
		{"SELECT col_description(oid, 2) FROM pg_class WHERE relname = 'authors'", "full name"},
		{"SELECT col_description(oid, 3) FROM pg_class WHERE relname = 'authors'", "NULL"},
		{"SELECT current_schemas(1) || current_schemas(0) || current_schema()", `["pg_catalog","public"]["public"]public`},
		{"SELECT current_database() || current_user() || session_user()", "appalicealice"},
		{"SELECT current_setting('server_version') || current_setting('DateStyle')", "15.0ISO, MDY"},
		{"SELECT current_setting('nope', 1)", "NULL"},
		{"SELECT pg_encoding_to_char(6) || pg_char_to_encoding('UTF8')", "UTF86"},
		{"SELECT pg_size_pretty(10240) || ';' || pg_size_pretty(123456789) || ';' || pg_size_pretty(100)", "10 kB;118 MB;100 bytes"},
		{"SELECT quote_ident('Ab') || quote_ident('select') || quote_ident('a_b1')", `"Ab""select"a_b1`},
		{`SELECT quote_literal('a\b''c')`, `E'a\\b''c'`},
		{`SELECT pg_get_expr('((d > 0) AND (d < 10))', 1, 1) || '|' || pg_get_expr('(1 + 2)', 1, 1) || '|' ||
			pg_get_expr('(1 + 2)', 1) || '|' || pg_get_expr('(''now''::text)::date', 1, 1) || '|' ||
			pg_get_expr('''-1.5''::numeric', 1, 1) || '|' || pg_get_expr('(x >= (0)::numeric)', 1, 1)`,
			`(d > 0) AND (d < 10)|1 + 2|(1 + 2)|'now'::text::date|'-1.5'::numeric|x >= 0::numeric`},
		{"SELECT position('hello', 'l') || position('hello', 'x') || strpos('hello', 'o')", "305"},
		{"SELECT strpos('hello', 'll') || substring('hello', 0, 3) || substring('hello', 2)", "3heello"},
		{"SELECT split_part('a.b.c', '.', 2) || split_part('a.b.c', '.', -1) || '|' || split_part('a.b', '.', 5)", "bc|"},
		{"SELECT left('hello', -2) || '|' || right('hello', -2) || '|' || left('hello', 2)", "hel|llo|he"},
		{"SELECT btrim('xxhixx', 'x') || btrim('  hi  ')", "hihi"},
		{"SELECT regexp_replace('a1b22c', '[0-9]+', '#') || ' ' || regexp_replace('a1b22c', '[0-9]+', '#', 'g')", "a#b22c a#b#c"},
		{`SELECT regexp_replace('nextval(''t_id_seq''::regclass)', '^nextval\(''(.*)''::regclass\)$', '\1')`, "t_id_seq"},
		{"SELECT greatest(1, NULL, 3) || least(NULL, 2, 5) || coalesce(greatest(NULL, NULL), 'n')", "32n"},
		{`SELECT array_to_string('["a",null,"b"]', ',') || '|' || array_to_string('["a",null,"b"]', ',', '*')`, "a,b|a,*,b"},
		{`SELECT array_length('[1,2,3]', 1) || array_upper('[1,2]', 1) || array_lower('[1]', 1) || coalesce(array_length('[]', 1), 'n')`, "321n"},
		{`SELECT cardinality('[[1,2],[3,4]]') || string_to_array('a,b,,c', ',')`, `4["a","b","","c"]`},
		{`SELECT array_agg(x) FROM (SELECT 'b' AS x UNION ALL SELECT 'a' UNION ALL SELECT NULL)`, `["b","a",null]`},
		{`SELECT coalesce(array_agg(x), 'n') || coalesce(string_agg(x, ','), 'n') FROM (SELECT 1 AS x) WHERE x > 1`, "nn"},
		{`SELECT string_agg(x, ', ') FROM (SELECT 'a' AS x UNION ALL SELECT NULL UNION ALL SELECT 'b')`, "a, b"},
		{`SELECT bool_and(x) || bool_or(x) FROM (SELECT 1 AS x UNION ALL SELECT 0)`, "01"},
		{`SELECT pgcat_regex('authors', '^(authors)$', '') || pgcat_regex('AUTHORS', '^(authors)$', 'i') || pgcat_regex('x', '^(authors)$', '')`, "110"},
		{`SELECT pgcat_regclass_in('authors') = (SELECT oid FROM pg_class WHERE relname = 'authors')`, "1"},
		{`SELECT pgcat_regclass_in('pg_catalog.pg_class') || pgcat_regclass_in('"pg_type"') || pgcat_regclass_in('PG_ATTRIBUTE')`, "125912471249"},
		{`SELECT pgcat_regclass_out(1259) || ' ' || pgcat_regclass_out(pgcat_regclass_in('books')) || ' ' || pgcat_regclass_out(0)`, "pg_class books -"},
		{`SELECT pgcat_regtype_in('integer') || pgcat_regtype_in('int4') || pgcat_regtype_in('character varying(20)') || pgcat_regtype_in('text[]')`, "232310431009"},
		{`SELECT pgcat_regtype_out(23) || ',' || pgcat_regtype_out(1184) || ',' || pgcat_regtype_out(1042)`, "integer,timestamp with time zone,character"},
		{`SELECT pgcat_regproc_out(typinput) || pgcat_regproc_in('int4in') FROM pg_type WHERE oid = 23`, "int4in42"},
		{`SELECT pgcat_regnamespace_out(2200) || pgcat_regnamespace_in('pg_catalog') || pgcat_regrole_out(pgcat_regrole_in('alice'))`, "public11alice"},
		{`SELECT pgcat_array_in('{a,"b c",NULL,1}')`, `["a","b c",null,1]`},
		{`SELECT pgcat_array_out('["a","b c",null,"",1]', 'text')`, `{a,"b c",NULL,"",1}`},
		{`SELECT pgcat_array_out('[1,0]', 'bool') || pgcat_vector_out('[1,2,3]')`, "{t,f}1 2 3"},
		{`SELECT pgcat_array_contains('[1,2]', 2) || pgcat_array_contains('[1,2]', 3) || coalesce(pgcat_array_contains('[1,null]', 3), 'n') || coalesce(pgcat_array_contains('[1]', NULL), 'n')`, "10nn"},
		{`SELECT pgcat_array_contains('["r","v"]', 'v')`, "1"},
		{"SELECT version() LIKE 'PostgreSQL 15.%'", "1"},
		{"SELECT pg_table_is_visible(oid) FROM pg_class WHERE relname = 'books'", "1"},
		{"SELECT has_table_privilege('books', 'SELECT') || has_table_privilege('alice', 'books', 'SELECT')", "11"},
	}
	for _, c := range checks {
		if got := one(t, db, c.q); got != c.want {
			t.Errorf("%s\n got %q\nwant %q", c.q, got, c.want)
		}
	}
}

// TestFunctionErrors checks the SQLSTATE convention of the functions'
// errors.
func TestFunctionErrors(t *testing.T) {
	db := openTestDB(t)
	for q, want := range map[string]string{
		"SELECT pgcat_regclass_in('nope')":      `42P01 relation "nope" does not exist`,
		"SELECT pgcat_regtype_in('nope')":       `42704 type "nope" does not exist`,
		"SELECT current_setting('nope')":        `42704 unrecognized configuration parameter "nope"`,
		"SELECT pgcat_regex('a', '(?<!x)', '')": "2201B",
	} {
		err := db.Exec(q)
		code, msg, ok := sqlState(err)
		if !ok || !(code+" "+msg == want || code == want) {
			t.Errorf("%s: error %v (code %q, message %q), want %s", q, err, code, msg, want)
		}
	}
}

// TestMoreFunctions checks further results against PostgreSQL 15's.
func TestMoreFunctions(t *testing.T) {
	db := openTestDB(t)
	checks := []struct{ q, want string }{
		{"SELECT user() || current_role()", "alicealice"},
		{"SELECT substr('hello', -1, 3) || '|' || substring('hello', 4) || '|' || translate('abcabc', 'ab', 'x')", "h|lo|xcxc"},
		{`SELECT array_to_string('[1,2,null]', '-')`, "1-2"},
		{"SELECT quote_ident('Ünï') || quote_ident('_x') || quote_ident('1a') || quote_ident('type') || quote_ident('order')", `"Ünï"_x"1a"type"order"`},
	}
	for _, c := range checks {
		if got := one(t, db, c.q); got != c.want {
			t.Errorf("%s\n got %q\nwant %q", c.q, got, c.want)
		}
	}
}

// TestCallsWithArgumentCountsPostgreSQLHasNot: every function registered
// for any argument count answers a call with none, or with too many, with
// an error of the query (42883), never a crash.
func TestCallsWithArgumentCountsPostgreSQLHasNot(t *testing.T) {
	e, err := New(&Schema{Database: "d", User: "u"})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for _, q := range []string{"SELECT format_type(1)", "SELECT pg_get_userbyid()", "SELECT version(1)", "SELECT pg_catalog.current_schemas()"} {
		_, err := e.Query(context.Background(), q, nil)
		var pe *Error
		if !errors.As(err, &pe) || pe.Code != "42883" {
			t.Errorf("%s: got %v, want 42883", q, err)
		}
	}
	for name := range variadicArity {
		for _, args := range []string{"", "1,1,1,1,1,1,1,1,1,1" + strings.Repeat(",1", 100)} {
			_, err := e.Query(context.Background(), "SELECT pg_catalog."+name+"("+args+")", nil)
			var pe *Error
			if !errors.As(err, &pe) || pe.Code != "42883" {
				t.Errorf("%s(%.10s…): got %v, want 42883", name, args, err)
			}
		}
	}
}
