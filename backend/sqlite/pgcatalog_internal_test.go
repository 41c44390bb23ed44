package sqlite

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	sqlite3 "github.com/ncruces/go-sqlite3"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/pgcatalog"
	"github.com/relchain/relchain/backend/sqlite/pgdialect"
	"github.com/relchain/relchain/sqlcheck"
)

// mustPostgresDDL opens a postgres-dialect backend and commits each group
// of statements as one block (heights 1, 2 ...), each statement judged by
// the gate in the block first, as the executor does.
func mustPostgresDDL(t *testing.T, blocks ...[]string) *Backend {
	t.Helper()
	ctx := context.Background()
	b, err := Open(ctx, filepath.Join(t.TempDir(), "relchain.db"), WithPostgresDialect())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	for h, stmts := range blocks {
		blk, err := b.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := blk.Savepoint(ctx, sqlcheck.Env{Time: time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC)}); err != nil {
			t.Fatal(err)
		}
		for _, s := range stmts {
			if _, err := b.Gate().AnalyzeInBlock(ctx, blk, s); err != nil {
				t.Fatalf("gate: %s: %v", s, err)
			}
			if _, err := blk.Exec(ctx, s, nil); err != nil {
				t.Fatalf("exec: %s: %v", s, err)
			}
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
		if err := blk.Commit(ctx, backend.State{Height: int64(h + 1), AppHash: []byte{byte(h + 1)}}); err != nil {
			t.Fatal(err)
		}
	}
	return b
}

