package tpcc_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/bench/tpcc"
	"github.com/relchain/relchain/bench/workload"
	"github.com/relchain/relchain/bench/workload/workloadtest"
	"github.com/relchain/relchain/internal/pgtest"
	"github.com/relchain/relchain/txn"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

var dialects = []string{workload.SQLite, workload.Postgres}

// tiny is a small scale: 2 warehouses of 3 districts, 60 customers and 30
// initial orders per district, 200 items.
func tiny(t *testing.T, mix map[string]int) *tpcc.Workload {
	t.Helper()
	w, err := tpcc.New(tpcc.Options{Warehouses: 2, Districts: 3, Customers: 60, Items: 200, Orders: 30, Mix: mix})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func setup(t *testing.T, dialect string, w *tpcc.Workload) *workloadtest.Chain {
	t.Helper()
	c := workloadtest.NewChain(t, dialect)
	start := time.Now()
	c.Setup(w)
	t.Logf("%s setup of %+v: %v", dialect, w.Options(), time.Since(start))
	return c
}

func count(t *testing.T, c *workloadtest.Chain, sql string) int64 {
	t.Helper()
	rows, err := c.Query(context.Background(), sql)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	n, err := workload.Int(rows[0][0])
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return n
}

func TestSetupPopulatesTheSpecifiedCardinalities(t *testing.T) {
	for _, d := range dialects {
		t.Run(d, func(t *testing.T) {
			w := tiny(t, nil)
			c := setup(t, d, w)
			for table, want := range map[string]int64{
				"warehouse": 2, "district": 6, "customer": 360, "history": 360, "item": 200, "stock": 400,
				"orders": 180, "new_order": 6 * 9,
			} {
				if got := count(t, c, "SELECT count(*) FROM "+table); got != want {
					t.Errorf("%s: %d rows, want %d", table, got, want)
				}
			}
			if n := count(t, c, "SELECT count(*) FROM order_line"); n < 180*5 || n > 180*15 {
				t.Errorf("order_line: %d rows, want 5..15 per order", n)
			}
			if n := count(t, c, "SELECT count(DISTINCT c_last) FROM customer"); n != 60 {
				t.Errorf("%d distinct C_LAST, want 60 (names 0..59)", n)
			}
			if n := count(t, c, "SELECT count(*) FROM customer WHERE c_id = 1 AND c_last = 'BARBARBAR'"); n != 6 {
				t.Errorf("customer 1 of each district named BARBARBAR: %d, want 6", n)
			}
			if n := count(t, c, "SELECT count(DISTINCT o_c_id) FROM orders WHERE o_w_id = 1 AND o_d_id = 1"); n != 30 {
				t.Errorf("initial orders of district 1/1 have %d distinct customers, want 30 (a permutation)", n)
			}
			c.Check(w, nil)
		})
	}
}

func TestRunOfEveryKindKeepsConsistency(t *testing.T) {
	for _, d := range dialects {
		t.Run(d, func(t *testing.T) {
			w := tiny(t, map[string]int{tpcc.NewOrder: 45, tpcc.Payment: 43, tpcc.OrderStatus: 12})
			c := setup(t, d, w)
			start := time.Now()
			applied := c.Run(w, 7, 4, 400, 20)
			t.Logf("%d writes in %v", len(applied), time.Since(start))
			kinds := map[string]int{}
			var failed, committed int
			for _, a := range applied {
				kinds[a.WL.Kind]++
				if a.Code != api.CodeOK {
					failed++
					if a.WL.Kind != tpcc.NewOrder || !a.WL.MayFail {
						t.Errorf("%s failed unexpectedly", a.WL.Kind)
					}
				} else if a.WL.Kind == tpcc.NewOrder {
					committed++
				}
			}
			if kinds[tpcc.NewOrder] == 0 || kinds[tpcc.Payment] == 0 {
				t.Fatalf("kinds %v: want both writes", kinds)
			}
			c.Check(w, applied)
			_ = failed
			_ = committed
		})
	}
}

var _ = strings.Contains
var _ txn.Statement
