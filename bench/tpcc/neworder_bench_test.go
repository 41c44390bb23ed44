package tpcc_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/backend/postgres/pgtest"
	"github.com/relchain/relchain/bench/raw"
	"github.com/relchain/relchain/bench/tpcc"
	"github.com/relchain/relchain/bench/workload"
	"github.com/relchain/relchain/bench/workload/workloadtest"
	"github.com/relchain/relchain/txn"
)

// BenchmarkNewOrderBlock runs blocks of TPC-C NewOrder (one wl-transaction
// per bc-transaction, TPCC_PER_BLOCK of them per block, default 200)
// through the in-process chain on one full-scale warehouse, and the same
// NewOrders through bench/raw (raw-postgres), and reports the time per
// wl-transaction. It isolates the executor and the backend from consensus
// and the network. With TPCC_PGDATA (the server's data directory) it
// vacuums and checkpoints after the load and also reports the CPU time the
// server's processes and the test process spent per wl-transaction, which
// a busy machine disturbs less than the wall clock; TPCC_PROFILE writes a
// CPU profile of the measured blocks only:
//
//	RELCHAIN_TEST_PG=<durable server> TPCC_PGDATA=<its data directory> \
//	  go test ./bench/tpcc/ -run '^$' -bench 'NewOrderBlock/.*postgres' -benchtime 15x
func BenchmarkNewOrderBlock(b *testing.B) {
	perBlock := 200
	if s := os.Getenv("TPCC_PER_BLOCK"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			b.Fatalf("TPCC_PER_BLOCK=%q: %v", s, err)
		}
		perBlock = n
	}
	w, err := tpcc.New(tpcc.Options{Warehouses: 1, Mix: map[string]int{tpcc.NewOrder: 1}})
	if err != nil {
		b.Fatal(err)
	}
	if variants := os.Getenv("TPCC_CAPTURE"); variants != "" {
		benchCaptureVariants(b, w, perBlock, strings.Split(variants, ","))
		return
	}
	b.Run("raw-postgres", func(b *testing.B) { benchRawNewOrder(b, w, perBlock) })
	for _, d := range dialects {
		b.Run(d, func(b *testing.B) {
			c := workloadtest.NewChain(b, d)
			c.Setup(w)
			gen := w.Generator(d, 1, 0)
			if d == "postgres" && os.Getenv("TPCC_PGDATA") != "" {
				settle(b)
			}
			measureNewOrderBlocks(b, c, gen, perBlock)
		})
	}
}

// benchCaptureVariants measures the NewOrder blocks of the raw baseline
// and of the PostgreSQL chain once per capture variant
// (pgtest.CaptureVariants) in each of TPCC_ROUNDS rounds (default 3),
// alternating, each on its one loaded database: issue 19's comparison of
// PostgreSQL change capture. TPCC_CAPTURE lists the variants, comma
// separated.
func benchCaptureVariants(b *testing.B, w *tpcc.Workload, perBlock int, variants []string) {
	measureRaw, closeRaw := prepareRawNewOrder(b, w)
	defer closeRaw()
	c := workloadtest.NewChain(b, workload.Postgres)
	c.Setup(w)
	gen := w.Generator(workload.Postgres, 1, 0)
	if os.Getenv("TPCC_PGDATA") != "" {
		settle(b)
	}
	rounds := 3
	if s := os.Getenv("TPCC_ROUNDS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			b.Fatalf("TPCC_ROUNDS=%q: %v", s, err)
		}
		rounds = n
	}
	dc := chainDB(b)
	defer dc.Close(context.Background())
	for r := 1; r <= rounds; r++ {
		name := fmt.Sprintf("raw/round=%d", r)
		b.Run(name, func(b *testing.B) { withStatementStats(b, name, func() { measureRaw(b, perBlock) }) })
		for _, v := range variants {
			if err := pgtest.SetCapture(context.Background(), dc, v); err != nil {
				b.Fatal(err)
			}
			name := fmt.Sprintf("capture=%s/round=%d", v, r)
			b.Run(name, func(b *testing.B) { withStatementStats(b, name, func() { measureNewOrderBlocks(b, c, gen, perBlock) }) })
		}
	}
	if err := pgtest.SetCapture(context.Background(), dc, pgtest.CaptureRow); err != nil {
		b.Fatal(err)
	}
}

// withStatementStats runs measure; with TPCC_PGSS (a file) it resets the
// server's pg_stat_statements first (the extension must be loaded and
// created in the database RELCHAIN_TEST_PG names) and appends the
// statements that took the most time meanwhile, under name, to the file.
func withStatementStats(b *testing.B, name string, measure func()) {
	file := os.Getenv("TPCC_PGSS")
	if file == "" {
		measure()
		return
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, os.Getenv("RELCHAIN_TEST_PG"))
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "SELECT pg_stat_statements_reset()"); err != nil {
		b.Fatal(err)
	}
	measure()
	rows, err := conn.Query(ctx, `SELECT format('%10s ms %8s calls %9s rows  %s', round(total_exec_time::numeric, 1), calls, rows,
			left(regexp_replace(query, '\s+', ' ', 'g'), 150))
		FROM pg_stat_statements ORDER BY total_exec_time DESC LIMIT 15`)
	if err != nil {
		b.Fatal(err)
	}
	lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		b.Fatal(err)
	}
	f, err := os.OpenFile(file, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	fmt.Fprintf(f, "== %s (b.N=%d)\n%s\n", name, b.N, strings.Join(lines, "\n"))
}