// inReadTx runs f on a read connection inside a read transaction.
func inReadTx(t *testing.T, b *Backend, f func(r *sqlite3.Conn)) {
	t.Helper()
	r, err := b.reader(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer b.release(r)
	rc := b.rstmts[r]
	if err := rc.exec("BEGIN"); err != nil {
		t.Fatal(err)
	}
	defer rc.exec("ROLLBACK")
	f(r)
}

// committedSchema is schemaOf on a read connection's committed state.
func committedSchema(t *testing.T, b *Backend) *pgcatalog.Schema {
	t.Helper()
	var s *pgcatalog.Schema
	inReadTx(t, b, func(r *sqlite3.Conn) {
		var err error
		if s, err = schemaOf(r); err != nil {
			t.Fatalf("schemaOf: %v", err)
		}
	})
	return s
}

// The schema PostgreSQL DDL made, read back as PostgreSQL shows it: types
// and typmods, NOT NULL, defaults, serial columns with their sequences,
// keys and constraints named as PostgreSQL names them (SQLite's
// autoindex names never), foreign key actions, CHECKs, indexes; a dropped
// table and its sequence gone; relchain's tables and the sequences' state
// tables never listed.
func TestSchemaOfPostgresDDL(t *testing.T) {
	b := mustPostgresDDL(t, []string{
		`CREATE TABLE authors (id serial PRIMARY KEY, name varchar(20) NOT NULL UNIQUE, active bool DEFAULT true,
			n int DEFAULT 0, m int DEFAULT -5, s text DEFAULT 'it''s', f float8 DEFAULT 1.5, born timestamptz,
			nb bool DEFAULT NULL, CONSTRAINT positive CHECK (n >= 0), CHECK (length(s) < 10))`,
		`CREATE TABLE scratch (id bigserial PRIMARY KEY)`,
	}, []string{
		`CREATE TABLE books (id bigserial, author_id int REFERENCES authors (id) ON DELETE CASCADE,
			title text NOT NULL, isbn varchar(13), code varchar(20) DEFAULT 'x',
			CONSTRAINT books_pk PRIMARY KEY (id), UNIQUE (title, isbn),
			CONSTRAINT by_name FOREIGN KEY (code) REFERENCES authors (name) ON UPDATE SET NULL, CHECK (id > 0 AND author_id > 0))`,
		`CREATE INDEX books_title_idx ON books (title DESC)`,
		`CREATE UNIQUE INDEX books_isbn ON books (isbn)`,
		`DROP TABLE scratch`,
	})
	want := &pgcatalog.Schema{Database: "relchain", User: "relchain",
		Tables: []pgcatalog.Table{{
			Name: "authors",
			Columns: []pgcatalog.Column{
				{Name: "id", Type: "int4", Typmod: -1, NotNull: true, Default: "nextval('authors_id_seq'::regclass)"},
				{Name: "name", Type: "varchar", Typmod: 24, NotNull: true},
				{Name: "active", Type: "bool", Typmod: -1, Default: "true"},
				{Name: "n", Type: "int4", Typmod: -1, Default: "0"},
				{Name: "m", Type: "int4", Typmod: -1, Default: "'-5'::integer"},
				{Name: "s", Type: "text", Typmod: -1, Default: "'it''s'::text"},
				{Name: "f", Type: "float8", Typmod: -1, Default: "1.5"},
				{Name: "born", Type: "timestamptz", Typmod: -1},
				{Name: "nb", Type: "bool", Typmod: -1},
			},
			PrimaryKey: []string{"id"}, PrimaryKeyName: "authors_pkey",
			Uniques: []pgcatalog.Unique{{Name: "authors_name_key", Columns: []string{"name"}}},
			Checks: []pgcatalog.Check{
				{Name: "positive", Expr: "(n >= 0)"},
				{Name: "authors_s_check", Expr: "(length(s) < 10)"},
			},
		}, {
			Name: "books",
			Columns: []pgcatalog.Column{
				{Name: "id", Type: "int8", Typmod: -1, NotNull: true, Default: "nextval('books_id_seq'::regclass)"},
				{Name: "author_id", Type: "int4", Typmod: -1},
				{Name: "title", Type: "text", Typmod: -1, NotNull: true},
				{Name: "isbn", Type: "varchar", Typmod: 17},
				{Name: "code", Type: "varchar", Typmod: 24, Default: "'x'::character varying"},
			},
			PrimaryKey: []string{"id"}, PrimaryKeyName: "books_pk",
			Uniques: []pgcatalog.Unique{{Name: "books_title_isbn_key", Columns: []string{"title", "isbn"}}},
			Indexes: []pgcatalog.Index{
				{Name: "books_title_idx", Columns: []string{"title"}},
				{Name: "books_isbn", Unique: true, Columns: []string{"isbn"}},
			},
			ForeignKeys: []pgcatalog.ForeignKey{
				{Name: "books_author_id_fkey", Columns: []string{"author_id"}, RefTable: "authors", RefColumns: []string{"id"}, OnUpdate: 'a', OnDelete: 'c'},
				{Name: "by_name", Columns: []string{"code"}, RefTable: "authors", RefColumns: []string{"name"}, OnUpdate: 'n', OnDelete: 'a'},
			},
			Checks: []pgcatalog.Check{{Name: "books_check", Expr: `((id > 0) AND (author_id > 0))`}},
		}},
		Sequences: []pgcatalog.Sequence{
			{Name: "authors_id_seq", Type: "int4", Start: 1, Increment: 1, Min: 1, Max: 1<<31 - 1, OwnedByTable: "authors", OwnedByColumn: "id"},
			{Name: "books_id_seq", Type: "int8", Start: 1, Increment: 1, Min: 1, Max: 1<<63 - 1, OwnedByTable: "books", OwnedByColumn: "id"},
		},
	}
	got := committedSchema(t, b)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("schemaOf:\n got %+v\nwant %+v", got, want)
		for i := range min(len(got.Tables), len(want.Tables)) {
			if !reflect.DeepEqual(got.Tables[i], want.Tables[i]) {
				t.Errorf("table %d:\n got %+v\nwant %+v", i, got.Tables[i], want.Tables[i])
			}
		}
	}
}

