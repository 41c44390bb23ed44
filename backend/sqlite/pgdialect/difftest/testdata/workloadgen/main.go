// Command workloadgen writes testdata/workloads.case from the benchmark
// workloads (run from the module root:
// go run ./backend/sqlite/pgdialect/difftest/testdata/workloadgen > backend/sqlite/pgdialect/difftest/testdata/workloads.case).
// It lives under testdata because the backend may not import bench/.
package main

import (
	"encoding/hex"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/relchain/relchain/bench/smallbank"
	"github.com/relchain/relchain/bench/tpcc"
	"github.com/relchain/relchain/bench/workload"
	"github.com/relchain/relchain/bench/ycsb"
	"github.com/relchain/relchain/txn"
)

func arg(a txn.Arg) string {
	switch a.Kind {
	case txn.KindNull:
		return "NULL"
	case txn.KindInt:
		return strconv.FormatInt(a.Int, 10)
	case txn.KindFloat:
		s := strconv.FormatFloat(a.Float, 'g', -1, 64)
		if !strings.ContainsAny(s, ".e") {
			s += ".0"
		}
		return s
	case txn.KindText:
		return "'" + strings.ReplaceAll(a.Text, "'", "''") + "'"
	case txn.KindBytes:
		return "x'" + hex.EncodeToString(a.Bytes) + "'"
	case txn.KindBool:
		return strconv.FormatBool(a.Bool)
	}
	panic(a.Kind)
}

func emit(name string, w workload.Workload, n int) {
	fmt.Printf("=== %s: setup and %d generated wl-transactions (postgres dialect)\n-- setup\n", name, n)
	setup, err := w.Setup(workload.Postgres)
	if err != nil {
		panic(err)
	}
	for _, tx := range setup {
		for _, s := range tx {
			stmt(s)
		}
	}
	fmt.Println("-- check")
	g := w.Generator(workload.Postgres, 1, 0)
	for i := 0; i < n; i++ {
		wl := g.Next()
		fmt.Printf("# %s\n", wl.Kind)
		for _, s := range wl.Statements {
			stmt(s)
		}
	}
	for _, t := range w.Tables() {
		fmt.Printf("-- ordered\nSELECT * FROM %s ORDER BY %s;\n", t.Name, strings.Join(t.Key, ", "))
	}
	fmt.Println()
}

func stmt(s txn.Statement) {
	if len(s.Args) > 0 {
		as := make([]string, len(s.Args))
		for i, a := range s.Args {
			as[i] = arg(a)
		}
		fmt.Printf("-- args: %s\n", strings.Join(as, ", "))
	}
	sql := strings.TrimSpace(s.SQL)
	if strings.Contains(sql, "\n") {
		sql = strings.Join(strings.Fields(sql), " ")
	}
	fmt.Println(sql + ";")
}

func main() {
	fmt.Println("# The benchmark workloads' PostgreSQL SQL (bench/smallbank, bench/tpcc, bench/ycsb),")
	fmt.Println("# at a small scale: each workload's Setup and the first wl-transactions of its")
	fmt.Println("# generator (seed 1, client 0), then every table in key order. Written by")
	fmt.Println("# testdata/workloadgen from the workload packages (the backend may not import bench/).")
	fmt.Println()
	sb, err := smallbank.New(smallbank.Options{Accounts: 20})
	if err != nil {
		panic(err)
	}
	emit("smallbank", sb, 60)
	y, err := ycsb.New(ycsb.Options{Records: 20, Fields: 3, FieldLength: 8, Workload: "f"})
	if err != nil {
		panic(err)
	}
	emit("ycsb", y, 40)
	tp, err := tpcc.New(tpcc.Options{Warehouses: 1, Districts: 2, Customers: 10, Items: 20, Orders: 10})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	emit("tpcc", tp, 30)
	// The form the postgres dialect on SQLite runs: no PL/pgSQL.
	ts, err := tpcc.New(tpcc.Options{Warehouses: 1, Districts: 2, Customers: 10, Items: 20, Orders: 10,
		Mix: map[string]int{tpcc.NewOrder: 45, tpcc.Payment: 43, tpcc.OrderStatus: 12}, Statements: true})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	emit("tpcc statements", ts, 40)
}