// measureNewOrderBlocks runs b.N blocks of perBlock NewOrders through c.
func measureNewOrderBlocks(b *testing.B, c *workloadtest.Chain, gen workload.Generator, perBlock int) {
	if f := os.Getenv("TPCC_PROFILE"); f != "" {
		pf, err := os.Create(f)
		if err != nil {
			b.Fatal(err)
		}
		defer pf.Close()
		if err := pprof.StartCPUProfile(pf); err != nil {
			b.Fatal(err)
		}
		defer pprof.StopCPUProfile()
	}
	pgBefore, selfBefore := pgCPU(b), selfCPU()
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		bcs := make([][]txn.Statement, perBlock)
		for i := range bcs {
			bcs[i] = gen.Next().Statements
		}
		b.StartTimer()
		for _, r := range c.Block(bcs...) {
			if r.Code != api.CodeOK && r.Code != api.CodeExecFailed {
				b.Fatalf("NewOrder: code %d: %s", r.Code, r.Log)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*perBlock), "µs/wl")
	if pgBefore != nil {
		b.ReportMetric(float64(pgCPUSince(b, pgBefore).Microseconds())/float64(b.N*perBlock), "pg-cpu-µs/wl")
	}
	b.ReportMetric(float64((selfCPU()-selfBefore).Microseconds())/float64(b.N*perBlock), "go-cpu-µs/wl")
}

// selfCPU is this process's user+system CPU time.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// pgCPU returns the CPU time of every long-lived process of the
// PostgreSQL cluster whose data directory TPCC_PGDATA names (nil without
// it): backends and auxiliary processes, not autovacuum workers, which come
// and go on their own schedule.
func pgCPU(b *testing.B) map[string]time.Duration {
	dir := os.Getenv("TPCC_PGDATA")
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
		f := strings.Fields(string(st[strings.LastIndexByte(string(st), ')')+2:]))
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

// pgCPUSince is the CPU time the processes of before used since.
func pgCPUSince(b *testing.B, before map[string]time.Duration) time.Duration {
	var d time.Duration
	for pid, t := range pgCPU(b) {
		if t0, ok := before[pid]; ok {
			d += t - t0
		}
	}
	return d
}

// settle vacuums and analyzes the benchmark's fresh database and
// checkpoints, so that autovacuum's catching up after the load does not
// run during the measurement.
func settle(b *testing.B) {
	dc := chainDB(b)
	defer dc.Close(context.Background())
	for _, q := range []string{"VACUUM ANALYZE", "CHECKPOINT"} {
		if _, err := dc.Exec(context.Background(), q); err != nil {
			b.Fatal(err)
		}
	}
}

// chainDB connects as the server's superuser to the newest database of
// BenchmarkNewOrderBlock (the chain's).
func chainDB(b *testing.B) *pgx.Conn {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, os.Getenv("RELCHAIN_TEST_PG"))
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(ctx)
	var db string
	if err := conn.QueryRow(ctx, `SELECT datname FROM pg_database WHERE datname LIKE 't\_benchmarkneworderblock%' ORDER BY oid DESC LIMIT 1`).Scan(&db); err != nil {
		b.Fatal(err)
	}
	cfg := conn.Config().Copy()
	cfg.Database = db
	dc, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		b.Fatal(err)
	}
	return dc
}

// benchRawNewOrder is BenchmarkNewOrderBlock's reference: the same
// NewOrders on a plain PostgreSQL database through bench/raw (the bench
// command's baseline), one db-transaction per block, each wl-transaction in
// its own savepoint.
func benchRawNewOrder(b *testing.B, w *tpcc.Workload, perBlock int) {
	measure, closeDB := prepareRawNewOrder(b, w)
	defer closeDB()
	measure(b, perBlock)
}

// prepareRawNewOrder loads the raw baseline's database and returns the
// function that measures b.N blocks of perBlock NewOrders on it, and the
// one that closes it.
func prepareRawNewOrder(b *testing.B, w *tpcc.Workload) (func(b *testing.B, perBlock int), func()) {
	ctx := context.Background()
	db, err := raw.OpenPostgres(ctx, pgtest.DSN(b))
	if err != nil {
		b.Fatal(err)
	}
	c, err := db.Conn(ctx)
	if err != nil {
		b.Fatal(err)
	}
	bcs, err := w.Setup(workload.Postgres)
	if err != nil {
		b.Fatal(err)
	}
	for i, stmts := range bcs {
		out, err := c.Tx(ctx, [][]txn.Statement{stmts})
		if err != nil || !out[0].OK {
			b.Fatalf("setup %d: %v %v", i, err, out[0].Err)
		}
	}
	if os.Getenv("TPCC_PGDATA") != "" {
		settle(b)
	}
	gen := w.Generator(workload.Postgres, 1, 0)
	return func(b *testing.B, perBlock int) { measureRawBlocks(b, c, gen, perBlock) }, func() { db.Close() }
}

// measureRawBlocks runs b.N blocks of perBlock NewOrders through the raw
// baseline's connection c.
func measureRawBlocks(b *testing.B, c *raw.Conn, gen workload.Generator, perBlock int) {
	ctx := context.Background()
	pgBefore, selfBefore := pgCPU(b), selfCPU()
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		wls := make([][]txn.Statement, perBlock)
		for i := range wls {
			wls[i] = gen.Next().Statements
		}
		b.StartTimer()
		if _, err := c.Tx(ctx, wls); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*perBlock), "µs/wl")
	if pgBefore != nil {
		b.ReportMetric(float64(pgCPUSince(b, pgBefore).Microseconds())/float64(b.N*perBlock), "pg-cpu-µs/wl")
	}
	b.ReportMetric(float64((selfCPU()-selfBefore).Microseconds())/float64(b.N*perBlock), "go-cpu-µs/wl")
}
