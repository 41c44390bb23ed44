package postgres_test

import (
	"reflect"
	"testing"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/postgres/pgtest"
	"github.com/relchain/relchain/sqlcheck"
)

// stmtRun is one statement of a test block: its text and arguments,
// whether the next statement runs in the same tx (cont), and whether the
// tx's savepoint is rolled back after it.
type stmtRun struct {
	sql              string
	args             []any
	cont, rollbackTo bool
}

// runTxBlock runs each statement in its own tx (savepoint) of one block and
// returns their results and errors; commit false rolls the block back.
func runTxBlock(t *testing.T, b backend.Backend, height int64, commit bool, stmts ...stmtRun) ([]*backend.Rows, []error) {
	t.Helper()
	blk, err := b.Begin(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	rows := make([]*backend.Rows, len(stmts))
	errs := make([]error, len(stmts))
	inTx := false
	for i, s := range stmts {
		if !inTx {
			if err := blk.Savepoint(ctx(t), sqlcheck.Env{Tx: i}); err != nil {
				t.Fatal(err)
			}
		}
		rows[i], errs[i] = blk.Exec(ctx(t), s.sql, s.args)
		inTx = s.cont && errs[i] == nil
		if inTx {
			continue
		}
		if errs[i] != nil || s.rollbackTo {
			if err := blk.RollbackTo(ctx(t)); err != nil {
				t.Fatal(err)
			}
		} else if err := blk.Release(ctx(t)); err != nil {
			t.Fatal(err)
		}
	}
	if !commit {
		if err := blk.Rollback(ctx(t)); err != nil {
			t.Fatal(err)
		}
		return rows, errs
	}
	if _, err := blk.ChangeDigest(ctx(t)); err != nil {
		t.Fatal(err)
	}
	if err := blk.Commit(ctx(t), backend.State{Height: height, AppHash: []byte{byte(height)}}); err != nil {
		t.Fatal(err)
	}
	return rows, errs
}

// A block statement means the same whether this node had it prepared or
// not (a restarted node has nothing prepared): after every kind of schema
// change — a DDL in a later block, a DDL undone by a rollback to the
// savepoint or of the block, a column's type changed under a statement
// whose argument types were inferred from it — a statement prepared before
// runs as a fresh one would, where a stale prepared statement fails
// ("cached plan must not change result type", or the old argument type).
func TestPreparedBlockStatementsFollowSchemaChanges(t *testing.T) {
	b := mustOpenUngated(t, pgtest.DSN(t))
	defer b.Close()
	sel := stmtRun{sql: "SELECT * FROM t WHERE id = $1", args: []any{int64(1)}}
	ins := func(id int64, v string) stmtRun {
		return stmtRun{sql: "INSERT INTO t (id, v) VALUES ($1, $2)", args: []any{id, v}}
	}
	height := int64(0)
	run := func(commit bool, stmts ...stmtRun) ([]*backend.Rows, []error) {
		height++
		return runTxBlock(t, b, height, commit, stmts...)
	}
	mustOK := func(what string, errs []error) {
		t.Helper()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("%s: statement %d: %v", what, i+1, err)
			}
		}
	}
	columns := func(what string, rows *backend.Rows, want ...string) {
		t.Helper()
		if !reflect.DeepEqual(rows.Columns, want) {
			t.Fatalf("%s: columns %v, want %v", what, rows.Columns, want)
		}
	}
	_, errs := run(true, stmtRun{sql: "CREATE TABLE t (id bigint PRIMARY KEY, v text)"}, ins(1, "a"), ins(2, "b"), sel, sel, sel)
	mustOK("setup", errs)
	rows, errs := run(true, stmtRun{sql: "SELECT count(*) FROM pg_prepared_statements WHERE name LIKE 'relchain_b%'"})
	mustOK("count", errs)
	if n := rows[0].Rows[0][0].(int64); n < 2 {
		t.Fatalf("%d block statements prepared after repeating them: the prepared path is not tested", n)
	}

	// A DDL in a later block.
	rows, errs = run(true, sel, stmtRun{sql: "ALTER TABLE t ADD COLUMN w int DEFAULT 7"}, sel, sel)
	mustOK("add column", errs)
	columns("after ADD COLUMN", rows[3], "id", "v", "w")

	// A DDL undone by a rollback to its tx's savepoint, after the
	// statement was prepared under it.
	selCont := sel
	selCont.cont = true
	rows, errs = run(true, stmtRun{sql: "ALTER TABLE t ADD COLUMN z int", cont: true}, selCont, selCont, stmtRun{sql: "SELECT 1", rollbackTo: true}, sel, sel)
	mustOK("add column, rolled back", errs)
	columns("under the ADD COLUMN", rows[2], "id", "v", "w", "z")
	columns("after a rolled-back ADD COLUMN", rows[5], "id", "v", "w")
	_, errs = run(true, stmtRun{sql: "ALTER TABLE t ADD COLUMN z int"}, sel, sel, stmtRun{sql: "SELECT 1/0"}, stmtRun{sql: "ALTER TABLE t DROP COLUMN z", rollbackTo: true}, sel)
	if errs[3] == nil {
		t.Fatal("1/0 succeeded")
	}
	for _, i := range []int{0, 1, 2, 4, 5} {
		if errs[i] != nil {
			t.Fatalf("statement %d: %v", i+1, errs[i])
		}
	}

	// A block with a DDL rolled back as a whole.
	_, errs = run(false, stmtRun{sql: "ALTER TABLE t DROP COLUMN w"}, sel, sel)
	mustOK("drop column, block rolled back", errs)
	rows, errs = run(true, sel)
	mustOK("after the rolled-back block", errs)
	columns("after a rolled-back block", rows[0], "id", "v", "w", "z")

	// A column's type changed under a statement whose argument type was
	// inferred from it ($2 is sent untyped).
	_, errs = run(true, ins(3, "c"), ins(4, "d"), stmtRun{sql: "ALTER TABLE t ALTER COLUMN v TYPE int USING 0"}, ins(5, "55"), ins(6, "66"))
	mustOK("alter column type", errs)
	rows, errs = run(true, stmtRun{sql: "SELECT v FROM t WHERE id = $1", args: []any{int64(6)}})
	mustOK("read back", errs)
	if got := rows[0].Rows[0][0]; got != int64(66) {
		t.Fatalf("v = %#v, want 66", got)
	}
}

