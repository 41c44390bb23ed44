package sqlite_test

import (
	"bytes"
	"context"
	"encoding/hex"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/postgres/pgtest"
	"github.com/relchain/relchain/backend/sqlite"
)

// dumpDDL covers every type the postgres dialect stores, serial columns,
// composite keys, foreign keys (a composite one, one to a table whose
// name sorts after its own), CHECK constraints (column and table ones,
// named and not), UNIQUE constraints, indexes, names that need quotes and
// a table without a primary key.
var dumpDDL = []pgStmt{
	{sql: `CREATE TABLE zreviewers (id int8 PRIMARY KEY, name text)`},
	{sql: `CREATE TABLE authors (id serial PRIMARY KEY, name varchar(40) NOT NULL UNIQUE, code char(4), bio text DEFAULT 'n/a',
		active boolean NOT NULL DEFAULT true, CHECK (length(name) > 0))`},
	{sql: `CREATE TABLE "Mixed Case ""T"" ünï" (k1 int4, k2 text, amount numeric(12,3) NOT NULL DEFAULT 1.5 CHECK (amount >= 0),
		ratio numeric, small int2 DEFAULT -3, big int8, f4 real, f8 double precision, born date, at timestamp DEFAULT '2026-01-02 03:04:05',
		atz timestamptz, blob bytea DEFAULT '\x00ff', doc json, flag bool, PRIMARY KEY (k1, k2),
		CONSTRAINT "big positive" CHECK (big > 0 OR big IS NULL), CHECK (small IN (-3, 1, 2) AND ratio <> -2.5))`},
	{sql: `CREATE TABLE books (id bigserial PRIMARY KEY, author_id int REFERENCES authors (id) ON DELETE CASCADE,
		mk1 int4, mk2 text, title text NOT NULL, price numeric(8,2) CHECK (price * 2 > 0), reviewer int8 REFERENCES zreviewers (id),
		FOREIGN KEY (mk1, mk2) REFERENCES "Mixed Case ""T"" ünï" (k1, k2) ON UPDATE CASCADE,
		CONSTRAINT title_ok CHECK (title LIKE '_%' AND lower(title) <> 'x' AND mk1 % 1000 <> 999))`},
	{sql: `CREATE INDEX books_title_idx ON books (title)`},
	// ALTER TABLE of a referenced table rebuilds it and its dependents.
	{sql: `ALTER TABLE authors ADD COLUMN rating int2 DEFAULT 3 CHECK (rating BETWEEN 1 AND 5)`},
	{sql: `CREATE UNIQUE INDEX "Books by author" ON books (author_id, title)`},
	{sql: `CREATE TABLE arrays (id smallserial PRIMARY KEY, t text[], v varchar(8)[], i2 int2[], i4 int4[], i8 int8[], b bool[],
		d date[], ts timestamp[], tz timestamptz[])`},
	{sql: `CREATE TABLE nokey (a int4, b text)`},
	{sql: `CREATE INDEX nokey_desc ON nokey (a DESC, b)`},
	{sql: `ALTER TABLE nokey ADD CONSTRAINT a_small CHECK (a < 1000)`},
	{sql: `ALTER TABLE nokey ADD COLUMN added numeric(5,1) DEFAULT 2.5 NOT NULL`},
	{sql: `CREATE TABLE "Serial Ünï" ("Id" serial PRIMARY KEY, big bigserial, note text)`},
	{sql: `CREATE TABLE empty (id int4 PRIMARY KEY, n numeric(5,0) UNIQUE)`},
}

// awkward are texts a dump must quote exactly.
var awkward = []string{"it's", `back\slash \x00`, `"double" 'single' ''`, "ünï €😀 中文", "line\nbreak\ttab\r", "", "NULL", " padded  "}

