package postgres_test

import (
	"bytes"
	"slices"
	"testing"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/postgres/pgtest"
	"github.com/relchain/relchain/sqlcheck"
)

// Savepoint and Release are deferred to the tx's first statement (one
// round trip per tx). The server must still see exactly what it saw when
// each was sent at once: a tx that ends before its first statement, a
// failed statement rolled back, a statement run between txs, and a
// Release after a failed statement.
func TestDeferredSavepointsKeepSemantics(t *testing.T) {
	type step struct {
		op  string // "sp <tx>", "exec", "fail", "release", "rollback"
		sql string
	}
	run := func(b backend.Backend, steps []step) (backend.Changes, [][]any) {
		t.Helper()
		blk, err := b.Begin(ctx(t))
		if err != nil {
			t.Fatal(err)
		}
		defer blk.Rollback(ctx(t))
		tx := 0
		for i, s := range steps {
			switch s.op {
			case "sp":
				tx++
				err = blk.Savepoint(ctx(t), sqlcheck.Env{Tx: tx})
			case "exec":
				_, err = blk.Exec(ctx(t), s.sql, nil)
			case "fail":
				_, err = blk.Exec(ctx(t), s.sql, nil)
				if backend.AsError(err) == nil {
					t.Fatalf("step %d %q: got %v, want a statement failure", i, s.sql, err)
				}
				err = nil
			case "release":
				err = blk.Release(ctx(t))
			case "rollback":
				err = blk.RollbackTo(ctx(t))
			}
			if err != nil {
				t.Fatalf("step %d %s %q: %v", i, s.op, s.sql, err)
			}
		}
		c, err := blk.ChangeDigest(ctx(t))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := blk.StateDigest(ctx(t)); err != nil {
			t.Fatal(err)
		}
		if err := blk.Commit(ctx(t), backend.State{Height: 2, AppHash: []byte{2}}); err != nil {
			t.Fatal(err)
		}
		rows, _, err := b.Query(ctx(t), `SELECT id, v FROM t ORDER BY id`, nil)
		if err != nil {
			t.Fatal(err)
		}
		return c, rows.Rows
	}
	open := func() backend.Backend {
		b := mustOpen(t, pgtest.DSN(t))
		t.Cleanup(func() { b.Close() })
		oneTx(t, b, 1, 0, `CREATE TABLE t (id int PRIMARY KEY, v int NOT NULL)`, nil)
		return b
	}

	got, gotRows := run(open(), []step{
		{"sp", ""}, {"release", ""}, // tx 1: no statement
		{"sp", ""}, {"exec", `INSERT INTO t VALUES (1, 1)`}, {"release", ""}, // tx 2
		{"sp", ""}, {"exec", `INSERT INTO t VALUES (2, 2)`}, {"fail", `INSERT INTO t VALUES (1, 1)`}, {"rollback", ""}, // tx 3 fails
		{"sp", ""}, {"rollback", ""}, // tx 4: rolled back before any statement
		{"exec", `INSERT INTO t VALUES (3, 3)`},                                                                   // between txs: no tx's
		{"sp", ""}, {"exec", `UPDATE t SET v = v + 10`}, {"exec", `INSERT INTO t VALUES (4, 4)`}, {"release", ""}, // tx 5
		{"sp", ""}, {"exec", `DELETE FROM t WHERE id = 4`}, {"rollback", ""}, // tx 6 rolled back after a statement
	})
	// The same net effect with every savepoint statement sent at once is
	// what the former backend did; here: the surviving txs alone.
	want, wantRows := run(open(), []step{
		{"sp", ""}, {"release", ""},
		{"sp", ""}, {"exec", `INSERT INTO t VALUES (1, 1)`}, {"release", ""},
		{"sp", ""}, {"release", ""},
		{"sp", ""}, {"release", ""},
		{"exec", `INSERT INTO t VALUES (3, 3)`},
		{"sp", ""}, {"exec", `UPDATE t SET v = v + 10`}, {"exec", `INSERT INTO t VALUES (4, 4)`}, {"release", ""},
	})
	if !slices.EqualFunc(gotRows, wantRows, func(a, b []any) bool { return slices.Equal(a, b) }) {
		t.Fatalf("rows %v, want %v", gotRows, wantRows)
	}
	if !bytes.Equal(got.Block, want.Block) {
		t.Fatalf("block digest %x, want %x", got.Block, want.Block)
	}
	var txs []int
	for tx := range got.Effects {
		txs = append(txs, tx)
	}
	slices.Sort(txs)
	if !slices.Equal(txs, []int{2, 5}) {
		t.Fatalf("effects for txs %v, want [2 5] (the statement between txs belongs to none)", txs)
	}
	for _, tx := range txs {
		if !bytes.Equal(got.Effects[tx], want.Effects[tx]) {
			t.Fatalf("tx %d: effect digest %x, want %x", tx, got.Effects[tx], want.Effects[tx])
		}
	}

	// A Release after a failed statement fails at once, as it did when
	// sent at once (the db-transaction is aborted).
	b := open()
	blk, err := b.Begin(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	defer blk.Rollback(ctx(t))
	if err := blk.Savepoint(ctx(t), sqlcheck.Env{Tx: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := blk.Exec(ctx(t), `SELECT 1/0`, nil); backend.AsError(err) == nil {
		t.Fatalf("1/0: %v, want a statement failure", err)
	}
	if err := blk.Release(ctx(t)); err == nil {
		t.Fatal("Release after a failed statement succeeded")
	}
}
