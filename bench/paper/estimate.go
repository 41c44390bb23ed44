package paper

import (
	"math"
	"time"

	"github.com/relchain/relchain/bench"
	"github.com/relchain/relchain/dialect"
)

// The cost model behind Estimate, from what relchain measured on a 2-core
// machine (BENCHMARKS.md, node.DefaultTuning) and the team's expectations
// where nothing was measured yet (TPC-C, PostgreSQL). Deliberately on the
// slow side.
const (
	startBase      = 2 * time.Second        // network generation, first block
	startPerNode   = 800 * time.Millisecond // per validator (4: ~5 s)
	startPostgres  = 3 * time.Second        // creating the databases
	teardown       = time.Second            // stop, remove directories
	sbSetupBase    = time.Second            // Smallbank schema
	sbSetupPer1000 = 300 * time.Millisecond // per 1,000 accounts
	tpccSetupPerWH = 15 * time.Second       // per TPC-C warehouse, through consensus
	// Block latency of a synchronous bc-transaction at 4 validators:
	// timeout_commit 10 ms gives p50 23 ms, p95 27 ms; 0 costs an extra
	// (proof) block, 37 ms.
	syncBase      = 22 * time.Millisecond
	syncZeroTC    = 37 * time.Millisecond
	syncPerNode   = 3 * time.Millisecond // per validator beyond 4
	asyncTailTCs  = 3                    // blocks after the last submission
	rawSetupRatio = 0.3                  // baseline setup against the chain's
	// A replicated baseline: starting a primary and basebacking each
	// standby; each commit waits for every standby to apply it.
	replicaStart     = 4 * time.Second
	replicatedCommit = 3 * time.Millisecond
)

// Per wl-transaction costs in one node's backend (execution, digests,
// signature checks), and async submission rates (CheckTx-bound).
var (
	execPerWL = map[string]time.Duration{
		"smallbank": 100 * time.Microsecond, // pseudo-sync large k: ~10,000 wl-tx/s
		"tpcc":      2 * time.Millisecond,
	}
	asyncRate = map[string]float64{ // wl-tx/s, 1 client
		"smallbank": 1500,
		"tpcc":      250,
	}
	rawPerWL = map[string]time.Duration{
		"smallbank": 50 * time.Microsecond,
		"tpcc":      time.Millisecond,
	}
	kvstoreAsyncRate = 4000.0
)

// syncLatency is the expected latency of one synchronous bc-transaction.
func syncLatency(tc time.Duration, validators int) time.Duration {
	lat := syncBase + tc + tc/5
	if tc == 0 {
		lat = syncZeroTC
	}
	if validators == 1 {
		lat /= 2
	}
	if validators > 4 {
		lat += time.Duration(validators-4) * syncPerNode
	}
	return lat
}

// delayedRounds is how many one-way link latencies a synchronous
// transaction waits for in the model (broadcast, proposal, prevote,
// precommit, and the round after): an estimate, not a measurement.
const delayedRounds = 5

// pointSyncLatency is syncLatency with the point's added link latency.
func pointSyncLatency(p Point) time.Duration {
	return syncLatency(p.TimeoutCommit, p.Validators) + delayedRounds*p.LinkDelay
}

func lookup[T any](m map[string]T, workload string) T {
	if v, ok := m[workload]; ok {
		return v
	}
	return m["smallbank"]
}

// onServer reports whether p's backend runs on a database server
// (package dialect: PostgreSQL, MySQL): it costs the server's start-up and
// runs slower than a file database (SQLite) here.
func onServer(p Point) bool {
	d, err := dialect.Lookup(p.Backend)
	return err == nil && d.Server
}

func startup(p Point) time.Duration {
	d := startBase + time.Duration(max(p.Validators, 1))*startPerNode + teardown
	if onServer(p) {
		d += startPostgres
	}
	return d
}

func setup(p Point) time.Duration {
	if p.Config.Workload == "tpcc" {
		return time.Duration(max(p.Config.Scale, 1)) * tpccSetupPerWH
	}
	return sbSetupBase + time.Duration(p.Config.Scale/1000)*sbSetupPer1000
}

// runTime is the expected duration of the workload itself.
func runTime(p Point) time.Duration {
	c := p.Config
	clients := max(c.Clients, 1)
	exec := lookup(execPerWL, c.Workload)
	if onServer(p) {
		exec *= 3
	}
	switch c.Mode {
	case bench.ModeAsync:
		rate := lookup(asyncRate, c.Workload)
		if onServer(p) {
			rate /= 2
		}
		d := time.Duration(float64(c.Txs) / rate * float64(time.Second))
		return d + asyncTailTCs*pointSyncLatency(p)
	default:
		k := max(c.WLPerBC, 1)
		if c.Mode == bench.ModeSync {
			k = 1
		}
		bcs := int(math.Ceil(float64(c.Txs) / float64(k)))
		rounds := int(math.Ceil(float64(bcs) / float64(clients)))
		return time.Duration(rounds)*pointSyncLatency(p) + time.Duration(c.Txs)*exec
	}
}

// EstimatePoint is how long measuring p is expected to take, network
// start-up, setup, baseline and ceiling included.
func EstimatePoint(p Point) time.Duration {
	d := startup(p) + setup(p) + runTime(p)
	if p.Baseline {
		d += time.Duration(float64(setup(p))*rawSetupRatio) + time.Duration(p.Config.Txs)*lookup(rawPerWL, p.Config.Workload)
	}
	if n := p.BaselineReplicas; p.Baseline && n > 0 {
		bcs := int(math.Ceil(float64(p.Config.Txs) / float64(max(p.Config.WLPerBC, 1))))
		d += time.Duration(n+1)*replicaStart + time.Duration(bcs)*replicatedCommit
	}
	if p.Ceiling {
		kv := p
		kv.Backend = DefaultBackend
		d += startup(kv)
		if p.Config.Mode == bench.ModeAsync {
			d += time.Duration(float64(p.Config.Txs)/kvstoreAsyncRate*float64(time.Second)) + asyncTailTCs*syncLatency(p.TimeoutCommit, p.Validators)
		} else {
			kv.Config.Workload = "kvstore"
			d += runTime(kv) - time.Duration(kv.Config.Txs)*lookup(execPerWL, "smallbank")
		}
	}
	return d
}

// Estimate is how long Run takes for plan: the sum over its distinct
// measurements.
func Estimate(plan []Experiment) time.Duration {
	var d time.Duration
	for _, p := range Distinct(plan) {
		d += EstimatePoint(p)
	}
	return d
}
