package bench

import (
	"strings"
	"testing"

	"github.com/relchain/relchain/bench/workload"
)

// TPCCStatements chooses TPC-C's PostgreSQL statement form: its setup
// creates no PL/pgSQL function and NewOrder is several statements.
func TestTPCCStatementsChoosesThePostgreSQLStatementForm(t *testing.T) {
	for _, stmts := range []bool{false, true} {
		w, err := NewWorkload("tpcc", WorkloadOptions{Scale: 1, TPCC: TPCCCardinality{Items: 100, Customers: 10, Orders: 10},
			Mix: []string{"NewOrder"}, TPCCStatements: stmts})
		if err != nil {
			t.Fatal(err)
		}
		setup, err := w.Setup(workload.Postgres)
		if err != nil {
			t.Fatal(err)
		}
		functions := 0
		for _, bc := range setup {
			for _, s := range bc {
				if strings.Contains(s.SQL, "CREATE OR REPLACE FUNCTION") {
					functions++
				}
			}
		}
		n := len(w.Generator(workload.Postgres, 1, 0).Next().Statements)
		if want := map[bool]int{false: 2, true: 0}[stmts]; functions != want {
			t.Errorf("TPCCStatements %v: %d functions in the setup, want %d", stmts, functions, want)
		}
		if want := map[bool]int{false: 1, true: 6}[stmts]; n != want {
			t.Errorf("TPCCStatements %v: NewOrder is %d statements, want %d", stmts, n, want)
		}
	}
}
