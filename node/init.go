package node

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	cmtcfg "github.com/cometbft/cometbft/config"
	cmtrand "github.com/cometbft/cometbft/libs/rand"
	"github.com/cometbft/cometbft/p2p"
	"github.com/cometbft/cometbft/privval"
	"github.com/cometbft/cometbft/types"
	cmttime "github.com/cometbft/cometbft/types/time"

	"github.com/relchain/relchain/app"
	"github.com/relchain/relchain/backend/registry"
	"github.com/relchain/relchain/protocol"
)

// Tuning is the subset of CometBFT settings relchain chooses for a network.
// The defaults come from measurements on loopback (see BENCHMARKS.md).
type Tuning struct {
	// TimeoutCommit is how long a node waits after a commit before the next
	// height; 0 proposes as soon as there are txs.
	TimeoutCommit time.Duration
	// TimeoutPropose is how long a validator waits for a round's proposal
	// before it prevotes nil (and the round moves on to the next
	// proposer); TimeoutProposeDelta is added to it for each further round
	// of a height. 0 keeps CometBFT's value (3 s and 500 ms).
	TimeoutPropose      time.Duration
	TimeoutProposeDelta time.Duration
	// TimeoutPrecommit is how long a validator waits once it holds +2/3
	// precommits that do not commit a block — among them the +2/3 nil
	// precommits of a round whose proposer is absent — before the next
	// round. 0 keeps CometBFT's value (1 s).
	TimeoutPrecommit time.Duration
	// FastGossip lowers p2p flush_throttle_timeout and consensus
	// peer_gossip_sleep_duration from 100 ms to 1 ms: right for loopback and
	// LANs, wasteful on a WAN.
	FastGossip bool
}

// DefaultTuning is the default for local and LAN networks.
//
// timeout_commit = 10 ms, measured (BENCHMARKS.md): with 0 the next height's
// proposal goes out before a waiting client has sent its next tx, so that
// tx waits for an extra (empty proof) block: p50 37 ms on 4 validators. A
// short pause lets it ride in that block: p50 23 ms, p95 27 ms. 5 ms misses
// often (p95 43 ms); 20 ms and more only add their own delay.
//
// timeout_propose = 500 ms (+100 ms per round), timeout_precommit = 200 ms,
// measured with `relchain-bench absent` (BENCHMARKS.md, issue 18): with one
// of 4 validators stopped, every fourth height waits out its missing
// proposer, timeout_propose and then timeout_precommit. With CometBFT's 3 s
// and 1 s, clients that wait for their commit ran at 0.10-0.16 of the
// healthy network's rate; 500 ms and 1 s at 0.23 (the precommit wait
// matters too); 500 ms and 200 ms at 0.49-0.59, async at 0.71-2.07
// (medians of two invocations). 300 ms did no better in commit mode, but
// async with one stopped fell to 0.45 and healthy runs decided 5 of 16
// heights past round 0 (500 ms: 1 of 24); 200 ms and 100 ms did worse.
func DefaultTuning() Tuning {
	return Tuning{
		TimeoutCommit:       10 * time.Millisecond,
		TimeoutPropose:      500 * time.Millisecond,
		TimeoutProposeDelta: 100 * time.Millisecond,
		TimeoutPrecommit:    200 * time.Millisecond,
		FastGossip:          true,
	}
}

// CometConfig returns CometBFT's configuration for a relchain node.
func CometConfig(t Tuning) *cmtcfg.Config {
	c := cmtcfg.DefaultConfig()
	// Blocks only when there are txs (plus the proof block CometBFT makes
	// after a block that changes the AppHash).
	c.Consensus.CreateEmptyBlocks = false
	c.Consensus.TimeoutCommit = t.TimeoutCommit
	setIfNonZero(&c.Consensus.TimeoutPropose, t.TimeoutPropose)
	setIfNonZero(&c.Consensus.TimeoutProposeDelta, t.TimeoutProposeDelta)
	setIfNonZero(&c.Consensus.TimeoutPrecommit, t.TimeoutPrecommit)
	if t.FastGossip {
		c.P2P.FlushThrottleTimeout = time.Millisecond
		c.Consensus.PeerGossipSleepDuration = time.Millisecond
		c.Consensus.PeerQueryMaj23SleepDuration = 100 * time.Millisecond
	}
	// Async clients submit thousands of txs; the defaults (5,000 txs, 5 MB/s
	// per peer) throttle them long before the backend does.
	c.Mempool.Size = 50000
	c.Mempool.CacheSize = 100000
	c.Mempool.MaxTxsBytes = 1 << 30
	c.P2P.SendRate = 100 << 20
	c.P2P.RecvRate = 100 << 20
	// A tx travels base64-encoded inside JSON-RPC: 1 MiB of tx needs about
	// 1.4 MB of request body, more than CometBFT's default 1 MB limit.
	c.RPC.MaxBodyBytes = 3 << 20
	c.RPC.MaxSubscriptionClients = 1000
	c.RPC.MaxSubscriptionsPerClient = 100
	c.RPC.TimeoutBroadcastTxCommit = 30 * time.Second
	c.RPC.MaxOpenConnections = 2000
	// Block execution and state sync (CometBFT's and relchain's) at info;
	// everything else only when it fails.
	c.LogLevel = "state:info,statesync:info,relchain-statesync:info,*:error"
	c.P2P.AddrBookStrict = false
	c.P2P.AllowDuplicateIP = true
	return c
}

