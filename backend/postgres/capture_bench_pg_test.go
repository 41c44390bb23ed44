package postgres_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/postgres"
	"github.com/relchain/relchain/backend/postgres/pgtest"
	"github.com/relchain/relchain/sqlcheck"
)

// captureAccounts is the number of rows of the benchmark's table.
const captureAccounts = 10000

// captureBlock is one block shape of BenchmarkCapture: txs bc-transactions
// of one UPDATE each, of rowsPerTx rows.
type captureBlock struct {
	name           string
	txs, rowsPerTx int
}

var captureBlocks = []captureBlock{
	{"smallbank-400x1", 400, 1}, // Smallbank's shape: single-row UPDATEs
	{"multirow-4x100", 4, 100},  // where set-based capture could pay
}

// BenchmarkCapture compares PostgreSQL change-capture variants
// (pgtest.CaptureVariants, issue 19) through the real backend: blocks of
// UPDATEs, each in its savepoint, then ChangeDigest, StateDigest and
// Commit, on one database whose triggers are switched between the
// variants (and the row trigger's records consumed by TRUNCATE rather than
// DELETE, postgres.WithTruncatedChanges), alternating, CAPTURE_ROUNDS times (default 3). With
// CAPTURE_PGDATA (the server's data directory; the server must be local) it
// reports the CPU time of the server's processes per changed row too:
//
//	RELCHAIN_TEST_PG=<server> CAPTURE_PGDATA=<its data directory> \
//	  go test ./backend/postgres -run '^$' -bench Capture -benchtime 20x
func BenchmarkCapture(b *testing.B) {
	rounds := 3
	if s := os.Getenv("CAPTURE_ROUNDS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			b.Fatalf("CAPTURE_ROUNDS=%q: %v", s, err)
		}
		rounds = n
	}
	dsn := pgtest.DSN(b)
	be := mustOpen(b, dsn)
	defer be.Close()
	// The same database, consuming change records by TRUNCATE.
	truncating := mustOpen(b, dsn, postgres.WithTruncatedChanges())
	defer truncating.Close()
	// Its writer connects at its first Begin: before any measurement, so
	// that serverCPU counts its process.
	blk, err := truncating.Begin(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	if err := blk.Rollback(context.Background()); err != nil {
		b.Fatal(err)
	}
	conn, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(context.Background())
	height := createAccounts(b, be)
	variants := make([]captureVariant, 0, len(pgtest.CaptureVariants)+1)
	for _, v := range pgtest.CaptureVariants {
		variants = append(variants, captureVariant{v, "delete", be})
	}
	variants = append(variants, captureVariant{pgtest.CaptureRow, "truncate", truncating})
	for r := 1; r <= rounds; r++ {
		for _, shape := range captureBlocks {
			for _, v := range variants {
				if err := pgtest.SetCapture(context.Background(), conn, v.capture); err != nil {
					b.Fatal(err)
				}
				b.Run(fmt.Sprintf("%s/capture=%s,consume=%s/round=%d", shape.name, v.capture, v.consume, r), func(b *testing.B) {
					height = measureCapture(b, v.be, shape, height)
				})
			}
		}
	}
}

// captureVariant is a capture variant (pgtest.CaptureVariants) and how
// the backend be consumes the change records: "delete" (relchain's DELETE
// … RETURNING) or "truncate" (postgres.WithTruncatedChanges).
type captureVariant struct {
	capture, consume string
	be               backend.Backend
}

// createAccounts creates and fills the table the benchmark updates, in
// block 1, and returns the height.
func createAccounts(b *testing.B, be backend.Backend) int64 {
	return runSetupBlock(b, be, 1,
		`CREATE TABLE accounts (custid bigint PRIMARY KEY, name text NOT NULL, bal bigint NOT NULL)`,
		`INSERT INTO accounts SELECT i, 'customer ' || i, 10000 FROM generate_series(0, `+strconv.Itoa(captureAccounts-1)+`) AS i`)
}

