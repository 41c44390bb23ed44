package sqlite_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/sqlcheck"
)

// The writer caches translations, and a translation depends on the
// schema: a tx that redefines a table and is rolled back to its savepoint,
// or a block rolled back whole, must leave no translation made on the
// undone schema. Here the undone table's column is a bool, the real one an
// int4: a stale translation would return true where the row holds 1.
func TestPostgresDialectTranslationsFollowRolledBackSchemas(t *testing.T) {
	b := mustOpenPostgresDialect(t)
	ctx := context.Background()
	pgBlock(t, b, 1, pgStmt{sql: "CREATE TABLE t (a int4)"}, pgStmt{sql: "INSERT INTO t VALUES (1)"})
	const read = "SELECT a FROM t"
	redefine := []string{"DROP TABLE t", "CREATE TABLE t (a bool)", "INSERT INTO t VALUES (true)"}

	blk, err := b.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer blk.Rollback(ctx)
	env := sqlcheck.Env{Time: time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)}
	for round, undo := range []func() error{func() error { return blk.RollbackTo(ctx) }, func() error { return blk.Rollback(ctx) }} {
		if round == 1 {
			if blk, err = b.Begin(ctx); err != nil {
				t.Fatal(err)
			}
		}
		if err := blk.Savepoint(ctx, env); err != nil {
			t.Fatal(err)
		}
		for _, s := range redefine {
			mustExecInBlock(t, b, blk, s)
		}
		if got := mustExecInBlock(t, b, blk, read); !reflect.DeepEqual(got.Rows, [][]any{{true}}) {
			t.Fatalf("round %d: the redefined table reads %v, want [[true]]", round, got.Rows)
		}
		if err := undo(); err != nil {
			t.Fatal(err)
		}
		if round == 0 {
			if err := blk.Savepoint(ctx, env); err != nil {
				t.Fatal(err)
			}
			if got := mustExecInBlock(t, b, blk, read); !reflect.DeepEqual(got.Rows, [][]any{{int64(1)}}) {
				t.Fatalf("after RollbackTo the table reads %v, want [[1]] (int4): a translation of the undone schema", got.Rows)
			}
			if err := blk.Release(ctx); err != nil {
				t.Fatal(err)
			}
			if err := blk.Rollback(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	blk, err = b.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := blk.Savepoint(ctx, env); err != nil {
		t.Fatal(err)
	}
	if got := mustExecInBlock(t, b, blk, read); !reflect.DeepEqual(got.Rows, [][]any{{int64(1)}}) {
		t.Fatalf("after a rolled-back block the table reads %v, want [[1]] (int4): a translation of the undone schema", got.Rows)
	}
}

// mustExecInBlock judges sql in blk as the executor does, then runs it.
func mustExecInBlock(t *testing.T, b backend.Backend, blk backend.Block, sql string) *backend.Rows {
	t.Helper()
	ctx := context.Background()
	if _, err := b.Gate().AnalyzeInBlock(ctx, blk, sql); err != nil {
		t.Fatalf("gate in block: %s: %v", sql, err)
	}
	rows, err := blk.Exec(ctx, sql, nil)
	if err != nil {
		t.Fatalf("exec %s: %v", sql, err)
	}
	return rows
}

// CheckTx's translations share the columns they read on committed state
// until a block that changes the schema commits: a table altered by a
// committed block is read anew, and the verdicts follow its new columns.
func TestPostgresDialectGateFollowsCommittedSchema(t *testing.T) {
	b := mustOpenPostgresDialect(t)
	ctx := context.Background()
	pgBlock(t, b, 1, pgStmt{sql: "CREATE TABLE t (a int4)"})
	g := b.Gate()
	if an, err := g.Analyze(ctx, "INSERT INTO t VALUES ($1)"); err != nil || an.Params != 1 {
		t.Fatalf("INSERT of one column: %+v %v", an, err)
	}
	if _, err := g.Analyze(ctx, "INSERT INTO t VALUES ($1, $2)"); backend.AsError(err) == nil {
		t.Fatalf("INSERT of two values into one column: %v, want a verdict", err)
	}
	pgBlock(t, b, 2, pgStmt{sql: "ALTER TABLE t ADD COLUMN b text"})
	an, err := g.Analyze(ctx, "INSERT INTO t VALUES ($1, $2) -- after ALTER")
	if err != nil || an.Params != 2 {
		t.Fatalf("INSERT of two values after ADD COLUMN: %+v %v: the columns of the old schema", an, err)
	}
}
