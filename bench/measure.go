package bench

import (
	"cmp"
	"context"
	"crypto/ed25519"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/relchain/relchain/bench/raw"
	"github.com/relchain/relchain/bench/workload"
	"github.com/relchain/relchain/client"
	"github.com/relchain/relchain/netctl"
)

// Options describe a whole measurement: the network, the workload run, and
// what to measure beside it.
type Options struct {
	Config Config
	// Nodes, if set, is an existing network's RPC addresses; otherwise a
	// network is started from Network and stopped afterwards.
	Nodes   []string
	Network NetworkOptions
	// Workload is the workload to run (nil for the micro-workloads named
	// in Config.Workload).
	Workload workload.Workload
	// Baseline also runs the raw DBMS on the same trace; for PostgreSQL,
	// BaselineDSN names its database.
	Baseline    bool
	BaselineDSN string
	// BaselineReplicas is how many synchronous standbys the baseline's
	// server has (0: a standalone server); it labels the result.
	BaselineReplicas int
	// Ceiling also measures CometBFT's kvstore on an identical network.
	Ceiling bool
	// Verify checks the workload's consistency on the chain afterwards
	// and, with Baseline, that the baseline reached the same state.
	Verify bool
	// Admin, for an existing permissioned network (Nodes), is an admin
	// key: it signs the setup and grants the benchmark's clients write
	// access. Networks the benchmark starts are open.
	Admin ed25519.PrivateKey
	// RemoveNetworks deletes each network's directory (its nodes'
	// databases) once the measurement is done: a suite of many points
	// would otherwise fill the disk.
	RemoveNetworks bool
	// Log receives progress lines (network starts, setup times).
	Log io.Writer
}

// stop stops a network the measurement started and, with RemoveNetworks,
// deletes its directory.
func (o Options) stop(n *netctl.Network) {
	n.StopAll()
	if o.RemoveNetworks && len(n.Nodes) > 0 {
		_ = os.RemoveAll(filepath.Dir(n.Nodes[0].Home))
	}
}

