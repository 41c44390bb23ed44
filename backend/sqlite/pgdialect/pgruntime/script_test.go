package pgruntime_test

import (
	"context"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/relchain/relchain/backend/sqlite/pgdialect"
	"github.com/relchain/relchain/backend/sqlite/pgdialect/pgruntime"
)

// script is a sequence of statements, each with PostgreSQL's result (as
// in execCases), run in order on one database.
var script = []struct{ sql, want string }{
	{"CREATE TABLE item (id int4 PRIMARY KEY, name varchar(3) NOT NULL, qty int2 DEFAULT 1, price float4, note text)", ""},
	{"CREATE TABLE IF NOT EXISTS item (id int4)", ""},
	{"CREATE TABLE item (id int4)", "ERR 42P07"},
	{"INSERT INTO item (id, name) VALUES (1, 'abc') RETURNING id, name, qty, price", "1|abc|1|NULL"},
	{"INSERT INTO item (id, name) VALUES (2, 'abcd')", "ERR 22001"},
	{"INSERT INTO item (id, name) VALUES (2, 'ab   ') RETURNING name || '|'", "ab |"},
	{"INSERT INTO item (id, name, qty) VALUES (3, 'x', 40000)", "ERR 22003"},
	{"INSERT INTO item (id, name, qty) VALUES (3, 'x', 2.5) RETURNING qty", "3"},
	{"INSERT INTO item (id, name, qty) VALUES (5, 'x', 2.5::float8) RETURNING qty", "2"},
	{"INSERT INTO item (id, name, note) VALUES (4, 'y', 12) RETURNING note", "12"},
	{"INSERT INTO item (id, name) VALUES (5, NULL)", "ERR 23502"},
	{"INSERT INTO item (id, name) VALUES (1, 'dup')", "ERR 23505"},
	{"INSERT INTO item (id, name) VALUES (1, 'dup') ON CONFLICT (id) DO NOTHING RETURNING id", ""},
	{"INSERT INTO item (id, name) VALUES (1, 'new') ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, qty = item.qty + 1 RETURNING id, name, qty", "1|new|2"},
	{"INSERT INTO item (id, name) VALUES (1, 'a'), (1, 'b') ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name", "ERR 21000"}, // PostgreSQL's: a key proposed twice
	{"INSERT INTO item (id, name) VALUES (1, 'zz') ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name WHERE item.qty > 5 RETURNING name", ""},
	{"INSERT INTO item (id, name) VALUES (1, 'new') ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name WHERE EXCLUDED.name <> item.name RETURNING name", ""},
	{"INSERT INTO item (id, name, price) SELECT id + 10, name, 0.5::float8 FROM item WHERE id < 3 RETURNING id, price", "11|0.5;12|0.5"},
	{"INSERT INTO item (id, name) SELECT 20, note FROM item WHERE id = 4 RETURNING name", "12"},
	{"INSERT INTO item (id, name) SELECT 21, id FROM item WHERE id = 4 RETURNING name", "4"},
	{"INSERT INTO item (id, qty, name) SELECT 23, name, 'n' FROM item WHERE id = 4", "ERR 42804"},
	{"INSERT INTO item (id, name) VALUES ('22', 'z') RETURNING id", "22"},
	{"INSERT INTO item VALUES (30, 'd', DEFAULT, DEFAULT, 'n') RETURNING qty, note", "1|n"},
	{"INSERT INTO item VALUES (31, 'e') RETURNING qty, name", "1|e"},
	{"INSERT INTO item VALUES (32, 'f', DEFAULT), (33, 'g', 3)", "ERR 0A000"},
	{"DELETE FROM item WHERE id >= 30", ""},
	{"CREATE TABLE d1 (a int2 DEFAULT 99999)", "ERR 0A000"},
	{"CREATE TABLE item2 (id int4, name text, qty int4 CHECK (qty > 0), CONSTRAINT named CHECK (name <> 'bad' OR id < 0))", ""},
	{"INSERT INTO item2 VALUES (1, 'x', 0)", "ERR 23514"},
	{"INSERT INTO item2 VALUES (1, 'bad', 1)", "ERR 23514"},
	{"INSERT INTO item2 VALUES (-1, 'bad', NULL) RETURNING id", "-1"},
	{"DELETE FROM item2", ""},
	{"UPDATE item AS i SET qty = i.qty + 1 WHERE i.id = 2 RETURNING i.qty, qty", "2|2"},
	{"DELETE FROM item2 AS d WHERE d.id = 7 RETURNING d.id", ""},
	{"INSERT INTO item2 SELECT id + 100, name FROM item WHERE id < 3 RETURNING id, qty", "101|NULL;102|NULL"},
	{"INSERT INTO item2 SELECT * FROM item2 RETURNING id", "101;102"},
	{"SELECT CAST(CASE WHEN NULL THEN 0 ELSE 10 END AS text), CASE WHEN true THEN 'a' ELSE upper('b') END", "10|a"},
	{"UPDATE item SET qty = qty * 1000 WHERE id = 1 RETURNING qty", "2000"},
	{"UPDATE item SET qty = qty * 1000 WHERE id = 1", "ERR 22003"},
	{"UPDATE item SET qty = 2147483647 WHERE false", "ERR 22003"},
	{"UPDATE item SET name = CAST(-32767 AS text) WHERE false", "ERR 22001"},
	{"UPDATE item SET name = 'toolong' WHERE id = 2", "ERR 22001"},
	{"UPDATE item SET price = 1e39::float8 WHERE id = 2", "ERR 22003"},
	{"UPDATE item SET note = upper(name) WHERE id > 10 RETURNING id, note", "11|NEW;12|AB ;20|12;21|4;22|Z"},
	{"DELETE FROM item WHERE id >= 20 RETURNING id", "20;21;22"},
	{"SELECT id, name, qty FROM item ORDER BY id", "1|new|2000;2|ab |2;3|x|3;4|y|1;5|x|2;11|new|1;12|ab |1"},
	{"CREATE TABLE ord (id int8 PRIMARY KEY, item int4 REFERENCES item (id) ON DELETE CASCADE, at timestamptz NOT NULL DEFAULT '2026-01-01 00:00:00+00')", ""},
	{"INSERT INTO ord (id, item) VALUES (1, 1), (2, 2) RETURNING at", "2026-01-01 00:00:00+00;2026-01-01 00:00:00+00"},
	{"INSERT INTO ord (id, item) VALUES (3, 99)", "ERR 23503"},
	{"UPDATE item SET qty = (SELECT count(*) FROM ord WHERE ord.item = item.id) + 1 WHERE id IN (1, 2) RETURNING id, qty", "1|2;2|2"},
	{"UPDATE item i SET qty = i.qty + (SELECT max(o.id) FROM ord o WHERE o.item = i.id) WHERE i.id = 1 RETURNING qty", "3"},
	{"DELETE FROM ord WHERE item IN (SELECT id FROM item WHERE name = 'nobody') RETURNING id", ""},
	{"DELETE FROM ord USING item i WHERE i.id = ord.item AND i.name = 'nobody' RETURNING ord.id", ""},
	{"DELETE FROM ord o USING item i, item j WHERE i.id = o.item AND j.id = i.id AND i.id = 2 RETURNING o.id", "2"},
	{"INSERT INTO ord (id, item) VALUES (2, 2)", ""},
	{"SELECT i.id, (SELECT o.id FROM ord o WHERE o.item = i.id ORDER BY o.id LIMIT 1) FROM item i WHERE i.id <= 2 ORDER BY 1", "1|1;2|2"},
	{"DELETE FROM item WHERE id = 1", ""},
	{"SELECT id FROM ord", "2"},
	{"CREATE UNIQUE INDEX item_name ON item (name)", "ERR 23505"},
	{"CREATE INDEX item_qty ON item (qty DESC)", ""},
	{"CREATE INDEX item_qty ON item (name)", "ERR 42P07"},
	{"DROP INDEX item_qty", ""},
	{"DROP INDEX item_qty", "ERR 42704"},
	{"DROP INDEX IF EXISTS item_qty", ""},
	{"ALTER TABLE item ADD COLUMN flag bool DEFAULT false", ""},
	{"SELECT flag FROM item WHERE id = 2", "f"},
	{"ALTER TABLE item RENAME COLUMN flag TO flagged", ""},
	{"ALTER TABLE item RENAME COLUMN nope TO x", "ERR 42703"},
	{"ALTER TABLE item RENAME COLUMN flagged TO name", "ERR 42701"},
	{"ALTER TABLE item RENAME TO goods", ""},
	{"SELECT flagged FROM goods WHERE id = 2", "f"},
	{"INSERT INTO ord (id, item) VALUES (9, 2)", ""},
	{"ALTER TABLE goods RENAME TO ord", "ERR 42P07"},
	{"ALTER TABLE goods RENAME TO item", ""},
	{"DELETE FROM ord WHERE id = 9", ""},
	{"TRUNCATE item", "ERR 0A000"},
	{"DROP TABLE item", "ERR 2BP01"},
	{"DROP TABLE item CASCADE", "ERR 0A000"},
	{"INSERT INTO item (id, name) VALUES (40, 'z')", ""},
	{"INSERT INTO ord (id, item) VALUES (40, 40)", ""},
	{"DROP TABLE item, ord", ""},
	{"SELECT 1 FROM ord", "ERR 42P01"},
	{"DROP TABLE IF EXISTS ord, item", ""},
	{"DROP TABLE item", "ERR 42P01"},
}

