package sqlite_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/sqlite"
	"github.com/relchain/relchain/sqlcheck"
)

var analyzeSetup = []string{
	`CREATE TABLE parent (id INTEGER PRIMARY KEY)`,
	`CREATE TABLE child (id INTEGER PRIMARY KEY, p INT REFERENCES parent (id) ON DELETE CASCADE ON UPDATE CASCADE)`,
	`CREATE TABLE MixedCase (id INTEGER PRIMARY KEY, v TEXT)`,
	`CREATE TABLE "Äpfel" (id INTEGER PRIMARY KEY)`,
	`CREATE TABLE audit (what TEXT)`,
	`CREATE TRIGGER t_audit AFTER UPDATE ON t BEGIN INSERT INTO audit VALUES ('t'); DELETE FROM acct WHERE id < 0; END`,
	`CREATE TRIGGER v_ins INSTEAD OF INSERT ON ok_v BEGIN INSERT INTO t (id, v) VALUES (NEW.id, NEW.v); END`,
}

// What a statement does, as the executor's permission checks see it: the
// same at CheckTx (committed state) and in the block.
func TestAnalyzeDDLAndWrites(t *testing.T) {
	ctx := context.Background()
	b := openGateDB(t)
	defer b.Close()
	blk, err := b.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	txRows(t, blk, envA, analyzeSetup...)
	if err := commitDigested(t, blk, backend.State{Height: 2, AppHash: []byte{2}}); err != nil {
		t.Fatal(err)
	}
	w := func(tables ...string) sqlcheck.Analysis { return sqlcheck.Analysis{Writes: tables} }
	ddl := sqlcheck.Analysis{DDL: true}
	cases := []struct {
		sql  string
		want sqlcheck.Analysis
	}{
		{`SELECT * FROM t`, w()},
		{`SELECT random(), date('now') FROM t JOIN acct USING (id)`, sqlcheck.Analysis{UsesEnv: true}},
		{`UPDATE t SET v = CURRENT_TIMESTAMP`, sqlcheck.Analysis{Writes: []string{"t"}, UsesEnv: true}},
		{`CREATE TABLE stamped (id INT, at TEXT DEFAULT CURRENT_TIMESTAMP)`, ddl},
		{`WITH x AS (SELECT id FROM t) SELECT * FROM x`, w()},
		{`INSERT INTO t (id, v) VALUES (10, 'x')`, w("t")},
		{`insert into MAIN.T (id) values (11)`, w("t")},
		{`INSERT INTO "t" (id) SELECT id + 100 FROM acct`, w("t")},
		{`INSERT INTO t (id, v) VALUES (1, 'y') ON CONFLICT (id) DO UPDATE SET v = excluded.v`, w("t")},
		{`INSERT OR IGNORE INTO acct (id, bal) VALUES (1, 5)`, w("acct")},
		{`UPDATE acct SET bal = bal + 1 WHERE id = 1`, w("acct")},
		{`UPDATE t SET v = (SELECT max(bal) FROM acct)`, w("t")}, // t_audit's writes are its owner's
		{`DELETE FROM acct WHERE id IN (SELECT id FROM t)`, w("acct")},
		{`WITH doomed AS (SELECT id FROM t WHERE n > 1) DELETE FROM t WHERE id IN doomed RETURNING id`, w("t")},
		{`INSERT INTO mixedcase (id, v) VALUES (1, 'm')`, w("mixedcase")},
		{`UPDATE MIXEDCASE SET v = 'n'`, w("mixedcase")},
		{`INSERT INTO "Äpfel" (id) VALUES (1)`, w("Äpfel")}, // only ASCII folds, as in SQLite
		{`INSERT INTO ok_v (id, v) VALUES (20, 'via view')`, w("ok_v")},
		{`DELETE FROM parent WHERE id = 1`, w("parent")}, // the cascade is the schema's
		{`UPDATE parent SET id = 2 WHERE id = 1`, w("parent")},
		{`INSERT INTO child (id, p) SELECT id, id FROM parent`, w("child")},
		{`EXPLAIN INSERT INTO t (id) VALUES (5)`, w("t")},
		{`CREATE TABLE u (id INTEGER PRIMARY KEY)`, ddl},
		{`CREATE TABLE u2 AS SELECT * FROM t`, ddl},
		{`CREATE INDEX t_v ON t (v)`, ddl},
		{`CREATE VIEW v3 AS SELECT 1 AS one`, ddl},
		{`CREATE TRIGGER tr3 AFTER INSERT ON acct BEGIN DELETE FROM t; END`, ddl},
		{`ALTER TABLE t ADD COLUMN z INT`, ddl},
		{`ALTER TABLE acct RENAME TO accounts`, ddl},
		{`DROP TABLE t`, ddl},
		{`DROP VIEW ok_v`, ddl},
		{`DROP INDEX t_n`, ddl},
		{`DROP TRIGGER tr_existing`, ddl},
	}
	for _, c := range cases {
		got, err := b.Gate().Analyze(ctx, c.sql)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("Analyze(%q) = %+v, %v; want %+v", c.sql, got, err, c.want)
		}
	}
	blk, err = b.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer blk.Rollback(ctx)
	for _, c := range cases {
		if err := blk.Savepoint(ctx, envA); err != nil {
			t.Fatal(err)
		}
		got, err := sqlite.AnalyzeInBlock(ctx, blk, c.sql)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("Block.Analyze(%q) = %+v, %v; want %+v", c.sql, got, err, c.want)
		}
		// Exec runs the statement Analyze compiled (and gets the same
		// verdict).
		if _, err := blk.Exec(ctx, c.sql, nil); err != nil {
			t.Errorf("Exec(%q) after Analyze: %v", c.sql, err)
		}
		if got, err := sqlite.AnalyzeInBlock(ctx, blk, c.sql); !c.want.DDL && (err != nil || !reflect.DeepEqual(got, c.want)) {
			t.Errorf("Block.Analyze(%q) again = %+v, %v", c.sql, got, err)
		}
		if err := blk.RollbackTo(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

// When the schema a statement needs is not committed yet, CheckTx learns
// what it can and gives no verdict; the block knows.
func TestAnalyzeBeforeTheSchemaExists(t *testing.T) {
	ctx := context.Background()
	b := openGateDB(t)
	defer b.Close()
	for _, c := range []struct {
		sql  string
		want sqlcheck.Analysis
	}{
		{`INSERT INTO later (id) VALUES (1)`, sqlcheck.Analysis{Params: sqlcheck.ParamsUnknown}},
		{`CREATE INDEX later_v ON later (v)`, sqlcheck.Analysis{DDL: true, Params: sqlcheck.ParamsUnknown}},
		{"/* a comment */ -- and another\n  Drop Table later", sqlcheck.Analysis{DDL: true, Params: sqlcheck.ParamsUnknown}},
		{`ALTER TABLE later ADD COLUMN w INT`, sqlcheck.Analysis{DDL: true, Params: sqlcheck.ParamsUnknown}},
		{`CREATE TRIGGER later_tr AFTER INSERT ON later BEGIN SELECT 1; END`, sqlcheck.Analysis{DDL: true, Params: sqlcheck.ParamsUnknown}},
	} {
		got, err := b.Gate().Analyze(ctx, c.sql)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("Analyze(%q) = %+v, %v; want %+v, nil", c.sql, got, err, c.want)
		}
	}
	blk, err := b.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer blk.Rollback(ctx)
	if _, err := sqlite.AnalyzeInBlock(ctx, blk, `INSERT INTO later (id) VALUES (1)`); backend.AsError(err) == nil || backend.AsError(err).Class != backend.ClassUndefined {
		t.Errorf("Block.Analyze of an insert into a missing table: %v, want ClassUndefined", err)
	}
	txRows(t, blk, envA, `CREATE TABLE later (id INTEGER PRIMARY KEY, v TEXT)`)
	if got, err := sqlite.AnalyzeInBlock(ctx, blk, `INSERT INTO later (id) VALUES (1)`); err != nil || !reflect.DeepEqual(got.Writes, []string{"later"}) {
		t.Errorf("Block.Analyze after CREATE: %+v, %v", got, err)
	}
}
