package postgres_test

import (
	"testing"
	"time"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/postgres"
	"github.com/relchain/relchain/backend/postgres/pgtest"
	"github.com/relchain/relchain/sqlcheck"
)

// clockBlock opens a backend on a fresh database and a block whose time is
// 2001-02-03 (far from any node's clock), rolled back when the test ends
// unless the test commits it.
// run executes one statement as one tx (its own savepoint, released, or
// rolled back to on a statement error, which it returns); must runs one
// that has to succeed and, when want is not "", return those rows.
func clockBlock(t *testing.T) (b *postgres.Backend, blk backend.Block, run func(sql string, args ...any) (*backend.Rows, error), must func(want, sql string, args ...any)) {
	t.Helper()
	b = mustOpen(t, pgtest.DSN(t))
	t.Cleanup(func() { b.Close() })
	blk, err := b.Begin(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = blk.Rollback(ctx(t)) })
	blockTime := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
	tx := 0
	run = func(sql string, args ...any) (*backend.Rows, error) {
		t.Helper()
		if err := blk.Savepoint(ctx(t), sqlcheck.Env{Time: blockTime, Tx: tx}); err != nil {
			t.Fatal(err)
		}
		tx++
		rows, err := blk.Exec(ctx(t), sql, args)
		end := blk.Release
		if err != nil {
			if backend.AsError(err) == nil {
				t.Fatalf("%s %q: %v", sql, args, err)
			}
			end = blk.RollbackTo
		}
		if err := end(ctx(t)); err != nil {
			t.Fatal(err)
		}
		return rows, err
	}
	must = func(want, sql string, args ...any) {
		t.Helper()
		rows, err := run(sql, args...)
		if err != nil {
			t.Fatalf("%s %q: %v", sql, args, err)
		}
		if want != "" && rowsText(rows) != want {
			t.Fatalf("%s %q: rows %q, want %q", sql, args, rowsText(rows), want)
		}
	}
	return b, blk, run, must
}
