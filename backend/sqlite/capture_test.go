package sqlite_test

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/sqlite"
	"github.com/relchain/relchain/sqlcheck"
)

// blockRun is what one block produced: its change digest, effect digests
// and state digest, and each tx's outcome.
type blockRun struct {
	changes backend.Changes
	state   []byte
	failed  []bool
}

// runBlock runs txs (each a list of statements) in one block the way the
// executor does: a savepoint per tx, rolled back when a statement fails.
func runBlock(t *testing.T, b *sqlite.Backend, height int64, txs [][]string) blockRun {
	t.Helper()
	ctx := context.Background()
	blk, err := b.Begin(ctx)
	if err != nil {
		t.Fatalf("block %d: %v", height, err)
	}
	defer blk.Rollback(ctx)
	var out blockRun
	for i, stmts := range txs {
		if err := blk.Savepoint(ctx, sqlcheck.Env{Tx: i}); err != nil {
			t.Fatal(err)
		}
		failed := false
		for _, s := range stmts {
			if _, err := blk.Exec(ctx, s, nil); err != nil {
				if backend.AsError(err) == nil {
					t.Fatalf("block %d tx %d: %s: %v", height, i, s, err)
				}
				failed = true
				break
			}
		}
		if failed {
			err = blk.RollbackTo(ctx)
		} else {
			err = blk.Release(ctx)
		}
		if err != nil {
			t.Fatal(err)
		}
		out.failed = append(out.failed, failed)
	}
	if out.changes, err = blk.ChangeDigest(ctx); err != nil {
		t.Fatal(err)
	}
	if out.state, err = blk.StateDigest(ctx); err != nil {
		t.Fatal(err)
	}
	if err := blk.Commit(ctx, backend.State{Height: height, AppHash: out.state}); err != nil {
		t.Fatal(err)
	}
	return out
}

