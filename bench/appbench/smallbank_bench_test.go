package appbench_test

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/app"
	"github.com/relchain/relchain/backend/registry"
	"github.com/relchain/relchain/bench/smallbank"
	"github.com/relchain/relchain/bench/workload"
	"github.com/relchain/relchain/txn"
)

func TestMain(m *testing.M) {
	code := m.Run()
	removeBenchTemplate()
	os.Exit(code)
}

// BenchmarkSmallbankBatchSQLite drives the real executor on a real SQLite
// file the way a pseudo-sync network does: blocks of 4 bc-transactions of
// 100 Smallbank wl-transactions each, on 100,000 accounts. It reports the
// cost per wl-transaction of FinalizeBlock and of Commit separately.
//
//	go test ./bench/appbench -run '^$' -bench SmallbankBatchSQLite -benchtime 40x -cpuprofile cpu.out
func BenchmarkSmallbankBatchSQLite(b *testing.B) { benchSmallbank(b, native, 0, 4, 100) }

// BenchmarkSmallbankAsyncSQLite is the async shape: blocks of 128
// bc-transactions of one wl-transaction each.
func BenchmarkSmallbankAsyncSQLite(b *testing.B) { benchSmallbank(b, native, 0, 128, 1) }

// benchSmallbank runs Smallbank's blocks on a SQLite chain speaking the
// SQL dialect sql (native: SQLite's own). Besides the block's costs it
// reports CheckTx's (Executor.Check, run before each block as a node
// does) per statement. The first warmup blocks are not measured (the
// first block after opening the copied template scans every table for
// out-of-band changes, a one-time cost).
func benchSmallbank(b *testing.B, sql string, warmup, bcPerBlock, wlPerBC int) {
	benchSmallbankAt(b, sql, 0, warmup, bcPerBlock, wlPerBC)
}

