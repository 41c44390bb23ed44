package sqlite_test

import (
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/pgcatalog"
	"github.com/relchain/relchain/backend/sqlite"
)

// catalogDDL is the schema the catalog tests read.
var catalogDDL = []pgStmt{
	{sql: `CREATE TABLE authors (id serial PRIMARY KEY, name varchar(20) NOT NULL UNIQUE)`},
	{sql: `CREATE TABLE books (id bigserial PRIMARY KEY, author_id int REFERENCES authors (id) ON DELETE CASCADE,
		title text NOT NULL, published bool DEFAULT false)`},
	{sql: `CREATE INDEX books_title_idx ON books (title)`},
}

// wantError fails t unless err is a *backend.Error of state whose message
// names every one of names.
func wantError(t *testing.T, what string, err error, state string, names ...string) {
	t.Helper()
	e := backend.AsError(err)
	if e == nil || e.SQLState != state || e.Class != backend.ClassOfSQLState(state) {
		t.Errorf("%s = %v, want a *backend.Error of SQLSTATE %s", what, err, state)
		return
	}
	for _, n := range names {
		if !strings.Contains(e.Message, n) {
			t.Errorf("%s = %q, want a message naming %q", what, e.Message, n)
		}
	}
}

// In a block (CheckTx's Analyze, the block's gate, Exec) a read of
// PostgreSQL's catalogs is refused as the gate refuses it on PostgreSQL
// storage (42501, which the wire gateway answers on the read path inside
// a transaction), naming the relation and the read path.
func TestPostgresDialectCatalogRefusedInBlocks(t *testing.T) {
	b := mustOpenPostgresDialect(t)
	ctx := context.Background()
	pgBlock(t, b, 1, catalogDDL...)
	for _, c := range []struct{ sql, names string }{
		{"SELECT relname FROM pg_catalog.pg_class WHERE relkind = 'r' ORDER BY 1", "pg_catalog"},
		{"SELECT table_name FROM information_schema.tables", "information_schema"},
		{"SELECT typname FROM pg_type", "pg_type"},
		{"INSERT INTO books (title) SELECT relname FROM pg_class", "pg_class"},
	} {
		_, err := b.Gate().Analyze(ctx, c.sql)
		wantError(t, "Analyze of "+c.sql, err, "42501", c.names, "read path only")
		blk, err := b.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		_, err = b.Gate().AnalyzeInBlock(ctx, blk, c.sql)
		wantError(t, "AnalyzeInBlock of "+c.sql, err, "42501", c.names, "read path only")
		_, err = blk.Exec(ctx, c.sql, nil)
		wantError(t, "Exec of "+c.sql, err, "42501", c.names, "read path only")
		blk.Rollback(ctx)
	}
}

// On the read path a text that reads the catalogs but is no catalog query
// (it also reads a user table, or writes) is refused with 0A000 naming the
// catalog relation and what a catalog query is.
func TestPostgresDialectCatalogTextThatIsNoCatalogQuery(t *testing.T) {
	b := mustOpenPostgresDialect(t)
	ctx := context.Background()
	pgBlock(t, b, 1, catalogDDL...)
	for _, c := range []struct{ sql, names string }{
		{"SELECT c.relname, a.name FROM pg_class c, authors a", "pg_class"},
		{"SELECT title FROM books WHERE title IN (SELECT table_name FROM information_schema.tables)", "information_schema"},
	} {
		_, _, err := b.Query(ctx, c.sql, nil)
		wantError(t, "Query of "+c.sql, err, "0A000", c.names, "catalog queries only")
		_, err = b.Describe(ctx, c.sql)
		wantError(t, "Describe of "+c.sql, err, "0A000", c.names, "catalog queries only")
	}
}

// requireCatalogEngine skips t while backend/pgcatalog's rewriting is
// the skeleton's (Wants is false for every text, so no catalog query
// reaches the Engine).
func requireCatalogEngine(t *testing.T) {
	t.Helper()
	if !pgcatalog.Wants("SELECT relname FROM pg_catalog.pg_class") {
		t.Skip("backend/pgcatalog answers no catalog query yet (its rewriting is not built)")
	}
}

// psqlListTables is psql 16's \dt.
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

