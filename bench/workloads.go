package bench

import (
	"fmt"

	"github.com/relchain/relchain/bench/workload"
)

// MaxStatements is the genesis max_statements of benchmark networks: a
// pseudo-sync bc-transaction of 2,048 wl-transactions of a few statements
// each must fit (max_tx_bytes still bounds it).
const MaxStatements = 65535

// WorkloadOptions size and shape a workload.
type WorkloadOptions struct {
	Scale        int
	Distribution string
	Mix          []string
}

// NewWorkload builds the named workload.
func NewWorkload(name string, o WorkloadOptions) (workload.Workload, error) {
	return nil, fmt.Errorf("unknown --workload %q: use smallbank, tpcc, ycsb-a, ycsb-b, ycsb-c, ycsb-f or update", name)
}
