package bench

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/relchain/relchain/bench/smallbank"
	"github.com/relchain/relchain/bench/workload"
	"github.com/relchain/relchain/bench/ycsb"
)

// MaxStatements is the genesis max_statements of benchmark networks: a
// pseudo-sync bc-transaction of 2,048 wl-transactions of a few statements
// each must fit (max_tx_bytes still bounds it).
const MaxStatements = 65535

// WorkloadOptions size and shape a workload.
type WorkloadOptions struct {
	// Scale: Smallbank accounts, TPC-C warehouses, YCSB records (0: the
	// workload's default).
	Scale int
	// Distribution of keys: Smallbank uniform|zipf, YCSB
	// uniform|zipfian|latest ("" the workload's default).
	Distribution string
	// Mix restricts the transaction kinds, each "Kind" or "Kind:weight"
	// (equal weights when none is given).
	Mix []string
	// TPCC sets TPC-C's cardinalities below the warehouse (0: the
	// specification's); the other workloads ignore it.
	TPCC TPCCCardinality
	// TPCCStatements runs TPC-C's PostgreSQL statement form instead of
	// its PL/pgSQL functions (tpcc.Options.Statements): the postgres
	// dialect on SQLite needs it, its translator having no PL/pgSQL.
	TPCCStatements bool
}

// TPCCCardinality is TPC-C's population per warehouse, smaller than the
// specification's (TPC-C 4.3.3.1) for tests that check the consistency
// conditions without loading 100,000 items and 30,000 customers.
type TPCCCardinality struct {
	Items     int // items, and stock rows per warehouse (default 100,000)
	Customers int // customers per district (default 3,000)
	Orders    int // initial orders per district (default 3,000)
}

// Workloads lists the workload names NewWorkload knows.
var Workloads = []string{"smallbank", "smallbank-id", "tpcc", "ycsb-a", "ycsb-b", "ycsb-c", "ycsb-f"}

// NewWorkload builds the named workload.
func NewWorkload(name string, o WorkloadOptions) (workload.Workload, error) {
	mix, err := parseMix(o.Mix)
	if err != nil {
		return nil, err
	}
	switch {
	case name == "smallbank":
		return smallbank.New(smallbank.Options{Accounts: o.Scale, Distribution: o.Distribution, Mix: mix})
	case name == "smallbank-id":
		return smallbank.New(smallbank.Options{Accounts: o.Scale, Distribution: o.Distribution, Mix: mix, Keys: smallbank.ByID})
	case name == "tpcc":
		return newTPCC(o, mix)
	case strings.HasPrefix(name, "ycsb-"):
		return ycsb.New(ycsb.Options{Records: o.Scale, Workload: strings.TrimPrefix(name, "ycsb-"), Distribution: o.Distribution, Mix: mix})
	}
	return nil, fmt.Errorf("unknown workload %q: use %s, or update", name, strings.Join(Workloads, ", "))
}

func parseMix(kinds []string) (map[string]int, error) {
	if len(kinds) == 0 {
		return nil, nil
	}
	mix := make(map[string]int, len(kinds))
	for _, k := range kinds {
		k = strings.TrimSpace(k)
		name, weight, found := strings.Cut(k, ":")
		w := 1
		if found {
			n, err := strconv.Atoi(weight)
			if err != nil || n < 1 {
				return nil, fmt.Errorf("--mix %q: the weight must be a positive integer", k)
			}
			w = n
		}
		if name == "" {
			return nil, fmt.Errorf("--mix %q: no transaction kind", k)
		}
		mix[name] = w
	}
	return mix, nil
}
