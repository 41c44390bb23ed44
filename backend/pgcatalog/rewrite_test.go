package pgcatalog

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// colsOf shows a rewrite's result columns as "name:type …".
func colsOf(rw *rewritten) string {
	var s []string
	for _, c := range rw.Columns {
		s = append(s, c.Name+":"+c.Type)
	}
	return strings.Join(s, " ")
}

func TestRewriteNamesAndTypes(t *testing.T) {
	for _, c := range []struct{ sql, want string }{
		{"SELECT relname, relkind, relnatts, relhasindex, reltuples FROM pg_class",
			"relname:name relkind:char relnatts:int2 relhasindex:bool reltuples:float4"},
		{"SELECT c.oid::regclass, c.oid::regclass::text, 'x'::regclass::oid FROM pg_catalog.pg_class c",
			"oid:regclass oid:text oid:oid"},
		{"SELECT 1, 'a', 1 = 1, NULL, 2147483648, 1.5", "?column?:int4 ?column?:text ?column?:bool ?column?:text ?column?:int8 ?column?:numeric"},
		{"SELECT CASE WHEN true THEN 'a' END, coalesce(NULL, 1), greatest(1, 2), nullif(1, 2), ARRAY[1], ARRAY['a']",
			"case:text coalesce:int4 greatest:int4 nullif:int4 array:_int4 array:_text"},
		{"SELECT current_user, session_user, current_schema, current_catalog, current_schema()",
			"current_user:name session_user:name current_schema:name current_catalog:name current_schema:name"},
		{"SELECT format_type(atttypid, atttypmod) AS t, count(*), array_agg(attname), max(attnum) FROM pg_attribute GROUP BY 1",
			"t:text count:int8 array_agg:_name max:int2"},
		{"SELECT (SELECT nspname FROM pg_namespace LIMIT 1), EXISTS (SELECT 1), ARRAY(SELECT oid FROM pg_class)",
			"nspname:name exists:bool array:_oid"},
		{"SELECT indkey, indkey[0], conkey, conkey[1] FROM pg_index, pg_constraint",
			"indkey:int2vector indkey:int2 conkey:_int2 conkey:int2"},
		{"SELECT x, n FROM information_schema._pg_expandarray(ARRAY[1,2])", "x:int4 n:int4"},
		{"SELECT * FROM unnest('{a,b}'::text[]) WITH ORDINALITY AS u(v, i)", "v:text i:int8"},
		{"SELECT table_name, ordinal_position FROM information_schema.columns", "table_name:name ordinal_position:int4"},
		{"SELECT a AS x FROM (VALUES (1, 'a')) v(a, b) UNION SELECT 2", "x:int4"},
		{"WITH t(n) AS (SELECT 1) SELECT n FROM t", "n:int4"},
		{"SELECT sum(relnatts), sum(relnatts * 1.5), sum(reltuples) FROM pg_class", "sum:int8 sum:numeric sum:float8"},
		{"SELECT relname::text, 'x'::varchar, true::text, '{1,2}'::int2[] FROM pg_class", "relname:text varchar:varchar text:text int2:_int2"},
	} {
		rw, err := rewrite(c.sql)
		if err != nil {
			t.Errorf("%s: %v", c.sql, err)
			continue
		}
		if got := colsOf(rw); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.sql, got, c.want)
		}
	}
}

func TestRewriteParams(t *testing.T) {
	for _, c := range []struct{ sql, want string }{
		{"SELECT relname FROM pg_class WHERE relname = $1 AND relnamespace = $2", "name oid"},
		{"SELECT $1::regclass, $2", "regclass text"},
		{"SELECT 1 FROM pg_class WHERE oid = ANY($1)", "_oid"},
		{"SELECT 1 LIMIT $1", "int8"},
	} {
		rw, err := rewrite(c.sql)
		if err != nil {
			t.Errorf("%s: %v", c.sql, err)
			continue
		}
		if got := strings.Join(rw.Params, " "); got != c.want {
			t.Errorf("%s: params %s, want %s", c.sql, got, c.want)
		}
		if !strings.Contains(rw.SQL, "?1") {
			t.Errorf("%s: $1 not rewritten to ?1: %s", c.sql, rw.SQL)
		}
	}
}

