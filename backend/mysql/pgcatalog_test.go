package mysql_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/mysql"
	"github.com/relchain/relchain/backend/mysql/mysqltest"
	"github.com/relchain/relchain/backend/pgcatalog"
)

// catalogDDL is a schema with what PostgreSQL clients read from the
// catalog: AUTO_INCREMENT keys, varchar, decimal, tinyint(1), datetime, a
// foreign key ON DELETE CASCADE, UNIQUE, a plain index, CHECK, comments
// and a view.
var catalogDDL = []string{
	`CREATE TABLE authors (
		id INT AUTO_INCREMENT PRIMARY KEY,
		name VARCHAR(20) NOT NULL,
		born DATE,
		CONSTRAINT authors_name_key UNIQUE (name)
	) COMMENT = 'people who write'`,
	`CREATE TABLE books (
		id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
		author_id INT NOT NULL,
		title VARCHAR(20) NOT NULL DEFAULT 'untitled' COMMENT 'the title',
		price DECIMAL(10,2) DEFAULT 0.00,
		in_print TINYINT(1) NOT NULL DEFAULT 1,
		added DATETIME DEFAULT CURRENT_TIMESTAMP,
		CONSTRAINT books_author_fk FOREIGN KEY (author_id) REFERENCES authors (id) ON DELETE CASCADE,
		CONSTRAINT price_ok CHECK (price >= 0),
		KEY books_added (added)
	)`,
	`CREATE VIEW cheap AS SELECT id, title FROM books WHERE price < 10`,
	// relchain_* names are relchain's (Open adds its own tables): never
	// shown, even one made outside relchain.
	`CREATE TABLE relchain_made_outside (i INT PRIMARY KEY)`,
}

// mustCatalogBackend opens a backend on a fresh database holding
// catalogDDL (created before Open, as an existing database's schema) and
// returns it with the database's name.
func mustCatalogBackend(t *testing.T) (*mysql.Backend, string) {
	t.Helper()
	b, name, _ := mustCatalogBackendDSN(t)
	return b, name
}