func TestScript(t *testing.T) {
	d := mustOpen(t)
	for _, s := range script {
		got := pgText(d.run(s.sql))
		if s.want == "ERR 23502" || s.want == "ERR 23505" || s.want == "ERR 23503" || s.want == "ERR 23514" {
			// constraint errors: SQLite's own, mapped by the backend.
			if got == "ERR SQLITE" {
				continue
			}
		}
		if got != s.want {
			t.Errorf("%s\n got %s\nwant %s", s.sql, got, s.want)
		}
	}
}

func TestScriptOnPostgres(t *testing.T) {
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
	mustPG(t, conn, "CREATE SCHEMA pgtrans_script; SET LOCAL search_path = pgtrans_script")
	for _, s := range script {
		if s.want == "ERR 0A000" {
			continue
		}
		if got := pgQuery(conn, s.sql); got != s.want {
			t.Errorf("PostgreSQL: %s\n got %s\nwant %s", s.sql, got, s.want)
		}
	}
}

// TestParams: placeholders bound through Param read text as PostgreSQL's
// input functions do and keep their errors.
func TestParams(t *testing.T) {
	d := mustOpen(t)
	d.mustRun("CREATE TABLE p (id int4 PRIMARY KEY, ok bool, at timestamptz, s varchar(2))")
	ins := "INSERT INTO p VALUES ($1, $2, $3, $4) RETURNING id, ok, at, s"
	tr, err := pgdialect.Translate(ins, pgruntime.NewCatalog(d.c))
	if err != nil {
		t.Fatal(err)
	}
	raw := []any{" 7", "yes", "2026-03-04 05:06:07-01", "ab"}
	var args []any
	for i, v := range raw {
		a, err := pgruntime.Param(tr.Params[i], v)
		if err != nil {
			t.Fatal(err)
		}
		args = append(args, a)
	}
	if got := pgText(d.run(ins, args...)); got != "7|t|2026-03-04 06:06:07+00|ab" {
		t.Errorf("got %s", got)
	}
	for _, bad := range []struct {
		typ  pgdialect.Type
		v    any
		code string
	}{{tr.Params[0], "x", "22P02"}, {tr.Params[0], int64(1) << 40, "22003"}, {tr.Params[3], "abc", "22001"}, {tr.Params[1], "maybe", "22P02"}} {
		_, err := pgruntime.Param(bad.typ, bad.v)
		if code, _ := pgruntime.SQLState(err); code != bad.code {
			t.Errorf("Param(%v, %v): %v, want %s", bad.typ, bad.v, err, bad.code)
		}
	}
	if got := pgText(d.run("SELECT id FROM p WHERE id = $1 AND s = $2", int64(7), "ab")); got != "7" {
		t.Errorf("got %s", got)
	}
}

