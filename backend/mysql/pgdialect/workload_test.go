package pgdialect_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/relchain/relchain/backend/mysql/pgdialect"
	"github.com/relchain/relchain/bench/smallbank"
	"github.com/relchain/relchain/bench/tpcc"
	"github.com/relchain/relchain/bench/workload"
	"github.com/relchain/relchain/bench/ycsb"
	"github.com/relchain/relchain/txn"
)

// TestWorkloads runs the benchmark workloads' statements in the postgres
// dialect (their setup, then generated wl-transactions) on PostgreSQL and,
// translated, on MariaDB: every statement must translate and give the
// same outcome.
func TestWorkloads(t *testing.T) {
	sb, err := smallbank.New(smallbank.Options{Accounts: 200})
	if err != nil {
		t.Fatal(err)
	}
	yc, err := ycsb.New(ycsb.Options{Records: 200, Workload: "a"})
	if err != nil {
		t.Fatal(err)
	}
	yf, err := ycsb.New(ycsb.Options{Records: 100, Workload: "f"})
	if err != nil {
		t.Fatal(err)
	}
	tp, err := tpcc.New(tpcc.Options{Warehouses: 1, Districts: 2, Customers: 30, Items: 100, Orders: 30, Statements: true,
		Mix: map[string]int{tpcc.NewOrder: 1, tpcc.Payment: 1, tpcc.OrderStatus: 1}})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []workload.Workload{sb, yc, yf, tp} {
		t.Run(w.Name(), func(t *testing.T) { runWorkload(t, w) })
	}
}

func runWorkload(t *testing.T, w workload.Workload) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	pg := openPG(ctx, t)
	my := openMaria(ctx, t)
	bcs, err := w.Setup(workload.Postgres)
	if err != nil {
		t.Fatalf("setup: %v", err)
	}
	n := 0
	for _, bc := range bcs {
		for _, st := range bc {
			if !runWorkloadStatement(ctx, t, pg, my, st, "setup", false) {
				return
			}
			n++
		}
	}
	g := w.Generator(workload.Postgres, 1, 0)
	kinds := map[string]int{}
	for range 200 {
		wl := g.Next()
		kinds[wl.Kind]++
		for _, st := range wl.Statements {
			if !runWorkloadStatement(ctx, t, pg, my, st, wl.Kind, wl.MayFail) {
				return
			}
			n++
		}
	}
	t.Logf("%d statements agree; wl-transaction kinds %v", n, kinds)
}

// runWorkloadStatement runs one statement on both engines; false stops
// the workload (a refusal or a difference).
func runWorkloadStatement(ctx context.Context, t *testing.T, pg pgConn, my myConn, st txn.Statement, kind string, mayFail bool) bool {
	t.Helper()
	args := make([]any, len(st.Args))
	for i, a := range st.Args {
		switch a.Kind {
		case txn.KindInt:
			args[i] = a.Int
		case txn.KindText:
			args[i] = a.Text
		case txn.KindNull:
		default:
			t.Fatalf("%s: argument kind %v", kind, a.Kind)
		}
	}
	where := fmt.Sprintf("%s %.200q", kind, st.SQL)
	cat := &pgdialect.SchemaCatalog{Ctx: ctx, Q: my}
	tr, terr := pgdialect.TranslateTyped(st.SQL, cat, paramTypes(args))
	if terr != nil {
		var e *pgdialect.Error
		if !errors.As(terr, &e) || e.Code == "0A000" {
			t.Errorf("%s: %v", where, terr)
			return false
		}
	}
	s := step{sql: st.SQL, args: args}
	want := runPG(ctx, pg, s, tr != nil && tr.Ordered)
	got := outcome{}
	if terr != nil {
		got = outcome{err: terr.(*pgdialect.Error).Code[:2], msg: terr.Error()}
	} else {
		got = runMaria(ctx, my, tr, args)
	}
	if mayFail {
		s.expect = "any"
	}
	if want.err != "" && !mayFail {
		t.Errorf("%s: fails on PostgreSQL: %v", where, want)
		return false
	}
	before := t.Failed()
	compare(t, where, s, want, got)
	return t.Failed() == before
}
