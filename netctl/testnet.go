package netctl

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cometbft/cometbft/p2p"
	"github.com/cometbft/cometbft/types"

	"github.com/relchain/relchain/app"
	"github.com/relchain/relchain/backend/registry"
	"github.com/relchain/relchain/dialect"
	"github.com/relchain/relchain/node"
	"github.com/relchain/relchain/protocol"
)

// NodeInfo describes one node of a generated network; nodes.json holds a
// list of them.
type NodeInfo struct {
	Name string `json:"name"`
	Home string `json:"home"`
	RPC  string `json:"rpc"`
	P2P  string `json:"p2p"`
	// Metrics is the node's metrics and health listener
	// (http://host:port serving /metrics, /readyz, /livez) when the
	// network was generated with Options.Prometheus, else "".
	Metrics string `json:"metrics,omitempty"`
}

// Options describe a network to generate.
type Options struct {
	Validators int
	Dir        string
	ChainID    string
	Backend    string
	// Backends, when set, is validator i's backend in Backends[i] (one
	// per validator): a network over several engines (issue 37), which
	// speaks PostgreSQL's SQL from protocol version 5 on (the genesis'
	// backends, app.Params.Backends). DSNTemplate (or DSNTemplates[i])
	// serves its server backends. Backend is then ignored.
	Backends []string
	// DSNTemplate is the PostgreSQL or MySQL DSN with {node} replaced by
	// the node's name, e.g. postgres://127.0.0.1:5432/relchain_{node}?sslmode=disable
	// or root@tcp(127.0.0.1:3306)/relchain_{node}.
	DSNTemplate string
	// DSNTemplates, where DSNTemplates[i] is not "", is validator i's
	// template instead of DSNTemplate (a node whose database is on a
	// server of its own, e.g. one a test kills).
	DSNTemplates []string
	// Hosts puts node i on Hosts[i] (a multi-machine deployment; standard
	// ports). Empty means loopback.
	Hosts []string
	// PrivateHosts says Hosts are private addresses on one machine (each
	// node in a network namespace: Namespaces): loopback's permissive p2p
	// settings stay.
	PrivateHosts bool
	// BasePort numbers loopback ports: node i listens for p2p on
	// BasePort+10*i, for RPC on BasePort+10*i+1 and, with Prometheus, for
	// metrics and health on BasePort+10*i+2. 0 picks free ports.
	BasePort int
	// Prometheus turns on every node's metrics and health listener
	// (config.toml [instrumentation] prometheus) on a port of its own.
	Prometheus bool
	// LogFormat, if set, is every node's config.toml log_format ("plain"
	// or "json").
	LogFormat string
	Params    app.Params
	Tuning    node.Tuning
	// UnsafeNoGate turns the determinism and safety gate off on every node
	// (relchain.toml backend.unsafe_no_gate; benchmarks of the gate's cost
	// only). The nodes must run a test-hooks build of relchain (make
	// build-testhooks); a default build refuses to start with it.
	UnsafeNoGate bool
	// UnsafeSuperuser (PostgreSQL) keeps DSNTemplate's role for every node
	// instead of creating least-privilege roles from it (see
	// node.PrepareBackend): tests and benchmarks only.
	UnsafeSuperuser bool
	// CheckpointEvery, if not 0, overrides the nodes' checkpoint interval
	// (relchain.toml [checkpoint] every).
	CheckpointEvery int64
	// SnapshotChunkBytes, if not 0, sets the state-sync chunk size
	// (relchain.toml [checkpoint] snapshot_chunk_bytes).
	SnapshotChunkBytes int64
	// GenesisTime, if set, is the genesis time (default: now). CometBFT
	// does not start a node before its clock reaches the genesis time, so
	// a network with a validator whose clock is behind needs one at least
	// that far in the past.
	GenesisTime time.Time
	// TxTimeout, if not 0, bounds how long one tx of a proposed block may
	// run on each node (relchain.toml [block] tx_timeout).
	TxTimeout time.Duration
	// Lanes, if set, is validator i's relchain.toml [block] lanes in
	// Lanes[i] (parallel execution; node-local, so validators may differ).
	Lanes []int
	// LanesAlways sets [block] lanes_always: every block that splits runs
	// on lanes, even where serial runs are measured faster.
	LanesAlways bool
}

// NodesFile is the list of nodes written into a network's directory.
const NodesFile = "nodes.json"

