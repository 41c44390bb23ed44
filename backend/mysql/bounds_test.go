package mysql_test

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/backendtest"
	"github.com/relchain/relchain/backend/mysql"
	"github.com/relchain/relchain/backend/mysql/mysqltest"
	"github.com/relchain/relchain/sqlcheck"
	"github.com/relchain/relchain/statedigest"
)

// Issue 14, attack 6 on a real MariaDB: MariaDB's sequence tables, a
// 24-way self-join of a 3-row table and REPEAT of a billion bytes are
// refused by the gate inside a block (a deterministic tx result, at once)
// instead of running for ever or allocating a gigabyte; so are
// floating-point columns.
func TestBlockRefusesStatementsOfUnboundedWork(t *testing.T) {
	b := mustOpen(t, mysqltest.DSN(t))
	defer b.Close()
	runBlock(t, b, 1, [][]string{
		{"CREATE TABLE kv (k VARCHAR(16) NOT NULL PRIMARY KEY, v TEXT)"},
		{"CREATE TABLE w (id BIGINT NOT NULL PRIMARY KEY, a INT)"},
		{"INSERT INTO w VALUES (1, 1), (2, 2), (3, 3)"},
	})
	join := "INSERT INTO kv SELECT 'join', COUNT(*) FROM w t1"
	for i := 2; i <= 24; i++ {
		join += " JOIN w t" + itoa(i)
	}
	blk, err := b.Begin(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	defer blk.Rollback(ctx(t))
	for _, s := range []string{
		"INSERT INTO kv SELECT 'big', COUNT(*) FROM seq_1_to_100000000000",
		join,
		"INSERT INTO kv VALUES ('rep', LENGTH(REPEAT('x', 1000000000)))",
		"CREATE TABLE f (id INT PRIMARY KEY, x DOUBLE)",
		"SELECT SUM(a * 1e0) FROM w",
	} {
		c, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		start := time.Now()
		_, err := blk.Exec(c, s, nil)
		cancel()
		if be := backend.AsError(err); be == nil || be.Class != backend.ClassPermission {
			t.Errorf("Exec(%.60q) = %v after %v; want the gate's refusal (ClassPermission)", s, err, time.Since(start))
		}
	}
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}

// A block statement whose context ends stops on the server too (not just
// in the driver): Exec returns promptly with an error wrapping
// context.DeadlineExceeded, the server runs nothing of the block any
// more, Rollback succeeds and the next block runs.
func TestDeadlinedExecStopsTheStatementOnTheServer(t *testing.T) {
	dsn := mysqltest.DSN(t)
	b := mustOpen(t, dsn, mysql.WithoutGate())
	defer b.Close()
	runBlock(t, b, 1, [][]string{{"CREATE TABLE n (id BIGINT NOT NULL PRIMARY KEY)"}})
	blk, err := b.Begin(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := blk.Savepoint(ctx(t), sqlcheck.Env{Tx: 0}); err != nil {
		t.Fatal(err)
	}
	c, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	start := time.Now()
	_, err = blk.Exec(c, "INSERT INTO n SELECT seq FROM seq_1_to_100000000000", nil)
	// The statement runs for hours when not cancelled: 30 s tells the two
	// apart on a loaded machine without timing anything finer.
	if took := time.Since(start); took > 30*time.Second {
		t.Errorf("Exec returned after %v; want promptly after its 1 s deadline", took)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Exec = %v; want an error wrapping context.DeadlineExceeded", err)
	}
	if backend.AsError(err) != nil {
		t.Fatalf("Exec = %v; a deadline is a node fault, never a tx result", err)
	}
	waitNoStatement(t, "seq_1_to_100000000000")
	if err := blk.Rollback(ctx(t)); err != nil {
		t.Fatalf("Rollback after a deadline: %v", err)
	}
	out := runBlock(t, b, 2, [][]string{{"INSERT INTO n VALUES (7)"}})
	if out.results[0] != "" {
		t.Fatalf("the next block failed: %v", out.results)
	}
	rows, _, err := b.Query(ctx(t), "SELECT COUNT(*) FROM n", nil)
	if err != nil || rows.Rows[0][0] != int64(1) {
		t.Fatalf("rows after the next block: %v, %v; want 1 (nothing of the cancelled block)", rows, err)
	}
}

// waitNoStatement fails t unless, within a few seconds, no server thread
// runs a statement containing marker (the administrator sees them all).
func waitNoStatement(t *testing.T, marker string) {
	t.Helper()
	admin := openRaw(t, mysqltest.ServerDSN(t))
	deadline := time.Now().Add(4 * time.Second)
	for {
		var n int
		err := admin.QueryRowContext(ctx(t), "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE INFO LIKE ? AND ID <> CONNECTION_ID()",
			"%"+marker+"%").Scan(&n)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d server threads still run the cancelled statement", n)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func openRaw(t *testing.T, dsn string) *sql.DB {
	t.Helper()
	cfg, err := gomysql.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := gomysql.NewConnector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(conn)
	t.Cleanup(func() { db.Close() })
	return db
}

// Reads run under a node-local budget: a long read is cut off by the
// statement timeout, and a result past the row or byte bound is an error
// naming the bound.
func TestQueryIsCutOffPastItsBudget(t *testing.T) {
	w, r := mysqltest.Accounts(t)
	slow := mustOpen(t, w, mysql.WithReaderDSN(r), mysql.WithoutGate(), mysql.WithQueryTimeout(time.Second))
	defer slow.Close()
	start := time.Now()
	_, _, err := slow.Query(ctx(t), "SELECT COUNT(*) FROM seq_1_to_100000000000 WHERE seq % 7 = 3", nil)
	// Uncut, the read runs for hours: 30 s tells the two apart on a
	// loaded machine.
	if err == nil || time.Since(start) > 30*time.Second {
		t.Fatalf("a long read returned %v after %v; want it cut off after about 1 s", err, time.Since(start))
	}
	slow.Close()

	b := mustOpen(t, w, mysql.WithReaderDSN(r), mysql.WithQueryLimits(10, 1000))
	defer b.Close()
	runBlock(t, b, 1, [][]string{
		{"CREATE TABLE kv (k INT NOT NULL PRIMARY KEY, v TEXT)"},
		{"INSERT INTO kv VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, 'd'), (5, 'e'), (6, 'f'), (7, 'g'), (8, 'h'), (9, 'i'), (10, 'j'), (11, 'k')"},
		{"INSERT INTO kv VALUES (12, REPEAT('x', 2000))"},
	})
	for _, c := range []struct{ sql, want string }{
		{"SELECT k FROM kv ORDER BY k", "more than 10 rows"},
		{"SELECT v FROM kv WHERE k = 12", "more than 1000 bytes"},
	} {
		_, _, err := b.Query(ctx(t), c.sql, nil)
		if be := backend.AsError(err); be == nil || be.Class != backend.ClassResource || !strings.Contains(be.Message, c.want) {
			t.Errorf("Query(%q) = %v; want a ClassResource error with %q", c.sql, err, c.want)
		}
	}
	if rows, _, err := b.Query(ctx(t), "SELECT k FROM kv WHERE k <= 10 ORDER BY k", nil); err != nil || len(rows.Rows) != 10 {
		t.Fatalf("a read within the bounds: %v, %v", rows, err)
	}
}

// A read whose context ends stops on the server, every time: the driver
// alone would only close its socket, and the server would run the
// statement on with its metadata lock held (a block's ALTER TABLE waits
// for it up to the read limit). The driver's return used to race the kill
// and could stop it before it started; repeated cancellations catch that.
func TestCancelledReadStopsOnTheServer(t *testing.T) {
	w, r := mysqltest.Accounts(t)
	b := mustOpen(t, w, mysql.WithReaderDSN(r), mysql.WithoutGate(), mysql.WithQueryTimeout(time.Hour))
	defer b.Close()
	for i := range 20 {
		marker := "cancelled-read-" + itoa(i) + "'"
		c, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			_, _, err := b.Query(c, "SELECT COUNT(*), '"+marker+" FROM seq_1_to_100000000000 WHERE seq % 7 = 3", nil)
			done <- err
		}()
		waitStatement(t, marker, 1)
		cancel()
		select {
		case err := <-done:
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("read %d after its cancellation = %v; want an error wrapping context.Canceled", i, err)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("read %d did not return within 30 s of its cancellation", i)
		}
		waitNoStatement(t, marker)
	}
}

// Hostile reads that hold every reader connection cannot starve the
// server syntax check that Analyze (CheckTx, FinalizeBlock) needs: it has
// its own connection.
func TestBusyReadersDoNotStarveTheSyntaxCheck(t *testing.T) {
	w, r := mysqltest.Accounts(t)
	b := mustOpen(t, w, mysql.WithReaderDSN(r), mysql.WithoutGate(), mysql.WithMaxReaders(2), mysql.WithQueryTimeout(8*time.Second))
	defer b.Close()
	c, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _, _ = b.Query(c, "SELECT COUNT(*) FROM seq_1_to_100000000000 WHERE seq % 7 = 3", nil)
		}()
	}
	defer func() { cancel(); wg.Wait() }()
	waitStatement(t, "seq_1_to_100000000000", 2)
	ac, acancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer acancel()
	if _, err := b.Gate().Analyze(ac, "SELECT 42 + 1 FROM DUAL WHERE 7 = 7"); err != nil {
		t.Fatalf("Analyze while the readers are busy: %v", err)
	}
}