// mustCatalogBackendDSN is mustCatalogBackend, with the database's DSN.
func mustCatalogBackendDSN(t *testing.T) (*mysql.Backend, string, string) {
	t.Helper()
	dsn := mysqltest.DSN(t)
	for _, s := range catalogDDL {
		if err := mysqltest.RunOn(ctx(t), dsn, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	name, err := mysql.DatabaseName(dsn)
	if err != nil {
		t.Fatal(err)
	}
	b := mustOpen(t, dsn)
	t.Cleanup(func() { b.Close() })
	return b, name, dsn
}

// schemaOf reads what PostgreSQL clients are shown of MySQL's schema:
// tables in name order, PostgreSQL's types and typmods, defaults as
// pg_get_expr shows them, a serial's sequence for every AUTO_INCREMENT
// column, keys, indexes (MySQL's implicit index of a foreign key
// included), foreign-key actions, CHECK clauses, comments and the view;
// never relchain's tables (relchain_meta, relchain_changes … are there
// since Open).
func TestSchemaOfDescribesTheSchemaInPostgreSQLTerms(t *testing.T) {
	b, dbName := mustCatalogBackend(t)
	s, err := mysql.SchemaOf(ctx(t), b)
	if err != nil {
		t.Fatal(err)
	}
	want := &pgcatalog.Schema{
		Database: dbName, User: "relchain",
		Tables: []pgcatalog.Table{{
			Name: "authors",
			Columns: []pgcatalog.Column{
				{Name: "id", Type: "int4", Typmod: -1, NotNull: true, Default: "nextval('authors_id_seq'::regclass)"},
				{Name: "name", Type: "varchar", Typmod: 24, NotNull: true},
				{Name: "born", Type: "date", Typmod: -1},
			},
			PrimaryKey: []string{"id"}, PrimaryKeyName: "authors_pkey",
			Uniques: []pgcatalog.Unique{{Name: "authors_name_key", Columns: []string{"name"}}},
			Comment: "people who write",
		}, {
			Name: "books",
			Columns: []pgcatalog.Column{
				{Name: "id", Type: "int8", Typmod: -1, NotNull: true, Default: "nextval('books_id_seq'::regclass)"},
				{Name: "author_id", Type: "int4", Typmod: -1, NotNull: true},
				{Name: "title", Type: "varchar", Typmod: 24, NotNull: true, Default: "'untitled'::character varying", Comment: "the title"},
				{Name: "price", Type: "numeric", Typmod: 10<<16 | 2 + 4, Default: "0.00"},
				{Name: "in_print", Type: "int2", Typmod: -1, NotNull: true, Default: "1"},
				{Name: "added", Type: "timestamp", Typmod: -1, Default: "CURRENT_TIMESTAMP"},
			},
			PrimaryKey: []string{"id"}, PrimaryKeyName: "books_pkey",
			Indexes: []pgcatalog.Index{{Name: "books_added", Columns: []string{"added"}},
				{Name: "books_author_fk", Columns: []string{"author_id"}}},
			ForeignKeys: []pgcatalog.ForeignKey{{Name: "books_author_fk", Columns: []string{"author_id"},
				RefTable: "authors", RefColumns: []string{"id"}, OnUpdate: 'r', OnDelete: 'c'}},
			Checks: []pgcatalog.Check{{Name: "price_ok", Expr: "price >= 0"}},
		}},
		Views: []pgcatalog.View{{Name: "cheap",
			Columns:    []pgcatalog.Column{{Name: "id", Type: "int8", Typmod: -1}, {Name: "title", Type: "varchar", Typmod: 24}},
			Definition: "select books.id AS id,books.title AS title from books where books.price < 10"}},
		Sequences: []pgcatalog.Sequence{
			{Name: "authors_id_seq", Type: "int4", Start: 1, Increment: 1, Min: 1, Max: 1<<31 - 1, OwnedByTable: "authors", OwnedByColumn: "id"},
			{Name: "books_id_seq", Type: "int8", Start: 1, Increment: 1, Min: 1, Max: 1<<63 - 1, OwnedByTable: "books", OwnedByColumn: "id"},
		},
	}
	if !reflect.DeepEqual(s, want) {
		got, _ := json.MarshalIndent(s, "", " ")
		exp, _ := json.MarshalIndent(want, "", " ")
		t.Fatalf("schemaOf =\n%s\nwant\n%s", got, exp)
	}
}

// psqlListTables is psql 15's \dt.
const psqlListTables = `SELECT n.nspname as "Schema",
  c.relname as "Name",
  CASE c.relkind WHEN 'r' THEN 'table' WHEN 'v' THEN 'view' WHEN 'm' THEN 'materialized view' WHEN 'i' THEN 'index' WHEN 'S' THEN 'sequence' WHEN 't' THEN 'TOAST table' WHEN 'f' THEN 'foreign table' WHEN 'p' THEN 'partitioned table' WHEN 'I' THEN 'partitioned index' END as "Type",
  pg_catalog.pg_get_userbyid(c.relowner) as "Owner"
FROM pg_catalog.pg_class c
     LEFT JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
     LEFT JOIN pg_catalog.pg_am am ON am.oid = c.relam
WHERE c.relkind IN ('r','p','')
      AND n.nspname <> 'pg_catalog'
      AND n.nspname !~ '^pg_toast'
      AND n.nspname <> 'information_schema'
  AND pg_catalog.pg_table_is_visible(c.oid)
ORDER BY 1,2;`

// columnsQuery is information_schema.columns as PostgreSQL clients ask it.
const columnsQuery = `SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'books' ORDER BY ordinal_position`

// catalogLines is rows' values as text, one row a line.
func catalogLines(rows [][]any) string {
	var b strings.Builder
	for _, r := range rows {
		fmt.Fprintln(&b, r...)
	}
	return b.String()
}

// psql's \dt and PostgreSQL's information_schema.columns are answered on
// MySQL from the emulated catalog, at the committed height: PostgreSQL's
// type names (character varying, not MySQL's varchar) show that MySQL's
// own information_schema never answers.
func TestQueryAnswersPostgreSQLCatalogQueries(t *testing.T) {
	b, _ := mustCatalogBackend(t)
	rows, height, err := b.Query(ctx(t), psqlListTables, nil)
	if err != nil {
		t.Fatalf("\\dt: %v", err)
	}
	if got, want := catalogLines(rows.Rows), "public authors table relchain\npublic books table relchain\n"; got != want || height != 0 {
		t.Fatalf("\\dt = %q at height %d, want %q at 0", got, height, want)
	}
	if fmt.Sprint(rows.Columns) != "[Schema Name Type Owner]" || len(rows.Types) != 4 || len(rows.Typmods) != 4 {
		t.Fatalf("\\dt columns %v, types %v, typmods %v", rows.Columns, rows.Types, rows.Typmods)
	}
	rows, _, err = b.Query(ctx(t), columnsQuery, nil)
	if err != nil {
		t.Fatalf("information_schema.columns: %v", err)
	}
	want := "id bigint\nauthor_id integer\ntitle character varying\nprice numeric\nin_print smallint\nadded timestamp without time zone\n"
	if got := catalogLines(rows.Rows); got != want {
		t.Fatalf("information_schema.columns =\n%s\nwant\n%s", got, want)
	}
}

// A PostgreSQL client's $1 reaches a MySQL node as ? (the gateway's
// rewriting): the catalog reads it as $1 again, in Query and Describe, and
// Describe's columns are the ones Query returns.
func TestCatalogQueriesTakeParametersAndDescribe(t *testing.T) {
	b, _ := mustCatalogBackend(t)
	q := `SELECT column_name, data_type FROM information_schema.columns WHERE table_name = ? ORDER BY ordinal_position`
	rows, _, err := b.Query(ctx(t), q, []any{"authors"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := catalogLines(rows.Rows), "id integer\nname character varying\nborn date\n"; got != want {
		t.Fatalf("columns of authors =\n%s\nwant\n%s", got, want)
	}
	d, err := b.Describe(ctx(t), q)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Params) != 1 || len(d.Columns) != 2 || d.Height != 0 {
		t.Fatalf("Describe = %+v; want one parameter, two columns, height 0", d)
	}
	for i, c := range d.Columns {
		if c.Name != rows.Columns[i] || c.Type != rows.Types[i] || c.Type == "" {
			t.Errorf("described column %d = %s %s; Query returned %s %s", i, c.Name, c.Type, rows.Columns[i], rows.Types[i])
		}
	}
}

// A block's DDL shows in the catalog from its height on (the Engine is
// rebuilt when the schema read at a new height differs).
func TestCatalogFollowsTheSchemaByHeight(t *testing.T) {
	b, _ := mustCatalogBackend(t)
	if _, _, err := b.Query(ctx(t), psqlListTables, nil); err != nil {
		t.Fatal(err)
	}
	runBlock(t, b, 1, [][]string{{"CREATE TABLE later (i INT PRIMARY KEY)"}})
	rows, height, err := b.Query(ctx(t), psqlListTables, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := catalogLines(rows.Rows), "public authors table relchain\npublic books table relchain\npublic later table relchain\n"; got != want || height != 1 {
		t.Fatalf("\\dt after the block = %q at height %d, want %q at 1", got, height, want)
	}
}

// The schema is read again when a block changed it, not at every height:
// blocks without DDL answer catalog queries from the cache (six
// information_schema queries per block made them time out on a loaded
// machine). A table created outside relchain shows at a new height once
// the cache is catalogMaxAge old.
func TestCatalogReadsTheSchemaOnlyWhenItMayHaveChanged(t *testing.T) {
	b, _, dsn := mustCatalogBackendDSN(t)
	list := func(wantHeight int64) string {
		t.Helper()
		rows, height, err := b.Query(ctx(t), psqlListTables, nil)
		if err != nil || height != wantHeight {
			t.Fatalf("\\dt: height %d, %v; want height %d", height, err, wantHeight)
		}
		return catalogLines(rows.Rows)
	}
	const two = "public authors table relchain\npublic books table relchain\n"
	if got := list(0); got != two || mysql.CatalogSchemaReads(b) != 1 {
		t.Fatalf("\\dt = %q after %d schema reads, want %q after 1", got, mysql.CatalogSchemaReads(b), two)
	}
	for h := int64(1); h <= 3; h++ {
		runBlock(t, b, h, [][]string{{fmt.Sprintf("INSERT INTO authors (id, name) VALUES (%d, 'a%d')", 100+h, h)}})
		list(h)
	}
	if n := mysql.CatalogSchemaReads(b); n != 1 {
		t.Fatalf("three blocks without DDL: %d schema reads, want 1", n)
	}
	if err := mysqltest.RunOn(ctx(t), dsn, "CREATE TABLE byhand (i INT PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	mysql.AgeCatalog(b)
	runBlock(t, b, 4, [][]string{{"INSERT INTO authors (id, name) VALUES (200, 'z')"}})
	if got, want := list(4), "public authors table relchain\npublic books table relchain\npublic byhand table relchain\n"; got != want {
		t.Fatalf("\\dt after a table made by hand and catalogMaxAge = %q, want %q", got, want)
	}
	runBlock(t, b, 5, [][]string{{"CREATE TABLE later (i INT PRIMARY KEY)"}})
	if got := list(5); !strings.Contains(got, "public later table") || mysql.CatalogSchemaReads(b) != 3 {
		t.Fatalf("\\dt after a block's DDL = %q after %d schema reads, want table later after 3", got, mysql.CatalogSchemaReads(b))
	}
}

// The read path's row limit holds for catalog queries, and the catalog's
// own errors are backend errors of PostgreSQL's SQLSTATE's class.
func TestCatalogQueriesKeepTheReadLimitsAndErrors(t *testing.T) {
	dsn := mysqltest.DSN(t)
	for _, s := range catalogDDL {
		if err := mysqltest.RunOn(ctx(t), dsn, s); err != nil {
			t.Fatal(err)
		}
	}
	b := mustOpen(t, dsn, mysql.WithQueryLimits(1, 0))
	defer b.Close()
	_, _, err := b.Query(ctx(t), psqlListTables, nil)
	if e := backend.AsError(err); e == nil || e.Class != backend.ClassResource {
		t.Fatalf("\\dt (2 rows) under a 1-row limit: %v; want a resource error", err)
	}
	_, _, err = b.Query(ctx(t), "SELECT nosuch FROM pg_catalog.pg_class", nil)
	if e := backend.AsError(err); e == nil || e.SQLState != "42703" || e.Class != backend.ClassUndefined {
		t.Fatalf("an unknown column: %v; want 42703, class undefined", err)
	}
}

// answeredByCatalog reports whether q is a PostgreSQL catalog query
// (pgcatalog.Wants), which the read path answers from the emulated catalog
// rather than refusing it; for one, it fails t if the query failed or its
// answer shows one of the MySQL server's facts (serverFacts).
func answeredByCatalog(t *testing.T, facts map[string]string, q string, res *backend.Rows, err error) bool {
	t.Helper()
	if !pgcatalog.Wants(q) {
		return false
	}
	if err != nil {
		t.Errorf("Query(%q), a catalog query: %v", q, err)
		return true
	}
	for _, row := range res.Rows {
		for _, v := range row {
			if leak := facts[strings.ToLower(fmt.Sprint(v))]; leak != "" {
				t.Errorf("Query(%q) shows the server's %s %q: %v", q, leak, v, res.Rows)
			}
		}
	}
	return true
}

// serverFacts are what the read path must not show of the server behind
// db: its version, its accounts and its databases other than
// ownName and information_schema (a PostgreSQL schema too), lower-cased,
// each mapped to what it is.
func serverFacts(t *testing.T, db *sql.DB, ownName string) map[string]string {
	t.Helper()
	facts := map[string]string{}
	var version string
	if err := db.QueryRowContext(ctx(t), "SELECT VERSION()").Scan(&version); err != nil {
		t.Fatal(err)
	}
	facts[strings.ToLower(version)] = "version"
	for what, q := range map[string]string{
		"database": "SELECT SCHEMA_NAME FROM information_schema.SCHEMATA",
		"account":  "SELECT DISTINCT User FROM mysql.user",
	} {
		rows, err := db.QueryContext(ctx(t), q)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var name string
			if err := rows.Scan(&name); err != nil {
				t.Fatal(err)
			}
			if name != ownName && name != "information_schema" && name != "" {
				facts[strings.ToLower(name)] = what
			}
		}
		rows.Close()
	}
	return facts
}

// mustOpenWithServer opens a backend on a fresh database, and a connection
// to its server with the server's facts (serverFacts).
func mustOpenWithServer(t *testing.T) (*mysql.Backend, *sql.DB, map[string]string) {
	t.Helper()
	dsn := mysqltest.DSN(t)
	own, err := mysql.DatabaseName(dsn)
	if err != nil {
		t.Fatal(err)
	}
	b := mustOpen(t, dsn)
	t.Cleanup(func() { b.Close() })
	db, err := sql.Open("mysql", mysqltest.ServerDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return b, db, serverFacts(t, db, own)
}

// psql's \d books reads MySQL's schema as PostgreSQL shows a table: its
// columns' types, defaults and NOT NULL, its indexes, foreign key, CHECK
// and comments (psql 15's queries, the table's oid as a regclass
// literal).
func TestPsqlDescribesAMySQLTable(t *testing.T) {
	b, _ := mustCatalogBackend(t)
	for _, c := range []struct{ what, sql, want string }{
		{"columns", `SELECT a.attname,
  pg_catalog.format_type(a.atttypid, a.atttypmod),
  (SELECT pg_catalog.pg_get_expr(d.adbin, d.adrelid, true)
   FROM pg_catalog.pg_attrdef d
   WHERE d.adrelid = a.attrelid AND d.adnum = a.attnum AND a.atthasdef),
  a.attnotnull
FROM pg_catalog.pg_attribute a
WHERE a.attrelid = 'books'::pg_catalog.regclass AND a.attnum > 0 AND NOT a.attisdropped
ORDER BY a.attnum`, `id bigint nextval('books_id_seq'::regclass) true
author_id integer <nil> true
title character varying(20) 'untitled'::character varying true
price numeric(10,2) 0.00 false
in_print smallint 1 true
added timestamp without time zone CURRENT_TIMESTAMP false
`},
		{"indexes", `SELECT c2.relname, i.indisprimary, i.indisunique, pg_catalog.pg_get_indexdef(i.indexrelid, 0, true),
  pg_catalog.pg_get_constraintdef(con.oid, true), contype
FROM pg_catalog.pg_class c, pg_catalog.pg_class c2, pg_catalog.pg_index i
  LEFT JOIN pg_catalog.pg_constraint con ON (conrelid = i.indrelid AND conindid = i.indexrelid AND contype IN ('p','u','x'))
WHERE c.oid = 'authors'::pg_catalog.regclass AND c.oid = i.indrelid AND i.indexrelid = c2.oid
ORDER BY i.indisprimary DESC, c2.relname`, `authors_pkey true true CREATE UNIQUE INDEX authors_pkey ON authors USING btree (id) PRIMARY KEY (id) p
authors_name_key false true CREATE UNIQUE INDEX authors_name_key ON authors USING btree (name) UNIQUE (name) u
`},
		{"foreign keys", `SELECT true as sametable, conname,
  pg_catalog.pg_get_constraintdef(r.oid, true) as condef,
  conrelid::pg_catalog.regclass AS ontable
FROM pg_catalog.pg_constraint r
WHERE r.conrelid = 'books'::pg_catalog.regclass AND r.contype = 'f'
     AND conparentid = 0
ORDER BY conname`, "true books_author_fk FOREIGN KEY (author_id) REFERENCES authors(id) ON UPDATE RESTRICT ON DELETE CASCADE books\n"},
		{"checks", `SELECT r.conname, pg_catalog.pg_get_constraintdef(r.oid, true)
FROM pg_catalog.pg_constraint r
WHERE r.conrelid = 'books'::pg_catalog.regclass AND r.contype = 'c'
ORDER BY 1`, ""},
		{"comments", `SELECT pg_catalog.obj_description('authors'::pg_catalog.regclass, 'pg_class'),
  pg_catalog.col_description('books'::pg_catalog.regclass, 3)`, "people who write the title\n"},
	} {
		rows, _, err := b.Query(ctx(t), c.sql, nil)
		if err != nil {
			t.Errorf("%s: %v", c.what, err)
			continue
		}
		got := catalogLines(rows.Rows)
		if c.what == "checks" {
			// How many parentheses pg_get_constraintdef's pretty form
			// keeps is the Engine's; the name and the clause are MySQL's.
			if !strings.HasPrefix(got, "price_ok CHECK (") || !strings.Contains(got, "price >= 0") || strings.Count(got, "\n") != 1 {
				t.Errorf("checks = %q, want price_ok's CHECK (price >= 0)", got)
			}
			continue
		}
		if got != c.want {
			t.Errorf("%s =\n%s\nwant\n%s", c.what, got, c.want)
		}
	}
}

// Catalog queries run concurrently with blocks that change the schema:
// each is answered (from the schema before or after the DDL), and once
// the block committed the new table shows. A query whose context has
// ended is not answered.
func TestCatalogQueriesRunBesideSchemaChanges(t *testing.T) {
	b, _ := mustCatalogBackend(t)
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 8 {
				if _, _, err := b.Query(ctx(t), psqlListTables, nil); err != nil {
					errs <- err
				}
			}
		}()
	}
	for h := int64(1); h <= 3; h++ {
		runBlock(t, b, h, [][]string{{fmt.Sprintf("CREATE TABLE later%d (i INT PRIMARY KEY)", h)}})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("a catalog query beside the blocks: %v", err)
	}
	rows, height, err := b.Query(ctx(t), psqlListTables, nil)
	if err != nil || height != 3 || !strings.Contains(catalogLines(rows.Rows), "later3") {
		t.Fatalf("\\dt after the blocks = %v at height %d, %v; want later3 at 3", rows, height, err)
	}
	done, cancel := context.WithCancel(ctx(t))
	cancel()
	if _, _, err := b.Query(done, psqlListTables, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("a catalog query with its context ended: %v; want context.Canceled", err)
	}
}