// Nothing relchain keeps (relchain_* tables, the sequences' state tables,
// SQLite's own) is ever a table of the Schema, though the database holds
// them, and a database without user tables has none.
func TestSchemaOfHidesRelchainTables(t *testing.T) {
	b := mustPostgresDDL(t)
	if s := committedSchema(t, b); len(s.Tables) != 0 || len(s.Sequences) != 0 {
		t.Fatalf("a fresh database's schema: %+v, want no tables and no sequences", s)
	}
	b = mustPostgresDDL(t, []string{`CREATE TABLE t (id serial PRIMARY KEY, v text)`})
	var internal []string
	inReadTx(t, b, func(r *sqlite3.Conn) {
		q, _, err := r.Prepare(`SELECT name FROM sqlite_schema WHERE type = 'table' AND (name LIKE 'relchain\_%' ESCAPE '\' OR name = 't_id_seq')`)
		if err := forRows(q, err, nil, func(st *sqlite3.Stmt) {
			internal = append(internal, st.ColumnText(0))
		}); err != nil {
			t.Fatal(err)
		}
	})
	if len(internal) < 2 {
		t.Fatalf("the database holds %v: the test needs relchain's tables and a sequence's table", internal)
	}
	s := committedSchema(t, b)
	if len(s.Tables) != 1 || s.Tables[0].Name != "t" {
		t.Fatalf("tables %+v, want t alone (the database also holds %v)", s.Tables, internal)
	}
}

// pgDefault shows SQLite's dflt_value as PostgreSQL's deparser shows the
// constant, and what it cannot read as SQLite keeps it.
func TestPGDefault(t *testing.T) {
	typ := func(name string, typmod int32) pgdialect.Type { return pgdialect.Type{Name: name, Typmod: typmod} }
	for _, c := range []struct {
		dflt string
		typ  pgdialect.Type
		want string
	}{
		{"0", typ("int4", -1), "0"},
		{"-7", typ("int4", -1), "'-7'::integer"},
		{"3", typ("int8", -1), "3"},
		{"-3", typ("int8", -1), "'-3'::integer"},
		{"5000000000", typ("int8", -1), "'5000000000'::bigint"},
		{"(-2)", typ("int2", -1), "'-2'::integer"},
		{"(-1.5)", typ("float8", -1), "'-1.5'::numeric"},
		{"2.5", typ("float4", -1), "2.5"},
		{"0.1", typ("float8", -1), "0.1"},
		{"2.0", typ("float8", -1), "2"},
		{"1e20", typ("float8", -1), "'100000000000000000000'::numeric"},
		{"1", typ("bool", -1), "true"},
		{"0", typ("bool", -1), "false"},
		{"NULL", typ("text", -1), ""},
		{"'a''b'", typ("text", -1), "'a''b'::text"},
		{"'y'", typ("varchar", 9), "'y'::character varying"},
		{"'2020-01-02'", typ("date", -1), "'2020-01-02'::date"},
		{"'2020-01-02 03:04:05+00'", typ("timestamptz", -1), "'2020-01-02 03:04:05+00'::timestamp with time zone"},
		{"'2020-01-02 03:04:05'", typ("timestamp", -1), "'2020-01-02 03:04:05'::timestamp without time zone"},
		{`'{"a":1}'`, typ("json", -1), `'{"a":1}'::json`},
		{"X'00FF'", typ("bytea", -1), `'\x00ff'::bytea`},
		{"abs(1)", typ("int4", -1), "abs(1)"},
		{"'350000115  '", typ("numeric", 655366), "1.50"},
		{"'14999997~'", typ("numeric", -1), "'-2'::integer"},
		{"'35000001  '", typ("numeric", -1), "0.10"},
		{"'ab '", typ("bpchar", 7), "'ab'::bpchar"},
		{"'x'", typ("bpchar", 5), "'x'::bpchar"},
		{"'{a,b}'", typ("_text", -1), "'{a,b}'::text[]"},
		{"'{1,2}'", typ("_int8", -1), "'{1,2}'::bigint[]"},
	} {
		if got := pgDefault(c.dflt, c.typ); got != c.want {
			t.Errorf("pgDefault(%q, %s) = %q, want %q", c.dflt, c.typ.Name, got, c.want)
		}
	}
}

