package pgdialect

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// staticCatalog is a fixed schema for unit tests of the translation.
type staticCatalog map[string][]Column

func (c staticCatalog) Columns(table string) ([]Column, bool) {
	cols, ok := c[table]
	return cols, ok
}

func (c staticCatalog) ReferencedBy(table string) []string {
	if table == "parent" {
		return []string{"child"}
	}
	return nil
}

func col(name, typ string, typmod int32) Column {
	return Column{Name: name, Type: Type{Name: typ, Typmod: typmod}}
}

var testCatalog = staticCatalog{
	"t":      {col("id", "int8", -1), col("name", "varchar", 14), col("n", "int4", -1), col("f", "float8", -1), col("b", "bool", -1), col("at", "timestamptz", -1)},
	"parent": {col("id", "int4", -1)},
	"child":  {col("id", "int4", -1), col("parent", "int4", -1)},
	"Mixed":  {col("X", "text", -1)},
}

// TestTranslateText pins the SQLite text of key translations: a change
// here is a change of the translation's rules (a new Version).
func TestTranslateText(t *testing.T) {
	cases := []struct{ pg, sqlite string }{
		{"SELECT id, name FROM t WHERE id = 1 ORDER BY name",
			`SELECT "t"."id" AS "id", "t"."name" AS "name" FROM "t" AS "t" WHERE ("t"."id" = 1) ORDER BY 2 ASC NULLS LAST`},
		{"SELECT id FROM t ORDER BY name",
			`SELECT "t"."id" AS "id" FROM "t" AS "t" ORDER BY "t"."name" ASC NULLS LAST`},
		{"SELECT n + 1 AS m FROM t ORDER BY 1 DESC",
			`SELECT pg_int_add("t"."n", 1, 32) AS "m" FROM "t" AS "t" ORDER BY 1 DESC NULLS FIRST`},
		{"SELECT count(*) FROM t WHERE name LIKE 'a%'",
			`SELECT count(*) AS "count" FROM "t" AS "t" WHERE pg_like("t"."name", 'a%', 0)`},
		{"SELECT * FROM t x WHERE x.at > '2026-01-01'",
			`SELECT "x"."id" AS "id", "x"."name" AS "name", "x"."n" AS "n", "x"."f" AS "f", "x"."b" AS "b", "x"."at" AS "at" FROM "t" AS "x" WHERE ("x"."at" > '2026-01-01 00:00:00+00')`},
		{"SELECT f FROM t WHERE n < f",
			`SELECT "t"."f" AS "f" FROM "t" AS "t" WHERE (CAST("t"."n" AS REAL) < "t"."f")`},
		{"INSERT INTO t (id, name) VALUES ($1, $2) RETURNING id",
			`INSERT INTO "t" ("id", "name") VALUES (pg_assign(?1, 'int8', 'int8', -1), pg_assign(?2, 'varchar', 'varchar', 14)) RETURNING "id" AS "id"`},
		{"UPDATE t SET n = n * 2, b = true WHERE id = $1",
			`UPDATE "t" SET "n" = pg_int_mul("t"."n", 2, 32), "b" = 1 WHERE ("t"."id" = ?1)`},
		{"DELETE FROM t WHERE b IS NOT TRUE",
			`DELETE FROM "t" WHERE ("t"."b" IS NOT TRUE)`},
		{"CREATE TABLE u (id bigint PRIMARY KEY, s varchar(20) NOT NULL DEFAULT 'x', j json, d date) WITH (fillfactor=70)",
			`CREATE TABLE "u" ("id" int8 PRIMARY KEY NOT NULL, "s" varchar(20) DEFAULT ('x') NOT NULL, "j" json text, "d" date text)`},
		{"SELECT id FROM t LIMIT 10 OFFSET 5",
			`SELECT "t"."id" AS "id" FROM "t" AS "t" LIMIT 10 OFFSET 5`},
		{"CREATE TABLE u (id serial PRIMARY KEY, v text)",
			`CREATE TABLE "u" ("id" int4 serial u_id_seq PRIMARY KEY NOT NULL, "v" text); ` +
				`CREATE TABLE "u_id_seq" ("last_value" int8 sequence NOT NULL, "is_called" bool sequence NOT NULL); ` +
				`INSERT INTO "u_id_seq" ("last_value", "is_called") VALUES (1, 0)`},
		{`CREATE TABLE "U" (x serial)`,
			`CREATE TABLE "U" ("x" int4 serial x555f785f736571 NOT NULL); ` +
				`CREATE TABLE "U_x_seq" ("last_value" int8 sequence NOT NULL, "is_called" bool sequence NOT NULL); ` +
				`INSERT INTO "U_x_seq" ("last_value", "is_called") VALUES (1, 0)`},
		{`SELECT "X" FROM "Mixed"`,
			`SELECT "Mixed"."X" AS "X" FROM "Mixed" AS "Mixed"`},
		// Order-sensitive window functions: the window's order completed
		// by every FROM column (the tie-break); peer functions as written.
		{"SELECT row_number() OVER (PARTITION BY n ORDER BY b), rank() OVER w FROM parent p JOIN child c ON c.id = p.id, t WINDOW w AS (ORDER BY t.n)",
			`SELECT row_number() OVER (PARTITION BY "t"."n" ORDER BY "t"."b" ASC NULLS LAST, "p"."id" COLLATE BINARY, "c"."id" COLLATE BINARY, "c"."parent" COLLATE BINARY, "t"."id" COLLATE BINARY, "t"."name" COLLATE BINARY, "t"."n" COLLATE BINARY, "t"."f" COLLATE BINARY, "t"."b" COLLATE BINARY, "t"."at" COLLATE BINARY) AS "row_number", ` +
				`rank() OVER (ORDER BY "t"."n" ASC NULLS LAST) AS "rank" FROM ("parent" AS "p" JOIN "child" AS "c" ON ("c"."id" = "p"."id")), "t" AS "t"`},
		{"SELECT n, count(*), max(count(*)) OVER (ORDER BY n ROWS 1 PRECEDING) FROM t GROUP BY n",
			`SELECT "t"."n" AS "n", count(*) AS "count", max(count(*)) OVER (ORDER BY "t"."n" ASC NULLS LAST, "t"."n" COLLATE BINARY ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS "max" FROM "t" AS "t" GROUP BY "t"."n"`},
		{"WITH RECURSIVE r(k) AS (SELECT 1 UNION SELECT k + 1 FROM r WHERE k < 3) SELECT k FROM r",
			`WITH RECURSIVE "r" ("k") AS (SELECT 1 AS "?column?" UNION SELECT pg_int_add("r"."k", 1, 32) AS "?column?" FROM "r" AS "r" WHERE ("r"."k" < 3)) SELECT "r"."k" AS "k" FROM "r" AS "r"`},
	}
	for _, c := range cases {
		tr, err := Translate(c.pg, testCatalog)
		if err != nil {
			t.Errorf("%s: %v", c.pg, err)
			continue
		}
		if got := strings.Join(tr.Statements, "; "); got != c.sqlite {
			t.Errorf("%s\n got %s\nwant %s", c.pg, got, c.sqlite)
		}
	}
}