// waitStatement waits until n server threads run a statement containing
// marker.
func waitStatement(t *testing.T, marker string, n int) {
	t.Helper()
	admin := openRaw(t, mysqltest.ServerDSN(t))
	for deadline := time.Now().Add(10 * time.Second); ; {
		var got int
		if err := admin.QueryRowContext(ctx(t), "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE INFO LIKE ? AND ID <> CONNECTION_ID()",
			"%"+marker+"%").Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("only %d threads run %q", got, marker)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// A block whose DDL took effect (MySQL commits it at once) and whose next
// statement is then cancelled by its deadline is rolled back and, executed
// again without a deadline (FinalizeBlock, or a replay after a restart),
// ends exactly as on a node that ran it once: the DDL's recovery record
// tells the replay that the DDL already took effect.
func TestBlockCancelledAfterItsDDLReplaysAsRunOnce(t *testing.T) {
	blocks := [][][]string{
		{{"CREATE TABLE n (id BIGINT NOT NULL PRIMARY KEY)"}},
		{{"ALTER TABLE n ADD COLUMN c BIGINT NOT NULL DEFAULT 5"}, {"INSERT INTO n (id) SELECT seq FROM seq_1_to_1000"}},
	}
	ref := mustOpen(t, mysqltest.DSN(t), mysql.WithoutGate())
	defer ref.Close()
	var want []outcome
	for h, txs := range blocks {
		want = append(want, runBlock(t, ref, int64(h+1), txs))
	}

	b := mustOpen(t, mysqltest.DSN(t), mysql.WithoutGate())
	defer b.Close()
	sameOutcome(t, "block 1", runBlock(t, b, 1, blocks[0]), want[0])
	blk, err := b.Begin(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	if runTx(t, blk, 0, blocks[1][0]) != "" {
		t.Fatal("the DDL failed")
	}
	if err := blk.Savepoint(ctx(t), sqlcheck.Env{Tx: 1}); err != nil {
		t.Fatal(err)
	}
	c, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	_, err = blk.Exec(c, "INSERT INTO n (id) SELECT seq + 1000 FROM seq_1_to_100000000000", nil)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("the long statement after the DDL: %v; want its deadline", err)
	}
	if err := blk.Rollback(ctx(t)); err != nil {
		t.Fatalf("Rollback: %v", err)
	}
	sameOutcome(t, "block 2 run again without a deadline", runBlock(t, b, 2, blocks[1]), want[1])
	got, _, err := b.ScanState(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	wantTables, _, err := ref.ScanState(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	if d := statedigest.Diff(wantTables, got); len(d) > 0 {
		t.Fatalf("tables %v differ from the node that ran the block once", d)
	}
}

// A rolled-back execution of a block with DDL (speculative, then not
// decided) leaves the DDL in the schema: the block decided at that height
// instead cannot commit as if nothing happened; Commit reports the
// abandoned DDL as a node fault.
func TestCommitRefusesAfterAnAbandonedDDLOfTheSameHeight(t *testing.T) {
	b := mustOpen(t, mysqltest.DSN(t))
	defer b.Close()
	if !b.DDLCommitsImplicitly() {
		t.Fatal("DDLCommitsImplicitly = false on MySQL")
	}
	runBlock(t, b, 1, [][]string{{"CREATE TABLE n (id BIGINT NOT NULL PRIMARY KEY)"}})
	blk, err := b.Begin(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	if runTx(t, blk, 0, []string{"CREATE TABLE speculative (id BIGINT NOT NULL PRIMARY KEY)"}) != "" {
		t.Fatal("the DDL failed")
	}
	if err := blk.Rollback(ctx(t)); err != nil {
		t.Fatal(err)
	}
	blk, err = b.Begin(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	if runTx(t, blk, 0, []string{"INSERT INTO n VALUES (1)"}) != "" {
		t.Fatal("the insert failed")
	}
	if _, err := blk.ChangeDigest(ctx(t)); err != nil {
		t.Fatal(err)
	}
	if _, err := blk.StateDigest(ctx(t)); err != nil {
		t.Fatal(err)
	}
	err = blk.Commit(ctx(t), backend.State{Height: 2, AppHash: []byte{2}})
	if !errors.Is(err, mysql.ErrAbandonedDDL) || backend.AsError(err) != nil {
		t.Fatalf("Commit of another block after an abandoned DDL = %v; want ErrAbandonedDDL as a node fault", err)
	}
}

// A statement cancelled as it completes leaves no KILL QUERY behind for
// the next statement (watch's stop waits for it).
func TestCancelAtCompletionLeavesNoStrayKill(t *testing.T) {
	backendtest.CancelAtCompletion(t, opener(mysql.WithoutGate()), "SELECT SLEEP(0.01)") // SLEEP
}
