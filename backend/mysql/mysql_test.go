package mysql_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/backendtest"
	"github.com/relchain/relchain/backend/mysql"
	"github.com/relchain/relchain/internal/mysqltest"
)

func TestMain(m *testing.M) { mysqltest.Main(m) }

// dsns remembers each test's database, so that opening again for the same
// test reopens it (backendtest.Open's contract).
var dsns sync.Map // *testing.T -> string

func opener(opts ...mysql.Option) backendtest.Open {
	return func(t *testing.T) backend.Backend {
		t.Helper()
		dsn, ok := dsns.Load(t)
		if !ok {
			dsn = mysqltest.DSN(t)
			dsns.Store(t, dsn)
			t.Cleanup(func() { dsns.Delete(t) })
		}
		return mustOpen(t, dsn.(string), opts...)
	}
}

func mustOpen(tb testing.TB, dsn string, opts ...mysql.Option) *mysql.Backend {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b, err := mysql.Open(ctx, dsn, opts...)
	if err != nil {
		tb.Fatalf("mysql.Open: %v", err)
	}
	return b
}

// The conformance suite without the gate: the backend's own contract
// (the gate, sqlcheck/mysql, is tested in its package and below).
func TestConformanceWithoutGate(t *testing.T) {
	backendtest.Run(t, opener(mysql.WithoutGate()))
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return c
}

// The conformance suite with the gate (sqlcheck/mysql) on, as a node runs,
// except ValuesRoundTrip: it stores a DOUBLE column, which the gate
// refuses (floating-point aggregates depend on row order); it runs in
// TestConformanceWithoutGate.
func TestConformance(t *testing.T) {
	backendtest.RunExcept(t, opener(), "ValuesRoundTrip")
}

func BenchmarkBlock(b *testing.B) {
	backendtest.BenchmarkBlock(b, func(b *testing.B) backend.Backend { return mustOpen(b, mysqltest.DSN(b)) })
}
