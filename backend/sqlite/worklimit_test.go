package sqlite_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/sqlite"
)

const unboundedWrite = `WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s) INSERT INTO t (id, v) SELECT i + 1000, 'x' FROM s`

func wantWorkLimit(t *testing.T, what string, err error) {
	t.Helper()
	e := backend.AsError(err)
	if e == nil || e.Class != backend.ClassResource || e.SQLState != "54000" || !strings.Contains(e.Message, "work limit") {
		t.Fatalf("%s: %v, want the work limit (resource, 54000)", what, err)
	}
}

// A writing statement over the work limit fails identically on every node,
// and SQLite rolls back the block's whole db-transaction with it: the error
// says so (ErrBlockLost), and the block only accepts Rollback. The executor
// then re-runs the block with that tx failed.
func TestWritingStatementOverTheWorkLimitLosesTheBlock(t *testing.T) {
	skipUnderRace(t)
	ctx := context.Background()
	var msgs []string
	for range 2 { // two nodes
		b := openGateDB(t)
		blk, err := b.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		txRows(t, blk, envA, `INSERT INTO t (id, v) VALUES (60, 'tx 1')`)
		if err := blk.Savepoint(ctx, envB); err != nil {
			t.Fatal(err)
		}
		_, err = blk.Exec(ctx, unboundedWrite, nil)
		if !errors.Is(err, backend.ErrBlockLost) {
			t.Fatalf("unbounded INSERT ... SELECT: %v, want ErrBlockLost", err)
		}
		wantWorkLimit(t, "unbounded INSERT ... SELECT", err)
		msgs = append(msgs, err.Error())

		// Every call but Rollback now fails, saying why.
		calls := map[string]error{}
		_, calls["Exec"] = blk.Exec(ctx, `SELECT 1`, nil)
		_, calls["Analyze"] = sqlite.AnalyzeInBlock(ctx, blk, `SELECT 1`)
		calls["Savepoint"] = blk.Savepoint(ctx, envA)
		calls["Release"] = blk.Release(ctx)
		calls["RollbackTo"] = blk.RollbackTo(ctx)
		_, calls["ChangeDigest"] = blk.ChangeDigest(ctx)
		calls["SaveSystem"] = blk.SaveSystem(ctx, map[string][]byte{"k": []byte("v")})
		calls["Commit"] = blk.Commit(ctx, backend.State{Height: 2, AppHash: []byte{2}})
		for name, err := range calls {
			if !errors.Is(err, backend.ErrBlockLost) {
				t.Errorf("%s on a lost block: %v, want ErrBlockLost", name, err)
			}
		}
		if _, err := b.Begin(ctx); !errors.Is(err, backend.ErrBlockOpen) {
			t.Errorf("Begin before Rollback: %v, want ErrBlockOpen", err)
		}
		if err := blk.Rollback(ctx); err != nil {
			t.Fatalf("Rollback of a lost block: %v", err)
		}
		if st, _ := b.LoadState(ctx); st.Height != 1 {
			t.Errorf("height after the lost block: %d, want 1", st.Height)
		}
		// The re-run without the failed tx commits.
		blk, err = b.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		txRows(t, blk, envA, `INSERT INTO t (id, v) VALUES (60, 'tx 1')`)
		if err := commitDigested(t, blk, backend.State{Height: 2, AppHash: []byte{2}}); err != nil {
			t.Fatal(err)
		}
		rows, h, err := b.Query(ctx, `SELECT count(*), max(id) FROM t`, nil)
		if err != nil || h != 2 || !reflect.DeepEqual(rows.Rows[0], []any{int64(3), int64(60)}) {
			t.Errorf("after the re-run: %v at %d (%v)", rows, h, err)
		}
		b.Close()
	}
	if msgs[0] != msgs[1] {
		t.Errorf("the nodes' errors differ: %q vs %q", msgs[0], msgs[1])
	}
}

// Bounded writes, large ones included, stay within the limit.
func TestBoundedWriteWithinTheWorkLimit(t *testing.T) {
	_, blk := mustBeginGateBlock(t)
	txRows(t, blk, envA,
		`CREATE TABLE bench_acct (id INTEGER PRIMARY KEY, bal INTEGER NOT NULL)`,
		// The bench's setup statement: 100,000 rows with their capture triggers.
		`WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < 100000) INSERT INTO bench_acct (id, bal) SELECT i, 0 FROM s`,
		`UPDATE bench_acct SET bal = bal + 1 WHERE id % 2 = 0`)
	got := txRows(t, blk, envA, `SELECT count(*), sum(bal) FROM bench_acct`)
	if !reflect.DeepEqual(got[0], []any{int64(100000), int64(50000)}) {
		t.Fatalf("bench_acct: %v", got)
	}
}

