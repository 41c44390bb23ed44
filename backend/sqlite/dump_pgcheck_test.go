package sqlite_test

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	sqlite3 "github.com/ncruces/go-sqlite3"

	"github.com/relchain/relchain/backend/postgres/pgtest"
	"github.com/relchain/relchain/backend/sqlite"
)

// checkColumns are the columns of the tables of the CHECK tests.
const checkColumns = `a int4, b bool, big int8, n numeric(10,2), price numeric, s text, v varchar(10), c char(3), d date,
	ts timestamp, tz timestamptz, f float8, f4 real, arr text[], by bytea`

// A CHECK constraint the dialect keeps as SQLite's translation only is
// written back as PostgreSQL's SQL (want, as the dump writes it), which
// PostgreSQL loads; one the dump cannot write back exactly is the dump's
// error naming the constraint, never a different or missing constraint.
func TestDumpPostgresWritesChecksBack(t *testing.T) {
	written := []struct{ check, want string }{
		{"n >= 0", `CHECK ("n" >= 0)`},
		{"n > 1.5 AND n < 100", `CHECK (("n" > 1.5) AND ("n" < 100))`},
		{"n <> -2.5", `CHECK ("n" <> (-2.5))`},
		{"price * 2 > n", `CHECK (("price" * 2) > "n")`},
		{"n + 1 > 0", `CHECK (("n" + 1) > 0)`},
		{"a * 2 <> 7", `CHECK (("a" * 2) <> 7)`},
		{"a / 2 = 1", `CHECK (("a" / 2) = 1)`},
		{"a % 2 = 0", `CHECK (("a" % 2) = 0)`},
		{"a > -1", `CHECK ("a" > (-1))`},
		{"abs(a) < 10", `CHECK (abs("a") < 10)`},
		{"a BETWEEN 1 AND 10", `CHECK (("a" >= 1) AND ("a" <= 10))`},
		{"a > 0 OR a IS NULL", `CHECK (("a" > 0) OR ("a" IS NULL))`},
		{"coalesce(a, 0) >= 0", `CHECK (coalesce("a", 0) >= 0)`},
		{"big > 5000000000", `CHECK ("big" > 5000000000)`},
		{"s IN ('x', 'y')", `CHECK ("s" IN ('x', 'y'))`},
		{"s NOT IN ('x')", `CHECK ("s" NOT IN ('x'))`},
		{"length(s) > 0", `CHECK (length("s") > 0)`},
		{"char_length(s) < 5", `CHECK (length("s") < 5)`},
		{"s LIKE 'a%' OR s IS NULL", `CHECK (("s" LIKE 'a%') OR ("s" IS NULL))`},
		{"s ILIKE 'a%' OR s IS NULL", `CHECK (("s" ILIKE 'a%') OR ("s" IS NULL))`},
		{"s <> ''", `CHECK ("s" <> '')`},
		{"upper(s) = s", `CHECK (upper("s") = "s")`},
		{"s = lower(s)", `CHECK ("s" = lower("s"))`},
		{"s <> 'it''s'", `CHECK ("s" <> 'it''s')`},
		{"b = true", `CHECK ("b" = true)`},
		{"NOT b", `CHECK (NOT "b")`},
		{"b IS NOT NULL", `CHECK ("b" IS NOT NULL)`},
		{"c <> 'ab'", `CHECK ("c" <> 'ab')`},
		{"v <> 'ab'", `CHECK ("v" <> 'ab')`},
		{"d > '2020-01-01'", `CHECK ("d" > '2020-01-01')`},
		{"ts < '2030-01-01 00:00:00'", `CHECK ("ts" < '2030-01-01 00:00:00')`},
		{"tz > '2020-01-01 00:00:00+00'", `CHECK ("tz" > '2020-01-01 00:00:00+00')`},
		{"f > 0.5", `CHECK ("f" > 0.5)`},
		{"f4 > 0", `CHECK ("f4" > 0)`},
		{"n::int4 > 0", `CHECK (("n")::int4 > 0)`},
		{"s || 'x' <> 'y'", `CHECK (("s" || 'x') <> 'y')`},
		{"trim(s) <> ''", `CHECK (btrim("s") <> '')`},
		{"octet_length(by) > 0", `CHECK (length("by") > 0)`},
		{"cardinality(arr) > 0", `CHECK (cardinality("arr") > 0)`},
		{"array_length(arr, 1) < 5", `CHECK (array_length("arr", 1) < 5)`},
		{"substr(s, 1, 2) <> 'zz'", `CHECK (substr("s", 1, 2) <> 'zz')`},
		{"substr(s, 2) <> 'zz'", `CHECK (substr("s", 2) <> 'zz')`},
	}
	var all bytes.Buffer
	for i, c := range written {
		dump, err := dumpOneCheck(t, fmt.Sprintf("t%d", i), c.check)
		if err != nil {
			t.Errorf("CHECK (%s): dump: %v", c.check, err)
			continue
		}
		if !strings.Contains(dump, c.want) {
			t.Errorf("CHECK (%s): the dump holds no %s:\n%s", c.check, c.want, dump)
			continue
		}
		all.WriteString(dump)
	}
	loadDump(t, pgtest.AdminDSN(t), all.Bytes())
	refused := []string{
		"arr @> '{a}' AND a > 0",
		"array_to_string(arr, ',') <> 'x'",
		"position('a' in s) > 0",
	}
	for i, c := range refused {
		_, err := dumpOneCheck(t, fmt.Sprintf("r%d", i), c)
		name := fmt.Sprintf("CHECK constraint r%d_", i)
		if err == nil || !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), "cannot write back") {
			t.Errorf("CHECK (%s): dump = %v, want an error naming the %s… constraint", c, err, name)
		}
	}
}