// dumpRows fills dumpDDL's tables: NULLs everywhere they may be, the
// awkward texts, extreme values; serial columns both from their
// sequences and given.
func dumpRows() []pgStmt {
	mixed := `INSERT INTO "Mixed Case ""T"" ünï" (k1, k2, amount, ratio, small, big, f4, f8, born, at, atz, blob, doc, flag)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`
	out := []pgStmt{
		{sql: `INSERT INTO zreviewers VALUES (1, 'r'), (9223372036854775807, NULL)`},
		{sql: `INSERT INTO authors (name, code) VALUES ('Ann', 'ab'), ('Bob', NULL), ('Çé', 'abcd')`},
		{sql: `INSERT INTO authors (id, name, active) VALUES (10, 'Ten', false)`},
		{sql: mixed, args: []any{int64(1), "a", "1234567.8915", "123456789012345678901234567890.123456789", int64(-3), int64(math.MaxInt64),
			1.2345678, 1e300, "2026-02-28", "2026-01-02 03:04:05.123456", "2026-01-02 03:04:05+02", []byte{0, 0xff, '\'', '\\', 'x'}, `{"a": [1, "b"]}`, true}},
		{sql: mixed, args: []any{int64(-2147483648), "zz", "0", "-0.001", nil, nil, -3.4e38, -1e-300, "0001-01-01", "9999-12-31 23:59:59.999999",
			"1970-01-01 00:00:00Z", []byte{}, nil, false}},
		{sql: mixed, args: []any{int64(2147483647), "b", "99999.999", "0.000000000001", int64(1), int64(1), 3.3e38, math.Pi, nil, nil, nil, nil, nil, nil}},
	}
	for i, s := range awkward {
		out = append(out, pgStmt{sql: mixed, args: []any{int64(100 + i), s, "1", nil, nil, nil, nil, nil, nil, nil, nil, []byte(s), nil, nil}})
		out = append(out, pgStmt{sql: `INSERT INTO books (author_id, mk1, mk2, title, price, reviewer) VALUES ($1, $2, $3, $4, $5, $6)`,
			args: []any{int64(1 + i%2), int64(100 + i), s, "t" + s, "12.5", int64(1)}})
		out = append(out, pgStmt{sql: `INSERT INTO nokey VALUES ($1, $2), ($1, NULL)`, args: []any{int64(i % 3), s}})
	}
	return append(out,
		pgStmt{sql: `INSERT INTO books (id, title) VALUES (500, 'given')`},
		pgStmt{sql: `INSERT INTO books (title, mk1, mk2) VALUES ('Keyed', 1, 'a')`},
		pgStmt{sql: `INSERT INTO arrays (t, v, i2, i4, i8, b, d, ts, tz) VALUES ('{a,"b c",NULL,"NULL","","q\"d","b\\s",ünï}',
			'{abc,"x y"}', '{-32768,32767}', '{1,NULL,-2}', '{9223372036854775807}', '{t,f,NULL}', '{2026-01-02,0001-01-01}',
			'{"2026-01-02 03:04:05.5"}', '{"2026-01-02 03:04:05+00"}')`},
		pgStmt{sql: `INSERT INTO arrays (t, i4) VALUES ('{}', NULL)`},
		pgStmt{sql: `INSERT INTO arrays (id) VALUES (-5)`},
		pgStmt{sql: `INSERT INTO "Serial Ünï" (note) VALUES ('one'), (NULL)`},
		pgStmt{sql: `INSERT INTO "Serial Ünï" ("Id", big, note) VALUES (7, 70, 'given')`},
	)
}

// dumpCatalogQueries describe a schema through PostgreSQL's catalogs; the
// emulated catalog answers them from the SQLite database, PostgreSQL from
// the dump loaded into it. CHECK constraints are compared by name only:
// the emulated catalog shows SQLite's text of them.
var dumpCatalogQueries = []string{
	`SELECT c.relname, a.attnum, a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull, pg_get_expr(d.adbin, d.adrelid)
		FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_class c ON c.oid = a.attrelid
		LEFT JOIN pg_catalog.pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
		WHERE c.relnamespace = 'public'::regnamespace AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped ORDER BY 1, 2`,
	`SELECT c.relname, k.conname, k.contype, CASE WHEN k.contype = 'c' THEN '' ELSE pg_get_constraintdef(k.oid) END
		FROM pg_catalog.pg_constraint k JOIN pg_catalog.pg_class c ON c.oid = k.conrelid
		WHERE k.connamespace = 'public'::regnamespace ORDER BY 1, 2`,
	`SELECT tablename, indexname, replace(indexdef, ' DESC', '') FROM pg_catalog.pg_indexes WHERE schemaname = 'public' ORDER BY 1, 2`,
	`SELECT pg_get_serial_sequence('authors', 'id'), pg_get_serial_sequence('books', 'id'), pg_get_serial_sequence('arrays', 'id'),
		pg_get_serial_sequence('"Serial Ünï"', 'Id'), pg_get_serial_sequence('"Serial Ünï"', 'big'), pg_get_serial_sequence('books', 'title')`,
	`SELECT c.relname, c.relkind FROM pg_catalog.pg_class c WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'S') ORDER BY 1`,
}