// benchSmallbankAt is benchSmallbank on a chain of protocol version proto
// from genesis (0: the genesis default, version 1).
// configure, when given, adjusts the executor before the first block
// (a node's configuration, such as its row history).
func benchSmallbankAt(b *testing.B, sql string, proto uint64, warmup, bcPerBlock, wlPerBC int, configure ...func(*app.Executor)) {
	ctx := context.Background()
	dir := b.TempDir()
	path := filepath.Join(dir, "relchain.db")
	copyFile(b, smallbankTemplate(b, sql), path)
	ex, speaks, closeChain, err := openChainAt(ctx, path, sql, proto)
	if err != nil {
		b.Fatal(err)
	}
	defer closeChain()
	for _, c := range configure {
		c(ex)
	}
	w, err := smallbank.New(smallbank.Options{})
	if err != nil {
		b.Fatal(err)
	}
	height := ex.State().Height
	const clients = 4 // each with its own key and nonces
	gens := make([]workload.Generator, clients)
	keys := make([]ed25519.PrivateKey, clients)
	nonces := make([]uint64, clients)
	for i := range gens {
		gens[i] = w.Generator(speaks, 1, i)
		seed := sha256.Sum256([]byte{byte(i)})
		keys[i] = ed25519.NewKeyFromSeed(seed[:])
	}
	makeBlock := func() [][]byte {
		raws := make([][]byte, bcPerBlock)
		for i := range raws {
			c := i % clients
			nonces[c]++
			tx := &txn.Tx{ChainID: benchChainID, Nonce: nonces[c]}
			for range wlPerBC {
				wl := gens[c].Next()
				for wl.ReadOnly && wlPerBC == 1 {
					wl = gens[c].Next() // async clients send reads to the query path
				}
				tx.Statements = append(tx.Statements, wl.Statements...)
				if wlPerBC > 1 {
					tx.Groups = append(tx.Groups, len(wl.Statements))
				}
			}
			tx.Sign(keys[c])
			raws[i] = txn.Encode(tx)
		}
		return raws
	}
	var fin, com, cpu, check time.Duration
	statements := 0
	runBlock := func() (results []app.TxResult, err error) {
		raws := makeBlock()
		checkStart := time.Now()
		for _, raw := range raws {
			// CheckTx ran on this node before the block: the executor
			// skips the signatures it verified.
			if _, rej := ex.Check(ctx, raw); rej != nil {
				b.Fatalf("check: %v", rej)
			}
		}
		check += time.Since(checkStart)
		for _, raw := range raws {
			tx, err := txn.Decode(raw)
			if err != nil {
				b.Fatal(err)
			}
			statements += len(tx.Statements)
		}
		height++
		var hb [8]byte
		binary.BigEndian.PutUint64(hb[:], uint64(height))
		hash := sha256.Sum256(hb[:])
		info := app.BlockInfo{Height: height, Time: time.Unix(1_700_000_000+height, 0).UTC(), Hash: hash[:]}
		b.StartTimer()
		c0 := cpuTime()
		t0 := time.Now()
		results, _, err = ex.FinalizeBlock(ctx, info, raws)
		t1 := time.Now()
		if err != nil {
			return nil, err
		}
		if _, err := ex.Commit(ctx); err != nil {
			return nil, err
		}
		t2 := time.Now()
		cpu += cpuTime() - c0
		fin += t1.Sub(t0)
		com += t2.Sub(t1)
		b.StopTimer()
		return results, nil
	}
	for range warmup {
		if _, err := runBlock(); err != nil {
			b.Fatal(err)
		}
	}
	fin, com, cpu, check, statements = 0, 0, 0, 0, 0
	b.ResetTimer()
	b.StopTimer()
	for range b.N {
		results, err := runBlock()
		if err != nil {
			b.Fatal(err)
		}
		for i, r := range results {
			// A single wl-transaction may fail (an overdraft); a batch
			// reports its wl-transactions' failures inside.
			if r.Code != api.CodeOK && (wlPerBC > 1 || r.Code != api.CodeExecFailed) {
				b.Fatalf("block %d tx %d: code %d: %s", height, i, r.Code, r.Log)
			}
		}
	}
	n := float64(b.N * bcPerBlock * wlPerBC)
	b.ReportMetric(float64(fin.Microseconds())/n, "finalize-us/wl")
	b.ReportMetric(float64(com.Microseconds())/n, "commit-us/wl")
	b.ReportMetric(float64((fin+com).Microseconds())/n, "us/wl")
	// CPU time (user+system, every thread of the process) is steadier
	// than wall time on a shared machine, and it is what bounds four
	// validators sharing two cores.
	b.ReportMetric(float64(cpu.Microseconds())/n, "cpu-us/wl")
	b.ReportMetric(float64(check.Nanoseconds())/1000/float64(statements), "checktx-us/stmt")
}

// native is the SQL dialect "" of a genesis: the storage's own.
const native = ""

// openChain opens the SQLite database at path through backend/registry
// as a node of a network whose genesis fixes the SQL dialect sql does
// (native or a dialect SQLite translates, at this binary's translator
// version), and its executor. speaks is the SQL the chain takes, the
// dialect its workloads write.
func openChain(ctx context.Context, path, sql string) (ex *app.Executor, speaks string, closeChain func(), err error) {
	return openChainAt(ctx, path, sql, 0)
}

// openChainAt is openChain at protocol version proto from genesis.
func openChainAt(ctx context.Context, path, sql string, proto uint64) (ex *app.Executor, speaks string, closeChain func(), err error) {
	d, err := registry.Lookup(workload.SQLite)
	if err != nil {
		return nil, "", nil, err
	}
	sqlDialect, version, err := registry.GenesisSQLDialect(workload.SQLite, sql)
	if err != nil {
		return nil, "", nil, err
	}
	be, err := d.Open(ctx, registry.Spec{DSN: path, SQLDialect: sqlDialect, SQLDialectVersion: version})
	if err != nil {
		return nil, "", nil, fmt.Errorf("open %s: %w", d.NetworkName(sqlDialect), err)
	}
	p := benchParams()
	p.SQLDialect, p.SQLDialectVersion = sqlDialect, version
	p.ProtocolVersion = proto
	ex, err = app.NewExecutor(ctx, be, benchChainID, p)
	if err != nil {
		be.Close()
		return nil, "", nil, err
	}
	return ex, d.SQLDialect(sqlDialect), func() { be.Close() }, nil
}