// measureCapture runs b.N blocks of shape from height+1 and reports the
// costs per changed row; it returns the last height.
func measureCapture(b *testing.B, be backend.Backend, shape captureBlock, height int64) int64 {
	ctx := context.Background()
	upd := `UPDATE accounts SET bal = bal + 1 WHERE custid >= $1 AND custid < $2`
	next := int64(0)
	serverBefore, selfBefore := serverCPU(b), processCPU()
	b.ResetTimer()
	for b.Loop() {
		blk, err := be.Begin(ctx)
		if err != nil {
			b.Fatal(err)
		}
		for i := range shape.txs {
			if err := blk.Savepoint(ctx, sqlcheck.Env{Tx: i}); err != nil {
				b.Fatal(err)
			}
			lo := next % captureAccounts
			next += int64(shape.rowsPerTx)
			if _, err := blk.Exec(ctx, upd, []any{lo, lo + int64(shape.rowsPerTx)}); err != nil {
				b.Fatal(err)
			}
			if err := blk.Release(ctx); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := blk.ChangeDigest(ctx); err != nil {
			b.Fatal(err)
		}
		if _, err := blk.StateDigest(ctx); err != nil {
			b.Fatal(err)
		}
		height++
		if err := blk.Commit(ctx, backend.State{Height: height, AppHash: []byte{1}}); err != nil {
			b.Fatal(err)
		}
	}
	rows := float64(b.N * shape.txs * shape.rowsPerTx)
	b.ReportMetric(float64(b.Elapsed().Microseconds())/rows, "µs/row")
	if serverBefore != nil {
		b.ReportMetric(float64(serverCPUSince(b, serverBefore).Microseconds())/rows, "pg-cpu-µs/row")
	}
	b.ReportMetric(float64((processCPU()-selfBefore).Microseconds())/rows, "go-cpu-µs/row")
	return height
}

// processCPU is this process's user+system CPU time.
func processCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// serverCPU returns the CPU time of every process of the PostgreSQL
// cluster whose data directory CAPTURE_PGDATA names (nil without it),
// autovacuum workers excepted.
func serverCPU(b *testing.B) map[string]time.Duration {
	dir := os.Getenv("CAPTURE_PGDATA")
	if dir == "" {
		return nil
	}
	raw, err := os.ReadFile(filepath.Join(dir, "postmaster.pid"))
	if err != nil {
		b.Fatal(err)
	}
	pm := strings.SplitN(string(raw), "\n", 2)[0]
	ents, _ := os.ReadDir("/proc")
	out := make(map[string]time.Duration)
	for _, e := range ents {
		st, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		f := strings.Fields(string(st[bytes.LastIndexByte(st, ')')+2:]))
		if e.Name() != pm && f[1] != pm {
			continue
		}
		if cmd, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline"); strings.Contains(string(cmd), "autovacuum worker") {
			continue
		}
		u, _ := strconv.ParseInt(f[11], 10, 64)
		sy, _ := strconv.ParseInt(f[12], 10, 64)
		out[e.Name()] = time.Duration(u+sy) * 10 * time.Millisecond
	}
	return out
}

// serverCPUSince is the CPU time the processes of before used since.
func serverCPUSince(b *testing.B, before map[string]time.Duration) time.Duration {
	var d time.Duration
	for pid, t := range serverCPU(b) {
		if t0, ok := before[pid]; ok {
			d += t - t0
		}
	}
	return d
}

// TestCaptureStatementSameDigests: the statement-level capture variant that
// BenchmarkCapture measures writes records that digest exactly as the row
// trigger's (change digest, effect digests, state digest), for multi-row
// INSERT, UPDATE and DELETE, a rolled-back tx and a table with NULLs, and
// so do records consumed by TRUNCATE, so that its figures compare like
// with like.
func TestCaptureStatementSameDigests(t *testing.T) {
	want := digestsUnder(t, pgtest.CaptureRow)
	if got := digestsUnder(t, pgtest.CaptureStatement); got != want {
		t.Fatalf("digests differ:\nrow:       %s\nstatement: %s", want, got)
	}
	if got := digestsUnder(t, pgtest.CaptureRow, postgres.WithTruncatedChanges()); got != want {
		t.Fatalf("digests differ:\nrow, DELETE:   %s\nrow, TRUNCATE: %s", want, got)
	}
}

