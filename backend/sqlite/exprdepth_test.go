package sqlite_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/sqlite"
)

// An AND/OR chain used as a value, 500 operands long, overflowed the
// WebAssembly build's stack while SQLite generated its code: the module's
// memory was corrupted and the read panicked (the process would exit).
// SQLite's expression depth limit (MaxExprDepth) refuses it at prepare, on
// the read path and in a block alike; a chain within the limit still runs,
// as a value and in a WHERE clause, and the connection is fine afterwards.
func TestLongValueChainsAreRefusedNotCrashing(t *testing.T) {
	ctx := context.Background()
	b, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "relchain.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	chain := func(n int) string {
		terms := make([]string, n)
		for i := range terms {
			terms[i] = fmt.Sprintf("%d = %d", i, i+1)
		}
		return strings.Join(terms, " OR ")
	}
	for _, n := range []int{500, 2000} {
		_, _, err := b.Query(ctx, "SELECT ("+chain(n)+")", nil)
		if e := backend.AsError(err); e == nil || !strings.Contains(e.Message, "too large") {
			t.Fatalf("a %d-operand OR chain as a value: %v, want SQLite's expression depth error", n, err)
		}
	}
	blk, err := b.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := blk.Exec(ctx, "CREATE TABLE t (id INTEGER PRIMARY KEY, ok INTEGER)", nil); err != nil {
		t.Fatal(err)
	}
	_, err = blk.Exec(ctx, "INSERT INTO t VALUES (1, ("+chain(600)+"))", nil)
	if e := backend.AsError(err); e == nil || !strings.Contains(e.Message, "too large") {
		t.Fatalf("a 600-operand OR chain in an INSERT: %v, want SQLite's expression depth error", err)
	}
	if _, err := blk.Exec(ctx, "INSERT INTO t VALUES (2, ("+chain(sqlite.MaxExprDepth-10)+"))", nil); err != nil {
		t.Fatalf("a chain within the limit: %v", err)
	}
	if err := blk.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	rows, _, err := b.Query(ctx, "SELECT 7 WHERE "+chain(sqlite.MaxExprDepth-10)+" OR 1 = 1", nil)
	if err != nil || len(rows.Rows) != 1 {
		t.Fatalf("a WHERE chain within the limit: %+v, %v", rows, err)
	}
}