// dumpTableOrders read every table's rows in a fixed order.
var dumpTableOrders = map[string]string{
	"zreviewers": "id", "authors": "id", `"Mixed Case ""T"" ünï"`: "k1, k2", "books": "id", "arrays": "id",
	"nokey": "a, b", "empty": "id", `"Serial Ünï"`: `"Id"`,
}

// A postgres-dialect database dumped with DumpPostgres loads into an
// empty PostgreSQL with psql -v ON_ERROR_STOP=1, and PostgreSQL then
// holds what the emulated catalog describes: the same columns with the
// same types (format_type), NOT NULL and defaults, the same constraints
// and indexes, the same rows value for value, and sequences that go on
// where the network's stand; the CHECK constraints refuse what the
// network's refuse.
func TestDumpPostgresLoadsIntoPostgreSQL(t *testing.T) {
	path := filepath.Join(t.TempDir(), "relchain.db")
	b, err := sqlite.Open(context.Background(), path, sqlite.WithPostgresDialect())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	pgBlock(t, b, 1, dumpDDL...)
	pgBlock(t, b, 2, dumpRows()...)
	var dump bytes.Buffer
	h, err := sqlite.DumpPostgres(context.Background(), path, &dump)
	if err != nil {
		t.Fatalf("DumpPostgres: %v", err)
	}
	if h != 2 {
		t.Errorf("DumpPostgres height = %d, want 2", h)
	}
	var again bytes.Buffer
	if _, err := sqlite.DumpPostgres(context.Background(), path, &again); err != nil || again.String() != dump.String() {
		t.Errorf("a second dump of the same state differs (%v)", err)
	}
	if strings.Contains(dump.String(), "relchain_") || strings.Contains(strings.ToLower(dump.String()), "sqlite") {
		t.Errorf("the dump names relchain's or SQLite's own objects:\n%s", dump.String())
	}
	dsn := pgtest.AdminDSN(t)
	loadDump(t, dsn, dump.Bytes())
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "SET TimeZone = 'UTC'"); err != nil {
		t.Fatal(err)
	}
	for _, q := range dumpCatalogQueries {
		compareDumped(t, b, conn, q)
	}
	// The emulated catalog does not show an index column's order
	// (pgcatalog.Index has none); the dump keeps it.
	var def string
	if err := conn.QueryRow(ctx, `SELECT indexdef FROM pg_indexes WHERE indexname = 'nokey_desc'`).Scan(&def); err != nil || !strings.HasSuffix(def, "(a DESC, b)") {
		t.Errorf("PostgreSQL's nokey_desc = %q (%v), want the index on (a DESC, b)", def, err)
	}
	for table, order := range dumpTableOrders {
		compareDumped(t, b, conn, "SELECT * FROM "+table+" ORDER BY "+order)
	}
	compareSequences(t, b, conn)
	wantCheckViolations(t, conn)
}

// compareSequences inserts a row leaving the serial columns to their
// sequences into tables of dumpDDL on the network and on PostgreSQL: the
// sequences go on from where they stood.
func compareSequences(t *testing.T, b backend.Backend, conn *pgx.Conn) {
	t.Helper()
	ctx := context.Background()
	for i, c := range []struct{ table, col, val string }{{"authors", "name", "'next'"}, {"books", "title", "'next'"},
		{"arrays", "t", "'{next}'"}, {`"Serial Ünï"`, "note", "'next'"}} {
		ins := "INSERT INTO " + c.table + " (" + c.col + ") VALUES (" + c.val + ") RETURNING *"
		var want []string
		for _, v := range pgBlock(t, b, int64(3+i), pgStmt{sql: ins})[0].Rows[0] {
			want = append(want, pgText(v, ""))
		}
		rows, err := conn.Query(ctx, ins, pgx.QueryExecModeSimpleProtocol)
		if err != nil {
			t.Fatalf("PostgreSQL: %s: %v", ins, err)
		}
		var got []string
		for rows.Next() {
			for _, v := range rows.RawValues() {
				got = append(got, map[bool]string{true: "NULL", false: string(v)}[v == nil])
			}
		}
		if rows.Close(); rows.Err() != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: PostgreSQL's sequences give %q (%v), the network's %q", ins, got, rows.Err(), want)
		}
	}
}

