package node

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/cometbft/cometbft/abci/example/kvstore"
	cmtcfg "github.com/cometbft/cometbft/config"
	cmtflags "github.com/cometbft/cometbft/libs/cli/flags"
	"github.com/cometbft/cometbft/libs/log"
	nm "github.com/cometbft/cometbft/node"
	"github.com/cometbft/cometbft/p2p"
	"github.com/cometbft/cometbft/privval"
	"github.com/cometbft/cometbft/proxy"
	"github.com/cometbft/cometbft/types"

	"github.com/relchain/relchain/app"
	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/postgres"
	"github.com/relchain/relchain/backend/sqlite"
	pgcheck "github.com/relchain/relchain/sqlcheck/postgres"
)

// Node is a running validator (or full node): CometBFT plus relchain's app.
type Node struct {
	cmt *nm.Node
	app *app.App        // nil for the kvstore ceiling node
	be  backend.Backend // nil for the kvstore ceiling node
}

// OpenBackend opens the database a node home is configured with.
func OpenBackend(ctx context.Context, home string, rc Config) (backend.Backend, error) {
	switch rc.Backend.Kind {
	case "sqlite":
		return sqlite.Open(ctx, rc.SQLitePath(home))
	case "postgres":
		return postgres.Open(ctx, rc.Backend.DSN)
	}
	return nil, fmt.Errorf("unknown backend %q", rc.Backend.Kind)
}

// loadHome reads a node home's configuration and genesis, and makes the
// logger config.toml asks for unless one is given.
func loadHome(home string, logger log.Logger) (*cmtcfg.Config, Config, *types.GenesisDoc, log.Logger, error) {
	cc, rc, err := LoadConfig(home)
	if err != nil {
		return nil, rc, nil, nil, err
	}
	if logger == nil {
		logger = log.NewTMLogger(log.NewSyncWriter(os.Stdout))
		if logger, err = cmtflags.ParseLogLevel(cc.LogLevel, logger, cmtcfg.DefaultLogLevel); err != nil {
			return nil, rc, nil, nil, fmt.Errorf("log_level in config.toml: %w", err)
		}
	}
	gen, err := types.GenesisDocFromFile(cc.GenesisFile())
	if err != nil {
		return nil, rc, nil, nil, fmt.Errorf("load genesis: %w", err)
	}
	return cc, rc, gen, logger, nil
}

// New loads the node home and builds the node; Start runs it.
func New(ctx context.Context, home string, logger log.Logger) (*Node, error) {
	cc, rc, gen, logger, err := loadHome(home, logger)
	if err != nil {
		return nil, err
	}
	params, err := app.ParseParams(gen.AppState)
	if err != nil {
		return nil, err
	}
	maxWait, err := time.ParseDuration(rc.Query.MaxWait)
	if err != nil {
		return nil, fmt.Errorf("relchain.toml query.max_wait: %w", err)
	}
	be, err := OpenBackend(ctx, home, rc)
	if err != nil {
		return nil, fmt.Errorf("open %s backend: %w", rc.Backend.Kind, err)
	}
	ex, err := app.NewExecutor(ctx, be, gen.ChainID, params)
	if err != nil {
		be.Close()
		return nil, err
	}
	if rc.Backend.Kind == "postgres" {
		// The determinism and safety gate of the PostgreSQL dialect: every
		// statement, in CheckTx and again in FinalizeBlock.
		ex.SetGate(pgcheck.Check)
	}
	a := app.New(ex, logger.With("module", "relchain"))
	a.MaxQueryWait = maxWait

	// Conn-sync, not the default global mutex: queries and CheckTx must run
	// while a block executes (and a query waiting for min_height must not
	// block the block it waits for). The app is safe for that: one writer,
	// readers on committed state.
	n, err := newCometNode(cc, gen, proxy.NewConnSyncLocalClientCreator(a), logger)
	if err != nil {
		be.Close()
		return nil, err
	}
	return &Node{cmt: n, app: a, be: be}, nil
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
	n, err := newCometNode(cc, gen, proxy.NewLocalClientCreator(kv), logger)
	if err != nil {
		return nil, err
	}
	return &Node{cmt: n}, nil
}

func newCometNode(cc *cmtcfg.Config, gen *types.GenesisDoc, creator proxy.ClientCreator, logger log.Logger) (*nm.Node, error) {
	pv := privval.LoadFilePV(cc.PrivValidatorKeyFile(), cc.PrivValidatorStateFile())
	nodeKey, err := p2p.LoadNodeKey(cc.NodeKeyFile())
	if err != nil {
		return nil, fmt.Errorf("load node key: %w", err)
	}
	n, err := nm.NewNode(cc, pv, nodeKey, creator,
		func() (*types.GenesisDoc, error) { return gen, nil },
		cmtcfg.DefaultDBProvider,
		nm.DefaultMetricsProvider(cc.Instrumentation),
		logger)
	if err != nil {
		return nil, fmt.Errorf("create cometbft node: %w", err)
	}
	return n, nil
}

// Start starts CometBFT (handshake, replay of missing blocks, p2p, RPC).
func (n *Node) Start() error {
	if err := n.cmt.Start(); err != nil {
		return fmt.Errorf("start node: %w", err)
	}
	return nil
}

// Stop stops CometBFT and closes the database.
func (n *Node) Stop() error {
	var err error
	if n.cmt.IsRunning() {
		err = n.cmt.Stop()
		n.cmt.Wait()
	}
	if n.app != nil {
		_ = n.app.Executor().Close(context.Background())
	}
	if n.be != nil {
		if cerr := n.be.Close(); err == nil {
			err = cerr
		}
	}
	return err
}

// CometBFT returns the embedded CometBFT node.
func (n *Node) CometBFT() *nm.Node { return n.cmt }