// TestTranslateRefuses: constructs outside v1 are refused with 0A000
// naming them, and PostgreSQL's own errors keep their SQLSTATE.
func TestTranslateRefuses(t *testing.T) {
	cases := []struct{ sql, code, mention string }{
		{"CREATE TABLE u (x numeric(3,5))", "0A000", "numeric scales"},
		{"SELECT 'NaN'::numeric", "0A000", "NaN"},
		{"ALTER TABLE t ADD COLUMN x serial", "0A000", "serial"},
		{"CREATE TABLE u (x int GENERATED ALWAYS AS IDENTITY)", "0A000", "IDENTITY"},
		{"CREATE TABLE u (x serial DEFAULT 1)", "42601", "default"},
		{"CREATE TABLE u (x int[][])", "0A000", "multi-dimensional arrays"},
		{"CREATE TABLE u (x numeric[])", "0A000", "arrays of numeric"},
		{"CREATE TABLE u (x interval)", "0A000", "interval"},
		{"SELECT avg(f) FROM t", "0A000", "avg(double precision)"},
		{"SELECT sum(f) FROM t", "0A000", "sum(double precision)"},
		{"WITH RECURSIVE q(n) AS (SELECT 1 UNION ALL SELECT n FROM q ORDER BY 1) SELECT * FROM q", "0A000", "ORDER BY in a recursive query"},
		{"SELECT last_value(1) OVER (ORDER BY 1 RANGE BETWEEN UNBOUNDED PRECEDING AND 1 FOLLOWING)", "0A000", "last_value over a RANGE or GROUPS frame"},
		{"SELECT id FROM t WHERE row_number() OVER (ORDER BY id) > 1", "42P20", "window functions are not allowed"},
		{"SELECT row_number() OVER (ORDER BY rank() OVER ()) FROM t", "42P20", "nested"},
		{"SELECT sum(row_number() OVER ()) FROM t", "42803", "window function"},
		{"SELECT count(DISTINCT n) OVER () FROM t", "0A000", "DISTINCT is not implemented for window functions"},
		{"SELECT sum(n) OVER w FROM t", "42704", `window "w" does not exist`},
		{"SELECT sum(n) OVER (w PARTITION BY id) FROM t WINDOW w AS (ORDER BY id)", "42P20", "cannot override PARTITION BY"},
		{"SELECT sum(n) OVER (w ORDER BY n) FROM t WINDOW w AS (ORDER BY id)", "42P20", "cannot override ORDER BY"},
		{"SELECT sum(n) OVER (w) FROM t WINDOW w AS (ORDER BY id ROWS 1 PRECEDING)", "42P20", "frame clause"},
		{"SELECT 1 FROM t WINDOW w AS (), w AS ()", "42P20", "already defined"},
		{"SELECT sum(n) OVER (GROUPS 1 PRECEDING) FROM t", "42P20", "GROUPS mode requires an ORDER BY"},
		{"SELECT sum(n) OVER (ORDER BY id, n RANGE 1 PRECEDING) FROM t", "42P20", "exactly one ORDER BY column"},
		{"SELECT sum(n) OVER (ORDER BY id ROWS -1 PRECEDING) FROM t", "22013", "negative"},
		{"SELECT sum(n) OVER (ORDER BY id ROWS n PRECEDING) FROM t", "0A000", "not a constant"},
		{"SELECT ntile(n) OVER (ORDER BY id) FROM t", "0A000", "not a constant"},
		{"SELECT lag('k') OVER () FROM t", "42804", "polymorphic"},
		{"SELECT lower(name) OVER () FROM t", "42809", "not a window function"},
		{"SELECT string_agg(name, ',') OVER () FROM t", "0A000", "string_agg"},
		{"SELECT n, row_number() OVER (ORDER BY n) FROM t GROUP BY 1", "0A000", "GROUP BY positions"},
		{"SELECT (VALUES (row_number() OVER ())) FROM t", "42P20", "not allowed"},
		{"SELECT row_number() OVER () FROM (SELECT id, id FROM t) s", "0A000", "two columns of the same name"},
		{"WITH RECURSIVE q(n) AS (SELECT 1 UNION ALL SELECT count(*) FROM q) SELECT * FROM q", "42P19", "aggregate functions"},
		{"WITH RECURSIVE q(n) AS (SELECT n FROM q UNION ALL SELECT 1) SELECT * FROM q", "42P19", "non-recursive term"},
		{"WITH RECURSIVE q(n) AS (SELECT 1 UNION ALL SELECT a.n FROM q a, q b) SELECT * FROM q", "42P19", "more than once"},
		{"WITH RECURSIVE q(n) AS (SELECT 1 UNION ALL SELECT id FROM parent WHERE id IN (SELECT n FROM q)) SELECT * FROM q", "42P19", "subquery"},
		{"WITH RECURSIVE q(n) AS (SELECT 1 INTERSECT SELECT n FROM q) SELECT * FROM q", "42P19", "does not have the form"},
		{"WITH RECURSIVE q(n) AS (SELECT 1 UNION ALL SELECT CAST(n AS int8) FROM q) SELECT * FROM q", "42804", "in non-recursive term but type bigint overall"},
		{"WITH RECURSIVE q(n) AS (SELECT 1 UNION ALL SELECT n FROM q LEFT JOIN parent ON true) SELECT * FROM q", "0A000", "outer join"},
		{"WITH q AS (DELETE FROM t RETURNING id) SELECT * FROM q", "0A000", "data-modifying"},
		{"SELECT DISTINCT ON (n) n, count(*) FROM t GROUP BY n ORDER BY n", "0A000", "DISTINCT ON"},
		{"SELECT DISTINCT ON (n) n, id FROM t ORDER BY id", "42P10", "DISTINCT ON"},
		{"SELECT md5(name) FROM t", "0A000", "md5"},
		{"SELECT n FROM t WHERE name ~ 'a'", "0A000", "~"},
		{"SELECT f::text FROM t", "0A000", "double precision"},
		{"DROP TABLE parent CASCADE", "0A000", "CASCADE"},
		{"DROP TABLE parent", "2BP01", "depend"},
		{"DROP TABLE parent, child", "", ""},
		{"SELECT name FROM t WHERE n = 'x'", "22P02", "integer"},
		{"SELECT name FROM t WHERE name = 1", "42883", "operator does not exist"},
		{"SELECT n, count(*) FROM t", "42803", "GROUP BY"},
		{"SELECT id FROM t WHERE n", "42804", "boolean"},
		{"SELECT x FROM t", "42703", "x"},
		{"SELECT 1 FROM nope", "42P01", "nope"},
		{"SELECT id FROM t WHERE $1 IS NULL", "42P18", "$1"},
		{"SELECT id FROM t WHERE id = $2", "42P18", "$1"},
		{`SELECT 1 FROM "mixed"`, "42P01", "mixed"},
		{"SELECT at FROM t WHERE at + 1 > at", "0A000", "date and time arithmetic"},
		{"SELECT 'now'::timestamptz", "22007", "clock"},
		{"SELECT 'epoch'::timestamptz", "0A000", "epoch"},
		{"CREATE SEQUENCE s", "0A000", "CreateSeqStmt"},
		{"UPDATE t SET n = 1 RETURNING (SELECT 1)", "0A000", "RETURNING"},
		{"CREATE TABLE u (a int CHECK (a > (SELECT 1)))", "0A000", "subquery"},
		{"CREATE TABLE u (a int CHECK (a))", "42804", "boolean"},
	}
	for _, c := range cases {
		_, err := Translate(c.sql, testCatalog)
		var pe *Error
		if c.code == "" {
			if err != nil {
				t.Errorf("%s: %v", c.sql, err)
			}
			continue
		}
		if !errors.As(err, &pe) || pe.Code != c.code || !strings.Contains(pe.Message, c.mention) {
			t.Errorf("%s: got %v, want %s mentioning %q", c.sql, err, c.code, c.mention)
		}
	}
}