// A statement's outcome does not depend on how often this node ran it. A
// custom plan folds 1/$2 at planning, so with $2 = 0 it fails even where
// no row reaches the division; the generic plan evaluates it only for a
// row with id < 0. Under PostgreSQL's default (auto) the first five
// executions get custom plans and later ones may get the generic plan: a
// node that ran the statement before (here with $2 = 1) would succeed
// where one that just restarted fails. Every execution must agree.
func TestBlockStatementsPlanTheSameWhateverTheirHistory(t *testing.T) {
	dsn := pgtest.DSN(t)
	b := mustOpenUngated(t, dsn)
	defer func() { b.Close() }()
	if _, errs := runTxBlock(t, b, 1, true, stmtRun{sql: "CREATE TABLE t (id bigint PRIMARY KEY, v bigint)"}, stmtRun{sql: "INSERT INTO t VALUES (1, 1)"}); errs[0] != nil || errs[1] != nil {
		t.Fatal(errs)
	}
	upd := func(divisor int64) stmtRun {
		return stmtRun{sql: "UPDATE t SET v = CASE WHEN id < 0 THEN 1 / $2 ELSE v + 1 END WHERE id = $1", args: []any{int64(1), divisor}}
	}
	var stmts []stmtRun
	for range 8 {
		stmts = append(stmts, upd(1))
	}
	_, errs := runTxBlock(t, b, 2, true, append(stmts, upd(0))...)
	for i, err := range errs[:8] {
		if err != nil {
			t.Fatalf("execution %d with $2 = 1: %v", i+1, err)
		}
	}
	long := errs[8]
	b.Close()
	b = mustOpenUngated(t, dsn)
	_, errs = runTxBlock(t, b, 3, true, upd(0))
	if (long == nil) != (errs[0] == nil) {
		t.Fatalf("with $2 = 0: %v after eight executions, %v on a node that just started", long, errs[0])
	}
	rows, _ := runTxBlock(t, b, 4, true, stmtRun{sql: "SELECT v FROM t"})
	if got := rows[0].Rows[0][0]; got != int64(11) {
		t.Fatalf("v = %v, want 11 (ten updates: the generic plan never divides)", got)
	}
}

