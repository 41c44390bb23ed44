package postgres_test

import (
	"context"
	"github.com/jackc/pgx/v5"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/backendtest"
	"github.com/relchain/relchain/backend/postgres"
	"github.com/relchain/relchain/backend/postgres/pgsetup"
	"github.com/relchain/relchain/backend/postgres/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// dsns remembers each test's database, so that opening again for the same
// test reopens it (backendtest.Open's contract).
var dsns sync.Map // *testing.T -> string

func openForTest(t *testing.T) backend.Backend {
	t.Helper()
	dsn, ok := dsns.Load(t)
	if !ok {
		dsn = pgtest.DSN(t)
		dsns.Store(t, dsn)
		t.Cleanup(func() { dsns.Delete(t) })
	}
	return mustOpen(t, dsn.(string))
}

// mustOpenUngated opens a backend without the gate, for tests of the
// backend's own mechanics with statements the gate refuses (TRUNCATE,
// pg_sleep, SHOW).
func mustOpenUngated(tb testing.TB, dsn string) *postgres.Backend {
	return mustOpen(tb, dsn, postgres.WithoutGate())
}

func mustOpen(tb testing.TB, dsn string, opts ...postgres.Option) *postgres.Backend {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b, err := postgres.Open(ctx, dsn, opts...)
	if err != nil {
		tb.Fatalf("postgres.Open: %v", err)
	}
	return b
}

func TestConformance(t *testing.T) {
	backendtest.Run(t, openForTest, spelling, backendtest.WithRestore(restoreForTest))
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
	ck := mustOpen(t, dsn.(string), postgres.WithCheckpoints(dir, 1, 1, func(err error) { t.Errorf("checkpoint: %v", err) }))
	defer ck.Close()
	cp := backendtest.CheckpointEmptyBlock(t, ck, height+1, func() ([]backend.Checkpoint, error) { return postgres.Checkpoints(dir) })
	live, err := postgres.DatabaseName(dsn.(string))
	if err != nil {
		t.Fatal(err)
	}
	staged := live + "_restored"
	rdsn, err := postgres.RestoreCheckpoint(ctx(t), dsn.(string), cp, staged)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = postgres.DropDatabase(context.Background(), dsn.(string), staged) })
	return mustOpen(t, rdsn), height + 1
}

func BenchmarkBlock(b *testing.B) {
	backendtest.BenchmarkBlock(b, func(b *testing.B) backend.Backend { return mustOpen(b, pgtest.DSN(b)) })
}

func ctx(t testing.TB) context.Context {
	c, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return c
}

// With an administrator's DSN (a superuser, so only with the unsafe flag)
// Open creates the missing database itself, with collation C.
func TestOpenCreatesMissingDatabase(t *testing.T) {
	dsn, name := pgtest.UncreatedDSN(t)
	b := mustOpen(t, dsn, postgres.WithUnsafeSuperuser())
	b.Close()
	conn, err := pgx.Connect(ctx(t), pgtest.ServerDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx(t))
	var collate string
	if err := conn.QueryRow(ctx(t), `SELECT datcollate FROM pg_database WHERE datname = $1`, name).Scan(&collate); err != nil {
		t.Fatal(err)
	}
	if collate != "C" {
		t.Fatalf("datcollate of the created database = %v, want C", collate)
	}
	mustOpen(t, dsn, postgres.WithUnsafeSuperuser()).Close() // a second Open of the installed database
}