// parseConstraints reads the names and columns of the constraints of the
// CREATE TABLE texts the dialect writes, quotes and nesting included.
func TestParseConstraints(t *testing.T) {
	got := parseConstraints(`CREATE TABLE "a,b" ("x" int4 CONSTRAINT "k""1" PRIMARY KEY NOT NULL, "y" text DEFAULT ('UNIQUE, (') UNIQUE,` +
		` "z" int4 REFERENCES "o" ("id") ON DELETE CASCADE, CONSTRAINT "u2" UNIQUE ("y", "z"), FOREIGN KEY ("z", "x") REFERENCES "p" ("a", "b"),` +
		` CONSTRAINT "c" CHECK ("x" > (1 + 2)))`)
	want := constraints{
		{kind: 'p', name: `k"1`, cols: []string{"x"}},
		{kind: 'u', cols: []string{"y"}},
		{kind: 'f', cols: []string{"z"}},
		{kind: 'u', name: "u2", cols: []string{"y", "z"}},
		{kind: 'f', cols: []string{"z", "x"}},
		{kind: 'c', name: "c", expr: `("x" > (1 + 2))`},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("parseConstraints:\n got %+v\nwant %+v", got, want)
	}
	if s := unquoteIdents(`("x" > 0 AND "Y" = 'a"b"' AND "1a" < 2)`); s != `(x > 0 AND "Y" = 'a"b"' AND "1a" < 2)` {
		t.Errorf("unquoteIdents: %s", s)
	}
}

// Default constraint names are clipped to 63 bytes as PostgreSQL's
// makeObjectName clips them: the longer of table and columns first, never
// inside a character; a clash takes a number after the label.
func TestObjectName(t *testing.T) {
	long := func(c string, n int) string { return strings.Repeat(c, n) }
	for _, c := range []struct{ name1, name2, label, want string }{
		{"t", "", "pkey", "t_pkey"},
		{"t", "a_b", "key", "t_a_b_key"},
		{long("t", 40), long("c", 40), "key", long("t", 29) + "_" + long("c", 29) + "_key"},
		{long("t", 70), "c", "fkey", long("t", 56) + "_c_fkey"},
		{long("é", 40), "", "pkey", long("é", 29) + "_pkey"},
	} {
		if got := pgdialect.ObjectName(c.name1, c.name2, c.label); got != c.want || len(got) > 63 {
			t.Errorf("ObjectName(%q, %q, %q) = %q, want %q", c.name1, c.name2, c.label, got, c.want)
		}
	}
	n := &nameChooser{taken: map[string]bool{}}
	if a, b, c := n.pick("", "t", "", "check"), n.pick("", "t", "", "check"), n.pick("given", "t", "", "check"); a != "t_check" || b != "t_check1" || c != "given" {
		t.Errorf("pick: %q %q %q, want t_check t_check1 given", a, b, c)
	}
}

