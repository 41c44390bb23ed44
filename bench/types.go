package bench

import (
	"fmt"
	"time"
)

// Modes of a measurement, the paper's communication modes.
const (
	// ModeSync: each client sends one wl-transaction per bc-transaction
	// and waits until it is committed before sending the next.
	ModeSync = "sync"
	// ModePseudo (pseudo-synchronous): each client packs WLPerBC
	// wl-transactions into one bc-transaction and waits for it.
	ModePseudo = "pseudo"
	// ModeAsync: clients submit without waiting; outcomes arrive on the
	// results stream from committed blocks.
	ModeAsync = "async"
)

// Config describes one measurement.
type Config struct {
	// Workload: smallbank, tpcc, ycsb-a, ycsb-b, ycsb-c, ycsb-f; "update"
	// (single-row UPDATEs) and "kvstore" (CometBFT's example app, the
	// consensus ceiling) are relchain's own micro-workloads.
	Workload string
	// Mode: sync, pseudo or async (ModeSync ...). "commit" is the old
	// name of sync.
	Mode string
	// WLPerBC is how many wl-transactions one bc-transaction carries
	// (pseudo and async; sync is always 1).
	WLPerBC int
	// Submit is how async mode hands txs over: "sync" (broadcast_tx_sync:
	// wait for CheckTx, default) or "async" (broadcast_tx_async: do not).
	Submit  string
	Clients int
	// Txs is the number of wl-transactions to run.
	Txs int
	// Rows sizes the update workload; Scale sizes the others (Smallbank
	// accounts, TPC-C warehouses, YCSB records); 0 means the workload's
	// default.
	Rows  int
	Scale int
	// Dialect selects the SQL dialect: "sqlite", "postgres" or "mysql".
	Dialect string
	// DDLAloneOn names an engine of the network that commits DDL at once
	// (workload.Database.DDLAlone: a MariaDB validator of a network over
	// several engines): the setup runs each DDL statement alone ("": the
	// Dialect's own rule).
	DDLAloneOn string
	Nodes      []string
	Seed       uint64
	// Mix restricts a workload to some transaction kinds (for example
	// TPC-C "NewOrder"); empty means the workload's standard mix.
	Mix []string
	// Inflight is how many bc-transactions an async client submits
	// concurrently (0: DefaultInflight).
	Inflight int
	// Rate, if not 0, paces an async run: its clients together hand over
	// at most Rate wl-transactions a second (blocks of a steady size
	// instead of whatever the mempool holds).
	Rate float64
	// Progress, when set, is called with the number of wl-transactions
	// done.
	Progress func(done int)
}

// Latency summarises latencies in milliseconds.
type Latency struct {
	P50 float64 `json:"p50"`
	P95 float64 `json:"p95"`
	P99 float64 `json:"p99"`
}

// Phases is the mean time per block, in milliseconds, spent in each phase
// as one node saw it (its application's own monotonic clock, served by
// abci_query /stats/blocks): Propose from the previous block's commit to
// the proposal (ProcessProposal), Consensus from there to FinalizeBlock
// (prevotes, precommits), Execute the FinalizeBlock call (every
// bc-transaction, the digests), Commit the db-commit.
type Phases struct {
	Propose   float64 `json:"propose"`
	Consensus float64 `json:"consensus"`
	Execute   float64 `json:"execute"`
	Commit    float64 `json:"commit"`
}

// BlockStat is one block of a run: its height, bc- and wl-transactions,
// the phases as one node measured them, and (async) the mean latency of
// the wl-transactions it committed.
type BlockStat struct {
	Height    int64   `json:"height"`
	BCTxs     int     `json:"bc_txs"`
	WLTxs     int     `json:"wl_txs"`
	Phases    Phases  `json:"phases_ms"`
	LatencyMS float64 `json:"latency_ms,omitempty"`
	// Lanes is how node 0 ran it (api.BlockTiming.Lanes; "": serially).
	Lanes string `json:"lanes,omitempty"`
}

// Baseline is the raw DBMS running the same wl-transaction sequence with
// the same grouping.
type Baseline struct {
	Seconds   float64  `json:"seconds"`
	TPS       float64  `json:"tps"`
	LatencyMS *Latency `json:"latency_ms,omitempty"`
	// Replicas is how many synchronous standbys (remote_apply) the
	// baseline's PostgreSQL primary had; 0 for a standalone server.
	Replicas int `json:"replicas,omitempty"`
}