// captureWorkload is a mixed workload: rowid tables (with and without an
// INTEGER PRIMARY KEY), WITHOUT ROWID, generated columns, foreign-key
// cascades, user triggers, upserts, primary-key updates, deletes, NULLs,
// blobs, reals and failing txs.
var captureWorkload = [][][]string{
	{{`CREATE TABLE p (id INTEGER PRIMARY KEY, v TEXT, r REAL, b BLOB)`,
		`CREATE TABLE ch (id INTEGER PRIMARY KEY, pid INTEGER REFERENCES p(id) ON DELETE CASCADE ON UPDATE CASCADE, q INTEGER)`,
		`CREATE TABLE nul (id INTEGER PRIMARY KEY, pid INTEGER REFERENCES p(id) ON DELETE SET NULL)`,
		`CREATE TABLE w (k TEXT, n INTEGER, f FLOAT, z, PRIMARY KEY (k, n)) WITHOUT ROWID`,
		`CREATE TABLE nr (a, b NUMERIC, c DOUBLE PRECISION)`,
		`CREATE TABLE g (a INTEGER, v INTEGER GENERATED ALWAYS AS (a * 2) VIRTUAL, s TEXT GENERATED ALWAYS AS ('s' || a) STORED, c REAL)`,
		`CREATE TABLE log (x, y)`}},
	{{`CREATE TRIGGER p_upd AFTER UPDATE ON p BEGIN INSERT INTO log (x, y) VALUES (OLD.v, NEW.v); END`,
		`CREATE TRIGGER w_ins AFTER INSERT ON w BEGIN UPDATE nr SET a = coalesce(a, 0) + 1 WHERE b = NEW.n; END`}},
	{
		{`INSERT INTO p (id, v, r, b) VALUES (1, 'a', 1.0, X'00ff'), (2, 'it''s', 0.1, NULL), (3, NULL, -0.0, X''), (4, 'x', 1e300, X'DEADbeef')`},
		{`INSERT INTO ch (id, pid, q) VALUES (10, 1, 5), (11, 2, 6), (12, 2, 7), (13, 3, NULL)`, `INSERT INTO nul (id, pid) VALUES (20, 2), (21, 3)`},
		{`INSERT INTO w (k, n, f, z) VALUES ('a', 1, 2, 'z'), ('b', 2, 2.5, 3.0), ('c', 3, NULL, X'01')`},
		{`INSERT INTO nr (a, b, c) VALUES (NULL, 1, 1), (NULL, 2, 9007199254740993), ('t', 3.0, 0.30000000000000004)`},
		{`INSERT INTO g (a, c) VALUES (1, 5), (2, 1.5)`},
		{`INSERT INTO p (id, v) VALUES (1, 'duplicate')`}, // fails: the tx rolls back
		{`INSERT INTO log (x, y) VALUES (CAST(X'610062' AS TEXT), 9223372036854775807), (-9223372036854775808, 1.7976931348623157e308)`},
	},
	{
		{`UPDATE p SET id = 5 WHERE id = 1`},            // primary key, cascades to ch
		{`UPDATE w SET k = 'bb', n = 20 WHERE k = 'b'`}, // WITHOUT ROWID primary key
		{`UPDATE p SET v = v || '!', r = r * 2`},        // every row, fires p_upd
		{`UPDATE nr SET c = c + 0.5, b = b + 1`},
		{`UPDATE g SET a = a + 10`},
		{`INSERT INTO w (k, n, f) VALUES ('d', 2, 1)`}, // fires w_ins
	},
	{
		{`DELETE FROM p WHERE id = 2`}, // cascades to ch, sets nul.pid NULL
		{`INSERT INTO w (k, n, f, z) VALUES ('a', 1, 9, 'up') ON CONFLICT (k, n) DO UPDATE SET f = excluded.f, z = excluded.z`},
		{`INSERT INTO p (id, v) VALUES (5, 'no') ON CONFLICT (id) DO NOTHING`},
		{`INSERT INTO p (id, v) VALUES (6, 'six') ON CONFLICT (id) DO UPDATE SET v = excluded.v`},
		{`INSERT OR REPLACE INTO p (id, v, r) VALUES (7, 'new', 7)`},                                               // no conflict: an insert
		{`UPDATE ch SET q = q + 1`, `DELETE FROM ch WHERE q > 100`, `INSERT INTO ch (id, pid) VALUES (99, 12345)`}, // FK fails: rolls back
		{`DELETE FROM nr WHERE b = 2`, `UPDATE nr SET a = 'back' WHERE a = 't'`},
	},
	{{`ALTER TABLE ch ADD COLUMN d INTEGER DEFAULT 7`}},
	{
		{`UPDATE ch SET q = coalesce(q, 0) - 1`},
		{`DELETE FROM log WHERE rowid % 2 = 0`},
		{`DELETE FROM g`},
	},
	{{`DROP TABLE nul`}, {`CREATE TABLE t2 AS SELECT id, v FROM p ORDER BY id`}},
	{{`INSERT INTO t2 (id, v) SELECT id + 100, v FROM p ORDER BY id`}, {`DELETE FROM p`}},
}

