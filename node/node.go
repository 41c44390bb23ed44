package node

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	dbm "github.com/cometbft/cometbft-db"
	"github.com/cometbft/cometbft/abci/example/kvstore"
	cmtcfg "github.com/cometbft/cometbft/config"
	"github.com/cometbft/cometbft/libs/log"
	nm "github.com/cometbft/cometbft/node"
	"github.com/cometbft/cometbft/p2p"
	"github.com/cometbft/cometbft/privval"
	"github.com/cometbft/cometbft/proxy"
	"github.com/cometbft/cometbft/types"

	"github.com/relchain/relchain/abciserver"
	"github.com/relchain/relchain/app"
	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/registry"
	"github.com/relchain/relchain/gateway"
)

// Node is a running validator (or full node): CometBFT plus relchain's app.
type Node struct {
	cmt    *nm.Node
	app    *app.App   // nil for the kvstore ceiling node
	ss     *stateSync // nil for the kvstore ceiling node
	home   string
	logger log.Logger
	dbs    *dbTracker
	// abciServer serves the app to CometBFT with WithABCISocket, else nil.
	abciServer *abciserver.Server
	// pg is the PostgreSQL listener's configuration; gateway the running
	// listener, else nil (pglisten.go).
	pg      PGConfig
	rpcAddr string
	rpcTLS  struct{ cert, key string } // the RPC certificate and key, when it serves TLS
	// rpcListen is where the node serves CometBFT's RPC itself ("":
	// CometBFT does), rpc that server once started (rpc.go).
	rpcListen string
	rpc       *rpcServer
	gateway   *gateway.Gateway

	// halted delivers the first reason this node cannot go on: a block the
	// app could not apply, or a divergence (see Halted).
	halted   chan error
	stopping chan struct{} // closed when Stop begins
	stopOnce sync.Once
	cancel   context.CancelFunc // ends the watchers
	watchers sync.WaitGroup
	// haltedWith is the first reason delivered on halted (metrics, /readyz).
	haltedWith atomic.Pointer[haltInfo]
	// consensusEnded is set when CometBFT's consensus stopped while the
	// node was not stopping (a panic: see divergence.go); panics holds
	// the panic, noted by the node's logger.
	consensusEnded atomic.Bool
	panics         *panicNote

	// metrics is relchain's collector; prom the listener that serves it
	// with CometBFT's metrics and health, on promAddr ("": off).
	metrics  *metrics
	prom     *promServer
	promAddr string
	// listCheckpoints lists the backend's checkpoints (nil: unknown);
	// dbFile is a file backend's database path ("": a server).
	listCheckpoints func(dir string) ([]backend.Checkpoint, error)
	dbFile          string
	jsonLogs        bool // config.toml log_format = "json"
}

// onCheckpointError reports a failed background checkpoint on the node's
// standard error (its log) when no logger is at hand (OpenBackend): blocks
// go on, but recovery will start from an older checkpoint until the cause
// is fixed.
func onCheckpointError(err error) {
	fmt.Fprintf(os.Stderr, "E relchain: %s: %v\n", checkpointFailed, err)
}

const checkpointFailed = "checkpoint failed (blocks go on; recover would use an older checkpoint)"

// logCheckpointError is onCheckpointError through the node's logger (in
// its log_format).
func logCheckpointError(logger log.Logger) func(error) {
	return func(err error) { logger.Error(checkpointFailed, "err", err) }
}

// loadHome reads a node home's configuration and genesis, and makes the
// logger config.toml asks for unless one is given.
func loadHome(home string, logger log.Logger) (*cmtcfg.Config, Config, *types.GenesisDoc, log.Logger, error) {
	cc, rc, err := LoadConfig(home)
	if err != nil {
		return nil, rc, nil, nil, err
	}
	if logger == nil {
		if logger, err = newLogger(cc); err != nil {
			return nil, rc, nil, nil, err
		}
	}
	logger = quiet(logger)
	gen, err := types.GenesisDocFromFile(cc.GenesisFile())
	if err != nil {
		return nil, rc, nil, nil, fmt.Errorf("load genesis: %w", err)
	}
	return cc, rc, gen, logger, nil
}

// Option configures New.
type Option func(*options)

type options struct {
	abciSocket      bool
	pgListen        string
	unsafeSuperuser bool
	// hooks are the test hooks of a test-hooks build (testhooks.go);
	// empty in a default build (nohooks.go).
	hooks hookOptions
}

