package pgruntime_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// fixture is the schema and rows every execution case starts from.
var fixture = []string{
	"CREATE TABLE acct (id int8 PRIMARY KEY, name text NOT NULL, code varchar(4), bal int4, small int2, rate float8, ok bool, born date, at timestamptz, ts timestamp, data bytea, doc json)",
	"INSERT INTO acct VALUES (1, 'alice', 'AB', 100, 1, 1.5, true, '2000-01-31', '2026-01-02 03:04:05+00', '2026-01-02 03:04:05', '\\x0102', '{\"a\": 1}')",
	"INSERT INTO acct VALUES (2, 'Bob', NULL, -5, 2, NULL, false, NULL, '2026-01-02 03:04:05.25+01', NULL, NULL, '[1, 2]')",
	"INSERT INTO acct VALUES (3, 'carol', 'c_d', NULL, NULL, 0.25, NULL, '1999-12-31', NULL, '2026-06-01 00:00:00', '\\x', NULL)",
	"CREATE TABLE tag (acct int8 REFERENCES acct (id), label text, UNIQUE (acct, label))",
	"INSERT INTO tag VALUES (1, 'x'), (1, 'y'), (2, 'x')",
}

// execCases are statements with PostgreSQL's result: rows as
// "a|b;c|d" in PostgreSQL's text output, or "ERR <SQLSTATE>".
var execCases = []struct{ sql, want string }{
	{"SELECT id, name FROM acct ORDER BY id", "1|alice;2|Bob;3|carol"},
	{"SELECT name FROM acct ORDER BY name", "Bob;alice;carol"},
	{"SELECT code FROM acct ORDER BY code", "AB;c_d;NULL"},
	{"SELECT code FROM acct ORDER BY code DESC", "NULL;c_d;AB"},
	{"SELECT bal FROM acct ORDER BY bal NULLS FIRST", "NULL;-5;100"},
	{"SELECT 7 / 2, -7 / 2, 7 % 3, -7 % 3", "3|-3|1|-1"},
	{"SELECT 2147483647 + 1", "ERR 22003"},
	{"SELECT 2147483647::int8 + 1", "2147483648"},
	{"SELECT 1 / 0", "ERR 22012"},
	{"SELECT 1.0::float8 / 0", "ERR 22012"},
	{"SELECT bal / 0 FROM acct WHERE id = 2", "ERR 22012"},
	{"SELECT small * 20000::int2 FROM acct WHERE id = 2", "ERR 22003"},
	{"SELECT rate * 2 FROM acct WHERE id = 1", "3"},
	{"SELECT 'a' || NULL IS NULL, 'a' || 1 || 'b'", "t|a1b"},
	{"SELECT name FROM acct WHERE name LIKE 'b%'", ""},
	{"SELECT name FROM acct WHERE name ILIKE 'b%'", "Bob"},
	{"SELECT code FROM acct WHERE code LIKE 'c\\_d'", "c_d"},
	{"SELECT code FROM acct WHERE code LIKE 'c\\'", "ERR 22025"},
	{"SELECT lower('ÄBC'), upper('äbc')", "Äbc|äBC"},
	{"SELECT length('héllo'), substr('hello', 0, 2), substr('hello', -1, 3), substr('hello', 2)", "5|h|h|ello"},
	{"SELECT substr('hello', 1, -1)", "ERR 22011"},
	{"SELECT substr('hello', 1, -1) FROM acct WHERE false", "ERR 22011"},
	{"SELECT substr(name, 1, -1) FROM acct WHERE false", ""},
	{"SELECT count(*), count(bal), sum(bal), min(name), max(bal) FROM acct", "3|2|95|Bob|100"},
	{"SELECT sum(bal) FROM acct WHERE id > 10", "NULL"},
	{"SELECT bool_and(ok), bool_or(ok) FROM acct", "f|t"},
	{"SELECT ok, count(*) FROM acct GROUP BY ok ORDER BY ok", "f|1;t|1;NULL|1"},
	{"SELECT name, count(*) FROM acct GROUP BY ok", "ERR 42803"},
	{"SELECT name FROM acct WHERE id = '2'", "Bob"},
	{"SELECT name FROM acct WHERE id = 'x'", "ERR 22P02"},
	{"SELECT name FROM acct WHERE name = 1", "ERR 42883"},
	{"SELECT 'abc'::varchar(2), '12'::int4 + 1, '  t '::bool, 'yes'::bool", "ab|13|t|t"},
	{"SELECT '2026-01-02T03:04:05-01:30'::timestamptz, '2026-01-02'::timestamp, '2026-1-2'::date", "ERR 0A000"},
	{"SELECT '2026-01-02T03:04:05-01:30'::timestamptz, '2026-01-02'::timestamp", "2026-01-02 04:34:05+00|2026-01-02 00:00:00"},
	{"SELECT at FROM acct ORDER BY at", "2026-01-02 02:04:05.25+00;2026-01-02 03:04:05+00;NULL"},
	{"SELECT born::timestamptz, ts::date FROM acct WHERE id = 1", "2000-01-31 00:00:00+00|2026-01-02"},
	{"SELECT data, length(data) FROM acct ORDER BY id", "\\x0102|2;NULL|NULL;\\x|0"},
	{"SELECT doc FROM acct WHERE id = 1", "{\"a\": 1}"},
	{"SELECT doc FROM acct WHERE doc = doc", "ERR 42883"},
	{"SELECT CASE WHEN bal > 0 THEN 'pos' WHEN bal < 0 THEN 'neg' ELSE 'none' END FROM acct ORDER BY id", "pos;neg;none"},
	{"SELECT coalesce(bal, 0), nullif(small, 1) FROM acct ORDER BY id", "100|NULL;-5|2;0|NULL"},
	{"SELECT id FROM acct WHERE bal BETWEEN -10 AND 10", "2"},
	{"SELECT id FROM acct WHERE bal IS DISTINCT FROM 100 ORDER BY id", "2;3"},
	{"SELECT id FROM acct WHERE id IN (1, 3) ORDER BY 1", "1;3"},
	{"SELECT id FROM acct WHERE id NOT IN (SELECT acct FROM tag) ORDER BY id", "3"},
	{"SELECT id FROM acct a WHERE EXISTS (SELECT 1 FROM tag WHERE tag.acct = a.id AND label = 'y')", "1"},
	{"SELECT (SELECT count(*) FROM tag WHERE acct = acct.id) AS n FROM acct ORDER BY id", "2;1;0"},
	{"SELECT a.name, t.label FROM acct a LEFT JOIN tag t ON t.acct = a.id ORDER BY a.id, t.label", "alice|x;alice|y;Bob|x;carol|NULL"},
	{"SELECT id FROM acct UNION SELECT acct FROM tag ORDER BY 1", "1;2;3"},
	{"SELECT acct FROM tag UNION ALL SELECT acct FROM tag ORDER BY 1 LIMIT 3", "1;1;1"},
	{"SELECT id FROM acct EXCEPT SELECT acct FROM tag", "3"},
	{"SELECT id FROM acct ORDER BY id LIMIT 1 OFFSET 1", "2"},
	{"SELECT id FROM acct ORDER BY id LIMIT -1", "ERR 2201W"},
	{"SELECT DISTINCT ok FROM acct ORDER BY ok", "f;t;NULL"},
	{"SELECT * FROM generate_series(1, 3)", "1;2;3"},
	{"SELECT g FROM generate_series(10, 1, -4) g", "10;6;2"},
	{"SELECT x FROM generate_series(1, 0) AS s(x)", ""},
	{"SELECT * FROM generate_series(1, 3, 0)", "ERR 22023"},
	{"SELECT abs(-3), abs(small) FROM acct WHERE id = 2", "3|2"},
	{"SELECT abs(-2147483647 - 1)", "ERR 22003"},
	{"SELECT concat('a', NULL, 2, 'b'), replace('abcabc', 'b', 'X'), trim('  x  '), ltrim('xxa', 'x')", "a2b|aXcaXc|x|a"},
	{"SELECT true AND NULL, false AND NULL, NOT true", "NULL|f|f"},
	{"SELECT name FROM acct WHERE bal", "ERR 42804"},
	{"SELECT id FROM acct WHERE ok IS NOT TRUE ORDER BY id", "2;3"},
	{"SELECT 3000000000, 3000000000 * 4", "3000000000|12000000000"},
	{"SELECT 9223372036854775807 + 1", "ERR 22003"},
	{"SELECT 1e400::float8", "ERR 22003"},
	{"SELECT rate::int4 FROM acct ORDER BY id", "2;NULL;0"},
	{"SELECT 2.5::int4, 3.5::int4, (-2.5)::int4", "3|4|-3"},
	{"SELECT 2.5::float8::int4, 3.5::float8::int4", "2|4"},
	{"SELECT id::text || name FROM acct WHERE id = 1", "1alice"},
	{"SELECT ok::text, ok::int4 FROM acct ORDER BY id", "true|1;false|0;NULL|NULL"},
	{"SELECT 1 = 1.5::float8, 1::float4 + 1", "f|2"},
	{"SELECT nosuch FROM acct", "ERR 42703"},
	{"SELECT a.id, t.label FROM tag t RIGHT JOIN acct a ON a.id = t.acct AND t.label = 'x' ORDER BY 1, 2", "1|x;2|x;3|NULL"},
	{"SELECT a.id, t.acct FROM acct a FULL JOIN tag t ON a.id = t.acct + 1 ORDER BY 1 NULLS FIRST, 2", "1|NULL;2|1;2|1;3|2"},
	{"SELECT s.n, s.k FROM (SELECT id AS n, name AS k FROM acct WHERE id > 1) s ORDER BY s.n DESC", "3|carol;2|Bob"},
	{"SELECT ok AS flag, count(*) AS c FROM acct GROUP BY flag HAVING count(*) >= 1 ORDER BY c, flag", "f|1;t|1;NULL|1"},
	{"SELECT bal % 7, count(*) FROM acct GROUP BY 1 ORDER BY 1", "-5|1;2|1;NULL|1"},
	{"SELECT DISTINCT small FROM acct ORDER BY small DESC", "NULL;2;1"},
	{"SELECT id FROM acct ORDER BY id OFFSET 2", "3"},
	{"SELECT id FROM acct WHERE bal IN (100, NULL)", "1"},
	{"SELECT id FROM acct WHERE bal NOT IN (100, NULL)", ""},
	{"SELECT id FROM acct WHERE rate BETWEEN 0 AND 1", "3"},
	{"SELECT id FROM acct WHERE 1 BETWEEN 0.5::float8 AND id ORDER BY 1", "1;2;3"},
	{"SELECT name FROM acct ORDER BY upper(name) DESC", "carol;Bob;alice"},
	{"SELECT 'Äb' ILIKE 'äB', 'é' LIKE '_', '' LIKE '%', 'a%' LIKE 'a\\%', 'abc' NOT LIKE 'a%'", "f|t|t|t|f"},
	{`SELECT data FROM acct WHERE data > '\x01'::bytea ORDER BY data`, `\x0102`},
	{"SELECT 'at ' || born, born || '!' FROM acct WHERE id = 1", "at 2000-01-31|2000-01-31!"},
	{"SELECT count(DISTINCT ok), sum(DISTINCT small) FROM acct", "2|3"},
	{"SELECT max(at), min(born), max(ts) FROM acct", "2026-01-02 03:04:05+00|1999-12-31|2026-06-01 00:00:00"},
	{"SELECT name FROM acct WHERE at > '2026-01-02 03:00:00+01' ORDER BY 1", "Bob;alice"},
	{"SELECT id FROM acct WHERE at IS NULL OR ts IS NULL ORDER BY id", "2;3"},
	{"SELECT -small, small - 1, -rate FROM acct WHERE id = 1", "-1|0|-1.5"},
	{"SELECT 5 / 2.0::float8, 5::float4 / 2, 1e308::float8 * 10", "ERR 22003"},
	{"SELECT 5 / 2.0::float8, 5::float4 / 2", "2.5|2.5"},
	{"SELECT id, (SELECT count(*) FROM tag WHERE tag.acct = acct.id) FROM acct WHERE (SELECT count(*) FROM tag WHERE tag.acct = acct.id) > 0 ORDER BY 1", "1|2;2|1"},
	{"SELECT id FROM acct WHERE id = ANY (SELECT acct FROM tag) ORDER BY 1", "1;2"},
	{"SELECT t.* FROM tag t WHERE t.acct = 2", "2|x"},
	{"SELECT upper(label) AS l, count(*) FROM tag GROUP BY upper(label) ORDER BY l", "X|2;Y|1"},
	{"SELECT label, count(*) FROM tag GROUP BY 1 HAVING label > 'x'", "y|1"},
	{"SELECT acct FROM tag GROUP BY acct HAVING bool_or(label = 'y')", "1"},
	{"SELECT (SELECT acct FROM tag WHERE label = 'x')", "ERR 21000"},
	{"SELECT (SELECT acct FROM tag WHERE label = 'y'), (SELECT acct FROM tag WHERE label = 'z')", "1|NULL"},
	{"SELECT id, (SELECT max(label) FROM tag WHERE acct = a.id) FROM acct a ORDER BY id", "1|y;2|x;3|NULL"},
	{"SELECT 0.1::float4, 1e-5::float4 * 1", "0.1|9.999999747378752e-06"},
	{"SELECT true, false, NULL::bool, true::int4", "t|f|NULL|1"},
	{"SELECT sum(bal ORDER BY bal) FROM acct", "95"},
	{"SELECT coalesce('2024-01-01 00:00:00+05'::timestamptz, '2024-03-01'::date)", "2023-12-31 19:00:00+00"},
	{"SELECT NULL UNION SELECT 1 ORDER BY 1", "1;NULL"},
	{"SELECT 't' AS v UNION SELECT ok FROM acct ORDER BY 1", "f;t;NULL"},
	{"SELECT code FROM acct EXCEPT SELECT 'AB' ORDER BY 1", "c_d;NULL"},
	{"SELECT 1 UNION SELECT 'a'", "ERR 22P02"},
	{"SELECT ((3 % NULL) % abs(NULL))", "ERR 42883"},
	{"SELECT CASE WHEN (32767 IN (7, -5)) THEN (9223372036854775807 - -2147483648) ELSE length(name) END FROM acct WHERE id = 1", "5"},
	{"SELECT 1 IN (2, NULL), 1 NOT IN (2, NULL), 1 IN (1, NULL), 1 NOT IN (2, 3)", "NULL|NULL|t|t"},
	{"SELECT 1e-5::float4 IN (1e-5, NULL), 1e-5::float4 = 1e-5", "t|f"},
	{"SELECT abs(NULL) % NULL", "ERR 42883"},
	{"SELECT (2147483647 - -2147483648) IS DISTINCT FROM CASE WHEN 't' THEN NULL ELSE NULL END", "ERR 42883"},
	{"SELECT NULL - NULL", "ERR 42725"},
	{"SELECT greatest(bal, small, 3), least(bal, small), greatest(NULL, rate, 1), least(name, code) FROM acct ORDER BY id", "100|1|1.5|AB;3|-5|1|Bob;3|NULL|1|c_d"},
	{"SELECT greatest(NULL, NULL), least(2)", "NULL|2"},
	{"SELECT mod(7, 3), mod(-7, 3), ceil(rate), floor(-rate), round(rate), round(2.5::float8), round(-0.5::float8 * 3) FROM acct WHERE id = 1", "1|-1|2|-2|2|2|-2"},
	{"SELECT left(name, 2), right(name, 2), left(name, -1), right(name, -10), left('héllo', 2) FROM acct WHERE id = 1", "al|ce|alic||hé"},
	{"SELECT mod(1, 0)", "ERR 22012"},
	{"SELECT id, name FROM acct ORDER BY 1 + 1, id DESC", "3|carol;2|Bob;1|alice"},
	{"SELECT count(*) FROM acct GROUP BY 1 + 1", "3"},
	{"SELECT DISTINCT ON (1 + 1) id FROM acct ORDER BY 1 + 1, id", "1"},
	{"SELECT abs(small) || lower(NULL) FROM acct", "NULL;NULL;NULL"},
	{"SELECT * FROM (VALUES (1, 'a'), (2, NULL), (3, 'c')) AS v(id, name) WHERE id > 1 ORDER BY id", "2|NULL;3|c"},
	{"SELECT v.column1 + 1, column2 FROM (VALUES (1, 2.5::float8), (2, 1)) v ORDER BY 1", "2|2.5;3|1"},
	{"VALUES (1, 'x'), (2, 'y')", "1|x;2|y"},
	{"SELECT n FROM (SELECT id, name FROM acct) AS a(n) ORDER BY n", "1;2;3"},
	{"VALUES (1), (2, 3)", "ERR 42601"},
	{"SELECT * FROM (SELECT id, name FROM acct) a JOIN (SELECT acct AS id, label FROM tag) t USING (id) ORDER BY id, label", "1|alice|x;1|alice|y;2|Bob|x"},
	{"SELECT id, a.id, t.id FROM (SELECT id FROM acct) a FULL JOIN (SELECT acct + 1 AS id FROM tag) t USING (id) ORDER BY 1, 2, 3", "1|1|NULL;2|2|2;2|2|2;3|3|3"},
	{"SELECT id FROM (SELECT id FROM acct) a RIGHT JOIN (SELECT acct + 2 AS id FROM tag) t USING (id) ORDER BY 1", "3;3;4"},
	{"SELECT count(*) FROM (SELECT id FROM acct) a JOIN (SELECT id FROM acct) b USING (id) JOIN (SELECT id FROM acct) c USING (id)", "3"},
	{"SELECT * FROM (SELECT id FROM acct) a JOIN (SELECT label FROM tag) t USING (id)", "ERR 42703"},
	{"SELECT * FROM (SELECT id, name FROM acct) a NATURAL LEFT JOIN (SELECT acct AS id, label FROM tag) t ORDER BY id, label", "1|alice|x;1|alice|y;2|Bob|x;3|carol|NULL"},
	{"SELECT count(*) FROM (SELECT id FROM acct) a NATURAL JOIN (SELECT label FROM tag) t", "9"},
	// Column typmods are those of PostgreSQL's Describe (parse analysis): a CASE of varchar(4) and
	// an untyped literal is varchar without typmod, though a simple query's RowDescription (after
	// planning folds the CASE to its branch) says varchar(4) (difftest D30).
	{"SELECT CASE WHEN true THEN code ELSE 'a%b' END, CASE WHEN false THEN NULL ELSE CASE WHEN TRUE THEN code ELSE code END END FROM acct WHERE id = 1", "AB|AB"},
	{"SELECT DISTINCT ON (acct) acct, label FROM tag ORDER BY acct, label DESC", "1|y;2|x"},
	{"SELECT DISTINCT ON (ok) ok, name FROM acct ORDER BY ok DESC, name LIMIT 2", "NULL|carol;t|alice"},
	{"SELECT DISTINCT ON (2) id, label FROM tag t JOIN acct a ON a.id = t.acct ORDER BY 2, 1 DESC", "2|x;1|y"},
	{"SELECT string_agg(name, ', ' ORDER BY name), string_agg(code, '' ORDER BY code DESC), string_agg(label, '-' ORDER BY label) FROM acct, tag WHERE acct.id = tag.acct", "Bob, alice, alice|ABAB|x-x-y"},
	{"SELECT acct, string_agg(label, ',' ORDER BY label DESC) FROM tag GROUP BY acct ORDER BY 1", "1|y,x;2|x"},
	{"SELECT string_agg(name, ',') FROM acct WHERE false", "NULL"},
	{"SELECT position('ro' in 'carol'), strpos(name, 'o'), position('' in name), strpos(name, NULL) FROM acct ORDER BY id", "3|0|1|NULL;3|2|1|NULL;3|4|1|NULL"},
	{"SELECT CASE WHEN true THEN code ELSE lower(code) END, CASE WHEN true THEN lower(code) ELSE code END FROM acct WHERE id = 1", "AB|ab"},
	{"SELECT x IN (1e-5, 3.0), x IN (1e-5::float8, 3.0) FROM (SELECT 1e-5::float4 AS x) s", "t|f"},
	{"SELECT date_trunc('hour', at), date_trunc('day', ts), date_trunc('month', born), date_trunc('week', ts) FROM acct ORDER BY id", "2026-01-02 03:00:00+00|2026-01-02 00:00:00|2000-01-01 00:00:00+00|2025-12-29 00:00:00;2026-01-02 02:00:00+00|NULL|NULL|NULL;NULL|2026-06-01 00:00:00|1999-12-01 00:00:00+00|2026-06-01 00:00:00"},
	{"SELECT date_trunc('quarter', '2026-08-17 10:11:12.345678'::timestamp), date_trunc('milliseconds', '2026-08-17 10:11:12.345678'::timestamp), date_trunc('century', '2001-01-01'::timestamp), date_trunc('decade', '2019-05-05'::timestamp), date_trunc('millennium', '2000-12-31'::timestamp)", "2026-07-01 00:00:00|2026-08-17 10:11:12.345|2001-01-01 00:00:00|2010-01-01 00:00:00|1001-01-01 00:00:00"},
	{"SELECT date_trunc('fortnight', ts) FROM acct", "ERR 22023"},
	{"SELECT id FROM acct WHERE at > born ORDER BY id", "1"},
	{"SELECT id FROM acct WHERE ts >= '2026-01-02'::date AND ts < at ORDER BY id", ""},
	{"SELECT id FROM acct WHERE ts > at OR born < ts ORDER BY id", "1;3"},
	{"SELECT '2026-01-02'::date = '2026-01-02 00:00:00+00'::timestamptz, '2026-01-02 00:00:00'::timestamp < '2026-01-02 00:00:01+00'::timestamptz", "t|t"},
	{"SELECT x + (x + x), (x + x) * x FROM (SELECT 1e10::float4 AS x) s", "3.0000001e+10|2e+20"},
	{"SELECT COALESCE('abcdefg', code) FROM acct WHERE id = 1", "abcdefg"},
	{"WITH big AS (SELECT id, bal FROM acct WHERE bal > 0), n (k) AS (SELECT count(*) FROM big) SELECT b.id, n.k FROM big b, n", "1|1"},
	{"WITH q AS (SELECT 1 AS x) SELECT x FROM q UNION ALL SELECT x + 1 FROM q ORDER BY 1", "1;2"},
	{"SELECT (WITH q AS (SELECT max(id) AS m FROM acct) SELECT m FROM q), 2", "3|2"},
	{"WITH acct AS (SELECT 7 AS id) SELECT id FROM acct", "7"},
	{"SELECT * FROM (WITH q AS (SELECT label FROM tag) SELECT label FROM q WHERE label = 'y') s", "y"},
	{"WITH q AS (SELECT 1), q AS (SELECT 2) SELECT 1", "ERR 42712"},
	{"SELECT count(*) FILTER (WHERE bal > 0), sum(bal) FILTER (WHERE ok), max(name) FILTER (WHERE id > 1), count(DISTINCT ok) FILTER (WHERE id < 3) FROM acct", "1|100|carol|2"},
	{"SELECT count(*) FILTER (WHERE count(*) > 1) FROM acct", "ERR 42803"},
	{"SELECT CASE WHEN id = 99 THEN 'abcdefg' ELSE code END FROM acct ORDER BY id", "AB;NULL;c_d"},
	{"SELECT CAST(4000000000 AS int4) EXCEPT SELECT NULLIF(NULL, NULL)", "ERR 42804"},
	{"SELECT 1 / 0, nosuch FROM acct", "ERR 42703"},
	{"SELECT code AS v FROM acct UNION SELECT trim(name) FROM acct ORDER BY 1", "AB;Bob;alice;c_d;carol;NULL"},
	{"SELECT coalesce(code, name), coalesce(name, code) FROM acct WHERE id = 2", "Bob|Bob"},
	{"SELECT NULLIF(NULL, -small) FROM acct", "NULL;NULL;NULL"},
	{"SELECT abs(NULLIF(-2147483648, 4000000000)) FROM acct WHERE false", "ERR 22003"},
	{"SELECT (length('9') - -2147483648) FROM acct WHERE false", "ERR 22003"},
	{"SELECT id FROM acct WHERE (bal / 0) IN (SELECT acct FROM tag WHERE false)", ""},
	{"SELECT id FROM acct WHERE (bal / 0) NOT IN (SELECT acct FROM tag WHERE false) ORDER BY 1", "1;2;3"},
	{"SELECT id FROM acct WHERE bal NOT IN (SELECT acct FROM tag) ORDER BY 1", "1;2"},
	{"SELECT born + 1, 30 + born, born - 31, born - '1999-01-01'::date, '2024-02-28'::date + 1 FROM acct WHERE id = 1", "2000-02-01|2000-03-01|1999-12-31|395|2024-02-29"},
	{"SELECT born + 1 FROM acct ORDER BY id", "2000-02-01;NULL;2000-01-01"},
	{"SELECT '9999-12-31'::date + 1", "ERR 0A000"},
	{"SELECT octet_length('héllo'), octet_length(data), length(name) FROM acct WHERE id = 1", "6|2|5"},
	{"SELECT CAST(CASE WHEN true THEN name ELSE name END AS text), CASE WHEN ok THEN 1 ELSE 2 END::text FROM acct WHERE id = 1", "alice|1"},
	{"SELECT 2.5 AS v UNION SELECT rate FROM acct ORDER BY 1", "0.25;1.5;2.5;NULL"},
	{"SELECT 3.0 INTERSECT SELECT 3.00", "3.0"},
	{"SELECT CAST(CASE WHEN NULL THEN 0 ELSE 10 END AS text), CASE WHEN true THEN 'a' ELSE upper('b') END, CASE WHEN ok THEN 1 ELSE bal END FROM acct WHERE id = 1", "10|a|1"},
	{"SELECT NULL UNION SELECT NULL", "NULL"},
	{"SELECT 'x' UNION SELECT 'y' UNION SELECT 2 ORDER BY 1", "ERR 42804"},
	{"SELECT 1 UNION SELECT '2' UNION SELECT 2 ORDER BY 1", "1;2"},
	{"SELECT (-2147483648) / -1", "ERR 22003"},
	{"SELECT NULL / (bal / 0) FROM acct", "NULL;NULL;NULL"},
	{"SELECT 1 FROM acct WHERE 1 / 0 = 1 AND false", "ERR 22012"},
	{"SELECT CASE WHEN id > 100 THEN 1 / 0 ELSE 1 END FROM acct WHERE false", "ERR 22012"},
	{"SELECT CASE WHEN false THEN 1 / 0 ELSE 1 END, CASE WHEN true THEN 2 ELSE 1 / 0 END", "1|2"},
	{"SELECT coalesce(1, 1 / 0), coalesce(NULL, 2, 1 / 0)", "1|2"},
	{"SELECT CASE WHEN true THEN 1 END, 1 / 0", "ERR 22012"},
	{"SELECT DISTINCT abs(COALESCE(-2147483648, 10)) FROM acct WHERE false", "ERR 22003"},
	{"SELECT CASE WHEN (TRUE OR false) THEN NULL ELSE (-2147483648 * 100) END", "NULL"},
	{"SELECT CASE WHEN false THEN CAST(1e10 AS int4) ELSE 1 END", "1"},
	{"SELECT CASE WHEN 1 = 2 THEN 1 / 0 ELSE 3 END, CASE WHEN 'a' < 'b' THEN 4 ELSE 1 / 0 END", "3|4"},
	{"SELECT id FROM acct WHERE NOT (1 = 1) OR id = 2", "2"},
	{"SELECT CAST(CASE WHEN TRUE THEN 4000000000 ELSE NULL END AS text)", "4000000000"},
	{"SELECT 32767::int2 + 1::int2", "ERR 22003"},
	{"SELECT '-32767'::int4::text::varchar(5)", "-3276"},
	{"SELECT 1 FROM nosuch", "ERR 42P01"},
	{"SELECT label FROM tag t1, tag t2", "ERR 42702"},
	{"SELECT label FROM tag, tag", "ERR 42712"},
}