// triggerOrderWorkload is where the hook alone could not place records as
// the capture triggers do: tables with user triggers — BEFORE triggers
// that write (several rows per statement), AFTER triggers older than the
// capture triggers (a column added after them), triggers created, dropped
// and created again, foreign-key actions into and out of such tables, and
// a renamed one.
var triggerOrderWorkload = [][][]string{
	{{`CREATE TABLE a (id INTEGER PRIMARY KEY, v INTEGER)`,
		`CREATE TABLE b (id INTEGER PRIMARY KEY, aid INTEGER REFERENCES a(id) ON UPDATE CASCADE ON DELETE CASCADE, n INTEGER)`,
		`CREATE TABLE audit (seq INTEGER PRIMARY KEY, what TEXT, val INTEGER)`,
		`CREATE TABLE c (id INTEGER PRIMARY KEY, v INTEGER)`}},
	// case 2: a BEFORE trigger that writes, several rows per statement
	{{`CREATE TRIGGER a_bu BEFORE UPDATE ON a BEGIN INSERT INTO audit (what, val) VALUES ('before a', OLD.v); END`}},
	{{`INSERT INTO a (id, v) VALUES (1, 10), (2, 20), (3, 30)`, `INSERT INTO b (id, aid, n) VALUES (1, 1, 1), (2, 2, 2), (3, 3, 3)`},
		{`UPDATE a SET v = v + 1`}, {`UPDATE a SET id = id + 10`}},
	// case 3: an AFTER trigger older than the capture triggers
	{{`CREATE TRIGGER c_ai AFTER INSERT ON c BEGIN INSERT INTO audit (what, val) VALUES ('after c', NEW.v); UPDATE b SET n = n + NEW.v; END`}},
	{{`ALTER TABLE c ADD COLUMN w INTEGER DEFAULT 0`}},
	{{`CREATE TRIGGER c_au AFTER UPDATE ON c BEGIN INSERT INTO audit (what, val) VALUES ('after c upd', NEW.v); END`}},
	{{`INSERT INTO c (id, v) VALUES (1, 5), (2, 6)`}, {`UPDATE c SET v = v * 2, w = 1`}},
	// a table's only user trigger dropped, then another created
	{{`DROP TRIGGER a_bu`}, {`UPDATE a SET v = v - 1`}},
	{{`CREATE TRIGGER a_ad AFTER DELETE ON a BEGIN INSERT INTO audit (what, val) VALUES ('deleted a', OLD.id); END`}},
	{{`DELETE FROM a WHERE id = 11`}, {`UPDATE b SET n = n + 100`}},
	// foreign-key actions out of a table with triggers, a failing tx
	{{`DELETE FROM a`}, {`INSERT INTO c (id, v) VALUES (1, 0)`}},
	{{`ALTER TABLE c RENAME TO c2`}, {`INSERT INTO c2 (id, v) VALUES (3, 7)`, `UPDATE c2 SET v = v + 1 WHERE id < 3`}},
	{{`DROP TRIGGER c_ai`, `DROP TRIGGER c_au`}, {`INSERT INTO c2 (id, v) VALUES (4, 8)`}},
	// triggers chained across tables that have triggers, WITHOUT ROWID, a
	// view's INSTEAD OF trigger, a trigger created by a tx that fails
	{{`CREATE TABLE k (name TEXT PRIMARY KEY, n INTEGER) WITHOUT ROWID`,
		`CREATE TRIGGER k_bi BEFORE INSERT ON k BEGIN INSERT INTO c2 (id, v) VALUES (100 + (SELECT count(*) FROM k), length(NEW.name)); END`,
		`CREATE TRIGGER c2_ai AFTER INSERT ON c2 BEGIN INSERT INTO audit (what, val) VALUES ('c2', NEW.id); END`,
		`CREATE TRIGGER audit_ai AFTER INSERT ON audit WHEN NEW.what = 'c2' BEGIN UPDATE k SET n = coalesce(n, 0) + 1; END`,
		`CREATE VIEW kv AS SELECT name, n FROM k`,
		`CREATE TRIGGER kv_ii INSTEAD OF INSERT ON kv BEGIN INSERT INTO k (name, n) VALUES (NEW.name, NEW.n); INSERT INTO b (id, n) VALUES (1000 + NEW.n, NEW.n); END`},
		{`CREATE TRIGGER b_ad AFTER DELETE ON b BEGIN INSERT INTO audit (what, val) VALUES ('b gone', OLD.id); END`, `INSERT INTO b (id, n) VALUES (1, 1), (1, 2)`},
		{`CREATE TRIGGER b_ad2 AFTER DELETE ON b BEGIN INSERT INTO audit (what, val) VALUES ('b gone', -OLD.id); END`}},
	{{`INSERT INTO k (name, n) VALUES ('x', 1), ('yy', 2), ('zzz', 3)`}, {`INSERT INTO kv (name, n) VALUES ('v1', 5), ('v2', 6)`},
		{`UPDATE k SET n = n * 10 WHERE name > 'x'`}, {`DELETE FROM b`}, {`DELETE FROM audit WHERE seq % 3 = 0`}},
	// a trigger naming its table in other letter case
	{{`CREATE TABLE m (id INTEGER PRIMARY KEY, v INTEGER)`, `INSERT INTO m VALUES (1, 1), (2, 2), (3, 3)`,
		`CREATE TRIGGER m_au AFTER UPDATE ON "M" BEGIN INSERT INTO c2 (id, v) VALUES (200 + NEW.id, NEW.v); END`}},
	{{`UPDATE m SET v = v * 2`}},
}