// A batch whose utility statements fail (here: the transaction was already
// aborted; in a node, a rehearsal preempted mid-batch) may or may not have
// run the DEALLOCATE ALL it carried. The cache must then forget every
// statement, not only resend DEALLOCATE ALL: a statement it still named
// would be bound by a name the server no longer has (26000), a failure of
// this node alone — recorded as the tx's, it split the network in
// TestGatewayConcurrentTransfers/postgres.
func TestPreparedBlockStatementsSurviveAFailedBatch(t *testing.T) {
	b := mustOpenUngated(t, pgtest.DSN(t))
	defer b.Close()
	sel := stmtRun{sql: "SELECT v FROM t WHERE id = $1", args: []any{int64(1)}}
	if _, errs := runTxBlock(t, b, 1, true, stmtRun{sql: "CREATE TABLE t (id bigint PRIMARY KEY, v bigint)"}, stmtRun{sql: "INSERT INTO t VALUES (1, 1)"}, sel, sel, sel); errs[4] != nil {
		t.Fatal(errs)
	}
	blk, err := b.Begin(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := blk.Savepoint(ctx(t), sqlcheck.Env{Tx: 0}); err != nil {
		t.Fatal(err)
	}
	if _, err := blk.Exec(ctx(t), "SELECT 1/0", nil); err == nil {
		t.Fatal("1/0 succeeded")
	}
	if err := blk.Savepoint(ctx(t), sqlcheck.Env{Tx: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := blk.Exec(ctx(t), sel.sql, sel.args); err == nil {
		t.Fatal("a statement in an aborted transaction succeeded")
	}
	if err := blk.Rollback(ctx(t)); err != nil {
		t.Fatal(err)
	}
	rows, errs := runTxBlock(t, b, 2, true, sel, sel)
	for i, err := range errs {
		if err != nil {
			t.Fatalf("after the failed batch, statement %d: %v", i+1, err)
		}
	}
	if got := rows[1].Rows[0][0]; got != int64(1) {
		t.Fatalf("v = %v", got)
	}
}

// A tx's SAVEPOINT and the RELEASE of the tx before are bound by name on
// the writer, prepared once per connection and again after every DEALLOCATE
// ALL a schema change sends; txs run the same before, across and after one.
func TestTxSavepointStatementsBoundByName(t *testing.T) {
	b := mustOpenUngated(t, pgtest.DSN(t))
	defer b.Close()
	count := stmtRun{sql: "SELECT count(*) FROM pg_prepared_statements WHERE name LIKE 'relchain_u%'"}
	utilities := func(height int64, stmts ...stmtRun) int64 {
		t.Helper()
		rows, errs := runTxBlock(t, b, height, true, append(stmts, count)...)
		for i, err := range errs {
			if err != nil {
				t.Fatalf("block %d, statement %d: %v", height, i+1, err)
			}
		}
		return rows[len(rows)-1].Rows[0][0].(int64)
	}
	ins := func(id int64) stmtRun { return stmtRun{sql: "INSERT INTO t VALUES ($1)", args: []any{id}} }
	if n := utilities(1, stmtRun{sql: "CREATE TABLE t (id bigint PRIMARY KEY)"}, ins(1), ins(2)); n != 2 {
		t.Fatalf("%d utility statements prepared after a block of txs, want 2", n)
	}
	// The DDL's DEALLOCATE ALL drops them; the txs after it prepare them anew.
	if n := utilities(2, ins(3), stmtRun{sql: "ALTER TABLE t ADD COLUMN v int"}, ins(4), ins(5)); n != 2 {
		t.Fatalf("%d utility statements prepared after a schema change, want 2", n)
	}
	rows, errs := runTxBlock(t, b, 3, true, stmtRun{sql: "SELECT count(*) FROM t"})
	if errs[0] != nil || rows[0].Rows[0][0] != int64(5) {
		t.Fatalf("rows after the blocks: %v, %v; want 5", rows[0], errs[0])
	}
}
