package bench

import (
	"fmt"

	"github.com/relchain/relchain/bench/workload"
)

func newTPCC(o WorkloadOptions, mix map[string]int) (workload.Workload, error) {
	return nil, fmt.Errorf("tpcc: not merged yet")
}