func TestRewriteSQL(t *testing.T) {
	for _, c := range []struct{ sql, want string }{
		// PostgreSQL sorts NULLs last ascending, first descending.
		{"SELECT relname FROM pg_class ORDER BY relname", "ORDER BY 1 ASC NULLS LAST"},
		{"SELECT relname FROM pg_class ORDER BY relname DESC", "ORDER BY 1 DESC NULLS FIRST"},
		{"SELECT relname FROM pg_class ORDER BY relnatts NULLS FIRST", `ORDER BY _r1."relnatts" ASC NULLS FIRST`},
		{"SELECT 1 FROM pg_class WHERE relname ~ '^a'", `pgcat_regex(_r1."relname", '^a', '')`},
		{"SELECT 1 FROM pg_class WHERE relname OPERATOR(pg_catalog.!~*) 'A'", `(NOT pgcat_regex(_r1."relname", 'A', 'i'))`},
		{"SELECT 1 FROM pg_class WHERE relname ILIKE 'A%'", `lower(_r1."relname") LIKE lower('A%') ESCAPE '\'`},
		{"SELECT 1 FROM pg_class WHERE relkind = ANY ('{r,v}')", `json_each('["r","v"]')`},
		{"SELECT 1 FROM pg_class WHERE oid = 'pg_class'::regclass", `pgcat_regclass_in('pg_class')`},
		{"SELECT 1 FROM pg_class WHERE oid = '1259'", `= 1259`},
		{"SELECT relname COLLATE \"C\" FROM pg_class", `_r1."relname" AS c1`},
		{"SELECT relname FROM pg_class LIMIT 2 OFFSET 1", "LIMIT 2 OFFSET 1"},
		{"SELECT relname FROM pg_class OFFSET 1", "LIMIT -1 OFFSET 1"},
	} {
		rw, err := rewrite(c.sql)
		if err != nil {
			t.Errorf("%s: %v", c.sql, err)
			continue
		}
		if !strings.Contains(rw.SQL, c.want) {
			t.Errorf("%s:\n%s\nlacks %s", c.sql, rw.SQL, c.want)
		}
	}
}

func TestRewriteErrors(t *testing.T) {
	for _, c := range []struct{ sql, code, msg string }{
		{"SELECT * FROM users", "42P01", `relation "users" does not exist`},
		{"SELECT * FROM public.pg_class", "42P01", `relation "public.pg_class" does not exist`},
		{"SELECT * FROM information_schema.pg_class", "42P01", ""},
		{"SELECT nosuch FROM pg_class", "42703", `column "nosuch" does not exist`},
		{"SELECT c.nosuch FROM pg_class c", "42703", "column c.nosuch does not exist"},
		{"SELECT x.relname FROM pg_class c", "42P01", `missing FROM-clause entry for table "x"`},
		{"SELECT oid FROM pg_class, pg_type", "42702", `column reference "oid" is ambiguous`},
		{"SELECT nosuch_fn(1)", "42883", "function nosuch_fn does not exist"},
		{"SELECT pgcat_regex('a', 'b', '')", "42883", ""},
		{"SELECT public.lower('a')", "42883", ""},

		{"SELECT * FROM pg_class c, LATERAL (SELECT c.oid) x", "0A000", "LATERAL"},
		{"SELECT * FROM pg_class FOR UPDATE", "0A000", ""},
		{"INSERT INTO pg_class VALUES (1)", "0A000", "statements other than SELECT"},
		{"SELECT 1; SELECT 2", "42601", ""},
		{"SELEC 1", "42601", ""},
		{"SELECT 'x'::int", "22P02", `invalid input syntax for type integer: "x"`},
		{"SELECT 1 ORDER BY 2", "42P10", ""},
		{"SELECT relnatts / 0 FROM pg_class", "22012", "division by zero"},
		{"SELECT 1 = ANY(" + strings.Repeat("ARRAY[(SELECT 1 = ANY(", 20) + "ARRAY[1]" + strings.Repeat(")::int)]", 20) + ")", "54001", "too complex"},
		{"SELECT relnatts::numeric(10, 2) FROM pg_class", "0A000", "type modifier"},
		{"SELECT relkind FROM pg_class GROUP BY DISTINCT relkind", "0A000", "GROUP BY DISTINCT"},
		{"SELECT row_number() OVER w FROM pg_class", "42704", `window "w" does not exist`},
		{"SELECT (coalesce(conkey, indkey::int2[]))[1] FROM pg_index, pg_constraint", "0A000", "lower bound varies"},
		{"SELECT unnest(array_agg(relname)) FROM pg_class", "0A000", "beside aggregates"},
		{"SELECT count(*), unnest(ARRAY[1, 2]) FROM pg_class", "0A000", "beside aggregates"},
		{"SELECT row_number() OVER (), unnest(ARRAY[1, 2])", "0A000", "window functions"},
		{"SELECT sum(relnatts) OVER (ORDER BY relname ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM pg_class", "0A000", "window frames"},
		{"SELECT relkind, unnest(ARRAY[1]) FROM pg_class GROUP BY relkind", "0A000", "grouped"},
	} {
		_, err := rewrite(c.sql)
		var pe *Error
		if !errors.As(err, &pe) {
			t.Errorf("%s: %v, want SQLSTATE %s", c.sql, err, c.code)
			continue
		}
		if pe.Code != c.code || !strings.Contains(pe.Message, c.msg) {
			t.Errorf("%s: %s %q, want %s %q", c.sql, pe.Code, pe.Message, c.code, c.msg)
		}
	}
}