func TestExecution(t *testing.T) {
	d := mustOpen(t)
	for _, s := range fixture {
		d.mustRun(s)
	}
	for _, c := range execCases {
		if got := pgText(d.run(c.sql)); got != c.want {
			t.Errorf("%s\n got %s\nwant %s", c.sql, got, c.want)
		}
	}
}

// TestExecutionOnPostgres checks execCases' expectations on PostgreSQL
// itself (when RELCHAIN_TEST_PG names a server): the table above is
// PostgreSQL's answer, not the dialect's guess. A 0A000 expectation is
// the dialect's refusal and is not compared.
func TestExecutionOnPostgres(t *testing.T) {
	dsn := os.Getenv("RELCHAIN_TEST_PG")
	if dsn == "" {
		t.Skip("RELCHAIN_TEST_PG is not set: no PostgreSQL server to compare with")
	}
	ctx := context.Background()
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.RuntimeParams["TimeZone"] = "UTC"
	cfg.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	mustPG(t, conn, "BEGIN")
	defer conn.Exec(ctx, "ROLLBACK")
	mustPG(t, conn, "CREATE SCHEMA pgtrans_exec; SET LOCAL search_path = pgtrans_exec")
	for _, s := range fixture {
		mustPG(t, conn, s)
	}
	for _, c := range execCases {
		if c.want == "ERR 0A000" {
			continue
		}
		if got := pgQuery(conn, c.sql); got != c.want {
			t.Errorf("PostgreSQL: %s\n got %s\nwant %s", c.sql, got, c.want)
		}
	}
}