// TestTranslateParamsAndColumns: placeholders are typed from their
// context, result columns named as PostgreSQL names them.
func TestTranslateParamsAndColumns(t *testing.T) {
	cases := []struct {
		sql    string
		params []Type
		cols   []ResultColumn
	}{
		{"SELECT $1", []Type{{"text", -1}}, []ResultColumn{{"?column?", Type{"text", -1}}}},
		{"SELECT $1 + 1", []Type{{"int4", -1}}, []ResultColumn{{"?column?", Type{"int4", -1}}}},
		{"SELECT name FROM t WHERE id = $2 AND n > $1", []Type{{"int4", -1}, {"int8", -1}}, []ResultColumn{{"name", Type{"varchar", 14}}}},
		{"SELECT count(n), sum(n), min(name), 1::int8, 'a'::text, true FROM t", nil, []ResultColumn{
			{"count", Type{"int8", -1}}, {"sum", Type{"int8", -1}}, {"min", Type{"text", -1}}, {"int8", Type{"int8", -1}},
			{"text", Type{"text", -1}}, {"?column?", Type{"bool", -1}}}},
		{"SELECT coalesce(n, 0), CASE WHEN b THEN 1 END, n::text, name AS \"Q\" FROM t", nil, []ResultColumn{
			{"coalesce", Type{"int4", -1}}, {"case", Type{"int4", -1}}, {"n", Type{"text", -1}}, {"Q", Type{"varchar", 14}}}},
		{"UPDATE t SET f = $1 RETURNING n AS x", []Type{{"float8", -1}}, []ResultColumn{{"x", Type{"int4", -1}}}},
		{"SELECT id FROM t WHERE CASE WHEN true THEN $1 ELSE $2 END NOT LIKE 'A%'", []Type{{"text", -1}, {"text", -1}}, []ResultColumn{{"id", Type{"int8", -1}}}},
		{"SELECT id FROM t WHERE n IN ($1, 4000000000)", []Type{{"int8", -1}}, []ResultColumn{{"id", Type{"int8", -1}}}},
		{"SELECT 3000000000, 1::int2 + 1::int2, n + f FROM t", nil, []ResultColumn{{"?column?", Type{"int8", -1}}, {"?column?", Type{"int2", -1}}, {"?column?", Type{"float8", -1}}}},
	}
	for _, c := range cases {
		tr, err := Translate(c.sql, testCatalog)
		if err != nil {
			t.Errorf("%s: %v", c.sql, err)
			continue
		}
		if !reflect.DeepEqual(tr.Params, c.params) || !reflect.DeepEqual(tr.Columns, c.cols) {
			t.Errorf("%s\n got params %v columns %v\nwant params %v columns %v", c.sql, tr.Params, tr.Columns, c.params, c.cols)
		}
	}
}

