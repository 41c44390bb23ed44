package sqlite_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/sqlite"
	"github.com/relchain/relchain/backend/sqlite/pgdialect"
	"github.com/relchain/relchain/sqlcheck"
)

// mustOpenPostgresDialect opens a fresh SQLite database that takes
// PostgreSQL's SQL.
func mustOpenPostgresDialect(t *testing.T) *sqlite.Backend {
	t.Helper()
	b, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "relchain.db"), sqlite.WithPostgresDialect())
	if err != nil {
		t.Fatalf("open sqlite with the postgres dialect: %v", err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

// pgBlock runs stmts as one tx of one block at height h, each judged by
// the gate in the block first as the executor does, and commits it.
func pgBlock(t *testing.T, b backend.Backend, h int64, stmts ...pgStmt) []*backend.Rows {
	t.Helper()
	ctx := context.Background()
	blk, err := b.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	env := sqlcheck.Env{Time: time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)}
	if err := blk.Savepoint(ctx, env); err != nil {
		t.Fatal(err)
	}
	var out []*backend.Rows
	for _, s := range stmts {
		an, err := b.Gate().AnalyzeInBlock(ctx, blk, s.sql)
		if err != nil {
			blk.Rollback(ctx)
			t.Fatalf("gate in block: %s: %v", s.sql, err)
		}
		if an.Params != len(s.args) {
			blk.Rollback(ctx)
			t.Fatalf("%s: gate counts %d params, the statement has %d arguments", s.sql, an.Params, len(s.args))
		}
		rows, err := blk.Exec(ctx, s.sql, s.args)
		if err != nil {
			blk.Rollback(ctx)
			t.Fatalf("exec %s: %v", s.sql, err)
		}
		out = append(out, rows)
	}
	if err := blk.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := blk.ChangeDigest(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := blk.StateDigest(ctx); err != nil {
		t.Fatal(err)
	}
	if err := blk.Commit(ctx, backend.State{Height: h, AppHash: []byte{byte(h)}}); err != nil {
		t.Fatal(err)
	}
	return out
}

type pgStmt struct {
	sql  string
	args []any
}

// A block creates a table with PostgreSQL's DDL and fills it with $n
// parameters; its SELECT returns PostgreSQL's values (a bool as a bool),
// and the read path returns them with their PostgreSQL types.
func TestPostgresDialectRunsPostgreSQL(t *testing.T) {
	b := mustOpenPostgresDialect(t)
	ctx := context.Background()
	res := pgBlock(t, b, 1,
		pgStmt{sql: "CREATE TABLE t (id int4 PRIMARY KEY, ok boolean NOT NULL, name text, big bigint)"},
		pgStmt{sql: "INSERT INTO t (id, ok, name, big) VALUES ($1, $2, $3, $4)", args: []any{int64(1), true, "one", int64(1) << 40}},
		pgStmt{sql: "INSERT INTO t VALUES ($1, $2, $3, $4)", args: []any{int64(2), false, nil, int64(7)}},
		pgStmt{sql: "SELECT id, ok, name FROM t WHERE id = $1", args: []any{int64(1)}},
	)
	if got := res[1].RowsAffected; got != 1 {
		t.Errorf("INSERT affected %d rows, want 1", got)
	}
	if got, want := res[3].Rows, [][]any{{int64(1), true, "one"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("block SELECT rows = %#v, want %#v", got, want)
	}
	if res[3].Types != nil {
		t.Errorf("a block's rows carry types %v: their JSON enters the AppHash and must not", res[3].Types)
	}
	rows, h, err := b.Query(ctx, "SELECT id, ok, name, big FROM t ORDER BY id", nil)
	if err != nil {
		t.Fatal(err)
	}
	if h != 1 {
		t.Errorf("query height %d, want 1", h)
	}
	if want := []string{"int4", "bool", "text", "int8"}; !reflect.DeepEqual(rows.Types, want) {
		t.Errorf("query types %v, want %v", rows.Types, want)
	}
	if want := []string{"id", "ok", "name", "big"}; !reflect.DeepEqual(rows.Columns, want) {
		t.Errorf("query columns %v, want %v", rows.Columns, want)
	}
	want := [][]any{{int64(1), true, "one", int64(1) << 40}, {int64(2), false, nil, int64(7)}}
	if !reflect.DeepEqual(rows.Rows, want) {
		t.Errorf("query rows %#v, want %#v", rows.Rows, want)
	}
}

// Describe types a statement's $n parameters and result columns with
// PostgreSQL's types, from the table's declared ones, for reads and
// writes.
func TestPostgresDialectDescribes(t *testing.T) {
	b := mustOpenPostgresDialect(t)
	pgBlock(t, b, 1, pgStmt{sql: `CREATE TABLE "Acct" (id int4 PRIMARY KEY, ok bool, note varchar(20))`})
	for _, c := range []struct {
		sql    string
		params []string
		cols   []string
	}{
		{`SELECT ok, note FROM "Acct" WHERE id = $1`, []string{"int4"}, []string{"bool", "varchar"}},
		{`INSERT INTO "Acct" (id, ok) VALUES ($1, $2)`, []string{"int4", "bool"}, nil},
		{`UPDATE "Acct" SET note = $1 WHERE id = $2 RETURNING id`, []string{"varchar", "int4"}, []string{"int4"}},
	} {
		d, err := b.Describe(context.Background(), c.sql)
		if err != nil {
			t.Errorf("describe %s: %v", c.sql, err)
			continue
		}
		var cols []string
		for _, col := range d.Columns {
			cols = append(cols, col.Type)
		}
		if !reflect.DeepEqual(d.Params, c.params) || !reflect.DeepEqual(cols, c.cols) {
			t.Errorf("describe %s = params %v columns %v, want %v %v", c.sql, d.Params, cols, c.params, c.cols)
		}
	}
}

// What PostgreSQL's gate refuses and what the translation refuses are
// refused on every path with a *backend.Error naming the construct, of the
// class and SQLSTATE PostgreSQL's network would give (the gate's refusal)
// or that names the gap (the dialect's, 0A000). Reads of PostgreSQL's
// catalogs: pgcatalog_test.go.
func TestPostgresDialectRefusals(t *testing.T) {
	b := mustOpenPostgresDialect(t)
	ctx := context.Background()
	pgBlock(t, b, 1, pgStmt{sql: "CREATE TABLE t (id int4 PRIMARY KEY)"})
	for _, c := range []struct {
		sql   string
		class backend.Class
		state string
		names string
	}{
		{"SELECT pg_read_file('/etc/passwd')", backend.ClassPermission, "42501", "pg_read_file"},
		{"SELECT xmlparse(document '<a/>')", backend.ClassPermission, "42501", "xml"},
		{"SELECT 'abc' SIMILAR TO 'a%'", backend.ClassNotImplemented, "0A000", "similar"},
		{"SELEC 1", backend.ClassSyntax, "42601", "syntax"},
	} {
		check := func(path string, err error) {
			t.Helper()
			e := backend.AsError(err)
			if e == nil || e.Class != c.class || e.SQLState != c.state || !strings.Contains(strings.ToLower(e.Message), c.names) {
				t.Errorf("%s of %q = %v, want a %s (%s) error naming %q", path, c.sql, err, c.class, c.state, c.names)
			}
		}
		_, err := b.Gate().Analyze(ctx, c.sql)
		check("Analyze", err)
		_, _, err = b.Query(ctx, c.sql, nil)
		check("Query", err)
		_, err = b.Describe(ctx, c.sql)
		check("Describe", err)
		blk, err := b.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		_, err = b.Gate().AnalyzeInBlock(ctx, blk, c.sql)
		check("AnalyzeInBlock", err)
		_, err = blk.Exec(ctx, c.sql, nil)
		check("Exec", err)
		blk.Rollback(ctx)
	}
}

// SQLite's own SQL is not PostgreSQL's: a postgres-dialect backend refuses
// what only SQLite accepts, and the sqlite dialect is unchanged by the
// option's existence.
func TestPostgresDialectTakesNoSQLiteOnlySQL(t *testing.T) {
	b := mustOpenPostgresDialect(t)
	ctx := context.Background()
	// No such relation in PostgreSQL's SQL (as a table no block created
	// yet, Analyze gives no verdict on it; the block's gate refuses it).
	if _, _, err := b.Query(ctx, "SELECT name FROM sqlite_schema", nil); backend.AsError(err) == nil || backend.AsError(err).SQLState != "42P01" {
		t.Errorf("a postgres-dialect read of sqlite_schema = %v, want 42P01", err)
	}
	blk, err := b.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Gate().AnalyzeInBlock(ctx, blk, "SELECT name FROM relchain_meta"); backend.AsError(err) == nil || backend.AsError(err).SQLState != "42P01" {
		t.Errorf("a postgres-dialect block's read of relchain_meta = %v, want 42P01", err)
	}
	blk.Rollback(ctx)
	if _, err := b.Gate().Analyze(ctx, "INSERT OR REPLACE INTO t VALUES (1)"); backend.AsError(err) == nil || backend.AsError(err).Class != backend.ClassSyntax {
		t.Errorf("INSERT OR REPLACE (SQLite's) = %v, want PostgreSQL's syntax error", err)
	}
	if got := b.Capabilities().SQLDialect; got != "postgres" {
		t.Errorf("Capabilities().SQLDialect = %q, want postgres", got)
	}
	native, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "n.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer native.Close()
	if got := native.Capabilities().SQLDialect; got != "" {
		t.Errorf("native Capabilities().SQLDialect = %q, want empty", got)
	}
}

// A runtime function's failure (int4 overflow) carries PostgreSQL's
// SQLSTATE and class, in a block and on the read path.
func TestPostgresDialectRuntimeErrorsArePostgreSQLs(t *testing.T) {
	b := mustOpenPostgresDialect(t)
	ctx := context.Background()
	pgBlock(t, b, 1, pgStmt{sql: "CREATE TABLE n (id int4 PRIMARY KEY, v int4)"},
		pgStmt{sql: "INSERT INTO n VALUES (1, 2147483647)"})
	check := func(path string, err error) {
		t.Helper()
		if e := backend.AsError(err); e == nil || e.SQLState != "22003" || e.Class != backend.ClassData || !strings.Contains(e.Message, "out of range") {
			t.Errorf("%s: int4 overflow = %v, want data (22003) naming the range", path, err)
		}
	}
	_, _, err := b.Query(ctx, "SELECT v + 1 FROM n", nil)
	check("Query", err)
	blk, err := b.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer blk.Rollback(ctx)
	if err := blk.Savepoint(ctx, sqlcheck.Env{}); err != nil {
		t.Fatal(err)
	}
	_, err = blk.Exec(ctx, "UPDATE n SET v = v + 1 WHERE id = 1", nil)
	check("Exec", err)
}

// docs/dialects.md lists exactly what the translator refuses
// (pgdialect.Refusals), between its refusals markers.
func TestDialectsDocListsTheRefusals(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "dialects.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	begin, end := strings.Index(text, "<!-- refusals:begin -->\n"), strings.Index(text, "<!-- refusals:end -->")
	if begin < 0 || end < begin {
		t.Fatal("docs/dialects.md has no refusals markers")
	}
	var want strings.Builder
	for _, r := range pgdialect.Refusals() {
		want.WriteString("- " + r + "\n")
	}
	if got := text[begin+len("<!-- refusals:begin -->\n") : end]; got != want.String() {
		t.Errorf("docs/dialects.md lists the refusals\n%s\npgdialect.Refusals() says\n%s\ncopy the latter between the markers", got, want.String())
	}
}

// Arguments are read as PostgreSQL reads parameters of the placeholders'
// types: text forms as the wire protocol sends them ("5" for int4, "t"
// for bool), and a text the type cannot read is PostgreSQL's 22P02.
func TestPostgresDialectReadsParametersAsPostgreSQL(t *testing.T) {
	b := mustOpenPostgresDialect(t)
	ctx := context.Background()
	pgBlock(t, b, 1, pgStmt{sql: "CREATE TABLE p (id int4 PRIMARY KEY, ok bool)"},
		pgStmt{sql: "INSERT INTO p VALUES ($1, $2)", args: []any{"5", "t"}})
	rows, _, err := b.Query(ctx, "SELECT id, ok FROM p WHERE id = $1", []any{"5"})
	if err != nil {
		t.Fatal(err)
	}
	if want := [][]any{{int64(5), true}}; !reflect.DeepEqual(rows.Rows, want) {
		t.Errorf("rows %#v, want %#v", rows.Rows, want)
	}
	// A Go int64 argument is an int8 parameter, as the PostgreSQL backend
	// sends it: int8 + int4 is int8.
	rows, _, err = b.Query(ctx, "SELECT $1 + id AS s FROM p", []any{int64(1)})
	if err != nil || !reflect.DeepEqual(rows.Types, []string{"int8"}) || !reflect.DeepEqual(rows.Rows, [][]any{{int64(6)}}) {
		t.Errorf("$1 (int64) + int4 column = %+v, %v; want 6 of type int8", rows, err)
	}
	_, _, err = b.Query(ctx, "SELECT id FROM p WHERE id = $1", []any{"five"})
	if e := backend.AsError(err); e == nil || e.SQLState != "22P02" {
		t.Errorf("int4 parameter \"five\" = %v, want 22P02", err)
	}
}

// Analyze gives no verdict on a statement whose table no block created
// yet (an earlier tx of the block may), and its cached verdicts expire
// when a block changes the schema.
func TestPostgresDialectAnalyzeFollowsTheSchema(t *testing.T) {
	b := mustOpenPostgresDialect(t)
	ctx := context.Background()
	const insert = "INSERT INTO later (id) VALUES ($1)"
	an, err := b.Gate().Analyze(ctx, insert)
	if err != nil || an.Params != sqlcheck.ParamsUnknown {
		t.Fatalf("Analyze before the table exists = %+v, %v; want no verdict (params unknown)", an, err)
	}
	pgBlock(t, b, 1, pgStmt{sql: "CREATE TABLE later (id int8 PRIMARY KEY)"})
	an, err = b.Gate().Analyze(ctx, insert)
	if err != nil || an.Params != 1 || !reflect.DeepEqual(an.Writes, []string{"later"}) {
		t.Errorf("Analyze after the table exists = %+v, %v; want 1 param writing later", an, err)
	}
}