// cpuTime is the process's CPU time so far (user+system, every thread).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

const benchChainID = "bench"

// benchParams are the genesis parameters of the benchmark's SQLite chain.
func benchParams() app.Params {
	p := app.DefaultParams()
	p.Backend = "sqlite"
	p.MaxStatements = txn.MaxStatements
	return p
}

// template is a database holding Smallbank's initial state in one SQL
// dialect, built once per process.
type template struct {
	once sync.Once
	path string
	err  error
}

// templates are the Smallbank templates by SQL dialect (native or a
// translated one); templatesMu guards the map.
var (
	templatesMu sync.Mutex
	templates   = map[string]*template{}
)

// smallbankTemplate builds, once per process and SQL dialect, a database
// holding Smallbank's 100,000 accounts, set up through the executor. With
// RELCHAIN_BENCH_TEMPLATE=<file> it is built there once and reused by
// later runs (keeps the setup out of CPU profiles; delete the file when
// the backend's schema or triggers change); a translated dialect's
// template is <file>.<dialect>.
func smallbankTemplate(b *testing.B, sql string) string {
	templatesMu.Lock()
	tpl, ok := templates[sql]
	if !ok {
		tpl = &template{}
		templates[sql] = tpl
	}
	templatesMu.Unlock()
	tpl.once.Do(func() {
		if p := os.Getenv("RELCHAIN_BENCH_TEMPLATE"); p != "" {
			if sql != native {
				p += "." + sql
			}
			tpl.path = p
			if _, err := os.Stat(p); err == nil {
				return
			}
			tpl.err = buildSmallbank(p, sql)
			return
		}
		dir, err := os.MkdirTemp("", "relchain-smallbank-bench-")
		if err != nil {
			tpl.err = err
			return
		}
		tpl.path = filepath.Join(dir, "relchain.db")
		tpl.err = buildSmallbank(tpl.path, sql)
	})
	if tpl.err != nil {
		b.Fatal(tpl.err)
	}
	return tpl.path
}

// removeBenchTemplate deletes the template a run built in a temporary
// directory (not one named by RELCHAIN_BENCH_TEMPLATE); TestMain calls it.
// (app's own benchmarks keep copies of benchParams and cpuTime.)
func removeBenchTemplate() {
	if os.Getenv("RELCHAIN_BENCH_TEMPLATE") != "" {
		return
	}
	for _, tpl := range templates {
		if tpl.path != "" {
			os.RemoveAll(filepath.Dir(tpl.path))
		}
	}
}

func buildSmallbank(path, sql string) error {
	ctx := context.Background()
	ex, speaks, closeChain, err := openChain(ctx, path, sql)
	if err != nil {
		return err
	}
	defer closeChain()
	w, err := smallbank.New(smallbank.Options{})
	if err != nil {
		return err
	}
	setup, err := w.Setup(speaks)
	if err != nil {
		return err
	}
	seed := sha256.Sum256([]byte("setup"))
	key := ed25519.NewKeyFromSeed(seed[:])
	for i, stmts := range setup {
		tx := &txn.Tx{ChainID: benchChainID, Nonce: uint64(i + 1), Statements: stmts}
		tx.Sign(key)
		h := int64(i + 1)
		info := app.BlockInfo{Height: h, Time: time.Unix(1_700_000_000, 0).UTC(), Hash: make([]byte, 32)}
		res, _, err := ex.FinalizeBlock(ctx, info, [][]byte{txn.Encode(tx)})
		if err != nil {
			return err
		}
		if res[0].Code != api.CodeOK {
			return &setupError{res[0].Log}
		}
		if _, err := ex.Commit(ctx); err != nil {
			return err
		}
	}
	return nil
}

type setupError struct{ log string }

func (e *setupError) Error() string { return "smallbank setup: " + e.log }

func copyFile(b *testing.B, from, to string) {
	in, err := os.Open(from)
	if err != nil {
		b.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		b.Fatal(err)
	}
	if err := out.Close(); err != nil {
		b.Fatal(err)
	}
}