// WithABCISocket makes CometBFT reach the application over ABCI's socket
// protocol on a loopback TCP port (package abciserver) instead of by
// in-process calls: the paper's "server variant", for comparing the two.
// Semantics and results are the same; only the transport differs.
func WithABCISocket() Option { return func(o *options) { o.abciSocket = true } }

// New loads the node home and builds the node; Start runs it.
func New(ctx context.Context, home string, logger log.Logger, opts ...Option) (*Node, error) {
	var o options
	for _, f := range opts {
		f(&o)
	}
	cc, rc, gen, logger, err := loadHome(home, logger)
	if err != nil {
		return nil, err
	}
	if o.unsafeSuperuser {
		rc.Backend.UnsafeSuperuser = true
	}
	if o.pgListen != "" {
		rc.PG.Listen = o.pgListen
	}
	if d, err := registry.Lookup(rc.Backend.Kind); err == nil && d.Server && rc.Backend.UnsafeSuperuser {
		logger.Error("unsafe: backend.unsafe_superuser is set: the node may connect to its database with more privilege than it needs; a statement that slipped past the gate could read the server's files or end other sessions (tests and benchmarks only)")
	}
	a, ss, err := buildApp(ctx, home, rc, gen, logger)
	if err != nil {
		return nil, err
	}
	if err := resumeStateSync(ctx, cc, a.Executor().State(), logger); err != nil {
		_ = closeApp(a, ss)
		return nil, err
	}
	// Conn-sync, not the default global mutex: queries and CheckTx must run
	// while a block executes (and a query waiting for min_height must not
	// block the block it waits for). The app is safe for that: one writer,
	// readers on committed state. The socket variant keeps that concurrency
	// (package abciserver).
	abciApp := o.hooks.wrap(a, logger)
	creator := proxy.NewConnSyncLocalClientCreator(abciApp)
	var srv *abciserver.Server
	if o.abciSocket {
		if srv, err = abciserver.Listen("tcp://127.0.0.1:0", abciApp, logger.With("module", "abci-server")); err != nil {
			_ = closeApp(a, ss)
			return nil, err
		}
		creator = proxy.NewRemoteClientCreator(srv.Addr(), "socket", true)
	}
	dbs := newDBTracker(cc)
	rpcAddr := cc.RPC.ListenAddress
	n, promAddr, err := newCometNode(cc, gen, creator, logger, dbs)
	if err != nil {
		dbs.close()
		if srv != nil {
			_ = srv.Close()
		}
		_ = closeApp(a, ss)
		return nil, err
	}
	attachTxIndex(n, a, logger)
	nd := newNode(n, a, ss, home, logger, dbs, promAddr)
	nd.abciServer = srv
	nd.pg, nd.rpcAddr = rc.PG, rpcAddr
	if cc.RPC.IsTLSEnabled() {
		nd.rpcTLS.cert, nd.rpcTLS.key = cc.RPC.CertFile(), cc.RPC.KeyFile()
	}
	nd.jsonLogs = cc.LogFormat == cmtcfg.LogFormatJSON
	if srv != nil {
		logger.Info("CometBFT reaches the application over ABCI's socket protocol (the server variant)", "addr", srv.Addr())
	}
	if d, err := registry.Lookup(rc.Backend.Kind); err == nil {
		nd.listCheckpoints = d.Checkpoints
		if !d.Server {
			nd.dbFile = rc.SQLitePath(home)
		}
	}
	a.Observer = nd.metrics
	return nd, nil
}

// buildApp opens a node home's database and builds relchain's application
// on it, with state sync.
func buildApp(ctx context.Context, home string, rc Config, gen *types.GenesisDoc, logger log.Logger) (*app.App, *stateSync, error) {
	params, err := app.ParseParams(gen.AppState)
	if err != nil {
		return nil, nil, err
	}
	maxWait, err := time.ParseDuration(rc.Query.MaxWait)
	if err != nil {
		return nil, nil, fmt.Errorf("relchain.toml query.max_wait: %w", err)
	}
	be, ex, err := openExecutor(ctx, home, rc, gen.ChainID, params, logger)
	if err != nil {
		return nil, nil, err
	}
	if rc.Backend.UnsafeNoGate {
		logger.Error("backend.unsafe_no_gate is set: this node does not enforce relchain's determinism and safety gate and will diverge from the network on the first statement the gate refuses; use it for benchmarks only")
	}
	if len(params.Admins) == 0 {
		logger.Info("the genesis names no admin: open network, every key may change the schema and write every table")
	}
	a := app.New(ex, logger.With("module", "relchain"))
	a.OnHalt = func(err error) error { return noteHalt(home, ex.State().Height, err, logger) }
	a.MaxQueryWait = maxWait
	if a.TxTimeout, err = rc.TxTimeout(); err != nil {
		_ = be.Close()
		return nil, nil, err
	}
	ss := newStateSync(home, rc, ex, logger.With("module", "relchain-statesync"))
	a.StateSync = ss
	return a, ss, nil
}

