package pgruntime_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/relchain/relchain/backend/sqlite/pgdialect"
	"github.com/relchain/relchain/backend/sqlite/pgdialect/pgruntime"
)

// pg_raise fails with its SQLSTATE and message for each row it is
// evaluated on, and not at all on no row (it takes a column: SQLite does
// not evaluate it once as a constant).
func TestRaise(t *testing.T) {
	d := mustOpen(t)
	d.mustRun("CREATE TABLE t (id int4)")
	if _, err := d.exec(`SELECT pg_raise('23505', 'could not create unique index "t_pkey"', "id") FROM "t"`, nil, nil); err != nil {
		t.Errorf("pg_raise on no row: %v", err)
	}
	d.mustRun("INSERT INTO t VALUES (1)")
	_, err := d.exec(`SELECT pg_raise('23505', 'could not create unique index "t_pkey"', "id") FROM "t"`, nil, nil)
	if code, _ := pgruntime.SQLState(err); code != "23505" || pgruntime.Message(err) != `could not create unique index "t_pkey"` {
		t.Errorf("pg_raise on a row: %v", err)
	}
}

// TableSQL gives the schema text ALTER TABLE rebuilds from: the CREATE
// TABLE text and the named indexes, not SQLite's automatic ones.
func TestTableSQL(t *testing.T) {
	d := mustOpen(t)
	d.mustRun("CREATE TABLE t (id int4 PRIMARY KEY, v text UNIQUE)")
	d.mustRun("CREATE INDEX t_v_idx ON t (v)")
	create, indexes, ok := pgruntime.NewCatalog(d.c).(pgdialect.Schema).TableSQL("t")
	if !ok || !strings.HasPrefix(create, `CREATE TABLE "t" (`) {
		t.Fatalf("TableSQL = %q, %v", create, ok)
	}
	if want := []string{`CREATE INDEX "t_v_idx" ON "t" ("v")`}; !reflect.DeepEqual(indexes, want) {
		t.Errorf("indexes %q, want %q", indexes, want)
	}
	if _, _, ok := pgruntime.NewCatalog(d.c).(pgdialect.Schema).TableSQL("nosuch"); ok {
		t.Error("TableSQL of a missing table")
	}
}

// With foreign keys on (relchain's pragma): a table referencing itself
// is rebuilt with its rows; a referenced table is rebuilt with the tables
// that reference it, their rows and references kept.
func TestAlterWithForeignKeysOn(t *testing.T) {
	d := mustOpen(t)
	d.mustRun("CREATE TABLE node (id int4 PRIMARY KEY, up int4 REFERENCES node (id))")
	d.mustRun("INSERT INTO node VALUES (1, NULL), (2, 1), (3, 2)")
	d.mustRun("ALTER TABLE node ADD COLUMN label text DEFAULT 'n', ALTER COLUMN label SET NOT NULL")
	if r := d.run("INSERT INTO node VALUES (4, 9, 'x')"); r.code != "SQLITE" || !strings.Contains(r.message, "FOREIGN KEY") {
		t.Errorf("self reference after the rebuild: %s %s", r.code, r.message)
	}
	d.mustRun("CREATE TABLE child (id int4 PRIMARY KEY, node_id int4 REFERENCES node (id) ON DELETE CASCADE)")
	d.mustRun("ALTER TABLE node ADD CONSTRAINT node_label_check CHECK (label <> '')")
	d.mustRun("INSERT INTO child VALUES (1, 3), (2, 1)")
	d.mustRun("ALTER TABLE node DROP CONSTRAINT node_label_check")
	d.mustRun("INSERT INTO node VALUES (5, 1, '')")
	if r := d.run("INSERT INTO child VALUES (3, 9)"); r.code != "SQLITE" || !strings.Contains(r.message, "FOREIGN KEY") {
		t.Errorf("the dependent's reference after the rebuild: %s %s", r.code, r.message)
	}
	d.mustRun("DELETE FROM node WHERE id = 5")
	d.mustRun("DELETE FROM child WHERE id = 2")
	d.mustRun("DELETE FROM node WHERE id = 3")
	if got := d.mustRun("SELECT count(*) FROM child").rows; !reflect.DeepEqual(got, [][]any{{int64(0)}}) {
		t.Errorf("child rows after deleting their node %v (ON DELETE CASCADE kept)", got)
	}
	if got := d.mustRun("SELECT count(*) FROM node").rows; !reflect.DeepEqual(got, [][]any{{int64(2)}}) {
		t.Errorf("rows after the rebuilds %v", got)
	}
}