// A read-only statement over the limit fails the same way but loses
// nothing: SQLite keeps the transaction and its savepoints.
func TestReadOnlyStatementOverTheWorkLimitKeepsTheBlock(t *testing.T) {
	skipUnderRace(t)
	ctx := context.Background()
	b := openGateDB(t)
	defer b.Close()
	blk, err := b.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	txRows(t, blk, envA, `INSERT INTO t (id, v) VALUES (61, 'tx 1')`)
	if err := blk.Savepoint(ctx, envB); err != nil {
		t.Fatal(err)
	}
	if _, err := blk.Exec(ctx, `INSERT INTO t (id, v) VALUES (62, 'tx 2')`, nil); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i FROM s) SELECT count(*) FROM s`,
		`WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s) SELECT i FROM s`, // rows, too
	} {
		_, err := blk.Exec(ctx, q, nil)
		wantWorkLimit(t, q, err)
		if errors.Is(err, backend.ErrBlockLost) {
			t.Fatalf("%s lost the block: %v", q, err)
		}
	}
	// The tx's savepoint is still there: the executor rolls back to it.
	if err := blk.RollbackTo(ctx); err != nil {
		t.Fatalf("RollbackTo after a read-only statement hit the limit: %v", err)
	}
	txRows(t, blk, envA, `INSERT INTO t (id, v) VALUES (63, 'tx 3')`)
	if err := commitDigested(t, blk, backend.State{Height: 2, AppHash: []byte{2}}); err != nil {
		t.Fatal(err)
	}
	rows, _, err := b.Query(ctx, `SELECT group_concat(id) FROM (SELECT id FROM t WHERE id > 60 ORDER BY id)`, nil)
	if err != nil || rows.Rows[0][0] != "61,63" {
		t.Fatalf("committed rows %v (%v), want 61,63", rows, err)
	}
}

// SQLite also rolls back the whole transaction for INSERT OR ROLLBACK, an
// ON CONFLICT ROLLBACK constraint and RAISE(ROLLBACK): deterministic, and
// the same ErrBlockLost with the statement's class.
func TestConflictRollbackLosesTheBlock(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		setup []string
		stmt  string
		class backend.Class
	}{
		{nil, `INSERT OR ROLLBACK INTO t (id, v) VALUES (1, 'dup')`, backend.ClassConstraint},
		{[]string{`CREATE TABLE r (id INTEGER PRIMARY KEY ON CONFLICT ROLLBACK)`, `INSERT INTO r VALUES (1)`}, `INSERT INTO r VALUES (1)`, backend.ClassConstraint},
		{[]string{`CREATE TRIGGER rb BEFORE INSERT ON acct BEGIN SELECT RAISE(ROLLBACK, 'no more accounts'); END`}, `INSERT INTO acct (id, bal) VALUES (9, 0)`, backend.ClassConstraint},
		{nil, `UPDATE OR ROLLBACK acct SET bal = -1`, backend.ClassConstraint},
	} {
		b := openGateDB(t)
		blk, err := b.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(c.setup) > 0 {
			txRows(t, blk, envA, c.setup...)
		}
		if err := blk.Savepoint(ctx, envA); err != nil {
			t.Fatal(err)
		}
		_, err = blk.Exec(ctx, c.stmt, nil)
		if e := backend.AsError(err); !errors.Is(err, backend.ErrBlockLost) || e == nil || e.Class != c.class {
			t.Errorf("%s: %v, want ErrBlockLost with a %s error", c.stmt, err, c.class)
		}
		if err := blk.Rollback(ctx); err != nil {
			t.Errorf("%s: Rollback: %v", c.stmt, err)
		}
		if blk, err := b.Begin(ctx); err != nil {
			t.Errorf("%s: Begin after: %v", c.stmt, err)
		} else {
			blk.Rollback(ctx)
		}
		b.Close()
	}
	// Closing a backend whose open block was lost needs no Rollback.
	b := openGateDB(t)
	blk, err := b.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := blk.Exec(ctx, `INSERT OR ROLLBACK INTO t (id) VALUES (1)`, nil); !errors.Is(err, backend.ErrBlockLost) {
		t.Fatalf("INSERT OR ROLLBACK of a duplicate: %v", err)
	}
	if err := b.Close(); err != nil {
		t.Fatalf("Close with a lost block: %v", err)
	}
}

// skipUnderRace skips a test that runs SQLite to its work limit (10^8
// instructions, minutes under the race detector's instrumentation of the
// WebAssembly runtime) in one goroutine: the race detector has nothing to
// find there, and make test runs it without -race.
func skipUnderRace(t *testing.T) {
	t.Helper()
	if raceDetector {
		t.Skip("runs SQLite to its work limit in one goroutine: run without -race (make test does)")
	}
}
