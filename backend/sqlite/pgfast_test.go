package sqlite_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/sqlcheck"
)

// The writer reaches a translation by the statement's own text
// (pgStatements) once it has run: the hit must still depend on the
// arguments' types, as the translation does. A bool column assigned a
// bigint parameter is 42804 on PostgreSQL; the same text with a string
// argument (an untyped parameter, bool's input) inserts it.
func TestPostgresDialectTranslationByTextFollowsArgumentTypes(t *testing.T) {
	b := mustOpenPostgresDialect(t)
	ctx := context.Background()
	pgBlock(t, b, 1, pgStmt{sql: "CREATE TABLE t (a bool)"})
	blk, err := b.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer blk.Rollback(ctx)
	if err := blk.Savepoint(ctx, sqlcheck.Env{Time: time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)}); err != nil {
		t.Fatal(err)
	}
	const insert = "INSERT INTO t (a) VALUES ($1)"
	for i, c := range []struct {
		arg   any
		state string
	}{{"true", ""}, {int64(1), "42804"}, {"false", ""}, {int64(0), "42804"}} {
		if _, err := b.Gate().AnalyzeInBlock(ctx, blk, insert); err != nil {
			t.Fatalf("%d: gate in block: %v", i, err)
		}
		_, err := blk.Exec(ctx, insert, []any{c.arg})
		got := ""
		if e := backend.AsError(err); e != nil {
			got = e.SQLState
		} else if err != nil {
			t.Fatalf("%d: exec %T: %v", i, c.arg, err)
		}
		if got != c.state {
			t.Fatalf("%d: exec with a %T argument: SQLSTATE %q (%v), want %q", i, c.arg, got, err, c.state)
		}
	}
	if got := mustExecInBlock(t, b, blk, "SELECT a FROM t ORDER BY a"); !reflect.DeepEqual(got.Rows, [][]any{{false}, {true}}) {
		t.Fatalf("t holds %v, want [[false] [true]]", got.Rows)
	}
}

// A text PostgreSQL's gate rewrites with the tx's environment (the clock
// here) is translated as rewritten for each tx, never reached by its own
// text: two txs at two times read their own times.
func TestPostgresDialectRewrittenTextsFollowTheirTx(t *testing.T) {
	b := mustOpenPostgresDialect(t)
	ctx := context.Background()
	blk, err := b.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer blk.Rollback(ctx)
	const read = "SELECT CAST(now() AS text)"
	for i, want := range []string{"2026-12-03 12:00:00+00", "2026-12-03 12:00:01+00"} {
		at := time.Date(2026, 12, 3, 12, 0, i, 0, time.UTC)
		if err := blk.Savepoint(ctx, sqlcheck.Env{Time: at}); err != nil {
			t.Fatal(err)
		}
		if got := mustExecInBlock(t, b, blk, read); !reflect.DeepEqual(got.Rows, [][]any{{want}}) {
			t.Fatalf("tx %d: now() reads %v, want [[%s]]", i, got.Rows, want)
		}
		if err := blk.Release(ctx); err != nil {
			t.Fatal(err)
		}
	}
}
