package mariadbpg_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/backend/mysql/mysqltest"
	"github.com/relchain/relchain/backend/mysql/pgdialect/pgdialecttest"
	"github.com/relchain/relchain/backend/postgres/pgtest"
	"github.com/relchain/relchain/bench/smallbank"
	"github.com/relchain/relchain/bench/tpcc"
	"github.com/relchain/relchain/bench/workload"
	"github.com/relchain/relchain/bench/ycsb"
	"github.com/relchain/relchain/txn"
)

func TestMain(m *testing.M) {
	code := m.Run()
	pgtest.Shutdown()
	mysqltest.Shutdown()
	os.Exit(code)
}

// TestWorkloads runs the benchmark workloads' statements in the postgres
// dialect (their setup, then generated wl-transactions, each in a
// transaction rolled back if a statement fails) on PostgreSQL and,
// translated, on MariaDB: every statement must translate and give the
// same outcome; then the workload's own Check, its queries run on both
// engines alike, must hold on MariaDB's state and results.
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

// engines are the two connections a workload runs on.
type engines struct {
	t  *testing.T
	pg *pgx.Conn
	my *sql.Conn
}

func runWorkload(t *testing.T, w workload.Workload) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	e := &engines{t: t, pg: pgdialecttest.OpenPG(ctx, t), my: pgdialecttest.OpenMaria(ctx, t)}
	bcs, err := w.Setup(workload.Postgres)
	if err != nil {
		t.Fatalf("setup: %v", err)
	}
	n := 0
	for _, bc := range bcs {
		for _, st := range bc {
			if _, ok := e.statement(ctx, st, "setup", false); !ok {
				return
			}
			n++
		}
	}
	g := w.Generator(workload.Postgres, 1, 0)
	kinds := map[string]int{}
	var applied []workload.Applied
	for range 200 {
		wl := g.Next()
		kinds[wl.Kind]++
		a, ok := e.transaction(ctx, wl)
		if !ok {
			return
		}
		n += len(wl.Statements)
		if !wl.ReadOnly { // the read-only ones go the query path
			applied = append(applied, a)
		}
	}
	if err := w.Check(ctx, workload.Postgres, e, applied); err != nil {
		t.Errorf("%s's check on MariaDB: %v", w.Name(), err)
	}
	t.Logf("%d statements agree; wl-transaction kinds %v", n, kinds)
}

// transaction runs a wl-transaction on both engines, each in a
// transaction, rolled back when a statement fails (on both: the outcomes
// agree); its Applied record holds MariaDB's results.
func (e *engines) transaction(ctx context.Context, wl workload.WL) (workload.Applied, bool) {
	e.exec(ctx, "BEGIN")
	a := workload.Applied{WL: wl, Code: api.CodeOK}
	for _, st := range wl.Statements {
		got, ok := e.statement(ctx, st, wl.Kind, wl.MayFail)
		if !ok {
			return a, false
		}
		if got.Err != "" {
			a.Code, a.Results = api.CodeOK+1, nil
			e.exec(ctx, "ROLLBACK")
			return a, true
		}
		a.Results = append(a.Results, result(got))
	}
	e.exec(ctx, "COMMIT")
	return a, true
}

// exec runs a transaction statement on both engines.
func (e *engines) exec(ctx context.Context, s string) {
	if _, err := e.pg.Exec(ctx, s); err != nil {
		e.t.Fatalf("postgres %s: %v", s, err)
	}
	if _, err := e.my.ExecContext(ctx, s); err != nil {
		e.t.Fatalf("mariadb %s: %v", s, err)
	}
}

// result is an outcome as a statement's result.
func result(o pgdialecttest.Outcome) api.StatementResult {
	r := api.StatementResult{RowsAffected: o.RowsAffected}
	for _, row := range o.Cells {
		var vs []any
		for _, c := range row {
			if c == "NULL" {
				vs = append(vs, nil)
			} else {
				vs = append(vs, c)
			}
		}
		r.Rows = append(r.Rows, vs)
	}
	if len(o.Cols) > 0 {
		r.RowsAffected = int64(len(o.Cells))
	}
	return r
}

// Query implements workload.Querier: the query runs on both engines and
// must agree; MariaDB's rows are returned.
func (e *engines) Query(ctx context.Context, sql string, args ...any) ([][]any, error) {
	targs := make([]txn.Arg, len(args))
	for i, a := range args {
		switch v := a.(type) {
		case int64:
			targs[i] = txn.Int(v)
		case int:
			targs[i] = txn.Int(int64(v))
		case string:
			targs[i] = txn.Text(v)
		default:
			return nil, fmt.Errorf("argument %d of type %T", i+1, a)
		}
	}
	got, ok := e.statement(ctx, txn.Statement{SQL: sql, Args: targs}, "check", false)
	if !ok || got.Err != "" {
		return nil, fmt.Errorf("check query %.80q failed: %v", sql, got)
	}
	return result(got).Rows, nil
}

// statement runs one statement on both engines and returns MariaDB's
// outcome; false: a refusal or a difference (reported).
func (e *engines) statement(ctx context.Context, st txn.Statement, kind string, mayFail bool) (pgdialecttest.Outcome, bool) {
	t := e.t
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
	want, got, err := pgdialecttest.Run(ctx, e.pg, e.my, st.SQL, args)
	switch {
	case err != nil:
		t.Errorf("%s: %v", where, err)
	case want.Err != "" && !mayFail:
		t.Errorf("%s: fails on PostgreSQL: %v", where, want)
	case !pgdialecttest.Same(want, got):
		t.Errorf("%s: outcomes differ:\n postgres: %v\n mariadb:  %v", where, want, got)
	default:
		return got, true
	}
	return got, false
}
