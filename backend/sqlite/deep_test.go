package sqlite_test

import (
	"context"
	"strings"
	"testing"

	"github.com/relchain/relchain/backend/sqlite"
	"github.com/relchain/relchain/sqlcheck/sqlchecktest"
)

// Issue 32, build item 1 on SQLite: every way client text reaches SQLite's
// compiler (the gate at CheckTx and in a block, reads, Describe) passes the
// pre-scan first; a left-deep chain of 40,000 or 100,000 terms is refused
// with the bound's message, not by SQLite's own limit.
func TestDeepTextsRefused(t *testing.T) {
	ctx := context.Background()
	b := openGateDB(t)
	defer b.Close()
	for _, n := range []int{40_000, 100_000} {
		chain := strings.Repeat("1+", n-1) + "1"
		_, aerr := b.Gate().Analyze(ctx, "INSERT INTO t (id, v) VALUES ("+chain+", 'x')")
		_, _, qerr := b.Query(ctx, "SELECT "+chain, nil)
		_, derr := b.(*sqlite.Backend).Describe(ctx, "SELECT "+chain)
		for what, err := range map[string]error{"Analyze": aerr, "Query": qerr, "Describe": derr} {
			if err == nil || !strings.Contains(err.Error(), "exceeds relchain's limit of 128") {
				t.Errorf("%s, %d terms: %v", what, n, err)
			}
		}
	}
}

// TestGateLinear: the gate's work in a block (pre-scan, SQLite's
// compiler, the authorizer, the token checks; no verdict cache) is linear
// on every pathological family.
func TestGateLinear(t *testing.T) {
	ctx := context.Background()
	b := openGateDB(t)
	defer b.Close()
	blk, err := b.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer blk.Rollback(ctx)
	if err := blk.Savepoint(ctx, envA); err != nil {
		t.Fatal(err)
	}
	sqlchecktest.Linear(t, 1<<15, func(sql string) { _, _ = b.Gate().AnalyzeInBlock(ctx, blk, sql) })
}