func TestSessionSettingsPinned(t *testing.T) {
	// The database's own defaults say otherwise; the connection must win.
	dsn := pgtest.DSN(t)
	name := dbName(t, dsn)
	pgtest.Exec(t, `ALTER DATABASE `+name+` SET TimeZone = 'America/New_York'`)
	pgtest.Exec(t, `ALTER DATABASE `+name+` SET DateStyle = 'SQL, DMY'`)
	b := mustOpenUngated(t, dsn)
	defer b.Close()

	want := map[string]string{
		"TimeZone":                        "UTC",
		"DateStyle":                       "ISO, YMD",
		"IntervalStyle":                   "postgres",
		"extra_float_digits":              "3",
		"max_parallel_workers_per_gather": "0",
		"synchronize_seqscans":            "off",
		"bytea_output":                    "hex",
		"search_path":                     "public",
		"standard_conforming_strings":     "on",
		"session_replication_role":        "origin",
	}
	blk, err := b.Begin(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	defer blk.Rollback(ctx(t))
	show := func(name string) string { return "SELECT current_setting('" + name + "')" }
	for name, v := range want {
		rows, err := blk.Exec(ctx(t), show(name), nil)
		if err != nil {
			t.Fatalf("writer: %s: %v", name, err)
		}
		if got := rows.Rows[0][0]; got != v {
			t.Errorf("writer: %s = %v, want %s", name, got, v)
		}
		rows, _, err = b.Query(ctx(t), show(name), nil)
		if err != nil {
			t.Fatalf("reader: %s: %v", name, err)
		}
		if got := rows.Rows[0][0]; got != v {
			t.Errorf("reader: %s = %v, want %s", name, got, v)
		}
	}
	// No timeout on the writer: a decided block runs to its end.
	for _, w := range []struct{ setting, want string }{
		{"statement_timeout", "0"}, {"synchronous_commit", "on"}, {"transaction_isolation", "read committed"},
	} {
		rows, err := blk.Exec(ctx(t), show(w.setting), nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := rows.Rows[0][0]; got != w.want {
			t.Errorf("writer: %s = %v, want %s", w.setting, got, w.want)
		}
	}
	for _, w := range []struct{ setting, want string }{
		{"statement_timeout", "30s"}, {"work_mem", postgres.DefaultQueryWorkMem}, {"temp_file_limit", pgsetup.ReaderTempFileLimit},
	} {
		rows, _, err := b.Query(ctx(t), show(w.setting), nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := rows.Rows[0][0]; got != w.want {
			t.Errorf("reader: %s = %v, want %s", w.setting, got, w.want)
		}
	}
}

// session_replication_role = replica would disable the capture triggers;
// only a superuser can set it, so Open refuses instead of overriding it.
func TestOpenRefusesReplicaSessionReplicationRole(t *testing.T) {
	dsn := pgtest.DSN(t)
	pgtest.Exec(t, `ALTER DATABASE `+dbName(t, dsn)+` SET session_replication_role = 'replica'`)
	b, err := postgres.Open(ctx(t), dsn)
	if err == nil {
		b.Close()
		t.Fatal("Open succeeded with session_replication_role = replica")
	}
	if !strings.Contains(err.Error(), "session_replication_role") {
		t.Errorf("error %q does not name session_replication_role", err)
	}
}

func TestOpenRejectsNonCCollation(t *testing.T) {
	dsn, name := pgtest.UncreatedDSN(t)
	pgtest.Exec(t, `CREATE DATABASE `+name+` TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C.UTF-8' LC_CTYPE 'C.UTF-8'`)
	b, err := postgres.Open(ctx(t), dsn)
	if err == nil {
		b.Close()
		t.Fatal("Open succeeded on a database with collation C.UTF-8")
	}
	for _, want := range []string{"collation", "C.UTF-8", "LC_COLLATE 'C'"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
}

func dbName(t *testing.T, dsn string) string {
	t.Helper()
	name, err := postgres.DatabaseName(dsn)
	if err != nil {
		t.Fatal(err)
	}
	return name
}

// spelling is how PostgreSQL spells the conformance suite's SQL.
var spelling = backendtest.Spelling{
	Blob: "BYTEA", Double: "DOUBLE PRECISION", Fraction: "DOUBLE PRECISION",
	IdentQuote:   `"`,
	Refused:      `SELECT pg_postmaster_start_time()`, // a node-local value
	HighestParam: `SELECT $3::int`,
	Meta:         "relchain.meta",
	SystemNames:  []string{"oid"},
	Typed: backendtest.Typed{
		Create: `CREATE TABLE typed (i INTEGER PRIMARY KEY, b BIGINT, r DOUBLE PRECISION, tx TEXT, vc VARCHAR(10), ok BOOLEAN, bl BYTEA, n NUMERIC(10, 2), d DATE, ts TIMESTAMP)`,
		Types:  []string{"int4", "int8", "float8", "text", "varchar", "bool", "bytea", "numeric", "date", "timestamp"},
	},
	Grouped:         backendtest.Described{Params: []string{"int8", "text"}, Types: []string{"int4", "text", "int8"}},
	UpdateParams:    []string{"text", "int4"},
	InsertReturning: []string{"int4", "text"},
}