// closeApp releases what buildApp opened: the state-sync source, the
// executor and its backend (state sync may have replaced the one buildApp
// opened).
func closeApp(a *app.App, ss *stateSync) error {
	if ss != nil {
		ss.src.Close()
	}
	_ = a.Executor().Close(context.Background())
	return a.Executor().Backend().Close()
}

func newNode(cmt *nm.Node, a *app.App, ss *stateSync, home string, logger log.Logger, dbs *dbTracker, promAddr string) *Node {
	n := &Node{cmt: cmt, app: a, ss: ss, home: home, logger: logger, dbs: dbs, promAddr: promAddr,
		rpcListen: takeRPC(cmt.Config()), halted: make(chan error, 1), stopping: make(chan struct{})}
	if q, ok := logger.(*quietLogger); ok {
		n.panics = q.panics
	}
	n.metrics = newMetrics(n)
	return n
}

// NewKVStore builds a node of the same home that runs CometBFT's example
// kvstore application instead of relchain: the consensus ceiling that
// benchmarks compare relchain with on an identically configured network.
func NewKVStore(home string, logger log.Logger) (*Node, error) {
	cc, _, gen, logger, err := loadHome(home, logger)
	if err != nil {
		return nil, err
	}
	kv := kvstore.NewPersistentApplication(filepath.Join(cc.DBDir(), "kvstore"))
	dbs := newDBTracker(cc)
	n, promAddr, err := newCometNode(cc, gen, proxy.NewLocalClientCreator(kv), logger, dbs)
	if err != nil {
		dbs.close()
		return nil, err
	}
	return newNode(n, nil, nil, home, logger, dbs, promAddr), nil
}

// dbTracker holds the databases CometBFT opens and closes them itself,
// after CometBFT stopped, so that:
//   - every file lock is released (v0.38 leaves the tx indexer's database
//     open), and a node of the same home opens again in this process
//     (Recover, a restart);
//   - no goroutine CometBFT's Stop does not wait for reads a closed store
//     and panics: the consensus reactor's per-peer queryMaj23Routine loads
//     commits from the block store up to three PeerQueryMaj23SleepDuration
//     after its last check that the reactor runs ("panic: leveldb:
//     closed" at store.go LoadSeenCommit), and the indexer service's
//     goroutine may still be indexing the last block ("failed to index
//     block txs … leveldb: closed"). CometBFT's Close calls are therefore
//     only noted; close waits out that grace and the indexer's writes.
type dbTracker struct {
	mu    sync.Mutex
	dbs   []*trackedDB
	grace time.Duration
}

func newDBTracker(cc *cmtcfg.Config) *dbTracker {
	return &dbTracker{grace: 3*cc.Consensus.PeerQueryMaj23SleepDuration + 200*time.Millisecond}
}

func (t *dbTracker) provider(ctx *cmtcfg.DBContext) (dbm.DB, error) {
	db, err := cmtcfg.DefaultDBProvider(ctx)
	if err != nil {
		return db, err
	}
	td := &trackedDB{DB: db, id: ctx.ID}
	t.mu.Lock()
	t.dbs = append(t.dbs, td)
	t.mu.Unlock()
	if ctx.ID == "tx_index" {
		return &firstOutcomeDB{trackedDB: td}, nil
	}
	return td, nil
}

// close closes every database CometBFT opened, once nothing of CometBFT's
// can still use them (see dbTracker).
func (t *dbTracker) close() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.dbs) > 0 {
		time.Sleep(t.grace)
	}
	for _, db := range t.dbs {
		db.waitQuiet(150*time.Millisecond, 2*time.Second)
		_ = db.DB.Close()
	}
	t.dbs = nil
}