// TestTranslateDeterministic: the same text on the same schema gives the
// same translation, every time.
func TestTranslateDeterministic(t *testing.T) {
	sql := "SELECT t.n, count(*), max(name) FROM t JOIN child c ON c.id = t.n WHERE t.name ILIKE $1 GROUP BY t.n HAVING count(*) > 1 ORDER BY 2 DESC, 1 LIMIT $2"
	first, err := Translate(sql, testCatalog)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 50; i++ {
		again, err := Translate(sql, testCatalog)
		if err != nil || !reflect.DeepEqual(first, again) {
			t.Fatalf("translation %d differs: %v %+v vs %+v", i, err, again, first)
		}
	}
}

// TestDeclaredTypesRoundTrip: every supported type reads back from the
// declared type CREATE TABLE writes.
func TestDeclaredTypesRoundTrip(t *testing.T) {
	for name := range declared {
		typ := Type{Name: name, Typmod: -1}
		if name == "varchar" {
			typ.Typmod = 24
		}
		got, ok := ParseDeclaredType(DeclaredType(typ))
		if !ok || got != typ {
			t.Errorf("%s: declared %q reads back as %v %v", name, DeclaredType(typ), got, ok)
		}
	}
	for _, typ := range []Type{{Name: "numeric", Typmod: 10<<16 | 2 + 4}, {Name: "numeric", Typmod: 5<<16 + 4}, {Name: "bpchar", Typmod: 88 + 4}} {
		got, ok := ParseDeclaredType(DeclaredType(typ))
		if !ok || got != typ {
			t.Errorf("%v: declared %q reads back as %v %v", typ, DeclaredType(typ), got, ok)
		}
	}
	if _, ok := ParseDeclaredType("INTEGER"); ok {
		t.Error("a declared type the dialect did not write must not read back")
	}
}