// Generate creates the homes of a network and writes nodes.json.
func Generate(o Options) ([]NodeInfo, error) {
	if o.Validators < 1 {
		return nil, fmt.Errorf("a network needs at least one validator, got %d", o.Validators)
	}
	if len(o.Hosts) > 0 && len(o.Hosts) != o.Validators {
		return nil, fmt.Errorf("--hosts lists %d hosts for %d validators: give exactly one host per validator", len(o.Hosts), o.Validators)
	}
	kinds, err := o.backendKinds()
	if err != nil {
		return nil, err
	}
	if entries, err := os.ReadDir(o.Dir); err == nil && len(entries) > 0 {
		return nil, fmt.Errorf("%s is not empty: choose an empty output directory", o.Dir)
	}
	if err := o.genesisEngines(kinds); err != nil {
		return nil, err
	}
	if o.Params.MaxTxBytes == 0 {
		// A zero Params must still give a network that starts: the node
		// rejects a genesis whose max_tx_bytes or max_statements is not
		// positive.
		o.Params.MaxTxBytes = app.DefaultParams().MaxTxBytes
	}
	if o.Params.MaxStatements == 0 {
		o.Params.MaxStatements = app.DefaultParams().MaxStatements
	}
	nodes := make([]NodeInfo, o.Validators)
	vals := make([]types.GenesisValidator, o.Validators)
	ids := make([]p2p.ID, o.Validators)
	ports, err := choosePorts(o)
	if err != nil {
		return nil, err
	}
	for i := range nodes {
		if nodes[i], vals[i], ids[i], err = generateHome(o, kinds[i], i, ports); err != nil {
			return nil, err
		}
	}
	if err := writeGenesis(o, nodes, vals, ids); err != nil {
		return nil, err
	}
	if err := SaveNodes(o.Dir, nodes); err != nil {
		return nil, err
	}
	return nodes, nil
}

// backendKinds is each validator's backend driver (Backends, or Backend
// for all), refusing a server backend without a DSN template.
func (o *Options) backendKinds() ([]registry.Driver, error) {
	if o.Backend == "" {
		o.Backend = registry.Default
	}
	names := o.Backends
	if len(names) == 0 {
		names = slices.Repeat([]string{o.Backend}, o.Validators)
	} else if len(names) != o.Validators {
		return nil, fmt.Errorf("--backends lists %d backends for %d validators: give exactly one backend per validator", len(names), o.Validators)
	}
	kinds := make([]registry.Driver, len(names))
	for i, name := range names {
		drv, err := registry.Lookup(name)
		if err != nil {
			return nil, err
		}
		tmpl := o.DSNTemplate
		if i < len(o.DSNTemplates) && o.DSNTemplates[i] != "" {
			tmpl = o.DSNTemplates[i]
		}
		if drv.Server && !strings.Contains(tmpl, "{node}") {
			return nil, fmt.Errorf("backend %s needs --dsn-template with {node}, e.g. %s", drv.Name, drv.DSNTemplate)
		}
		kinds[i] = drv
	}
	return kinds, nil
}

// genesisEngines sets the genesis' backend, or backends for a network
// over several engines (which speaks PostgreSQL's SQL, at protocol
// version 5 unless Params names one), and its SQL dialect with the
// translator's version where an engine translates it.
func (o *Options) genesisEngines(kinds []registry.Driver) error {
	var names []string
	for _, k := range kinds {
		names = append(names, k.Name)
	}
	names = slices.Compact(slices.Sorted(slices.Values(names)))
	o.Params.Backend, o.Params.Backends = names[0], nil
	if len(names) == 1 {
		var err error
		o.Params.SQLDialect, o.Params.SQLDialectVersion, err = registry.GenesisSQLDialect(names[0], o.Params.SQLDialect)
		return err
	}
	o.Params.Backend, o.Params.Backends = "", names
	if o.Params.SQLDialect == "" {
		o.Params.SQLDialect = dialect.SQLPostgres
	}
	if o.Params.ProtocolVersion == 0 {
		o.Params.ProtocolVersion = protocol.V5
	}
	var err error
	o.Params.SQLDialectVersion, o.Params.SQLDialectVersions, err = registry.GenesisSQLDialectVersions(names, o.Params.SQLDialect)
	return err
}

