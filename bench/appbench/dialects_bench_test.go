package appbench_test

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/app"
	"github.com/relchain/relchain/bench/tpcc"
	"github.com/relchain/relchain/bench/workload"
	"github.com/relchain/relchain/bench/workload/workloadtest"
	"github.com/relchain/relchain/dialect"
	"github.com/relchain/relchain/protocol"
	"github.com/relchain/relchain/txn"
)

// sqlDialects are the SQL dialects a SQLite network may speak, its own
// first (native, then PostgreSQL's, translated: issue 35), as the
// benchmarks below compare them side by side in one run.
var sqlDialects = []string{native, dialect.SQLPostgres}

// sqlName names a SQL dialect of a SQLite network in benchmark names.
func sqlName(sql string) string {
	d, err := dialect.Lookup(workload.SQLite)
	if err != nil {
		panic(err)
	}
	return "sql=" + d.SQLDialect(sql)
}

// BenchmarkDialectSmallbank is BenchmarkSmallbankAsyncSQLite and
// BenchmarkSmallbankBatchSQLite in each SQL dialect of a SQLite network:
// the translation's cost in the executor (cpu-us/wl) and in CheckTx
// (checktx-us/stmt, Smallbank's own statements, verdicts cached as on a
// node after the first block). Two blocks warm each chain up unmeasured.
//
//	go test ./bench/appbench -run '^$' -bench 'DialectSmallbank' -benchtime 20x -count 5
func BenchmarkDialectSmallbank(b *testing.B) {
	for _, shape := range []struct {
		name                string
		bcPerBlock, wlPerBC int
	}{{"async", 128, 1}, {"batch", 4, 100}} {
		for _, sql := range sqlDialects {
			b.Run(shape.name+"/"+sqlName(sql), func(b *testing.B) { benchSmallbank(b, sql, 2, shape.bcPerBlock, shape.wlPerBC) })
		}
	}
}

// BenchmarkAuthStateSmallbank is BenchmarkDialectSmallbank's PostgreSQL
// dialect on SQLite under protocol version 3, 4 and 5 side by side: the
// authenticated state's cost in the executor (issue 36: a statetree per
// table kept up to date from each block's changed rows), and version 4
// without the node's row history (on by default). The first of the
// two warmup blocks of version 4 builds the trees from every row.
//
//	go test ./bench/appbench -run '^$' -bench 'AuthStateSmallbank' -benchtime 20x -count 5
func BenchmarkAuthStateSmallbank(b *testing.B) {
	for _, shape := range []struct {
		name                string
		bcPerBlock, wlPerBC int
	}{{"async", 128, 1}, {"batch", 4, 100}} {
		for _, proto := range []uint64{protocol.V3, protocol.V4, protocol.V5} {
			b.Run(fmt.Sprintf("%s/protocol=%d", shape.name, proto), func(b *testing.B) {
				benchSmallbankAt(b, dialect.SQLPostgres, proto, 2, shape.bcPerBlock, shape.wlPerBC)
			})
		}
		for _, proto := range []uint64{protocol.V4, protocol.V5} {
			b.Run(fmt.Sprintf("%s/protocol=%d/history=off", shape.name, proto), func(b *testing.B) {
				benchSmallbankAt(b, dialect.SQLPostgres, proto, 2, shape.bcPerBlock, shape.wlPerBC,
					func(ex *app.Executor) { ex.SetHistory(app.HistoryConfig{Off: true}) })
			})
		}
	}
}

// BenchmarkDialectCheckTx measures CheckTx (Executor.Check) per
// one-statement tx (an INSERT of two parameters) in each SQL dialect of a
// SQLite network: "repeated", the same text every time (the gate's verdict
// cached, the usual case), "distinct", a text never seen before (a
// trailing comment differs: the pre-scan, the parse, the gate and, in a
// translated dialect, the translation run, though the translation is the
// same SQLite text each time), and "literal", a text whose literal differs
// (its translation differs too, so SQLite's gate prepares it anew). Signing is not measured; app's
// BenchmarkCheckTx is the same on SQLite and PostgreSQL storage.
//
//	go test ./bench/appbench -run '^$' -bench 'DialectCheckTx' -benchtime 2000x -count 5
func BenchmarkDialectCheckTx(b *testing.B) {
	for _, texts := range []string{"repeated", "distinct", "literal"} {
		for _, sql := range sqlDialects {
			b.Run(texts+"/"+sqlName(sql), func(b *testing.B) { benchCheckTx(b, sql, texts) })
		}
	}
}