// trackedDB is a database that knows when it was last written.
type trackedDB struct {
	dbm.DB
	id   string // CometBFT's name of the store ("state", "blockstore", ...)
	busy atomic.Int32
	last atomic.Int64 // UnixNano of the last write's end
}

func (d *trackedDB) write(f func() error) error {
	d.busy.Add(1)
	defer func() {
		d.last.Store(time.Now().UnixNano())
		d.busy.Add(-1)
	}()
	err := f()
	afterStoreWrite(d.id)
	return err
}

// waitQuiet waits, at most limit, until no write ran for quiet.
func (d *trackedDB) waitQuiet(quiet, limit time.Duration) {
	for end := time.Now().Add(limit); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if d.busy.Load() == 0 && time.Since(time.Unix(0, d.last.Load())) >= quiet {
			return
		}
	}
}

func (d *trackedDB) Set(k, v []byte) error { return d.write(func() error { return d.DB.Set(k, v) }) }
func (d *trackedDB) SetSync(k, v []byte) error {
	return d.write(func() error { return d.DB.SetSync(k, v) })
}
func (d *trackedDB) Delete(k []byte) error { return d.write(func() error { return d.DB.Delete(k) }) }
func (d *trackedDB) DeleteSync(k []byte) error {
	return d.write(func() error { return d.DB.DeleteSync(k) })
}

// Close only notes CometBFT's wish: dbTracker.close closes the database.
func (d *trackedDB) Close() error { return nil }

func (d *trackedDB) NewBatch() dbm.Batch { return &trackedBatch{Batch: d.DB.NewBatch(), db: d} }

type trackedBatch struct {
	dbm.Batch
	db *trackedDB
}

func (b *trackedBatch) Write() error     { return b.db.write(b.Batch.Write) }
func (b *trackedBatch) WriteSync() error { return b.db.write(b.Batch.WriteSync) }

func newCometNode(cc *cmtcfg.Config, gen *types.GenesisDoc, creator proxy.ClientCreator, logger log.Logger, dbs *dbTracker) (n *nm.Node, promAddr string, err error) {
	pv := privval.LoadFilePV(cc.PrivValidatorKeyFile(), cc.PrivValidatorStateFile())
	nodeKey, err := p2p.LoadNodeKey(cc.NodeKeyFile())
	if err != nil {
		return nil, "", fmt.Errorf("load node key: %w", err)
	}
	inst, promAddr := takePrometheus(cc)
	n, err = nm.NewNode(cc, pv, nodeKey, creator,
		func() (*types.GenesisDoc, error) { return gen, nil },
		dbs.provider,
		nm.DefaultMetricsProvider(inst),
		logger)
	if err != nil {
		return nil, "", fmt.Errorf("create cometbft node: %w", err)
	}
	return n, promAddr, nil
}

// Start starts CometBFT (handshake, replay of missing blocks, p2p, RPC).
func (n *Node) Start() error {
	if n.app != nil && n.home != "" {
		// The executor accepted the database: this binary runs the
		// version of its next block, so a record that the node stopped at
		// an upgrade is over. Before consensus starts, no halt can write
		// a record of its own meanwhile.
		if err := clearUpgradeHalt(n.home); err != nil {
			n.logger.Error("cannot remove the record that this node stopped at a protocol upgrade", "err", err)
		}
	}
	if err := n.cmt.Start(); err != nil {
		return fmt.Errorf("start node: %w", err)
	}
	if n.rpcListen != "" {
		if err := n.startRPC(n.rpcListen); err != nil {
			_ = n.Stop()
			return err
		}
	}
	if n.promAddr != "" {
		if err := n.startPrometheus(n.promAddr); err != nil {
			_ = n.Stop()
			return err
		}
	}
	if n.app != nil {
		ctx, cancel := context.WithCancel(context.Background())
		n.cancel = cancel
		n.watchers.Add(2)
		go func() {
			defer n.watchers.Done()
			select {
			case err := <-n.app.Halted():
				n.halt(err)
			case <-ctx.Done():
			}
		}()
		go func() {
			defer n.watchers.Done()
			n.watchDivergence(ctx)
		}()
		if err := n.startGateway(ctx); err != nil {
			_ = n.Stop()
			return err
		}
	}
	return nil
}