// TestTranslateTypedParams: parameters the client typed keep their type,
// with PostgreSQL's errors when the context does not take it.
func TestTranslateTypedParams(t *testing.T) {
	int8 := Type{Name: "int8", Typmod: -1}
	tr, err := TranslateTyped("SELECT $1 + n FROM t", testCatalog, []Type{int8})
	if err != nil || tr.Columns[0].Type != int8 || tr.Params[0] != int8 {
		t.Errorf("$1 + int4 with an int8 argument: %v %+v", err, tr)
	}
	_, err = TranslateTyped("SELECT id FROM t WHERE name = $1", testCatalog, []Type{int8})
	if !errIs(err, "42883") {
		t.Errorf("text = int8 argument: %v, want 42883", err)
	}
	_, err = TranslateTyped("UPDATE t SET b = $1", testCatalog, []Type{int8})
	if !errIs(err, "42804") {
		t.Errorf("bool column = int8 argument: %v, want 42804", err)
	}
	tr, err = TranslateTyped("SELECT id FROM t WHERE name = $1 AND n = $2", testCatalog, []Type{{}, {Name: "unknown", Typmod: -1}})
	if err != nil || tr.Params[0].Name != "text" || tr.Params[1].Name != "int4" {
		t.Errorf("untyped arguments take the context's type: %v %+v", err, tr)
	}
}

