package mysql_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/backendtest"
	"github.com/relchain/relchain/backend/mysql"
	"github.com/relchain/relchain/backend/mysql/mysqltest"
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
// (the gate, backend/mysql/mysqlgate, is tested in its package and below).
func TestConformanceWithoutGate(t *testing.T) {
	backendtest.Run(t, opener(mysql.WithoutGate()), spelling)
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return c
}

// The conformance suite with the gate (backend/mysql/mysqlgate) on, as a node runs,
// except ValuesRoundTrip: it stores a DOUBLE column, which the gate
// refuses (floating-point aggregates depend on row order); it runs in
// TestConformanceWithoutGate.
func TestConformance(t *testing.T) {
	backendtest.RunExcept(t, opener(), spelling, []string{"ValuesRoundTrip"}, backendtest.WithRestore(restoreForTest))
}

// restoreForTest is backendtest's Restore: a second Backend on t's
// database with a checkpoint due every block commits one empty block, and
// its checkpoint is restored into a database of its own.
func restoreForTest(t *testing.T, _ backend.Backend, height int64) (backend.Backend, int64) {
	dsn, ok := dsns.Load(t)
	if !ok {
		t.Fatal("restore: no database opened for this test")
	}
	dir := t.TempDir()
	ck := mustOpen(t, dsn.(string), mysql.WithCheckpoints(dir, 1, 1, func(err error) { t.Errorf("checkpoint: %v", err) }))
	defer ck.Close()
	cp := backendtest.CheckpointEmptyBlock(t, ck, height+1, func() ([]backend.Checkpoint, error) { return mysql.Checkpoints(dir) })
	live, err := mysql.DatabaseName(dsn.(string))
	if err != nil {
		t.Fatal(err)
	}
	staged := live + "_r"
	t.Cleanup(func() { mysqltest.Exec(t, "DROP DATABASE IF EXISTS `"+staged+"`") })
	rdsn, err := mysql.RestoreCheckpoint(ctx(t), dsn.(string), cp, staged)
	if err != nil {
		t.Fatal(err)
	}
	return mustOpen(t, rdsn), height + 1
}

func BenchmarkBlock(b *testing.B) {
	backendtest.BenchmarkBlock(b, func(b *testing.B) backend.Backend { return mustOpen(b, mysqltest.DSN(b)) })
}

// spelling is how MySQL and MariaDB spell the conformance suite's SQL. The
// gate refuses floating-point columns (their aggregates depend on row
// order), so the suite's non-integer columns are DECIMAL; BOOLEAN is
// TINYINT(1), which the driver reports as TINYINT (int2).
var spelling = backendtest.Spelling{
	Blob: "BLOB", Double: "DOUBLE", Fraction: "DECIMAL(20, 6)",
	IdentQuote: "`",
	// Session state, which the backend's own backstop refuses too.
	Refused:      `SET @relchain_tx = 1`,
	HighestParam: `SELECT ?, ?, ?`,
	Meta:         "relchain_meta",
	SystemNames:  []string{"rowid", "oid", "ctid", "xmin"},
	Typed: backendtest.Typed{
		Create: `CREATE TABLE typed (i INT PRIMARY KEY, b BIGINT, r DECIMAL(20, 6), tx TEXT, vc VARCHAR(10), ok BOOLEAN, bl BLOB, n DECIMAL(10, 2), d DATE, ts DATETIME)`,
		Types:  []string{"int4", "int8", "numeric", "text", "varchar", "int2", "bytea", "numeric", "date", "timestamp"},
	},
	Grouped: backendtest.Described{Params: []string{"", ""}, Types: []string{"int4", "text", "int8"}},
	// MySQL 8 has no RETURNING; MariaDB's cannot be described without
	// running the write, and it has no UPDATE ... RETURNING.
	InsertReturning:   nil,
	NoUpdateReturning: true,
}
