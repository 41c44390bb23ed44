package sqlite

import (
	"context"
	"fmt"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/sqlcheck"
)

// SetWorkLimit lowers b's work limit, for tests only (the fuzzer must not
// spend 10^8 instructions, instrumented, on every unbounded statement it
// tries). Production code has no way to change WorkLimit.
func SetWorkLimit(b *Backend, units int64) { b.workLimit = units }

// SetHeapLimit sets the writer's SQLite hard heap limit (0: none), for
// tests only: it makes SQLite run out of memory on demand.
func SetHeapLimit(b *Backend, n int64) { b.w.HardHeapLimit(n) }

// SetReadHeapLimit sets every read connection's SQLite hard heap limit (0:
// none), for tests only. No query may be running.
func SetReadHeapLimit(b *Backend, n int64) {
	for r := range b.restricted {
		r.HardHeapLimit(n)
	}
}

// AnalyzeInBlock is the gate's verdict on sql in blk, through the backend's
// Gate (tests hold the block where they need its verdict).
func AnalyzeInBlock(ctx context.Context, blk backend.Block, sql string) (sqlcheck.Analysis, error) {
	k, ok := blk.(*block)
	if !ok {
		return sqlcheck.Analysis{}, fmt.Errorf("%T is not a SQLite block", blk)
	}
	return k.b.Gate().AnalyzeInBlock(ctx, blk, sql)
}

// WithoutGate turns the gate off, for tests (withoutGate).
func WithoutGate() Option { return withoutGate() }

// Rescans is how many state digests b computed by rescanning every table.
func Rescans(b *Backend) int { return b.rescans }

// RunningQueries is how many of b's read connections are running a
// client's query (Query, from its read transaction's start to its end),
// for tests that must act while reads run.
func RunningQueries(b *Backend) int {
	n := 0
	for _, p := range b.restricted {
		if p.Load() {
			n++
		}
	}
	return n
}

// QuerySlots is how many clients' queries b runs at once: all its read
// connections but one, which stays free for CheckTx's Analyze.
func QuerySlots(b *Backend) int { return cap(b.querySlots) }