func benchCheckTx(b *testing.B, sql string, texts string) {
	ctx := context.Background()
	ex, speaks, closeChain, err := openChain(ctx, filepath.Join(b.TempDir(), "relchain.db"), sql)
	if err != nil {
		b.Fatal(err)
	}
	defer closeChain()
	seed := sha256.Sum256([]byte("checktx"))
	key := ed25519.NewKeyFromSeed(seed[:])
	nonce := uint64(0)
	sign := func(stmts ...txn.Statement) []byte {
		nonce++
		tx := &txn.Tx{ChainID: benchChainID, Nonce: nonce, Statements: stmts}
		tx.Sign(key)
		return txn.Encode(tx)
	}
	info := app.BlockInfo{Height: ex.State().Height + 1, Time: time.Unix(1_700_000_000, 0).UTC(), Hash: seed[:]}
	res, _, err := ex.FinalizeBlock(ctx, info, [][]byte{sign(txn.Statement{SQL: "CREATE TABLE kv (k BIGINT PRIMARY KEY, v TEXT NOT NULL)"})})
	if err != nil || res[0].Code != api.CodeOK {
		b.Fatalf("create table: %v %+v", err, res)
	}
	if _, err := ex.Commit(ctx); err != nil {
		b.Fatal(err)
	}
	insert := fmt.Sprintf("INSERT INTO kv (k, v) VALUES (%s, %s)", workload.Placeholder(speaks, 1), workload.Placeholder(speaks, 2))
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		text := insert
		switch texts {
		case "distinct":
			text = fmt.Sprintf("%s -- %d", insert, i)
		case "literal":
			text = fmt.Sprintf("INSERT INTO kv (k, v) VALUES (%s, 'v%d')", workload.Placeholder(speaks, 1), i)
		}
		args := []txn.Arg{txn.Int(int64(i)), txn.Text("value")}
		if texts == "literal" {
			args = args[:1]
		}
		raw := sign(txn.Statement{SQL: text, Args: args})
		b.StartTimer()
		if _, rej := ex.Check(ctx, raw); rej != nil {
			b.Fatalf("check: %v", rej)
		}
	}
}

// BenchmarkDialectNewOrder runs blocks of 100 TPC-C NewOrders (one
// wl-transaction per bc-transaction) on a small warehouse in each SQL
// dialect of a SQLite network and reports the executor's CPU per
// wl-transaction (this process's user+system time: the executor and
// SQLite). The postgres dialect runs TPC-C's PostgreSQL statement form
// (tpcc.Options.Statements: SQLite's six statements in PostgreSQL's SQL,
// NUMERIC money; the translator has no PL/pgSQL). A dialect whose
// translator refuses a statement TPC-C needs skips, naming it
// (bench/workload/workloadtest).
//
//	go test ./bench/appbench -run '^$' -bench 'DialectNewOrder' -benchtime 10x -count 5
func BenchmarkDialectNewOrder(b *testing.B) {
	const perBlock = 100
	w, err := tpcc.New(tpcc.Options{Warehouses: 1, Customers: 300, Items: 10000, Orders: 300, Mix: map[string]int{tpcc.NewOrder: 1}, Statements: true})
	if err != nil {
		b.Fatal(err)
	}
	for _, sql := range sqlDialects {
		b.Run(sqlName(sql), func(b *testing.B) {
			c := workloadtest.NewChainSpeaking(b, workload.SQLite, sql)
			c.Setup(w)
			gen := w.Generator(c.Dialect, 1, 0)
			var cpu time.Duration
			b.ResetTimer()
			for b.Loop() {
				b.StopTimer()
				bcs := make([][]txn.Statement, perBlock)
				for i := range bcs {
					bcs[i] = gen.Next().Statements
				}
				b.StartTimer()
				c0 := cpuTime()
				for _, r := range c.Block(bcs...) {
					if r.Code != api.CodeOK && r.Code != api.CodeExecFailed {
						b.Fatalf("NewOrder: code %d: %s", r.Code, r.Log)
					}
				}
				cpu += cpuTime() - c0
			}
			b.ReportMetric(float64(cpu.Microseconds())/float64(b.N*perBlock), "cpu-us/wl")
		})
	}
}