// Ceiling is CometBFT's kvstore app on an identically configured network.
type Ceiling struct {
	TPS       float64  `json:"tps"`
	LatencyMS *Latency `json:"latency_ms,omitempty"`
	Blocks    int      `json:"blocks"`
	TxsPerBlk float64  `json:"txs_per_block_mean"`
}

// KindStat is the outcome of one transaction kind of the mix.
type KindStat struct {
	Count     int      `json:"count"`
	Failed    int      `json:"failed"`
	LatencyMS *Latency `json:"latency_ms,omitempty"`
}

// Result is one measurement, as `relchain-bench --output` writes it.
type Result struct {
	Workload   string `json:"workload"`
	Mode       string `json:"mode"`
	WLPerBC    int    `json:"wl_per_bc"`
	Clients    int    `json:"clients"`
	Validators int    `json:"validators"`
	Backend    string `json:"backend"`
	// SQLDialect is the SQL dialect the chain spoke when it is not
	// Backend's own (the postgres dialect on sqlite); "" otherwise.
	SQLDialect    string `json:"sql_dialect,omitempty"`
	ABCI          string `json:"abci,omitempty"`
	TimeoutCommit string `json:"timeout_commit,omitempty"`
	// Txs is the number of wl-transactions; BCTxs of bc-transactions.
	Txs       int     `json:"txs"`
	BCTxs     int     `json:"bc_txs"`
	Succeeded int     `json:"succeeded"`
	Failed    int     `json:"failed"`
	Seconds   float64 `json:"seconds"`
	// TPS is wl-transactions per second.
	TPS       float64  `json:"tps"`
	LatencyMS *Latency `json:"latency_ms,omitempty"`
	Blocks    int      `json:"blocks"`
	TxBlocks  int      `json:"blocks_with_txs"`
	// TxsPerBlockMean is bc-transactions per block that had any.
	TxsPerBlockMean float64 `json:"txs_per_block_mean"`
	Phases          *Phases `json:"phases_ms,omitempty"`
	// LaneBlocks counts node 0's blocks with txs that ran otherwise than
	// plainly serially (api.BlockTiming.Lanes: on lanes, declined,
	// abandoned, unanalysed); nil when none did.
	LaneBlocks map[string]int       `json:"lane_blocks,omitempty"`
	PerBlock   []BlockStat          `json:"per_block,omitempty"`
	Kinds      map[string]*KindStat `json:"kinds,omitempty"`
	Baseline   *Baseline            `json:"baseline,omitempty"`
	// Overhead is chain seconds over baseline seconds.
	Overhead float64  `json:"overhead,omitempty"`
	Ceiling  *Ceiling `json:"ceiling,omitempty"`
	// RatioToCeiling is tps over the ceiling's (async) or p50 latency
	// over the ceiling's (sync, pseudo).
	RatioToCeiling float64   `json:"ratio_to_ceiling,omitempty"`
	Started        time.Time `json:"started"`

	// blockLatency holds the async latencies (ms) of each height's
	// wl-transactions until PerBlock is filled.
	blockLatency map[int64][]float64
}

// Validate checks a measurement's input before anything is started, so a
// typo fails at once instead of after a network start and a workload load.
func (c Config) Validate() error {
	switch c.Mode {
	case ModeSync, ModePseudo, ModeAsync:
	case "commit":
		if c.Workload != "update" && c.Workload != "kvstore" {
			return fmt.Errorf("--mode commit is the update workload's name for sync: use --mode sync")
		}
	default:
		return fmt.Errorf("unknown --mode %q: use sync, pseudo or async", c.Mode)
	}
	if c.Txs < 1 {
		return fmt.Errorf("--txs %d: run at least one wl-transaction", c.Txs)
	}
	if c.Clients < 1 {
		return fmt.Errorf("--clients %d: at least one client", c.Clients)
	}
	if c.WLPerBC < 1 {
		return fmt.Errorf("--wl-per-bc %d: at least one wl-transaction per bc-transaction", c.WLPerBC)
	}
	if c.WLPerBC > 1 && c.Mode == ModeSync {
		return fmt.Errorf("--wl-per-bc %d with --mode sync: sync sends one wl-transaction per bc-transaction; use --mode pseudo (or async) to batch", c.WLPerBC)
	}
	if c.Rate < 0 || c.Rate > 0 && c.Mode != ModeAsync {
		return fmt.Errorf("--rate %g: paces --mode async only, with a positive number of wl-transactions a second", c.Rate)
	}
	return nil
}