// TestCatalogSeesDDL: the catalog's cache follows the schema, including
// DDL of the open transaction and its rollback.
func TestCatalogSeesDDL(t *testing.T) {
	d := mustOpen(t)
	cat := pgruntime.NewCatalog(d.c)
	if _, ok := cat.Columns("x"); ok {
		t.Fatal("x exists before CREATE")
	}
	if err := d.c.Exec("BEGIN"); err != nil {
		t.Fatal(err)
	}
	tr, err := pgdialect.Translate("CREATE TABLE x (a int4, b text)", cat)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.c.Exec(tr.Statements[0]); err != nil {
		t.Fatal(err)
	}
	if cols, ok := cat.Columns("x"); !ok || len(cols) != 2 || cols[1].Type.Name != "text" {
		t.Fatalf("after CREATE in the open transaction: %v %v", cols, ok)
	}
	if err := d.c.Exec("ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	if _, ok := cat.Columns("x"); ok {
		t.Fatal("x still seen after ROLLBACK")
	}
}

// serialScript: serial columns numbered as relchain's PostgreSQL backend
// numbers them (transactional sequences): on PostgreSQL itself the failed
// statements would consume values, so this script has none that fail
// after nextval.
var serialScript = []struct{ sql, want string }{
	{"CREATE TABLE s (id serial PRIMARY KEY, name text NOT NULL, big bigserial)", ""},
	{"INSERT INTO s (name) VALUES ('a') RETURNING id, big", "1|1"},
	{"INSERT INTO s (name) VALUES ('b'), ('c') RETURNING id, name, big", "2|b|2;3|c|3"},
	{"INSERT INTO s (id, name) VALUES (10, 'explicit') RETURNING id, big", "10|4"},
	{"INSERT INTO s (name) VALUES ('d') RETURNING id", "4"},
	{"INSERT INTO s VALUES (DEFAULT, 'e', DEFAULT) RETURNING id, big", "5|6"},
	{"INSERT INTO s (name) SELECT name FROM s", "ERR 0A000"},
	{"DELETE FROM s WHERE id >= 4", ""},
	{"INSERT INTO s (name) VALUES ('f') RETURNING id", "6"},
	{"SELECT id, name FROM s ORDER BY id", "1|a;2|b;3|c;6|f"},
	{"TRUNCATE s", ""},
	{"INSERT INTO s (name) VALUES ('g') RETURNING id", "7"},
	{"TRUNCATE TABLE s RESTART IDENTITY", ""},
	{"INSERT INTO s (name) VALUES ('h') RETURNING id, big", "1|1"},
	{"DROP TABLE s", ""},
	{"CREATE TABLE s (id smallserial, v int4)", ""},
	{"INSERT INTO s (v) VALUES (1) RETURNING id", "1"},
	{"DROP TABLE s", ""},
	{"CREATE TABLE s (id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, v int4)", ""},
	{"INSERT INTO s (v) VALUES (1), (2) RETURNING id, v", "1|1;2|2"},
	{"DROP TABLE s", ""},
}

