package mysql_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/relchain/relchain/backend/mysql"
	"github.com/relchain/relchain/backend/mysql/mysqltest"
)

// pgDumpBlock creates tables of every type the postgres dialect stores on
// MariaDB, with defaults, keys, UNIQUE and CHECK constraints and indexes,
// and their rows: one DDL statement a tx (MariaDB commits each at once).
var pgDumpBlock = [][]string{
	{"CREATE TABLE accounts (id int8 PRIMARY KEY, owner varchar(20) NOT NULL UNIQUE, balance numeric(12,2) NOT NULL DEFAULT 0 CHECK (balance >= 0), " +
		"ok bool DEFAULT true, note text DEFAULT 'none', opened date DEFAULT '2020-01-02', seen timestamp, at timestamptz DEFAULT '2026-01-01 00:00:00+02', " +
		`raw bytea DEFAULT '\x00ff', f float8, small int2, n int4 DEFAULT -5, UNIQUE (small, n), CHECK (n % 2 <> 0 OR NOT ok), ` +
		"CHECK (note IN ('none', 'vip') OR length(note) > 10), CHECK (seen BETWEEN '2000-01-01' AND '2100-01-01'), CHECK (at > '2000-01-01 00:00:00+00'))"},
	{"CREATE INDEX accounts_note ON accounts (note, id DESC)"},
	{"CREATE UNIQUE INDEX accounts_opened ON accounts (opened, small)"},
	{`CREATE TABLE "b-side" (k varchar(8) PRIMARY KEY, "Qty" int4 CHECK ("Qty" + 1 > 0), v int2 NOT NULL)`},
	{"CREATE TABLE c3 (id int4, CONSTRAINT c3_key PRIMARY KEY (id))"},
	{`CREATE TABLE qs (id int4, s text DEFAULT 'it''s \ é€', v varchar(10) DEFAULT 'a\b' CHECK (v <> 'x''\' OR v LIKE '%\%%'), e bool CHECK (e), ` +
		`CONSTRAINT "k'\" PRIMARY KEY (id))`},
	{"INSERT INTO accounts (id, owner, balance, ok, note, opened, seen, at, raw, f, small, n) VALUES " +
		`(9007199254740993, 'o''neil', 10.5, true, 'back\slash ''quoted'' é ☃', '2026-01-02', '2026-01-02 03:04:05.12', '2026-01-02 03:04:05+02', '\x00ff5c27', 0.1, -32768, 3), ` +
		"(-9223372036854775808, 'zed', 0.01, false, NULL, NULL, NULL, NULL, NULL, -12345.678e3, NULL, 2)",
		"INSERT INTO accounts (id, owner) VALUES (2, 'defaults')",
		`INSERT INTO "b-side" VALUES ('b', NULL, 1), ('a', 0, -2), ('x"\', 2147483646, 32767)`,
		`INSERT INTO qs (id, v) VALUES (1, 'a\%')`, `INSERT INTO qs (id, e) VALUES (2, true)`},
}

