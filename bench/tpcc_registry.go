package bench

import (
	"github.com/relchain/relchain/bench/tpcc"
	"github.com/relchain/relchain/bench/workload"
)

func newTPCC(o WorkloadOptions, mix map[string]int) (workload.Workload, error) {
	return tpcc.New(tpcc.Options{
		Warehouses: o.Scale, Items: o.TPCC.Items, Customers: o.TPCC.Customers, Orders: o.TPCC.Orders, Mix: mix,
		Statements: o.TPCCStatements,
	})
}