// halt delivers err on Halted unless a reason is already there. A
// divergence, an out-of-band change or an upgrade this binary cannot run
// is also recorded in the node home (HaltRecord), where `relchain verify`
// and `relchain status --net` find it, unless the app's OnHalt did
// already.
func (n *Node) halt(err error) error {
	if n.app != nil && n.home != "" {
		err = noteHalt(n.home, n.app.Executor().State().Height, err, n.logger)
	}
	err = n.diskFullInDatabase(err)
	n.deliver(err)
	return err
}

// notedHalt is a reason to halt that noteHalt has recorded.
type notedHalt struct{ err error }

func (e *notedHalt) Error() string { return e.err.Error() }
func (e *notedHalt) Unwrap() error { return e.err }

// noteHalt records a divergence, an out-of-band change or an upgrade
// stop (at committed height) in home, the latter with what to do added to its message, and
// returns the error to report. Other reasons are returned as they are.
func noteHalt(home string, height int64, err error, logger log.Logger) error {
	if errors.As(err, new(*notedHalt)) {
		return err
	}
	r := haltRecordOf(err, height)
	if r == nil {
		return err
	}
	if errors.Is(err, backend.ErrOutOfBandChange) {
		err = fmt.Errorf("%w (node home %s: `relchain verify --home %s` shows what changed, `relchain recover --home %s` restores a checkpoint)", err, home, home, home)
		r.Reason = err.Error()
	}
	if werr := writeHaltRecord(home, r); werr != nil {
		logger.Error("cannot record why this node stops", "err", werr)
	}
	return &notedHalt{err: err}
}

// deliver puts err on Halted unless a reason is already there.
func (n *Node) deliver(err error) {
	n.haltedWith.CompareAndSwap(nil, &haltInfo{kind: haltKind(err), msg: err.Error()})
	select {
	case n.halted <- err:
	default:
	}
}

// Stop stops CometBFT and closes its databases and the backend.
func (n *Node) Stop() error {
	n.stopOnce.Do(func() { close(n.stopping) })
	if n.app != nil {
		// A block waiting for an unavailable database gives up, so
		// that consensus can stop; CometBFT replays it at the next start.
		n.app.Executor().StopRetrying()
	}
	if n.cancel != nil {
		n.cancel()
	}
	n.watchers.Wait()
	n.stopPrometheus()
	if n.gateway != nil {
		_ = n.gateway.Close()
	}
	// Before CometBFT closes its stores: no request may reach them after.
	n.rpc.stop()
	var err error
	if n.cmt.IsRunning() {
		err = n.cmt.Stop()
		n.cmt.Wait()
	}
	// CometBFT v0.38 stops neither the ABCI connections nor the tx
	// indexer's database.
	if pa := n.cmt.ProxyApp(); pa != nil && pa.IsRunning() {
		_ = pa.Stop()
	}
	n.dbs.close()
	if n.abciServer != nil {
		_ = n.abciServer.Close()
	}
	if n.app != nil {
		if cerr := closeApp(n.app, n.ss); err == nil {
			err = cerr
		}
	}
	return err
}

// Halted delivers the first reason this node cannot go on; its consensus
// has stopped. It is the error of a block this node could not apply or
// commit (see app.App.Halted), or a *DivergenceError: the node's AppHash
// differs from the one the network signed (its database is not the
// network's), or an error saying its consensus stopped for another reason.
// Never for a kvstore node.
func (n *Node) Halted() <-chan error {
	if n.app == nil {
		return nil
	}
	return n.halted
}

// HaltError returns, without waiting, the reason this node halted if it
// did, else nil. After a signal it tells a stop the operator asked for from
// one the node caused itself: with WithABCISocket, CometBFT answers an
// application error by sending its own process SIGTERM.
func (n *Node) HaltError() error {
	if n.app == nil {
		return nil
	}
	select {
	case err := <-n.halted:
		n.deliver(err) // keep it for Halted
		return err
	default:
	}
	select {
	case err := <-n.app.Halted():
		return n.halt(err)
	default:
	}
	return nil
}

// ABCIAddr is where the application is served to CometBFT with
// WithABCISocket, else "".
func (n *Node) ABCIAddr() string {
	if n.abciServer == nil {
		return ""
	}
	return n.abciServer.Addr()
}

// JSONLogs reports whether the node logs one JSON object a line
// (config.toml log_format = "json"): its output then has no other lines.
func (n *Node) JSONLogs() bool { return n.jsonLogs }

// CometBFT returns the embedded CometBFT node.
func (n *Node) CometBFT() *nm.Node { return n.cmt }