// wantCheckViolations runs rows the CHECK constraints of dumpDDL refuse
// on PostgreSQL: the dump's constraints hold.
func wantCheckViolations(t *testing.T, conn *pgx.Conn) {
	t.Helper()
	ctx := context.Background()
	for _, bad := range []string{
		`INSERT INTO authors (name) VALUES ('')`,
		`INSERT INTO authors (name, rating) VALUES ('R', 6)`,
		`INSERT INTO "Mixed Case ""T"" ünï" (k1, k2, amount) VALUES (7, 'n', -0.001)`,
		`INSERT INTO "Mixed Case ""T"" ünï" (k1, k2, big) VALUES (7, 'n', 0)`,
		`INSERT INTO "Mixed Case ""T"" ünï" (k1, k2, small) VALUES (7, 'n', 3)`,
		`INSERT INTO "Mixed Case ""T"" ünï" (k1, k2, ratio) VALUES (7, 'n', -2.50)`,
		`INSERT INTO books (title, price) VALUES ('ok', -1)`,
		`INSERT INTO books (title) VALUES ('X')`,
		`INSERT INTO books (title, mk1) VALUES ('ok', 999)`,
	} {
		if _, err := conn.Exec(ctx, bad); err == nil || !strings.Contains(err.Error(), "23514") {
			t.Errorf("PostgreSQL: %s = %v, want a check violation (23514)", bad, err)
		}
	}
}

// loadDump runs a dump into the database dsn names as the documentation
// says: psql -v ON_ERROR_STOP=1 -f (pgx's simple protocol when the
// machine has no psql).
func loadDump(t *testing.T, dsn string, dump []byte) {
	t.Helper()
	psql, err := exec.LookPath("psql")
	if err != nil {
		conn, err := pgx.Connect(context.Background(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(context.Background())
		if _, err := conn.PgConn().Exec(context.Background(), string(dump)).ReadAll(); err != nil {
			t.Fatalf("load the dump: %v\n%s", err, dump)
		}
		return
	}
	file := filepath.Join(t.TempDir(), "tables.sql")
	if err := os.WriteFile(file, dump, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(psql, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-f", file, dsn).CombinedOutput()
	if err != nil || bytes.Contains(out, []byte("ERROR")) || bytes.Contains(out, []byte("WARNING")) {
		t.Fatalf("psql -v ON_ERROR_STOP=1 -f tables.sql: %v\n%s\n%s", err, out, dump)
	}
}

// compareDumped runs q on the network's read path and on PostgreSQL and
// compares the rows as PostgreSQL's text output.
func compareDumped(t *testing.T, b backend.Backend, conn *pgx.Conn, q string) {
	t.Helper()
	src, _, err := b.Query(context.Background(), q, nil)
	if err != nil {
		t.Fatalf("network: %s: %v", q, err)
	}
	rows, err := conn.Query(context.Background(), q, pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		t.Fatalf("PostgreSQL: %s: %v", q, err)
	}
	var got [][]string
	for rows.Next() {
		var row []string
		for _, v := range rows.RawValues() {
			if v == nil {
				row = append(row, "NULL")
			} else {
				row = append(row, string(v))
			}
		}
		got = append(got, row)
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("PostgreSQL: %s: %v", q, err)
	}
	var want [][]string
	for _, r := range src.Rows {
		var row []string
		for i, v := range r {
			row = append(row, pgText(v, src.Types[i]))
		}
		want = append(want, row)
	}
	if len(want) == 0 && !strings.Contains(q, "empty") {
		t.Errorf("%s: the network has no rows to compare", q)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s:\nPostgreSQL after the dump:\n%s\nthe network:\n%s", q, table(got), table(want))
	}
}

// pgText is a value of the read path as PostgreSQL's output function
// prints a value of type typ.
func pgText(v any, typ string) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case bool:
		return map[bool]string{true: "t", false: "f"}[x]
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		bits := 64
		if typ == "float4" {
			bits = 32
		}
		return strconv.FormatFloat(x, 'g', -1, bits)
	case []byte:
		return `\x` + hex.EncodeToString(x)
	case string:
		return x
	}
	return "?"
}

// table prints rows one a line.
func table(rows [][]string) string {
	var b strings.Builder
	for _, r := range rows {
		b.WriteString(strconv.Quote(strings.Join(r, " | ")) + "\n")
	}
	return b.String()
}
