package sqlite_test

import (
	"context"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/postgres/pgtest"
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
		// A catalog query that names no catalog relation (SQLAlchemy's
		// first statement, inside psycopg2's implicit transaction).
		{"select current_schema()", "catalog function"},
		{"SELECT version()", "catalog function"},
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

// A rehearsal's probe (backend.BlockReader) answers a catalog query from
// the block's own schema, its uncommitted DDL included, as PostgreSQL
// answers an ORM's migration reading back the table it just created; any
// other read is no probe of this backend's.
func TestPostgresDialectCatalogProbeSeesTheBlocksDDL(t *testing.T) {
	b := mustOpenPostgresDialect(t)
	ctx := context.Background()
	pgBlock(t, b, 1, catalogDDL...)
	blk, err := b.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer blk.Rollback(ctx)
	if _, err := blk.Exec(ctx, "CREATE TABLE migrated (id serial PRIMARY KEY, note text)", nil); err != nil {
		t.Fatal(err)
	}
	br, ok := blk.(backend.BlockReader)
	if !ok {
		t.Fatalf("%T is no backend.BlockReader", blk)
	}
	rows, err := br.ReadInBlock(ctx, "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY 1", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(rows.Rows); got != "[[authors] [books] [migrated]]" {
		t.Errorf("tables in the block = %s, want authors, books and the block's migrated", got)
	}
	if _, err := br.ReadInBlock(ctx, "SELECT note FROM migrated", nil); err != backend.ErrBlockReadUnsupported {
		t.Errorf("a read of user data in the block = %v, want backend.ErrBlockReadUnsupported", err)
	}
	// The committed state's read path does not see the block's table.
	got, _, err := b.Query(ctx, "SELECT count(*) FROM pg_class WHERE relname = 'migrated'", nil)
	if err != nil || fmt.Sprint(got.Rows) != "[[0]]" {
		t.Errorf("the read path during the block: %v, %v; want no migrated table", got, err)
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
		wantError(t, "Query of "+c.sql, err, "0A000", c.names, "a catalog query is one SELECT")
		_, err = b.Describe(ctx, c.sql)
		wantError(t, "Describe of "+c.sql, err, "0A000", c.names, "a catalog query is one SELECT")
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
	// pg_class holds the catalogs' own tables too, as on PostgreSQL.
	all := query("SELECT relname FROM pg_class WHERE relkind = 'r' ORDER BY 1")
	if !reflect.DeepEqual(all.Types, name("name")) || len(all.Rows) < 3 || !reflect.DeepEqual(all.Rows[:2], [][]any{{"authors"}, {"books"}}) {
		t.Errorf("pg_class: %v %v, want authors, books and the catalogs' tables", all.Types, all.Rows)
	}
	for _, r := range all.Rows[2:] {
		if s, _ := r[0].(string); !strings.HasPrefix(s, "pg_") {
			t.Errorf("pg_class lists %v, neither a user table nor a catalog", r)
		}
	}
	hidden := query(`SELECT relname FROM pg_catalog.pg_class WHERE relname LIKE 'relchain%' OR relname LIKE 'sqlite%'
		OR (relname LIKE '%_seq' AND relkind <> 'S')`)
	if len(hidden.Rows) != 0 {
		t.Errorf("pg_class shows relchain's or SQLite's own relations: %v", hidden.Rows)
	}
	const userTables = "SELECT relname FROM pg_class WHERE relkind = 'r' AND relnamespace = 'public'::regnamespace ORDER BY 1"
	wantRows(t, "pg_class of public", query(userTables), name("relname"), name("name"), [][]any{{"authors"}, {"books"}})
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
	wantRows(t, "pg_class after DDL", query(userTables), name("relname"), name("name"), [][]any{{"authors"}, {"later"}})
	wantRows(t, "the sequences after DDL", query("SELECT relname FROM pg_class WHERE relkind = 'S' ORDER BY 1"),
		name("relname"), name("name"), [][]any{{"authors_id_seq"}})
}

// Catalog queries running while blocks change the schema each see one
// committed schema whole (the tables of a height: never a table without
// its columns), and the Engines replaced under them keep answering until
// they finish (run it under -race).
func TestPostgresDialectCatalogWhileTheSchemaChanges(t *testing.T) {
	b := mustOpenPostgresDialect(t)
	ctx := context.Background()
	pgBlock(t, b, 1, catalogDDL...)
	const q = `SELECT c.relname, count(a.attnum) FROM pg_catalog.pg_class c JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid
		WHERE c.relnamespace = 'public'::regnamespace AND c.relkind = 'r' AND a.attnum > 0 GROUP BY c.relname ORDER BY 1`
	done := make(chan struct{})
	errs := make(chan error, 4)
	for range 3 {
		go func() {
			for {
				select {
				case <-done:
					errs <- nil
					return
				default:
				}
				rows, h, err := b.Query(ctx, q, nil)
				if err != nil {
					errs <- err
					return
				}
				// Height h has tables t2 … th of two columns each.
				if want := int(h) + 1; len(rows.Rows) != want {
					errs <- fmt.Errorf("height %d: %d tables %v, want %d", h, len(rows.Rows), rows.Rows, want)
					return
				}
			}
		}()
	}
	for h := int64(2); h <= 12; h++ {
		pgBlock(t, b, h, pgStmt{sql: fmt.Sprintf("CREATE TABLE t%d (a int, b text)", h)})
	}
	close(done)
	for range 3 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	rows, _, err := b.Query(ctx, q, nil)
	if err != nil || len(rows.Rows) != 13 {
		t.Fatalf("after the last block: %v, %v; want 13 tables", rows, err)
	}
}

// Odd catalog texts are answered or refused with a *backend.Error of
// PostgreSQL's SQLSTATE; none ends the node (a function called without
// its arguments once panicked in the Engine), and the next query is
// answered.
func TestPostgresDialectCatalogOddTexts(t *testing.T) {
	b := mustOpenPostgresDialect(t)
	ctx := context.Background()
	pgBlock(t, b, 1, catalogDDL...)
	for _, c := range []struct {
		sql   string
		args  []any
		state string // "" any *backend.Error
	}{
		{"SELECT nosuch FROM pg_catalog.pg_class", nil, "42703"},
		{"SELECT relname FROM pg_catalog.pg_class WHERE relname = $1", nil, ""},
		{"SELECT pg_get_expr()", nil, ""},
		{"SELECT pg_get_indexdef()", nil, ""},
		{"SELECT format_type()", nil, ""},
	} {
		_, _, err := b.Query(ctx, c.sql, c.args)
		if e := backend.AsError(err); e == nil || (c.state != "" && e.SQLState != c.state) {
			t.Errorf("Query(%s) = %v, want a *backend.Error %s", c.sql, err, c.state)
		}
	}
	if rows, _, err := b.Query(ctx, "SELECT relname FROM pg_catalog.pg_class WHERE relname = 'books'", nil); err != nil || len(rows.Rows) != 1 {
		t.Errorf("the next catalog query: %v, %v", rows, err)
	}
}

// Describe of a catalog query gives its parameters' and columns' types.
func TestPostgresDialectCatalogDescribe(t *testing.T) {
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

// comparedDDL and comparedCatalogQueries: the same schema made on
// PostgreSQL and on a postgres-dialect SQLite backend reads the same
// through the catalog queries drivers and psql send.
var (
	comparedDDL = []string{
		`CREATE TABLE authors (id serial PRIMARY KEY, name varchar(20) NOT NULL UNIQUE, active bool DEFAULT true,
			n int DEFAULT 0, m int DEFAULT -5, s text DEFAULT 'it''s', f float8 DEFAULT 1.5, born timestamptz,
			day date DEFAULT '2020-01-02', nb bool DEFAULT NULL, price numeric(10,1) DEFAULT 2.5, amount numeric,
			code char(3) DEFAULT 'ab', tags text[] DEFAULT '{a,b}', nums int4[], CONSTRAINT positive CHECK (n >= 0), CHECK (length(s) < 10))`,
		`CREATE TABLE scratch (id bigserial PRIMARY KEY)`,
		`CREATE TABLE books (id bigserial, author_id int REFERENCES authors (id) ON DELETE CASCADE,
			title text NOT NULL, isbn varchar(13), code varchar(20) DEFAULT 'x', big int8 DEFAULT 5000000000,
			CONSTRAINT books_pk PRIMARY KEY (id), UNIQUE (title, isbn),
			CONSTRAINT by_name FOREIGN KEY (code) REFERENCES authors (name) ON UPDATE SET NULL, CHECK (id > 0 AND author_id > 0))`,
		`CREATE INDEX books_title_idx ON books (title)`,
		`CREATE UNIQUE INDEX books_isbn ON books (isbn, author_id)`,
		`DROP TABLE scratch`,
		`CREATE TABLE IF NOT EXISTS "SeqAuthors" ("id" SERIAL, "name" VARCHAR(255), "createdAt" TIMESTAMP WITH TIME ZONE NOT NULL, "updatedAt" TIMESTAMP WITH TIME ZONE NOT NULL, PRIMARY KEY ("id"))`,
		`CREATE TABLE "Quoted ""Long"" table name that PostgreSQL clips in its sequence" ("SmallId" smallserial, "it's" bigserial)`,
	}
	comparedCatalogQueries = []string{
		`SELECT c.relname, c.relkind FROM pg_catalog.pg_class c WHERE c.relnamespace = 'public'::regnamespace`,
		`SELECT attrelid::regclass, attname, format_type(atttypid, atttypmod), attnotnull, atthasdef, attnum
		 FROM pg_catalog.pg_attribute WHERE attnum > 0 AND attrelid IN
		  (SELECT oid FROM pg_catalog.pg_class WHERE relnamespace = 'public'::regnamespace AND relkind = 'r')`,
		`SELECT c.relname, a.attname, pg_get_expr(d.adbin, d.adrelid) FROM pg_catalog.pg_attrdef d
		 JOIN pg_catalog.pg_attribute a ON a.attrelid = d.adrelid AND a.attnum = d.adnum JOIN pg_catalog.pg_class c ON c.oid = d.adrelid`,
		`SELECT conrelid::regclass, conname, contype, pg_get_constraintdef(oid), confupdtype, confdeltype
		 FROM pg_catalog.pg_constraint WHERE connamespace = 'public'::regnamespace`,
		`SELECT indexrelid::regclass, indisunique, indisprimary, pg_get_indexdef(indexrelid) FROM pg_catalog.pg_index
		 WHERE indrelid IN ('authors'::regclass, 'books'::regclass)`,
		`SELECT table_name, column_name, ordinal_position, data_type, is_nullable, column_default, character_maximum_length
		 FROM information_schema.columns WHERE table_schema = 'public'`,
		`SELECT constraint_name, table_name, constraint_type FROM information_schema.table_constraints
		 WHERE table_schema = 'public' AND constraint_type IN ('PRIMARY KEY', 'UNIQUE', 'FOREIGN KEY')`,
		`SELECT constraint_name, table_name, column_name, ordinal_position, position_in_unique_constraint
		 FROM information_schema.key_column_usage WHERE table_schema = 'public'`,
		`SELECT sequence_name, data_type, start_value, minimum_value, maximum_value, increment, cycle_option
		 FROM information_schema.sequences`,
		`SELECT pg_get_serial_sequence('books', 'id'), pg_get_serial_sequence('authors', 'id')`,
		`SELECT pg_get_serial_sequence('"SeqAuthors"', 'id')`,
	}
)

// The catalog of a schema made by PostgreSQL's DDL on a postgres-dialect
// SQLite backend reads as PostgreSQL's own catalog of the same DDL: types,
// defaults, keys, constraints and their names, indexes, sequences
// (RELCHAIN_TEST_PG; rows compared as PostgreSQL's text, in any order).
func TestPostgresDialectCatalogAgainstPostgres(t *testing.T) {
	server := pgtest.ServerDSN(t)
	ctx := context.Background()
	pg := catalogScratch(t, server, fmt.Sprintf("sqlite_pgcatalog_%d", os.Getpid()))
	b := mustOpenPostgresDialect(t)
	for i, s := range comparedDDL {
		if _, err := pg.Exec(ctx, s); err != nil {
			t.Fatalf("PostgreSQL: %s: %v", s, err)
		}
		pgBlock(t, b, int64(i+1), pgStmt{sql: s})
	}
	for _, q := range comparedCatalogQueries {
		want := pgTextRows(t, pg, q)
		rows, _, err := b.Query(ctx, q, nil)
		if err != nil {
			t.Errorf("%s: %v", q, err)
			continue
		}
		var got []string
		for _, r := range rows.Rows {
			got = append(got, textRow(r))
		}
		slices.Sort(want)
		slices.Sort(got)
		if len(want) == 0 || !slices.Equal(got, want) {
			t.Errorf("%s\n got %q\nwant %q", q, got, want)
		}
	}
}

// catalogScratch creates database name on server, dropped at the test's
// end, and connects to it.
func catalogScratch(t *testing.T, server, name string) *pgx.Conn {
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, server)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close(ctx) })
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Exec(ctx, "DROP DATABASE "+name+" WITH (FORCE)") })
	u, err := url.Parse(server)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	pg, err := pgx.Connect(ctx, u.String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pg.Close(ctx) })
	return pg
}

// pgTextRows runs q on PostgreSQL: each row its values' text joined by |.
func pgTextRows(t *testing.T, pg *pgx.Conn, q string) []string {
	t.Helper()
	rows, err := pg.Query(context.Background(), q, pgx.QueryResultFormats{pgx.TextFormatCode})
	if err != nil {
		t.Fatalf("PostgreSQL: %s: %v", q, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var vals []any
		for _, v := range rows.RawValues() {
			if v == nil {
				vals = append(vals, nil)
			} else {
				vals = append(vals, string(v))
			}
		}
		out = append(out, textRow(vals))
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("PostgreSQL: %s: %v", q, err)
	}
	return out
}

// textRow is a row's values as PostgreSQL's text output, joined by |.
func textRow(row []any) string {
	var parts []string
	for _, v := range row {
		switch x := v.(type) {
		case nil:
			parts = append(parts, "NULL")
		case bool:
			parts = append(parts, map[bool]string{true: "t", false: "f"}[x])
		case []byte:
			parts = append(parts, `\x`+hex.EncodeToString(x))
		default:
			parts = append(parts, fmt.Sprint(x))
		}
	}
	return strings.Join(parts, "|")
}