// wantRows fails t unless rows has the columns, types and rows given.
func wantRows(t *testing.T, what string, rows *backend.Rows, cols, types []string, want [][]any) {
	t.Helper()
	if !reflect.DeepEqual(rows.Columns, cols) || !reflect.DeepEqual(rows.Types, types) || len(rows.Typmods) != len(cols) {
		t.Errorf("%s: columns %v types %v typmods %v, want %v %v", what, rows.Columns, rows.Types, rows.Typmods, cols, types)
	}
	if !reflect.DeepEqual(rows.Rows, want) {
		t.Errorf("%s: rows %v, want %v", what, rows.Rows, want)
	}
}

// Catalog queries on the read path are answered from the committed
// schema, at its height: pg_class, psql's \dt, information_schema,
// with parameters; after a block that changes the schema, from the new
// one.
func TestPostgresDialectCatalogQueries(t *testing.T) {
	requireCatalogEngine(t)
	b := mustOpenPostgresDialect(t)
	ctx := context.Background()
	pgBlock(t, b, 1, catalogDDL...)
	query := func(sql string, args ...any) *backend.Rows {
		t.Helper()
		rows, h, err := b.Query(ctx, sql, args)
		if err != nil {
			t.Fatalf("Query(%s): %v", sql, err)
		}
		if h != 1 && h != 2 {
			t.Errorf("Query(%s) at height %d", sql, h)
		}
		return rows
	}
	name := func(s ...string) []string { return s }
	wantRows(t, "pg_class", query("SELECT relname FROM pg_class WHERE relkind = 'r' ORDER BY 1"),
		name("relname"), name("name"), [][]any{{"authors"}, {"books"}})
	wantRows(t, `\dt`, query(psqlListTables),
		name("Schema", "Name", "Type", "Owner"), name("name", "name", "text", "name"),
		[][]any{{"public", "authors", "table", "relchain"}, {"public", "books", "table", "relchain"}})
	wantRows(t, "pg_class with a parameter", query("SELECT relname FROM pg_catalog.pg_class WHERE relname = $1", "books"),
		name("relname"), name("name"), [][]any{{"books"}})
	cols := query(`SELECT column_name, data_type, is_nullable, column_default FROM information_schema.columns
		WHERE table_schema = 'public' AND table_name = 'books' ORDER BY ordinal_position`)
	wantCols := [][]any{
		{"id", "bigint", "NO", "nextval('books_id_seq'::regclass)"},
		{"author_id", "integer", "YES", nil},
		{"title", "text", "NO", nil},
		{"published", "boolean", "YES", "false"},
	}
	if !reflect.DeepEqual(cols.Columns, name("column_name", "data_type", "is_nullable", "column_default")) || !reflect.DeepEqual(cols.Rows, wantCols) {
		t.Errorf("information_schema.columns: %v %v, want %v", cols.Columns, cols.Rows, wantCols)
	}
	pgBlock(t, b, 2, pgStmt{sql: "CREATE TABLE later (x int)"}, pgStmt{sql: "DROP TABLE books"})
	wantRows(t, "pg_class after DDL", query("SELECT relname FROM pg_class WHERE relkind = 'r' ORDER BY 1"),
		name("relname"), name("name"), [][]any{{"authors"}, {"later"}})
}

// Describe of a catalog query gives its parameters' and columns' types.
func TestPostgresDialectCatalogDescribe(t *testing.T) {
	requireCatalogEngine(t)
	b := mustOpenPostgresDialect(t)
	pgBlock(t, b, 1, catalogDDL...)
	d, err := b.Describe(context.Background(), "SELECT relname, relnatts FROM pg_catalog.pg_class WHERE relname = $1")
	if err != nil {
		t.Fatal(err)
	}
	want := &backend.Description{Height: 1, Params: []string{"name"},
		Columns: []backend.ColumnType{{Name: "relname", Type: "name"}, {Name: "relnatts", Type: "int2"}}}
	if !reflect.DeepEqual(d, want) {
		t.Errorf("Describe = %+v, want %+v", d, want)
	}
}

// A catalog query's result is bounded by the read caps as any read's.
func TestPostgresDialectCatalogReadCaps(t *testing.T) {
	requireCatalogEngine(t)
	b, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "relchain.db"), sqlite.WithPostgresDialect(), sqlite.WithReadCaps(1, 0))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	pgBlock(t, b, 1, catalogDDL...)
	_, _, err = b.Query(context.Background(), psqlListTables, nil)
	wantError(t, "a two-row catalog query under a one-row cap", err, "54000", "1 rows")
	if _, _, err := b.Query(context.Background(), "SELECT relname FROM pg_class WHERE relname = 'books'", nil); err != nil {
		t.Errorf("a one-row catalog query under a one-row cap: %v", err)
	}
}
