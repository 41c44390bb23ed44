package sqlite_test

import (
	"bytes"
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/sqlcheck"
)

// digests are what a block commits to: its change digest and the state
// digest after it.
type digests struct{ change, state []byte }

// pgDigestBlock runs stmts as one tx of a block at height h, like
// pgBlock, and returns the block's digests.
func pgDigestBlock(t *testing.T, b backend.Backend, h int64, stmts ...string) digests {
	t.Helper()
	ctx := context.Background()
	blk, err := b.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := blk.Savepoint(ctx, sqlcheck.Env{Time: time.Date(2026, 12, 3, 6, 0, 0, 0, time.UTC)}); err != nil {
		t.Fatal(err)
	}
	for _, s := range stmts {
		if _, err := b.Gate().AnalyzeInBlock(ctx, blk, s); err != nil {
			blk.Rollback(ctx)
			t.Fatalf("gate in block: %s: %v", s, err)
		}
		if _, err := blk.Exec(ctx, s, nil); err != nil {
			blk.Rollback(ctx)
			t.Fatalf("exec %s: %v", s, err)
		}
	}
	if err := blk.Release(ctx); err != nil {
		t.Fatal(err)
	}
	ch, err := blk.ChangeDigest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	st, err := blk.StateDigest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := blk.Commit(ctx, backend.State{Height: h, AppHash: st}); err != nil {
		t.Fatal(err)
	}
	return digests{change: ch.Block, state: st}
}

var alterSetup = []string{
	"CREATE TABLE acct (id serial NOT NULL, owner varchar(20), balance int4, note text)",
	"CREATE INDEX acct_owner_idx ON acct (owner)",
	"INSERT INTO acct (owner, balance, note) VALUES ('ann', 10, 'x'), ('bob', 20, NULL), ('cy', 30, 'z')",
}

// The ALTER as pgbench -i and Django write it, in one block.
var alterBlock = []string{
	"ALTER TABLE acct ADD PRIMARY KEY (id)",
	"ALTER TABLE acct ALTER COLUMN owner SET NOT NULL, ADD CONSTRAINT acct_balance_check CHECK (balance >= 0)",
	"ALTER TABLE acct DROP COLUMN note",
	"ALTER TABLE acct ALTER COLUMN owner TYPE varchar(40)",
}

