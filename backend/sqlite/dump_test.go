package sqlite_test

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"github.com/relchain/relchain/backend/sqlite"
)

// sqliteDumpWant is Dump's text of sqliteDumpDDL before the postgres
// dialect had a dump of its own: a network of SQLite's own SQL dialect
// keeps it byte for byte.
const sqliteDumpWant = `-- relchain dump of the replicated tables at height 2
BEGIN;
CREATE TABLE "a b" ("x y" TEXT PRIMARY KEY, v BLOB, f REAL) WITHOUT ROWID;
INSERT INTO "a b" VALUES ('', X'00ff27', -1e+300);
INSERT INTO "a b" VALUES ('it''s "q"', NULL, 0.5);
INSERT INTO "a b" VALUES ('ünï', X'', 3.0);
CREATE TABLE items (id INTEGER PRIMARY KEY, owner INTEGER REFERENCES people (id), note TEXT NOT NULL DEFAULT 'n/a' CHECK (length(note) < 100));
INSERT INTO "items" VALUES (1, 2, 'n/a');
INSERT INTO "items" VALUES (2, 1, 'line
break');
CREATE INDEX items_owner ON items (owner, note);
CREATE TABLE nokey (a, b);
INSERT INTO "nokey" VALUES (2, 'x');
INSERT INTO "nokey" VALUES (1, 1.5);
CREATE TABLE people (id INTEGER PRIMARY KEY, name TEXT UNIQUE);
INSERT INTO "people" VALUES (1, 'Ann');
INSERT INTO "people" VALUES (2, NULL);
COMMIT;
`

// sqliteDumpDDL builds the database of sqliteDumpWant with SQLite's own
// SQL.
var sqliteDumpDDL = []pgStmt{
	{sql: `CREATE TABLE people (id INTEGER PRIMARY KEY, name TEXT UNIQUE)`},
	{sql: `CREATE TABLE items (id INTEGER PRIMARY KEY, owner INTEGER REFERENCES people (id), note TEXT NOT NULL DEFAULT 'n/a' CHECK (length(note) < 100))`},
	{sql: `CREATE INDEX items_owner ON items (owner, note)`},
	{sql: `CREATE TABLE "a b" ("x y" TEXT PRIMARY KEY, v BLOB, f REAL) WITHOUT ROWID`},
	{sql: `CREATE TABLE nokey (a, b)`},
}

// A network of SQLite's own SQL dialect dumps SQLite's SQL as before:
// its CREATE TABLE texts as SQLite keeps them, SQLite's literals, tables
// in byte order of their names, rows by primary key (by rowid without
// one), indexes after the rows.
func TestDumpSQLiteDialectUnchanged(t *testing.T) {
	path := filepath.Join(t.TempDir(), "relchain.db")
	b, err := sqlite.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	pgBlock(t, b, 1, sqliteDumpDDL...)
	pgBlock(t, b, 2,
		pgStmt{sql: `INSERT INTO people VALUES (2, NULL), (1, 'Ann')`},
		pgStmt{sql: `INSERT INTO items (id, owner) VALUES (1, 2)`},
		pgStmt{sql: "INSERT INTO items VALUES (2, 1, 'line\nbreak')"},
		pgStmt{sql: `INSERT INTO "a b" VALUES ('ünï', X'', 3), ('it''s "q"', NULL, 0.5), ('', X'00ff27', -1e300)`},
		pgStmt{sql: `INSERT INTO nokey VALUES (2, 'x'), (1, 1.5)`},
	)
	var out bytes.Buffer
	h, err := sqlite.Dump(context.Background(), path, &out)
	if err != nil || h != 2 {
		t.Fatalf("Dump = %d, %v", h, err)
	}
	if out.String() != sqliteDumpWant {
		t.Errorf("Dump of a sqlite-dialect database changed:\n%s\nwant:\n%s", out.String(), sqliteDumpWant)
	}
}