// Measure runs one measurement end to end.
func Measure(ctx context.Context, o Options) (*Result, error) {
	if o.Log == nil {
		o.Log = io.Discard
	}
	cfg := o.Config
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if o.Workload == nil {
		return nil, fmt.Errorf("no workload %q", cfg.Workload)
	}
	validators := len(o.Nodes)
	nodes := o.Nodes
	if len(nodes) == 0 {
		validators = o.Network.Validators
		fmt.Fprintf(o.Log, "starting a %d-validator %s network...\n", o.Network.Validators, o.Network.Backend)
		n, err := StartNetwork(ctx, o.Network)
		if err != nil {
			return nil, err
		}
		defer o.stop(n)
		nodes = RPCs(n)
	}
	cfg.Nodes = nodes
	if cfg.Dialect == "" {
		cfg.Dialect = o.Network.Backend
	}
	took, err := SetupWorkload(ctx, nodes[0], cfg, o.Workload, o.Admin)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(o.Log, "%s set up through consensus in %.1f s\n", o.Workload.Name(), took.Seconds())
	res, tr, err := RunWorkload(ctx, cfg, o.Workload)
	if err != nil {
		return nil, err
	}
	res.Validators = validators
	res.Backend = cmp.Or(o.Network.Backend, cfg.Dialect)
	if cfg.Dialect != res.Backend {
		res.SQLDialect = cfg.Dialect // translated by the storage
	}
	if len(o.Nodes) == 0 {
		res.ABCI = cmp.Or(o.Network.ABCI, "builtin")
	}
	res.TimeoutCommit = o.Network.Tuning.TimeoutCommit.String()
	obs, err := client.New(nodes[0], nil)
	if err != nil {
		return nil, err
	}
	chainQ := ChainQuerier{Client: obs, MinHeight: tr.EndHeight}
	if o.Verify {
		if err := o.Workload.Check(ctx, cfg.Dialect, chainQ, tr.Applied); err != nil {
			return nil, fmt.Errorf("%s consistency on the chain after the run: %w", o.Workload.Name(), err)
		}
		fmt.Fprintf(o.Log, "%s consistency conditions hold on the chain\n", o.Workload.Name())
	}
	if o.Baseline {
		if err := measureBaseline(ctx, o, cfg.Dialect, res, tr, chainQ); err != nil {
			return nil, err
		}
	}
	if o.Ceiling {
		if err := measureCeiling(ctx, o, res); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// measureBaseline replays the run's trace on a raw database of the same
// dialect into res.Baseline and, with Verify, checks the baseline's
// consistency and compares its final state with the chain's.
func measureBaseline(ctx context.Context, o Options, dialect string, res *Result, tr *Trace, chainQ ChainQuerier) error {
	db, cleanup, err := openBaseline(ctx, dialect, o)
	if err != nil {
		return err
	}
	defer cleanup()
	if err := SetupRaw(ctx, db, o.Workload); err != nil {
		return err
	}
	fmt.Fprintf(o.Log, "baseline: replaying the chain's %d wl-transactions on raw %s...\n", res.Txs, dialect)
	b, applied, err := RunBaseline(ctx, db, tr)
	if err != nil {
		return err
	}
	b.Replicas = o.BaselineReplicas
	res.Baseline = b
	if b.Seconds > 0 {
		res.Overhead = res.Seconds / b.Seconds
	}
	if !o.Verify {
		return nil
	}
	// With several sync clients the baseline ran them concurrently at the
	// database's default isolation (READ COMMITTED on PostgreSQL), which
	// is not serializable: Smallbank's Amalgamate can lose money there,
	// so neither its consistency nor its state is comparable with the
	// chain's serial execution. Otherwise it executed the chain's exact
	// order.
	if len(tr.Clients) > 1 && tr.Mode != ModeAsync {
		fmt.Fprintf(o.Log, "baseline: %d concurrent clients at the database's default isolation: its state is not checked (not serializable; the chain executes serially)\n", len(tr.Clients))
		return nil
	}
	c, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	if err := o.Workload.Check(ctx, dialect, c, applied); err != nil {
		return fmt.Errorf("%s consistency on the baseline: %w", o.Workload.Name(), err)
	}
	diff, err := DiffTables(ctx, chainQ, c, o.Workload.Tables())
	if err != nil {
		return fmt.Errorf("compare the baseline's state with the chain's: %w", err)
	}
	if len(diff) > 0 {
		return fmt.Errorf("after the same wl-transactions the baseline's rows differ from the chain's in %s", strings.Join(diff, ", "))
	}
	fmt.Fprintf(o.Log, "baseline and chain reached the same state (every table's rows equal)\n")
	return nil
}

// openBaseline opens the raw database: a file database (SQLite) in a
// temporary directory, or a server's database BaselineDSN (default: the
// network's DSN template with {node} = raw_<time>).
func openBaseline(ctx context.Context, dialect string, o Options) (*raw.DB, func(), error) {
	if workload.Server(dialect) {
		dsn := o.BaselineDSN
		if dsn == "" {
			if o.Network.DSNTemplate == "" {
				return nil, nil, fmt.Errorf("the %s baseline needs a DSN (--dsn-template or --baseline-dsn)", dialect)
			}
			dsn = strings.ReplaceAll(o.Network.DSNTemplate, "{node}", fmt.Sprintf("raw_%d", time.Now().UnixNano()))
		}
		db, err := raw.Open(ctx, dialect, dsn)
		if err != nil {
			return nil, nil, err
		}
		return db, func() { db.Close() }, nil
	}
	dir, err := os.MkdirTemp(o.Network.Dir, "raw-")
	if err != nil {
		return nil, nil, err
	}
	db, err := raw.Open(ctx, dialect, filepath.Join(dir, "raw.db"))
	if err != nil {
		os.RemoveAll(dir)
		return nil, nil, err
	}
	return db, func() { db.Close(); os.RemoveAll(dir) }, nil
}

// measureCeiling runs CometBFT's kvstore on an identically configured
// network with as many bc-transactions as the run sent, in the same mode.
func measureCeiling(ctx context.Context, o Options, res *Result) error {
	nopts := o.Network
	nopts.App = "kvstore"
	nopts.SQLDialect = "" // the kvstore app has no SQL
	fmt.Fprintf(o.Log, "ceiling: starting a %d-validator kvstore network...\n", nopts.Validators)
	n, err := StartNetwork(ctx, nopts)
	if err != nil {
		return fmt.Errorf("ceiling: %w", err)
	}
	defer o.stop(n)
	kcfg := Config{Workload: "kvstore", Mode: "commit", Clients: o.Config.Clients, Txs: res.BCTxs, Nodes: RPCs(n), Seed: o.Config.Seed}
	if o.Config.Mode == ModeAsync {
		// As many submitters as the run had in flight.
		kcfg.Mode = ModeAsync
		inflight := o.Config.Inflight
		if inflight < 1 {
			inflight = DefaultInflight
		}
		kcfg.Clients *= inflight
	}
	if kcfg.Txs == 0 {
		kcfg.Txs = res.Txs
	}
	k, err := RunMicro(ctx, kcfg)
	if err != nil {
		return fmt.Errorf("ceiling: %w", err)
	}
	res.Ceiling = &Ceiling{TPS: k.TPS, LatencyMS: k.LatencyMS, Blocks: k.Blocks, TxsPerBlk: k.TxsPerBlockMean}
	if o.Config.Mode == ModeAsync {
		if k.TPS > 0 {
			// bc-transactions per second, like for like.
			res.RatioToCeiling = float64(res.BCTxs) / res.Seconds / k.TPS
		}
	} else if res.LatencyMS != nil && k.LatencyMS != nil && k.LatencyMS.P50 > 0 {
		res.RatioToCeiling = res.LatencyMS.P50 / k.LatencyMS.P50
	}
	return nil
}