// catalogCandidate lets by every text pgcatalog.Wants takes (the clients'
// corpus of backend/pgcatalog when it is there, and this list), and spares
// reads of user data Wants' parse.
func TestCatalogCandidate(t *testing.T) {
	wanted := []string{
		"SELECT relname FROM pg_class",
		`SELECT "relname" FROM "pg_class"`,
		"SELECT table_name FROM information_schema.tables",
		"SELECT pg_catalog.pg_get_expr /* a /* nested */ comment */ (adbin, adrelid) FROM pg_attrdef",
		"SELECT PG_GET_USERBYID\n(10)",
		`SELECT "pg_get_userbyid"(10)`,
		`SELECT trim(both '"' from pg_catalog.pg_get_indexdef(1, 1, false))`,
		"SELECT 'books'::regclass::oid",
		"SELECT CURRENT_USER",
		"SELECT current_database(), version()",
		"SELECT format_type(23, -1)",
		"SELECT has_table_privilege('books', 'SELECT')",
		"WITH t AS (SELECT oid FROM pg_type) SELECT count(*) FROM t",
		psqlDescribe,
	}
	files, _ := filepath.Glob(filepath.Join("..", "pgcatalog", "testdata", "clients", "*.sql"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		wanted = append(wanted, strings.Split(string(b), "\n-- next\n")...)
	}
	n := 0
	for _, q := range wanted {
		if pgcatalog.Wants(q) {
			n++
			if !catalogCandidate(q) {
				t.Errorf("catalogCandidate(%q) = false, but Wants takes it", q)
			}
		}
	}
	if n < 10 {
		t.Errorf("Wants takes only %d of %d catalog queries: the test proves little", n, len(wanted))
	}
	for _, q := range []string{
		"SELECT id, name, balance FROM accounts WHERE id = $1 AND name LIKE 'a%' ORDER BY id LIMIT 10",
		"SELECT count(*), lower(name), text FROM users GROUP BY 2, 3",
		"SELECT o.oid, o.version FROM orders o WHERE o.user_id = 5",
		"UPDATE t SET v = v + 1 WHERE id = 1",
		"SELECT name FROM tables JOIN columns USING (id) WHERE views > 0",
	} {
		if catalogCandidate(q) {
			t.Errorf("catalogCandidate(%q) = true: a read of user data pays Wants' parse", q)
		}
	}
}

// psqlDescribe is psql 16's first query of \d NAME.
const psqlDescribe = `SELECT c.oid,
  n.nspname,
  c.relname
FROM pg_catalog.pg_class c
     LEFT JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
WHERE c.relname OPERATOR(pg_catalog.~) '^(books)$' COLLATE pg_catalog.default
  AND pg_catalog.pg_table_is_visible(c.oid)
ORDER BY 2, 3;`

// A panic in the Engine (a catalog function's bug a client's text can
// reach) is that query's error, not the node's end; the Engine it left
// behind is retired and the next query answers from a new one.
func TestCatalogEnginePanicIsTheQuerysError(t *testing.T) {
	b := mustPostgresDDL(t, []string{`CREATE TABLE t (id int PRIMARY KEY)`})
	var e *catalogEngine
	inReadTx(t, b, func(r *sqlite3.Conn) {
		var err error
		if e, err = b.acquireCatalog(r); err != nil {
			t.Fatal(err)
		}
	})
	err := b.engineCall(e, func() error { panic("index out of range") })
	if be := backend.AsError(err); be == nil || be.SQLState != "XX000" || !strings.Contains(be.Message, "index out of range") {
		t.Fatalf("engineCall of a panic = %v, want XX000 naming it", err)
	}
	b.releaseCatalog(e)
	if b.pgCatalog.cur != nil {
		t.Fatal("the Engine that panicked is still the cached one")
	}
	rows, _, err := b.Query(context.Background(), "SELECT relname FROM pg_catalog.pg_class WHERE relname = 't'", nil)
	if err != nil || len(rows.Rows) != 1 {
		t.Fatalf("the next catalog query: %v, %v", rows, err)
	}
}

// A table whose declared types the dialect did not write (made outside
// the dialect: SQLite's own SQL on the file) is not shown: the
// translation does not see it either, so no PostgreSQL query could read it.
func TestSchemaOfSkipsTablesNotTheDialects(t *testing.T) {
	b := mustPostgresDDL(t, []string{`CREATE TABLE t (id int PRIMARY KEY)`})
	path := b.Path()
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	c, err := sqlite3.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Exec(`CREATE TABLE raw (x INTEGER, y TEXT)`); err != nil {
		t.Fatal(err)
	}
	c.Close()
	b, err = Open(context.Background(), path, WithPostgresDialect())
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	s := committedSchema(t, b)
	if len(s.Tables) != 1 || s.Tables[0].Name != "t" {
		t.Fatalf("tables %+v, want t alone (raw's types are SQLite's)", s.Tables)
	}
}

// uuid and jsonb columns show in the catalog with their types and their
// defaults as PostgreSQL's pg_get_expr shows them.
func TestSchemaOfUUIDAndJSONBColumns(t *testing.T) {
	b := mustPostgresDDL(t, []string{
		`CREATE TABLE docs (id uuid PRIMARY KEY DEFAULT 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11', body jsonb NOT NULL DEFAULT '{"b":1,"a":[]}', raw json)`,
	})
	want := []pgcatalog.Column{
		{Name: "id", Type: "uuid", Typmod: -1, NotNull: true, Default: "'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid"},
		{Name: "body", Type: "jsonb", Typmod: -1, NotNull: true, Default: `'{"a": [], "b": 1}'::jsonb`},
		{Name: "raw", Type: "json", Typmod: -1},
	}
	got := committedSchema(t, b)
	if len(got.Tables) != 1 || !reflect.DeepEqual(got.Tables[0].Columns, want) {
		t.Errorf("schemaOf:\n got %+v\nwant columns %+v", got.Tables, want)
	}
}