// digestsUnder runs the same two blocks on a fresh database whose capture
// is variant from block 2 on, and returns block 2's digests and the
// state digest a full scan gives after it, printed.
func digestsUnder(t *testing.T, variant string, opts ...postgres.Option) string {
	dsn := pgtest.DSN(t)
	be := mustOpen(t, dsn, opts...)
	defer be.Close()
	runBlock(t, be, 1, [][]string{{
		`CREATE TABLE t (id int PRIMARY KEY, v text, n numeric)`,
		`INSERT INTO t SELECT i, CASE WHEN i % 3 = 0 THEN NULL ELSE 'v' || i END, i * 1.5 FROM generate_series(1, 50) AS i`,
	}})
	conn, err := pgx.Connect(ctx(t), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if err := pgtest.SetCapture(ctx(t), conn, variant); err != nil {
		t.Fatal(err)
	}
	out := runBlock(t, be, 2, [][]string{
		{`UPDATE t SET n = n + 1 WHERE id <= 20`, `INSERT INTO t VALUES (100, 'x', NULL), (101, NULL, 2)`},
		{`DELETE FROM t WHERE id BETWEEN 30 AND 35`},
		{`UPDATE t SET v = 'y' WHERE id = 40`, `INSERT INTO t VALUES (1, 'duplicate', 0)`}, // fails: rolled back
		{`UPDATE t SET v = NULL WHERE id = 41`},
	})
	tables, _, err := be.ScanState(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	return out + fmt.Sprintf(" scan=%x", tables.Digest())
}

// runBlock runs one block of height h, each tx's statements in its
// savepoint (a failing statement rolls its tx back), and returns its
// change, effect and state digests, printed.
func runBlock(t *testing.T, be backend.Backend, h int64, txs [][]string) string {
	blk, err := be.Begin(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	for i, stmts := range txs {
		if err := blk.Savepoint(ctx(t), sqlcheck.Env{Tx: i}); err != nil {
			t.Fatal(err)
		}
		failed := false
		for _, sql := range stmts {
			if _, err := blk.Exec(ctx(t), sql, nil); err != nil {
				if backend.AsError(err) == nil {
					t.Fatal(err)
				}
				failed = true
				break
			}
		}
		end := blk.Release
		if failed {
			end = blk.RollbackTo
		}
		if err := end(ctx(t)); err != nil {
			t.Fatal(err)
		}
	}
	changes, err := blk.ChangeDigest(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	state, err := blk.StateDigest(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := blk.Commit(ctx(t), backend.State{Height: h, AppHash: []byte{1}}); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("block=%x effects=%x state=%x", changes.Block, changes.Effects, state)
}

// BenchmarkChangeDigestWide measures the Go side of ChangeDigest over a
// TPC-C NewOrder block's worth of wide records: 4,600 rows of ~500 bytes
// updated in one statement (9,200 images, each UPDATE's new and old), the
// records consumed by TRUNCATE as after any large block. It reports the
// Go CPU per record of ChangeDigest alone (reading, copying, sorting and
// hashing the records, and their LtHash elements):
//
//	RELCHAIN_TEST_PG=<server> go test ./backend/postgres -run '^$' -bench ChangeDigestWide -benchtime 20x
func BenchmarkChangeDigestWide(b *testing.B) {
	const rows = 4600
	ctx := context.Background()
	be := mustOpen(b, pgtest.DSN(b), postgres.WithTruncatedChanges())
	defer be.Close()
	height := runSetupBlock(b, be, 1,
		`CREATE TABLE wide (id int PRIMARY KEY, n int NOT NULL, pad text NOT NULL)`,
		`INSERT INTO wide SELECT i, 0, i || '`+strings.Repeat("x", 480)+`' FROM generate_series(1, `+strconv.Itoa(rows)+`) AS i`)
	var spent time.Duration
	for b.Loop() {
		blk, err := be.Begin(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if err := blk.Savepoint(ctx, sqlcheck.Env{Tx: 0}); err != nil {
			b.Fatal(err)
		}
		if _, err := blk.Exec(ctx, `UPDATE wide SET n = n + 1`, nil); err != nil {
			b.Fatal(err)
		}
		if err := blk.Release(ctx); err != nil {
			b.Fatal(err)
		}
		before := processCPU()
		if _, err := blk.ChangeDigest(ctx); err != nil {
			b.Fatal(err)
		}
		spent += processCPU() - before
		if _, err := blk.StateDigest(ctx); err != nil {
			b.Fatal(err)
		}
		height++
		if err := blk.Commit(ctx, backend.State{Height: height, AppHash: []byte{1}}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(spent.Nanoseconds())/float64(b.N*rows*2), "go-cpu-ns/record")
}

// runSetupBlock runs stmts as block h, outside any savepoint, and returns h.
func runSetupBlock(b *testing.B, be backend.Backend, h int64, stmts ...string) int64 {
	ctx := context.Background()
	blk, err := be.Begin(ctx)
	if err != nil {
		b.Fatal(err)
	}
	for _, sql := range stmts {
		if _, err := blk.Exec(ctx, sql, nil); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := blk.ChangeDigest(ctx); err != nil {
		b.Fatal(err)
	}
	if _, err := blk.StateDigest(ctx); err != nil {
		b.Fatal(err)
	}
	if err := blk.Commit(ctx, backend.State{Height: h, AppHash: []byte{1}}); err != nil {
		b.Fatal(err)
	}
	return h
}