func setIfNonZero(dst *time.Duration, v time.Duration) {
	if v != 0 {
		*dst = v
	}
}

// InitOptions describe a single-validator network.
type InitOptions struct {
	ChainID string
	Moniker string
	Backend BackendConfig
	Params  app.Params
	Tuning  Tuning
}

// Key material of a node home, created if missing.
type Keys struct {
	Validator types.GenesisValidator
	NodeID    p2p.ID
}

// EnsureKeys creates the validator key and node key of a home if missing.
func EnsureKeys(cc *cmtcfg.Config, name string) (Keys, error) {
	if err := os.MkdirAll(filepath.Dir(cc.PrivValidatorKeyFile()), 0o700); err != nil {
		return Keys{}, err
	}
	if err := os.MkdirAll(filepath.Dir(cc.PrivValidatorStateFile()), 0o700); err != nil {
		return Keys{}, err
	}
	pv := privval.LoadOrGenFilePV(cc.PrivValidatorKeyFile(), cc.PrivValidatorStateFile())
	nk, err := p2p.LoadOrGenNodeKey(cc.NodeKeyFile())
	if err != nil {
		return Keys{}, fmt.Errorf("node key: %w", err)
	}
	pub, err := pv.GetPubKey()
	if err != nil {
		return Keys{}, fmt.Errorf("validator key: %w", err)
	}
	return Keys{
		Validator: types.GenesisValidator{Address: pub.Address(), PubKey: pub, Power: 10, Name: name},
		NodeID:    nk.ID(),
	}, nil
}

// NewGenesis builds the genesis document of a network. A new network
// starts at protocol.DefaultGenesis (or the newest version this binary
// runs, if older), unless params name one (its consensus parameters' app version says the same).
func NewGenesis(chainID string, vals []types.GenesisValidator, params app.Params) (*types.GenesisDoc, error) {
	if chainID == "" {
		chainID = "relchain-" + cmtrand.Str(6)
	}
	if params.ProtocolVersion == 0 {
		params.ProtocolVersion = min(protocol.Max(), protocol.DefaultGenesis)
	}
	if !protocol.Supported(params.ProtocolVersion) {
		return nil, fmt.Errorf("genesis: protocol version %d: this binary runs versions %v", params.ProtocolVersion, protocol.Versions())
	}
	appState, err := json.MarshalIndent(params, "", "  ")
	if err != nil {
		return nil, err
	}
	g := &types.GenesisDoc{
		ChainID:         chainID,
		GenesisTime:     cmttime.Now(),
		ConsensusParams: consensusParams(params.ProtocolVersion),
		Validators:      vals,
		AppState:        appState,
	}
	if err := g.ValidateAndComplete(); err != nil {
		return nil, fmt.Errorf("genesis: %w", err)
	}
	return g, nil
}

// consensusParams are CometBFT's defaults with the chain's first protocol
// version as the app version.
func consensusParams(version uint64) *types.ConsensusParams {
	cp := types.DefaultConsensusParams()
	cp.Version.App = version
	return cp
}

// Init creates a single-validator node home. It refuses to overwrite an
// existing one.
func Init(home string, o InitOptions) (*types.GenesisDoc, error) {
	if _, err := os.Stat(filepath.Join(home, "config", "genesis.json")); err == nil {
		return nil, fmt.Errorf("%s already holds a node (config/genesis.json exists); choose another --home or remove it", home)
	}
	if o.Backend.Kind == "" {
		o.Backend.Kind = registry.Default
	}
	o.Params.Backend = o.Backend.Kind
	var err error
	if o.Params.SQLDialect, o.Params.SQLDialectVersion, err = registry.GenesisSQLDialect(o.Backend.Kind, o.Params.SQLDialect); err != nil {
		return nil, err
	}
	if err := PrepareBackend(context.Background(), &o.Backend); err != nil {
		return nil, err
	}
	rc := DefaultConfig()
	rc.Backend = o.Backend
	cc := CometConfig(o.Tuning)
	if o.Moniker != "" {
		cc.Moniker = o.Moniker
	}
	if err := SaveConfig(home, cc, rc); err != nil {
		return nil, err
	}
	keys, err := EnsureKeys(cc, cc.Moniker)
	if err != nil {
		return nil, err
	}
	g, err := NewGenesis(o.ChainID, []types.GenesisValidator{keys.Validator}, o.Params)
	if err != nil {
		return nil, err
	}
	if err := g.SaveAs(cc.GenesisFile()); err != nil {
		return nil, fmt.Errorf("write genesis: %w", err)
	}
	return g, nil
}
