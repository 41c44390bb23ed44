package workloadtest_test

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/relchain/relchain/api"
	appwt "github.com/relchain/relchain/app/workloadtest"
	"github.com/relchain/relchain/bench/smallbank"
	"github.com/relchain/relchain/bench/tpcc"
	"github.com/relchain/relchain/bench/workload"
	"github.com/relchain/relchain/bench/workload/workloadtest"
	"github.com/relchain/relchain/bench/ycsb"
	"github.com/relchain/relchain/protocol"
	"github.com/relchain/relchain/txn"
)

// The ground a network over different engines stands on (issue 37): the
// same workload, block for block, on PostgreSQL storage and on SQLite
// storage speaking PostgreSQL's SQL gives at every height the same tx
// outcomes, the same statement results as sets of rows and the same
// authenticated state (the tables root of issue 36, over canonical row
// images). What still differs: each engine's own digests (change, state,
// effects), which the AppHash of protocol version 4 holds, and the order
// of the rows of a statement without ORDER BY, which each engine sorts
// its own way for a deterministic result (PostgreSQL by their text, so
// 10 before 2; SQLite by value): TPC-C's NewOrder RETURNING shows it.
func TestEnginesAgreeBlockByBlock(t *testing.T) {
	smallbankW, err := smallbank.New(smallbank.Options{Accounts: 1000})
	if err != nil {
		t.Fatal(err)
	}
	ycsbW, err := ycsb.New(ycsb.Options{Records: 500, Workload: "a", Distribution: ycsb.Zipfian})
	if err != nil {
		t.Fatal(err)
	}
	tpccW, err := tpcc.New(tpcc.Options{Warehouses: 2, Districts: 3, Customers: 60, Items: 200, Orders: 30,
		Mix: map[string]int{tpcc.NewOrder: 1, tpcc.Payment: 1}, Statements: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []workload.Workload{smallbankW, ycsbW, tpccW} {
		t.Run(w.Name(), func(t *testing.T) {
			chains := []*workloadtest.Chain{
				workloadtest.NewChainAt(t, workload.Postgres, workload.Postgres, protocol.V4),
				workloadtest.NewChainAt(t, workload.SQLite, workload.Postgres, protocol.V4),
			}
			bcs, err := w.Setup(workload.Postgres)
			if err != nil {
				t.Fatal(err)
			}
			for _, stmts := range bcs {
				sameBlock(t, chains, stmts)
			}
			gens := make([]workload.Generator, 4)
			for i := range gens {
				gens[i] = w.Generator(workload.Postgres, 37, i)
			}
			var block [][]txn.Statement
			for i := 0; i < 300; i++ {
				if wl := gens[i%len(gens)].Next(); !wl.ReadOnly {
					block = append(block, wl.Statements)
				}
				if len(block) == 25 {
					sameBlock(t, chains, block...)
					block = block[:0]
				}
			}
			if len(block) > 0 {
				sameBlock(t, chains, block...)
			}
			for _, c := range chains {
				inTheMap(t, c, w)
			}
		})
	}
}

// sameBlock runs one block of bcs on every chain and fails unless they
// agree on each tx's code and statement results and on the tables root.
func sameBlock(t *testing.T, chains []*workloadtest.Chain, bcs ...[]txn.Statement) {
	t.Helper()
	outs := make([][]appwt.Tx, len(chains))
	for i, c := range chains {
		outs[i] = c.Block(bcs...)
	}
	want, wantHeight, ok := chains[0].Executor().TablesRoot()
	if !ok {
		t.Fatalf("%s: no authenticated state", chains[0])
	}
	for i, c := range chains[1:] {
		for j := range bcs {
			if err := sameOutcome(outs[0][j], outs[i+1][j]); err != nil {
				t.Fatalf("block at height %d, tx %d (%q…): %s against %s: %v", wantHeight, j, bcs[j][0].SQL, chains[0], c, err)
			}
		}
		got, height, ok := c.Executor().TablesRoot()
		if !ok || got != want || height != wantHeight {
			t.Fatalf("tables root at height %d: %s has %x, %s has %x (height %d)", wantHeight, chains[0], want, c, got, height)
		}
	}
}

// sameOutcome compares two chains' outcomes of one tx.
func sameOutcome(a, b appwt.Tx) error {
	if a.Code != b.Code {
		return fmt.Errorf("code %d (%s) against %d (%s)", a.Code, a.Log, b.Code, b.Log)
	}
	if a.Code != api.CodeOK {
		return nil
	}
	if len(a.Results) != len(b.Results) {
		return fmt.Errorf("%d statement results against %d", len(a.Results), len(b.Results))
	}
	for i := range a.Results {
		ra, rb := normalized(a.Results[i]), normalized(b.Results[i])
		if !reflect.DeepEqual(ra, rb) {
			return fmt.Errorf("statement %d: %+v against %+v", i+1, ra, rb)
		}
	}
	return nil
}

// normalized is r with every value as workload.Normalize gives it and
// its rows sorted by their printed form (a set of rows: see above).
func normalized(r api.StatementResult) api.StatementResult {
	rows := make([][]any, len(r.Rows))
	for i, row := range r.Rows {
		rows[i] = make([]any, len(row))
		for j, v := range row {
			rows[i][j] = workload.Normalize(v)
		}
	}
	slices.SortStableFunc(rows, func(x, y []any) int { return strings.Compare(fmt.Sprintf("%#v", x), fmt.Sprintf("%#v", y)) })
	r.Rows = rows
	return r
}

// inTheMap fails unless every table of w is in c's authenticated state:
// roots that agree because both maps left the tables out prove nothing.
func inTheMap(t *testing.T, c *workloadtest.Chain, w workload.Workload) {
	t.Helper()
	for _, tb := range w.Tables() {
		resp, err := c.Executor().Prove(context.Background(), api.ProofRequest{Table: tb.Name, Key: []byte{0}})
		if err != nil {
			t.Fatalf("%s: prove a key of %s: %v", c, tb.Name, err)
		}
		if resp.TableAbsence != nil {
			t.Fatalf("%s: table %s is not in the authenticated state", c, tb.Name)
		}
	}
}
