package mysql_test

import (
	"encoding/json"
	"reflect"
	"testing"

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
	return b, name
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
			Columns:    []pgcatalog.Column{{Name: "id", Type: "int8", Typmod: -1}, {Name: "title", Type: "varchar", Typmod: 24, Comment: "the title"}},
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