func mustPG(t *testing.T, conn *pgx.Conn, sql string) {
	t.Helper()
	if _, err := conn.Exec(context.Background(), sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// pgQuery runs sql in a savepoint and renders its rows or SQLSTATE.
func pgQuery(conn *pgx.Conn, sql string) string {
	ctx := context.Background()
	conn.Exec(ctx, "SAVEPOINT q")
	defer conn.Exec(ctx, "RELEASE SAVEPOINT q")
	rows, err := conn.Query(ctx, sql)
	if err != nil {
		conn.Exec(ctx, "ROLLBACK TO SAVEPOINT q")
		return "ERR " + sqlState(err)
	}
	var out []string
	for rows.Next() {
		var vals []string
		for _, raw := range rows.RawValues() {
			if raw == nil {
				vals = append(vals, "NULL")
			} else {
				vals = append(vals, string(raw))
			}
		}
		out = append(out, strings.Join(vals, "|"))
	}
	if err := rows.Err(); err != nil {
		conn.Exec(ctx, "ROLLBACK TO SAVEPOINT q")
		return "ERR " + sqlState(err)
	}
	return strings.Join(out, ";")
}

func sqlState(err error) string {
	var code interface{ SQLState() string }
	if e, ok := err.(interface{ SQLState() string }); ok {
		code = e
		return code.SQLState()
	}
	return err.Error()
}

// pgText renders a dialect result as PostgreSQL's text output.
func pgText(r result) string {
	if r.code != "" {
		return "ERR " + r.code
	}
	var rows []string
	for _, row := range r.rows {
		var vals []string
		for _, v := range row {
			vals = append(vals, pgValueText(v))
		}
		rows = append(rows, strings.Join(vals, "|"))
	}
	return strings.Join(rows, ";")
}

func pgValueText(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case bool:
		return map[bool]string{true: "t", false: "f"}[x]
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case []byte:
		return fmt.Sprintf("\\x%x", x)
	}
	return fmt.Sprint(v)
}