// pgDumpWant is DumpPostgres of pgDumpBlock at height 1.
const pgDumpWant = `-- relchain dump of the replicated tables at height 1 (PostgreSQL's SQL)
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
BEGIN;
CREATE TABLE accounts (
    id bigint NOT NULL,
    owner character varying(20) NOT NULL,
    balance numeric(12,2) DEFAULT 0.00 NOT NULL,
    ok boolean DEFAULT true,
    note text DEFAULT 'none',
    opened date DEFAULT '2020-01-02',
    seen timestamp without time zone,
    at timestamp with time zone DEFAULT '2025-12-31 22:00:00+00',
    raw bytea DEFAULT '\x00ff',
    f double precision,
    small smallint,
    n integer DEFAULT -5,
    CONSTRAINT accounts_pkey PRIMARY KEY (id),
    CONSTRAINT accounts_owner_key UNIQUE (owner),
    CONSTRAINT accounts_small_n_key UNIQUE (small, n),
    CONSTRAINT accounts_balance_check CHECK (balance >= 0),
    CONSTRAINT accounts_check CHECK (((n % 2) <> 0) OR (ok = false)),
    CONSTRAINT accounts_note_check CHECK ((note IN ('none', 'vip')) OR (length(note) > 10)),
    CONSTRAINT accounts_seen_check CHECK (seen BETWEEN '2000-01-01 00:00:00' AND '2100-01-01 00:00:00'),
    CONSTRAINT accounts_at_check CHECK (at > '2000-01-01 00:00:00+00')
);
INSERT INTO accounts (id, owner, balance, ok, note, opened, seen, at, raw, f, small, n) VALUES (-9223372036854775808, 'zed', 0.01, false, NULL, NULL, NULL, NULL, NULL, '-1.2345678e+07', NULL, 2);
INSERT INTO accounts (id, owner, balance, ok, note, opened, seen, at, raw, f, small, n) VALUES (2, 'defaults', 0.00, true, 'none', '2020-01-02', NULL, '2025-12-31 22:00:00+00', '\x00ff', NULL, NULL, -5);
INSERT INTO accounts (id, owner, balance, ok, note, opened, seen, at, raw, f, small, n) VALUES (9007199254740993, 'o''neil', 10.50, true, 'back\slash ''quoted'' é ☃', '2026-01-02', '2026-01-02 03:04:05.12', '2026-01-02 01:04:05+00', '\x00ff5c27', '0.1', -32768, 3);
CREATE INDEX accounts_note ON accounts USING btree (note, id DESC);
CREATE UNIQUE INDEX accounts_opened ON accounts USING btree (opened, small);
CREATE TABLE "b-side" (
    k character varying(8) NOT NULL,
    "Qty" integer,
    v smallint NOT NULL,
    CONSTRAINT "b-side_pkey" PRIMARY KEY (k),
    CONSTRAINT "b-side_Qty_check" CHECK (("Qty" + 1) > 0)
);
INSERT INTO "b-side" (k, "Qty", v) VALUES ('a', 0, -2);
INSERT INTO "b-side" (k, "Qty", v) VALUES ('b', NULL, 1);
INSERT INTO "b-side" (k, "Qty", v) VALUES ('x"\', 2147483646, 32767);
CREATE TABLE c3 (
    id integer NOT NULL,
    CONSTRAINT c3_key PRIMARY KEY (id)
);
CREATE TABLE qs (
    id integer NOT NULL,
    s text DEFAULT 'it''s \ é€',
    v character varying(10) DEFAULT 'a\b',
    e boolean,
    CONSTRAINT "k'\" PRIMARY KEY (id),
    CONSTRAINT qs_v_check CHECK ((v <> 'x''\') OR (v LIKE '%\%%')),
    CONSTRAINT qs_e_check CHECK (e)
);
INSERT INTO qs (id, s, v, e) VALUES (1, 'it''s \ é€', 'a\%', NULL);
INSERT INTO qs (id, s, v, e) VALUES (2, 'it''s \ é€', 'a\b', true);
COMMIT;
`

// A postgres-dialect database on MariaDB dumps as PostgreSQL's SQL: each
// column's PostgreSQL type, its default and NOT NULL, the primary key,
// UNIQUE and CHECK constraints with PostgreSQL's default names, the rows
// as PostgreSQL's literals in primary-key order, the indexes (a unique one
// made by CREATE UNIQUE INDEX as that, descending columns marked), none
// of relchain's tables; two dumps of one state are the same.
func TestDumpPostgresWritesTheTablesAsPostgreSQL(t *testing.T) {
	dsn := mysqltest.DSN(t)
	b := mustOpen(t, dsn, mysql.WithPostgresDialect())
	defer b.Close()
	for i, c := range runBlock(t, b, 1, pgDumpBlock).results {
		if c != "" {
			t.Fatalf("tx %d of the block failed: %s", i, c)
		}
	}
	var first, second bytes.Buffer
	h, err := mysql.DumpPostgres(ctx(t), dsn, &first)
	if err != nil || h != 1 {
		t.Fatalf("DumpPostgres = %d, %v; want height 1", h, err)
	}
	if _, err := mysql.DumpPostgres(ctx(t), dsn, &second); err != nil || !bytes.Equal(first.Bytes(), second.Bytes()) {
		t.Fatalf("second dump differs (%v):\n%s\n---\n%s", err, first.String(), second.String())
	}
	if got := first.String(); got != pgDumpWant {
		t.Errorf("DumpPostgres:\n%s\nwant\n%s", got, pgDumpWant)
	}
}