// An ALTER TABLE that rebuilds the table keeps its rows (and their
// order), its serial sequence, its indexes and its change capture; the
// state digest after it is that of a table created with the final schema
// and holding the same rows and sequence state (the state digest reads
// rows, not schemas). The change digest of the ALTER's block is not that
// of such a table (it records the copy into the new table) but it is the
// same on every node.
func TestPostgresDialectAlterRebuildKeepsTheTable(t *testing.T) {
	ctx := context.Background()
	a, twin := mustOpenPostgresDialect(t), mustOpenPostgresDialect(t)
	for _, b := range []backend.Backend{a, twin} {
		pgDigestBlock(t, b, 1, alterSetup...)
	}
	da, dtwin := pgDigestBlock(t, a, 2, alterBlock...), pgDigestBlock(t, twin, 2, alterBlock...)
	if !bytes.Equal(da.change, dtwin.change) || !bytes.Equal(da.state, dtwin.state) {
		t.Fatalf("two nodes' digests of the same ALTER block differ: %x/%x vs %x/%x", da.change, da.state, dtwin.change, dtwin.state)
	}

	fresh := mustOpenPostgresDialect(t)
	df := pgDigestBlock(t, fresh, 1,
		"CREATE TABLE acct (id serial NOT NULL PRIMARY KEY, owner varchar(40) NOT NULL, balance int4 CHECK (balance >= 0))",
		"CREATE INDEX acct_owner_idx ON acct (owner)",
		"INSERT INTO acct (owner, balance) VALUES ('ann', 10), ('bob', 20), ('cy', 30)")
	if !bytes.Equal(da.state, df.state) {
		t.Errorf("state digest after the ALTER %x, of a fresh table with the final schema and the same rows %x", da.state, df.state)
	}

	// The sequence goes on, the new constraints hold, the capture sees
	// the rebuilt table's changes: the stored sums equal a full scan.
	pgDigestBlock(t, a, 3, "INSERT INTO acct (owner, balance) VALUES ('dee', 40)", "UPDATE acct SET balance = balance + 1 WHERE owner = 'ann'")
	pgDigestBlock(t, fresh, 2, "INSERT INTO acct (owner, balance) VALUES ('dee', 40)", "UPDATE acct SET balance = balance + 1 WHERE owner = 'ann'")
	rows, _, err := a.Query(ctx, "SELECT id, owner, balance FROM acct ORDER BY id", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]any{{int64(1), "ann", int64(11)}, {int64(2), "bob", int64(20)}, {int64(3), "cy", int64(30)}, {int64(4), "dee", int64(40)}}
	if !reflect.DeepEqual(rows.Rows, want) {
		t.Errorf("rows after the ALTER %v, want %v", rows.Rows, want)
	}
	if want := []string{"int4", "varchar", "int4"}; !reflect.DeepEqual(rows.Types, want) {
		t.Errorf("types after the ALTER %v, want %v", rows.Types, want)
	}
	stored, _, err := a.StoredState(ctx)
	if err != nil {
		t.Fatal(err)
	}
	scanned, _, err := a.ScanState(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(stored.Digest(), scanned.Digest()) {
		t.Errorf("after the ALTER the captured changes' sums %x differ from a scan %x: change capture lost the rebuilt table", stored.Digest(), scanned.Digest())
	}
	freshStored, _, err := fresh.StoredState(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(stored.Digest(), freshStored.Digest()) {
		t.Errorf("after one more block the altered table's state %x differs from the fresh table's %x", stored.Digest(), freshStored.Digest())
	}
	for _, bad := range []struct{ sql, code string }{
		{"INSERT INTO acct (id, owner, balance) VALUES (1, 'dup', 1)", "23505"},
		{"INSERT INTO acct (owner, balance) VALUES (NULL, 1)", "23502"},
		{"INSERT INTO acct (owner, balance) VALUES ('neg', -1)", "23514"},
	} {
		if code := pgFailingStatement(t, a, bad.sql); code != bad.code {
			t.Errorf("%s: SQLSTATE %s, want %s", bad.sql, code, bad.code)
		}
	}
	if code := pgFailingStatement(t, a, "DROP INDEX acct_owner_idx"); code != "" {
		t.Errorf("the index did not survive the ALTER: DROP INDEX fails with %s", code)
	}
}

// A failing ALTER (duplicates for a new primary key) changes nothing: its
// statements run in the tx's savepoint; the error is PostgreSQL's.
func TestPostgresDialectAlterFailsAtomically(t *testing.T) {
	ctx := context.Background()
	b := mustOpenPostgresDialect(t)
	pgDigestBlock(t, b, 1, "CREATE TABLE t (id int4, v text)", "INSERT INTO t VALUES (1, 'a'), (1, 'b')")
	before, _, err := b.ScanState(ctx)
	if err != nil {
		t.Fatal(err)
	}
	code, msg := pgFailing(t, b, "ALTER TABLE t ALTER COLUMN v SET NOT NULL, ADD PRIMARY KEY (id)")
	if code != "23505" || !strings.Contains(msg, `could not create unique index "t_pkey"`) {
		t.Errorf("ALTER on duplicates: %s %q, want 23505 could not create unique index \"t_pkey\"", code, msg)
	}
	after, _, err := b.ScanState(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before.Digest(), after.Digest()) {
		t.Error("a failed ALTER changed the state")
	}
	pgDigestBlock(t, b, 2, "INSERT INTO t VALUES (1, NULL)")
}

// pgFailingStatement runs sql as a tx of its own block and returns the
// SQLSTATE of its failure ("" when it succeeds).
func pgFailingStatement(t *testing.T, b backend.Backend, sql string) string {
	code, _ := pgFailing(t, b, sql)
	return code
}

func pgFailing(t *testing.T, b backend.Backend, sql string) (code, msg string) {
	t.Helper()
	ctx := context.Background()
	blk, err := b.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer blk.Rollback(ctx)
	if err := blk.Savepoint(ctx, sqlcheck.Env{Time: time.Date(2026, 12, 3, 6, 0, 0, 0, time.UTC)}); err != nil {
		t.Fatal(err)
	}
	_, err = blk.Exec(ctx, sql, nil)
	if err == nil {
		return "", ""
	}
	e := backend.AsError(err)
	if e == nil {
		t.Fatalf("%s: not a statement's error: %v", sql, err)
	}
	return e.SQLState, e.Message
}

// With SQLite's foreign keys on, as every relchain connection has them: a
// table that references itself is rebuilt with its rows; a table other
// tables reference is rebuilt with the tables that reference it (they
// keep their rows, references and ON DELETE actions: SQLite's DROP TABLE
// of the old table would otherwise run those actions on them).
func TestPostgresDialectAlterWithForeignKeys(t *testing.T) {
	ctx := context.Background()
	b := mustOpenPostgresDialect(t)
	before := pgDigestBlock(t, b, 1,
		"CREATE TABLE node (id int4 PRIMARY KEY, up int4 REFERENCES node (id), label text)",
		"INSERT INTO node VALUES (1, NULL, 'root'), (2, 1, 'leaf')",
		"ALTER TABLE node ALTER COLUMN label SET NOT NULL",
		`CREATE TABLE "a" ("id" serial NOT NULL PRIMARY KEY, "name" varchar(20) NOT NULL)`,
		`CREATE TABLE "x" ("id" serial NOT NULL PRIMARY KEY, "a_id" integer NOT NULL)`,
		`CREATE TABLE "y" ("id" int4 PRIMARY KEY, "x_id" int4 REFERENCES "x" ("id") ON DELETE SET NULL)`,
		`CREATE INDEX "y_x_idx" ON "y" ("x_id")`,
		`ALTER TABLE "x" ADD CONSTRAINT "x_a_id_fk_a_id" FOREIGN KEY ("a_id") REFERENCES "a" ("id") ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED`,
		`ALTER TABLE "a" ALTER COLUMN "name" DROP NOT NULL`,
		`INSERT INTO "a" ("name") VALUES ('one'), ('two')`,
		`INSERT INTO "x" ("a_id") VALUES (1), (2)`,
		`INSERT INTO "y" VALUES (1, 1), (2, 2)`)
	after := pgDigestBlock(t, b, 2,
		`ALTER TABLE "a" ALTER COLUMN "name" SET NOT NULL`,
		`ALTER TABLE "a" ALTER COLUMN "name" TYPE varchar(40)`)
	if !bytes.Equal(after.state, before.state) {
		t.Errorf("state digest changed by rebuilds that keep every row: %x, was %x", after.state, before.state)
	}
	if code := pgFailingStatement(t, b, "INSERT INTO node VALUES (3, 9, 'x')"); code != "23503" {
		t.Errorf("self reference after the rebuild: SQLSTATE %q, want 23503", code)
	}
	if got := relchainTx(t, b, stmts(`INSERT INTO "x" ("a_id") VALUES (3)`)); got.state != "23503" {
		t.Errorf("the dependent's deferred foreign key after the rebuild: tx ends %+v, want 23503", got)
	}
	pgDigestBlock(t, b, 3, `DELETE FROM "a" WHERE "id" = 1`)
	for q, want := range map[string][][]any{
		"SELECT id, up, label FROM node ORDER BY id":                  {{int64(1), nil, "root"}, {int64(2), int64(1), "leaf"}},
		`SELECT "id", "a_id" FROM "x" ORDER BY "id"`:                  {{int64(2), int64(2)}},
		`SELECT "id", "x_id" FROM "y" ORDER BY "id"`:                  {{int64(1), nil}, {int64(2), int64(2)}},
		`SELECT count(*) FROM pg_indexes WHERE indexname = 'y_x_idx'`: {{int64(1)}},
	} {
		rows, _, err := b.Query(ctx, q, nil)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if !reflect.DeepEqual(rows.Rows, want) {
			t.Errorf("%s: %v, want %v (the cascade and SET NULL after the rebuild)", q, rows.Rows, want)
		}
	}
}

// An ON DELETE/UPDATE RESTRICT action's failure is PostgreSQL's 23503, as
// a NO ACTION key's is (SQLite raises it as a plain constraint error).
func TestPostgresDialectRestrictIs23503(t *testing.T) {
	b := mustOpenPostgresDialect(t)
	pgDigestBlock(t, b, 1,
		"CREATE TABLE team (id int4 PRIMARY KEY)",
		"CREATE TABLE member (id int4 PRIMARY KEY, team_id int4 REFERENCES team (id) ON DELETE RESTRICT ON UPDATE RESTRICT)",
		"INSERT INTO team VALUES (1), (2)",
		"INSERT INTO member VALUES (1, 1)")
	for _, sql := range []string{"DELETE FROM team WHERE id = 1", "UPDATE team SET id = 3 WHERE id = 1", "INSERT INTO member VALUES (2, 9)"} {
		if code := pgFailingStatement(t, b, sql); code != "23503" {
			t.Errorf("%s: SQLSTATE %q, want 23503", sql, code)
		}
	}
}

// RENAME of a table or a column, which PostgreSQL's gate refuses, runs in
// the postgres dialect on SQLite (migrations write it); references follow.
func TestPostgresDialectRename(t *testing.T) {
	ctx := context.Background()
	b := mustOpenPostgresDialect(t)
	pgDigestBlock(t, b, 1,
		"CREATE TABLE a (id int4 PRIMARY KEY, full_name text)",
		"CREATE TABLE x (id int4 PRIMARY KEY, a_id int4 REFERENCES a (id))",
		"INSERT INTO a VALUES (1, 'ann')",
		"INSERT INTO x VALUES (1, 1)")
	for _, sql := range []string{"ALTER TABLE a RENAME COLUMN full_name TO name", "ALTER TABLE a RENAME TO author"} {
		if an, err := b.Gate().Analyze(ctx, sql); err != nil || !an.DDL {
			t.Errorf("gate on %s: %+v %v, want DDL accepted", sql, an, err)
		}
	}
	pgDigestBlock(t, b, 2, "ALTER TABLE a RENAME COLUMN full_name TO name", "ALTER TABLE a RENAME TO author")
	if code := pgFailingStatement(t, b, "INSERT INTO x VALUES (2, 7)"); code != "23503" {
		t.Errorf("the reference after the rename: SQLSTATE %q, want 23503", code)
	}
	if code := pgFailingStatement(t, b, "ALTER TABLE x RENAME TO relchain_meta"); code != "42501" {
		t.Errorf("a rename to relchain's name: SQLSTATE %q, want 42501", code)
	}
	rows, _, err := b.Query(ctx, "SELECT id, name FROM author", nil)
	if err != nil || !reflect.DeepEqual(rows.Rows, [][]any{{int64(1), "ann"}}) {
		t.Errorf("author after the renames: %v %v", rows, err)
	}
}

// Django's sequence reset (loaddata, sqlsequencereset) runs in a block:
// the next serial value follows it; on the read path it is refused, as
// every write is.
func TestPostgresDialectSetval(t *testing.T) {
	ctx := context.Background()
	b := mustOpenPostgresDialect(t)
	pgDigestBlock(t, b, 1,
		`CREATE TABLE "shop_customer" ("id" serial NOT NULL PRIMARY KEY, "name" text)`,
		`INSERT INTO "shop_customer" ("id", "name") VALUES (1, 'a'), (7, 'b')`,
		`SELECT setval(pg_get_serial_sequence('"shop_customer"','id'), coalesce(max("id"), 1), max("id") IS NOT null) FROM "shop_customer"`,
		`INSERT INTO "shop_customer" ("name") VALUES ('c')`)
	rows, _, err := b.Query(ctx, `SELECT max("id") FROM "shop_customer"`, nil)
	if err != nil || !reflect.DeepEqual(rows.Rows, [][]any{{int64(8)}}) {
		t.Errorf("the id after setval: %v %v, want 8", rows, err)
	}
	if _, _, err := b.Query(ctx, `SELECT nextval('shop_customer_id_seq')`, nil); err == nil {
		t.Error("nextval on the read path: accepted")
	}
}