// The hook gives byte-identical change digests and effect digests, and
// the same tx outcomes, as capture triggers on every table (the trigger
// oracle, triggeroracle_export_test.go) on the same blocks, and its
// stored table sums equal a scan of the tables.
func TestHookCaptureMatchesTriggers(t *testing.T) {
	dir := t.TempDir()
	for name, workload := range map[string][][][]string{"mixed": captureWorkload, "trigger order": triggerOrderWorkload} {
		t.Run(name, func(t *testing.T) {
			compareCapture(t, filepath.Join(dir, name+"-triggers.db"), openHook(t, filepath.Join(dir, name+"-hook.db")), workload)
		})
	}
}

// openHook opens a backend at path, closed when t ends.
func openHook(t *testing.T, path string) *sqlite.Backend {
	t.Helper()
	b, err := sqlite.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

// openOracle opens the trigger oracle at path, closed when t ends.
func openOracle(t *testing.T, path string) *sqlite.TriggerOracle {
	t.Helper()
	o, err := sqlite.OpenTriggerOracle(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { o.Close() })
	return o
}

// compareCapture runs workload on the hook backend and on a trigger oracle
// at oraclePath and compares what every block produced.
func compareCapture(t *testing.T, oraclePath string, hook *sqlite.Backend, workload [][][]string) {
	t.Helper()
	trig := openOracle(t, oraclePath)
	for i, txs := range workload {
		h := int64(i + 1)
		wantFailed, want, err := trig.Block(txs)
		if err != nil {
			t.Fatalf("block %d: %v", h, err)
		}
		got := runBlock(t, hook, h, txs)
		t.Logf("block %d: failed txs %v", h, wantFailed)
		if fmt.Sprint(wantFailed) != fmt.Sprint(got.failed) {
			t.Fatalf("block %d: failed txs %v with triggers, %v with the hook", h, wantFailed, got.failed)
		}
		if !bytes.Equal(want.Block, got.changes.Block) {
			t.Errorf("block %d: change digest differs", h)
		}
		if fmt.Sprintf("%x", want.Effects) != fmt.Sprintf("%x", got.changes.Effects) {
			t.Errorf("block %d: effect digests differ:\n triggers %x\n hook     %x", h, want.Effects, got.changes.Effects)
		}
	}
	assertStoredEqualsScan(t, hook)
}

func assertStoredEqualsScan(t *testing.T, b *sqlite.Backend) {
	t.Helper()
	ctx := context.Background()
	stored, _, err := b.StoredState(ctx)
	if err != nil {
		t.Fatal(err)
	}
	scanned, _, err := b.ScanState(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(stored.Digest(), scanned.Digest()) {
		t.Fatalf("stored table sums differ from a scan of the tables")
	}
}

// The hook captures the row INSERT OR REPLACE and UPDATE OR REPLACE delete
// (SQLite fires no delete trigger for it with recursive_triggers off, so
// the trigger path's sums keep that row): its stored sums equal a scan.
func TestHookCaptureKeepsSumsAfterReplace(t *testing.T) {
	// The gate refuses REPLACE (replace.go: the triggers cannot see its
	// deletes); the hook can, for when that refusal is lifted.
	b, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "hook.db"), sqlite.WithoutGate())
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	runBlock(t, b, 1, [][]string{{`CREATE TABLE a (id INTEGER PRIMARY KEY, k TEXT UNIQUE, v)`, `CREATE TABLE w (k TEXT PRIMARY KEY, v) WITHOUT ROWID`}})
	runBlock(t, b, 2, [][]string{{`INSERT INTO a VALUES (1, 'a', 1), (2, 'b', 2), (3, 'c', 3)`, `INSERT INTO w VALUES ('x', 1)`}})
	run := runBlock(t, b, 3, [][]string{
		{`INSERT OR REPLACE INTO a VALUES (1, 'a2', 10)`}, // primary key conflict
		{`INSERT OR REPLACE INTO a VALUES (4, 'b', 20)`},  // unique conflict
		{`REPLACE INTO a VALUES (3, 'a2', 30)`},           // both: two rows go
		{`UPDATE OR REPLACE a SET k = 'a2' WHERE id = 4`}, // the update deletes id 3
		{`INSERT OR REPLACE INTO w VALUES ('x', 2)`},      // WITHOUT ROWID
	})
	if fmt.Sprint(run.failed) != fmt.Sprint([]bool{false, false, false, false, false}) {
		t.Fatalf("REPLACE txs failed: %v", run.failed)
	}
	assertStoredEqualsScan(t, b)
}