func TestWants(t *testing.T) {
	for _, c := range []struct {
		sql  string
		want bool
	}{
		{"SELECT relname FROM pg_class", true},
		{"SELECT * FROM pg_catalog.pg_namespace n JOIN pg_class c ON c.relnamespace = n.oid", true},
		{"SELECT table_name FROM information_schema.tables", true},
		{"SELECT current_schema()", true},
		{"SELECT version()", true},
		{"SELECT current_setting('server_version')", true},
		{"SELECT pg_catalog.format_type(23, -1)", true},
		{"SELECT current_user", true},
		{"SELECT 'users'::regclass", true},
		{"WITH t AS (SELECT oid FROM pg_class) SELECT * FROM t", true},
		{"SELECT * FROM unnest(ARRAY[1]) u, pg_class", true},
		{"SELECT 1", false},
		{"SELECT lower('A')", false},
		{"SELECT count(*) FROM (VALUES (1)) v", false},
		{"SELECT * FROM users", false},
		{"SELECT * FROM pg_class, users", false},
		{"SELECT * FROM public.pg_class", false},
		{"SELECT * FROM pg_stat_statements", false},
		{"SELECT relname, myfunc(oid) FROM pg_class", false},
		{"SELECT now() FROM pg_class", false},
		{"SELECT current_timestamp, version()", false},
		{"INSERT INTO t SELECT * FROM pg_class", false},
		{"SELECT 1; SELECT relname FROM pg_class", false},
		{"WITH users AS (SELECT 1) SELECT * FROM users", false},
		{"SELECT * INTO t FROM pg_class", false},
		{"WITH d AS (DELETE FROM pg_class RETURNING oid) SELECT * FROM d", false},
		{"SELECT * FROM pg_class FOR UPDATE", false},
	} {
		if got := Wants(c.sql); got != c.want {
			t.Errorf("Wants(%q) = %v, want %v", c.sql, got, c.want)
		}
	}
}

func TestRewriteRecoversPanics(t *testing.T) {
	// An ARRAY[] of a malformed literal panics in coerce: the refusal
	// carries the literal's error.
	_, err := rewrite("SELECT 1 FROM pg_class WHERE relnatts = ANY ('{1,x}')")
	var pe *Error
	if !errors.As(err, &pe) || pe.Code != "22P02" {
		t.Fatalf("got %v, want 22P02", err)
	}
}

// TestRewriteNeverPanics: every prefix of every corpus text, and of the
// tests' own texts, rewrites or is an *Error (a panic in the walk is a
// refusal, never a crash).
func TestRewriteNeverPanics(t *testing.T) {
	var texts []string
	for _, e := range loadClientCorpus(t) {
		texts = append(texts, e.SQL)
	}
	texts = append(texts, pgComparedRewrites...)
	for _, sql := range texts {
		for cut := len(sql); cut > 0; cut -= 1 + len(sql)/40 {
			_, err := rewrite(sql[:cut])
			var pe *Error
			if err != nil && !errors.As(err, &pe) {
				t.Errorf("%q: %v is not an *Error", sql[:cut], err)
			}
		}
	}
}

// TestRewriteAliasesAreSQLites: PostgreSQL's aliases are case-sensitive
// and may be any name, the rewriting's own (_e, _s …) included; the
// SQLite text names every FROM item itself.
func TestRewriteAliasesAreSQLites(t *testing.T) {
	e := mustEngine(t)
	for _, c := range []struct{ sql, want string }{
		{`SELECT "a".relname, "A".relname FROM pg_class "a" JOIN pg_class "A" ON "A".oid = "a".oid WHERE "a".relname = 'books'`, "s:books s:books"},
		{`SELECT _e.relname FROM pg_class _e WHERE _e.relname = ANY('{books}')`, "s:books"},
		{`WITH "W" AS (SELECT 1 AS x), w AS (SELECT 2 AS x) SELECT "W".x, w.x FROM "W", w`, "i:1 i:2"},
	} {
		res, err := e.Query(context.Background(), c.sql, nil)
		if err != nil {
			t.Errorf("%s: %v", c.sql, err)
			continue
		}
		if got := rowsText(res.Rows); got != c.want {
			t.Errorf("%s: got %s, want %s", c.sql, got, c.want)
		}
	}
}
