package workloadtest_test

import (
	"testing"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/bench/smallbank"
	"github.com/relchain/relchain/bench/tpcc"
	"github.com/relchain/relchain/bench/workload"
	"github.com/relchain/relchain/bench/workload/workloadtest"
	"github.com/relchain/relchain/bench/ycsb"
	"github.com/relchain/relchain/txn"
)

func TestMain(m *testing.M) { workloadtest.Main(m) }

// postgresOnSQLite is a chain of SQLite storage whose genesis fixes the
// postgres SQL dialect (issue 35): the workloads write their PostgreSQL
// statements, the translator runs them on SQLite.
func postgresOnSQLite(t *testing.T) *workloadtest.Chain {
	t.Helper()
	c := workloadtest.NewChainSpeaking(t, workload.SQLite, workload.Postgres)
	if c.Dialect != workload.Postgres || c.Storage != workload.SQLite {
		t.Fatalf("chain speaks %q on %q, want %q on %q", c.Dialect, c.Storage, workload.Postgres, workload.SQLite)
	}
	return c
}

// runChecked sets w up on c, runs n of its wl-transactions (4 clients, 25
// writes a block), checks its consistency conditions and returns the
// writes applied. A statement the translator refuses skips the test,
// naming it (workloadtest.Chain); anything else that fails fails it.
func runChecked(t *testing.T, c *workloadtest.Chain, w workload.Workload, n int) []workload.Applied {
	t.Helper()
	c.Setup(w)
	applied := c.Run(w, 1, 4, n, 25)
	ok := 0
	for _, a := range applied {
		if a.Code == api.CodeOK {
			ok++
		}
	}
	if ok == 0 {
		t.Fatalf("%s: none of %d writes committed", w.Name(), len(applied))
	}
	c.Check(w, applied)
	return applied
}

func TestSmallbankRunsInThePostgresDialectOnSQLite(t *testing.T) {
	w, err := smallbank.New(smallbank.Options{Accounts: 1000})
	if err != nil {
		t.Fatal(err)
	}
	runChecked(t, postgresOnSQLite(t), w, 300)
}

func TestYCSBRunsInThePostgresDialectOnSQLite(t *testing.T) {
	c := postgresOnSQLite(t)
	var applied []workload.Applied
	for i, name := range []string{"a", "f"} {
		w, err := ycsb.New(ycsb.Options{Records: 500, Workload: name, Distribution: []string{ycsb.Uniform, ycsb.Zipfian}[i]})
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			applied = runChecked(t, c, w, 300)
			continue
		}
		// The check verifies the final value of every write so far.
		applied = append(applied, c.Run(w, 2, 4, 300, 25)...)
		c.Check(w, applied)
	}
}

// TPC-C runs its PostgreSQL statement form (tpcc.Options.Statements): the
// translator has no PL/pgSQL, so the NewOrder and Payment functions of
// PostgreSQL storage are refused (CREATE FUNCTION). The form does what
// the functions do, row for row (bench/tpcc, TestDialectsReachTheSameState).
func TestTPCCRunsInThePostgresDialectOnSQLite(t *testing.T) {
	w, err := tpcc.New(tpcc.Options{Warehouses: 2, Districts: 3, Customers: 60, Items: 200, Orders: 30,
		Mix: map[string]int{tpcc.NewOrder: 45, tpcc.Payment: 43, tpcc.OrderStatus: 12}, Statements: true})
	if err != nil {
		t.Fatal(err)
	}
	runChecked(t, postgresOnSQLite(t), w, 200)
}

// refusedSetup is a workload whose setup holds a statement the translator
// refuses (functions are outside the postgres dialect, docs/dialects.md).
type refusedSetup struct{ workload.Workload }

func (refusedSetup) Setup(string) ([][]txn.Statement, error) {
	return [][]txn.Statement{{{SQL: "CREATE TABLE kept (id integer PRIMARY KEY)"},
		{SQL: "CREATE FUNCTION one() RETURNS integer LANGUAGE sql AS 'SELECT 1'"}}}, nil
}

func TestARefusedStatementSkipsNamingIt(t *testing.T) {
	w, err := ycsb.New(ycsb.Options{Records: 10})
	if err != nil {
		t.Fatal(err)
	}
	var inner *testing.T
	t.Run("refused", func(t *testing.T) {
		inner = t
		postgresOnSQLite(t).Setup(refusedSetup{w})
		t.Error("Setup went on past a refused statement")
	})
	if !inner.Skipped() || inner.Failed() {
		t.Errorf("refused setup: skipped %v, failed %v; want a skip", inner.Skipped(), inner.Failed())
	}
}
