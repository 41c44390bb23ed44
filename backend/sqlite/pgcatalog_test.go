package sqlite_test

import (
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/relchain/relchain/backend"
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

var (
	_ = reflect.DeepEqual
	_ = filepath.Join
	_ = sqlite.Open
)