// What PostgreSQL's SQL cannot say as MariaDB holds it is DumpPostgres's
// error, naming the table and the column or constraint, never a dump
// without it: tables, columns, keys and values the postgres dialect does
// not make (written outside it), and a CHECK the reverse translation
// cannot write back exactly.
func TestDumpPostgresRefusesWhatPostgreSQLCannotSay(t *testing.T) {
	for _, c := range []struct {
		name    string
		dialect string // through the dialect
		raw     []string
		want    string
	}{
		{"no pg type", "", []string{"CREATE TABLE bare (id INT PRIMARY KEY)"}, "table bare: column id (int(11)) has no PostgreSQL type"},
		{"stored otherwise", "", []string{"CREATE TABLE moved (id INT PRIMARY KEY COMMENT 'pg:int4', flag INT COMMENT 'pg:bool')"}, "table moved: column flag: bool stored as int(11)"},
		{"auto_increment", "", []string{"CREATE TABLE auto (id BIGINT AUTO_INCREMENT PRIMARY KEY COMMENT 'pg:int8')"}, "table auto: column id is auto_increment"},
		{"view", "", []string{"CREATE VIEW v AS SELECT 1 AS x"}, "v is a view"},
		{"foreign key", "", []string{"CREATE TABLE p (id INT PRIMARY KEY COMMENT 'pg:int4')",
			"CREATE TABLE c (id INT PRIMARY KEY COMMENT 'pg:int4', p INT COMMENT 'pg:int4', CONSTRAINT c_p FOREIGN KEY (p) REFERENCES p (id))"}, "table c has the foreign key c_p"},
		{"prefix", "", []string{"CREATE TABLE pre (id INT PRIMARY KEY COMMENT 'pg:int4', v VARCHAR(300) COMMENT 'pg:varchar(300)', KEY pv (v(10)))"},
			"table pre: index pv holds a prefix of 10 of column v"},
		{"beyond the BMP", "CREATE TABLE emo (id int4 PRIMARY KEY, s text DEFAULT '😀')", nil,
			"table emo: column s: default ('????' collate utf8mb4_nopad_bin): a construct the dump cannot write as PostgreSQL's SQL: a string with '?'"},
		{"beyond the BMP in a CHECK", "CREATE TABLE emc (id int4 PRIMARY KEY, s text CHECK (s <> 'é😀'))", nil,
			"table emc: CHECK (`s` <> 'é????' collate utf8mb4_nopad_bin): a construct the dump cannot write as PostgreSQL's SQL: a string with '?'"},
		{"bool of 2", "", []string{"CREATE TABLE twos (id INT PRIMARY KEY COMMENT 'pg:int4', flag BOOLEAN COMMENT 'pg:bool')", "INSERT INTO twos VALUES (1, 2)"},
			"dump twos: column flag: 2 in a bool column"},
		{"lower", "CREATE TABLE low (id int8 PRIMARY KEY, s text CHECK (lower(s) = s))", nil,
			"table low: CHECK (replace(replace("},
	} {
		t.Run(c.name, func(t *testing.T) {
			dsn := mysqltest.DSN(t)
			b := mustOpen(t, dsn, mysql.WithPostgresDialect())
			defer b.Close()
			if c.dialect != "" {
				if out := runBlock(t, b, 1, [][]string{{c.dialect}}); out.results[0] != "" {
					t.Fatalf("%s: %s", c.dialect, out.results[0])
				}
			}
			raw := openRaw(t, dsn)
			for _, s := range c.raw {
				if _, err := raw.ExecContext(ctx(t), s); err != nil {
					t.Fatalf("%s: %v", s, err)
				}
			}
			var out bytes.Buffer
			_, err := mysql.DumpPostgres(ctx(t), dsn, &out)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("DumpPostgres = %v, want an error holding %q; dump:\n%s", err, c.want, out.String())
			}
		})
	}
}