func TestSerial(t *testing.T) {
	d := mustOpen(t)
	for _, s := range serialScript {
		if got := pgText(d.run(s.sql)); got != s.want {
			t.Errorf("%s\n got %s\nwant %s", s.sql, got, s.want)
		}
	}
	if r := d.run("SELECT 1 FROM s_id_seq"); r.code != "42P01" {
		t.Errorf("the sequence's state is no client table: %+v", r)
	}
	d.c.Exec("CREATE TABLE m (id int4)")
	var n int
	st, _, err := d.c.Prepare(`SELECT count(*) FROM sqlite_schema WHERE name LIKE 's%seq'`)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if st.Step() {
		n = st.ColumnInt(0)
	}
	if n != 0 {
		t.Errorf("DROP TABLE left %d sequence tables", n)
	}
}

func TestSerialOnPostgres(t *testing.T) {
	dsn := os.Getenv("RELCHAIN_TEST_PG")
	if dsn == "" {
		t.Skip("RELCHAIN_TEST_PG is not set: no PostgreSQL server to compare with")
	}
	ctx := context.Background()
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	mustPG(t, conn, "BEGIN")
	defer conn.Exec(ctx, "ROLLBACK")
	mustPG(t, conn, "CREATE SCHEMA pgtrans_serial; SET LOCAL search_path = pgtrans_serial")
	for _, s := range serialScript {
		if s.want == "ERR 0A000" {
			continue
		}
		if got := pgQuery(conn, s.sql); got != s.want {
			t.Errorf("PostgreSQL: %s\n got %s\nwant %s", s.sql, got, s.want)
		}
	}
}

// TestTruncateReportsNoRows: TRUNCATE empties the tables and, like
// PostgreSQL's command tag, reports no rows affected.
func TestTruncateReportsNoRows(t *testing.T) {
	d := mustOpen(t)
	d.mustRun("CREATE TABLE a (id int4 PRIMARY KEY)")
	d.mustRun("CREATE TABLE b (a int4 REFERENCES a (id))")
	d.mustRun("INSERT INTO a VALUES (1), (2)")
	d.mustRun("INSERT INTO b VALUES (1), (2)")
	if r := d.run("TRUNCATE a"); r.code != "0A000" {
		t.Fatalf("TRUNCATE of a referenced table: %+v", r)
	}
	r := d.mustRun("TRUNCATE a, b")
	if r.changes != 0 {
		t.Errorf("TRUNCATE reports %d rows affected, want 0", r.changes)
	}
	if got := pgText(d.mustRun("SELECT count(*) FROM a")); got != "0" {
		t.Errorf("rows left in a: %s", got)
	}
}