// dumpOneCheck dumps a postgres-dialect database holding one table name
// with checkColumns and CHECK (check).
func dumpOneCheck(t *testing.T, name, check string) (string, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "relchain.db")
	b, err := sqlite.Open(context.Background(), path, sqlite.WithPostgresDialect())
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	pgBlock(t, b, 1, pgStmt{sql: "CREATE TABLE " + name + " (" + checkColumns + ", CHECK (" + check + "))"})
	var out bytes.Buffer
	_, err = sqlite.DumpPostgres(context.Background(), path, &out)
	return out.String(), err
}

// A table the dump cannot write exactly as PostgreSQL's SQL fails the
// dump, naming it, before anything is written, rather than leaving it, a
// default or a CHECK out: here
// tables the dialect would not write, put into the file behind its back.
func TestDumpPostgresRefusesWhatItCannotWrite(t *testing.T) {
	for _, c := range []struct{ ddl, want string }{
		{`CREATE TABLE "odd" (x BLOBBY)`, "table odd has a column type the postgres dialect did not write"},
		{`CREATE TABLE "dflt" ("x" int4 DEFAULT (abs(-1)))`, "dump dflt: the table as PostgreSQL's SQL does not translate back"},
		{`CREATE TABLE "chk" ("x" int4, CHECK (hex("x") <> ''))`, "CHECK constraint chk_x_check"},
		{`CREATE TABLE "chk2" ("x" int4, CHECK ("x" > 0 COLLATE NOCASE))`, "CHECK constraint chk2_x_check"},
	} {
		path := filepath.Join(t.TempDir(), "relchain.db")
		b, err := sqlite.Open(context.Background(), path, sqlite.WithPostgresDialect())
		if err != nil {
			t.Fatal(err)
		}
		// A table dumped before the refused one, larger than the dump's
		// buffer.
		pgBlock(t, b, 1, pgStmt{sql: "CREATE TABLE a_fine (id int4 PRIMARY KEY, t text)"},
			pgStmt{sql: "INSERT INTO a_fine VALUES (1, $1)", args: []any{strings.Repeat("x", 100000)}})
		b.Close()
		raw, err := sqlite3.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := raw.Exec(c.ddl); err != nil {
			t.Fatalf("%s: %v", c.ddl, err)
		}
		raw.Close()
		var out bytes.Buffer
		_, err = sqlite.DumpPostgres(context.Background(), path, &out)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: DumpPostgres = %v, want an error naming %q", c.ddl, err, c.want)
		}
		if out.Len() > 0 {
			t.Errorf("%s: DumpPostgres failed after writing:\n%s", c.ddl, out.String())
		}
	}
}