// INSERT ... SELECT assigns by position: output columns that share a name
// (two ?column?) are named c1 ... cn by an empty first arm, and an
// untyped output column takes its target column's type, as on PostgreSQL.
func TestTranslateInsertSelectByPosition(t *testing.T) {
	tr, err := Translate("INSERT INTO t (id, name, n) SELECT id, 'a' || name, n % 2 FROM t", testCatalog)
	if err != nil {
		t.Fatalf("INSERT ... SELECT with two ?column? outputs: %v", err)
	}
	want := `SELECT NULL AS "c1", NULL AS "c2", NULL AS "c3" WHERE false UNION ALL SELECT * FROM (`
	if !strings.Contains(tr.Statements[0], want) {
		t.Errorf("translation %s\nholds no positional names (%s)", tr.Statements[0], want)
	}
	if _, err := Translate("INSERT INTO t (id, n) SELECT id, '5' FROM t", testCatalog); err != nil {
		t.Fatalf("INSERT ... SELECT of an untyped literal into int4 (PostgreSQL inserts 5): %v", err)
	}
}

// A text the pre-scan refuses (nesting no parser may see) is a verdict on
// the statement, an *Error of its own SQLSTATE, never an untyped error a
// block would take for a node fault.
func TestTranslateRefusesUnboundedTextAsAVerdict(t *testing.T) {
	deep := "SELECT " + strings.Repeat("(", 100000) + "1" + strings.Repeat(")", 100000)
	_, err := Translate(deep, testCatalog)
	var te *Error
	if !errors.As(err, &te) || te.Code != "54001" {
		t.Fatalf("Translate of 100,000 nested parentheses = %v (%T); want an *Error with SQLSTATE 54001", err, err)
	}
}

// panickingCatalog stands for any bug the walk may hit on a text no test
// has shown yet.
type panickingCatalog struct{}

func (panickingCatalog) Columns(string) ([]Column, bool) { panic("a bug in the walk") }

// A panic while translating is a refusal with a fixed message, never a
// crash of the validator that judged the client's text.
func TestTranslatePanicIsARefusal(t *testing.T) {
	_, err := Translate("SELECT id FROM t", panickingCatalog{})
	var te *Error
	if !errors.As(err, &te) || te.Code != "0A000" || !strings.Contains(te.Message, "refused") {
		t.Fatalf("Translate with a panicking walk = %v; want a 0A000 refusal", err)
	}
}