// generateHome creates the home of validator i (node<i>) of the network o
// describes: its CometBFT and relchain configuration (a database of its
// own on a server backend, server) and keys.
func generateHome(o Options, drv registry.Driver, i int, ports []int) (NodeInfo, types.GenesisValidator, p2p.ID, error) {
	name := fmt.Sprintf("node%d", i)
	home, err := filepath.Abs(filepath.Join(o.Dir, name))
	if err != nil {
		return NodeInfo{}, types.GenesisValidator{}, "", err
	}
	host, listen := "127.0.0.1", "127.0.0.1"
	if len(o.Hosts) > 0 {
		host, listen = o.Hosts[i], "0.0.0.0"
	}
	p2pPort, rpcPort, promPort := ports[3*i], ports[3*i+1], ports[3*i+2]
	info := NodeInfo{
		Name: name,
		Home: home,
		RPC:  fmt.Sprintf("http://%s:%d", host, rpcPort),
		P2P:  fmt.Sprintf("%s:%d", host, p2pPort),
	}
	cc := node.CometConfig(o.Tuning)
	cc.Moniker = name
	cc.P2P.ListenAddress = fmt.Sprintf("tcp://%s:%d", listen, p2pPort)
	cc.RPC.ListenAddress = fmt.Sprintf("tcp://%s:%d", listen, rpcPort)
	if len(o.Hosts) > 0 && !o.PrivateHosts {
		// One machine per validator: CometBFT's production p2p settings
		// (routable addresses only, one peer per IP), not loopback's.
		cc.P2P.AddrBookStrict = true
		cc.P2P.AllowDuplicateIP = false
	}
	if o.Prometheus {
		cc.Instrumentation.Prometheus = true
		cc.Instrumentation.PrometheusListenAddr = fmt.Sprintf("%s:%d", listen, promPort)
		info.Metrics = fmt.Sprintf("http://%s:%d", host, promPort)
	}
	if o.LogFormat != "" {
		cc.LogFormat = o.LogFormat
	}
	rc := node.DefaultConfig()
	rc.Backend.Kind = drv.Name
	rc.Backend.UnsafeNoGate = o.UnsafeNoGate
	if o.CheckpointEvery != 0 {
		rc.Checkpoint.Every = o.CheckpointEvery
	}
	rc.Checkpoint.SnapshotChunkBytes = o.SnapshotChunkBytes
	if o.TxTimeout != 0 {
		rc.Block.TxTimeout = o.TxTimeout.String()
	}
	if i < len(o.Lanes) {
		rc.Block.Lanes = o.Lanes[i]
	}
	rc.Block.LanesAlways = o.LanesAlways
	if drv.Server {
		tmpl := o.DSNTemplate
		if i < len(o.DSNTemplates) && o.DSNTemplates[i] != "" {
			tmpl = o.DSNTemplates[i]
		}
		rc.Backend.DSN = strings.ReplaceAll(tmpl, "{node}", name)
	}
	rc.Backend.UnsafeSuperuser = o.UnsafeSuperuser
	if err := node.PrepareBackend(context.Background(), &rc.Backend); err != nil {
		return NodeInfo{}, types.GenesisValidator{}, "", fmt.Errorf("%s: %w", name, err)
	}
	if err := node.SaveConfig(home, cc, rc); err != nil {
		return NodeInfo{}, types.GenesisValidator{}, "", fmt.Errorf("%s: %w", name, err)
	}
	keys, err := node.EnsureKeys(cc, name)
	if err != nil {
		return NodeInfo{}, types.GenesisValidator{}, "", fmt.Errorf("%s: %w", name, err)
	}
	return info, keys.Validator, keys.NodeID, nil
}

// writeGenesis writes the network's genesis into every node home and
// makes every other node a persistent peer of each.
func writeGenesis(o Options, nodes []NodeInfo, vals []types.GenesisValidator, ids []p2p.ID) error {
	gen, err := node.NewGenesis(o.ChainID, vals, o.Params)
	if err != nil {
		return err
	}
	if !o.GenesisTime.IsZero() {
		gen.GenesisTime = o.GenesisTime.UTC().Round(0)
	}
	for i, n := range nodes {
		cc, rc, err := node.LoadConfig(n.Home)
		if err != nil {
			return err
		}
		var peers []string
		for j, m := range nodes {
			if j != i {
				peers = append(peers, p2p.IDAddressString(ids[j], m.P2P))
			}
		}
		cc.P2P.PersistentPeers = strings.Join(peers, ",")
		if err := node.SaveConfig(n.Home, cc, rc); err != nil {
			return err
		}
		if err := gen.SaveAs(cc.GenesisFile()); err != nil {
			return fmt.Errorf("%s: write genesis: %w", n.Name, err)
		}
	}
	return nil
}

// choosePorts gives node i its p2p, RPC and metrics ports at 3i, 3i+1
// and 3i+2.
func choosePorts(o Options) ([]int, error) {
	ports := make([]int, 3*o.Validators)
	for i := 0; i < o.Validators; i++ {
		switch {
		case len(o.Hosts) > 0:
			ports[3*i], ports[3*i+1], ports[3*i+2] = 26656, 26657, 26660
		case o.BasePort > 0:
			ports[3*i], ports[3*i+1], ports[3*i+2] = o.BasePort+10*i, o.BasePort+10*i+1, o.BasePort+10*i+2
		}
	}
	if len(o.Hosts) > 0 || o.BasePort > 0 {
		return ports, nil
	}
	return freePorts(len(ports))
}

// SaveNodes writes dir/nodes.json.
func SaveNodes(dir string, nodes []NodeInfo) error {
	b, err := json.MarshalIndent(nodes, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, NodesFile), append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", NodesFile, err)
	}
	return nil
}

// LoadNodes reads dir/nodes.json.
func LoadNodes(dir string) ([]NodeInfo, error) {
	b, err := os.ReadFile(filepath.Join(dir, NodesFile))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", NodesFile, err)
	}
	var nodes []NodeInfo
	if err := json.Unmarshal(b, &nodes); err != nil {
		return nil, fmt.Errorf("parse %s: %w", filepath.Join(dir, NodesFile), err)
	}
	return nodes, nil
}