// A BEFORE trigger that changes the very row its statement then updates or
// deletes (SQLite calls the outcome undefined, but it is the same on every
// node running the same SQLite): the capture trigger's OLD still holds the
// row as it was before the BEFORE trigger ran, so the trigger path removed
// an image no longer in the table from the table's sum; the hook takes the
// images of the rows SQLite actually changed, and its sums equal a scan.
// The trigger oracle's records of the last block differ from the hook's:
// the statements still reach the case this test is about.
func TestHookCaptureKeepsSumsAfterBeforeTriggerChangesItsRow(t *testing.T) {
	blocks := [][][]string{
		{{`CREATE TABLE t (id INTEGER PRIMARY KEY, a INTEGER, b TEXT)`,
			`CREATE TRIGGER t_bu BEFORE UPDATE ON t BEGIN UPDATE t SET b = b || '+' WHERE id = NEW.id; END`,
			`CREATE TRIGGER t_bd BEFORE DELETE ON t BEGIN UPDATE t SET a = a * 10 WHERE id = OLD.id; END`}},
		{{`INSERT INTO t VALUES (1, 1, 'x'), (2, 2, 'y'), (3, 3, 'z')`}},
		{{`UPDATE t SET a = a + 1`}, {`DELETE FROM t WHERE id = 2`}},
	}
	dir := t.TempDir()
	b, trig := openHook(t, filepath.Join(dir, "hook.db")), openOracle(t, filepath.Join(dir, "triggers.db"))
	for i, txs := range blocks {
		run := runBlock(t, b, int64(i+1), txs)
		failed, want, err := trig.Block(txs)
		if err != nil {
			t.Fatal(err)
		}
		none := fmt.Sprint(make([]bool, len(txs)))
		if fmt.Sprint(run.failed) != none || fmt.Sprint(failed) != none {
			t.Fatalf("block %d: failed txs %v with the hook, %v with triggers", i+1, run.failed, failed)
		}
		same := bytes.Equal(want.Block, run.changes.Block)
		if last := i == len(blocks)-1; last == same {
			t.Fatalf("block %d: change digests equal with triggers and the hook: %v, want %v", i+1, same, !last)
		}
	}
	assertStoredEqualsScan(t, b)
}
