package netctl

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	cmtcfg "github.com/cometbft/cometbft/config"
	"github.com/cometbft/cometbft/p2p"
	rpchttp "github.com/cometbft/cometbft/rpc/client/http"

	"github.com/relchain/relchain/backend/registry"
	"github.com/relchain/relchain/node"
)

// JoinOptions describe a full node added to a generated network.
type JoinOptions struct {
	// Dir is the network's directory (with nodes.json).
	Dir string
	// Name names the node and its home, Dir/Name.
	Name string
	// DSN is the database of the new node (backends postgres and mysql).
	DSN string
	// Backend is the new node's engine; empty: the first node's. A
	// network over several engines takes any its genesis lists (the node
	// refuses another when it starts).
	Backend string
	// StateSync makes the node join from a snapshot of its peers (CometBFT
	// state sync) instead of replaying every block from genesis. The
	// header it trusts is the newest one of the first node's RPC.
	StateSync bool
}

// AddNode creates the home of a full node (not a validator) of the
// network in o.Dir, configured like its first node, with every node as a
// persistent peer, and adds it to nodes.json.
func AddNode(ctx context.Context, o JoinOptions) (NodeInfo, error) {
	nodes, err := LoadNodes(o.Dir)
	if err != nil {
		return NodeInfo{}, err
	}
	if len(nodes) == 0 {
		return NodeInfo{}, fmt.Errorf("%s lists no node", filepath.Join(o.Dir, NodesFile))
	}
	for _, n := range nodes {
		if n.Name == o.Name {
			return NodeInfo{}, fmt.Errorf("the network already has a node %q", o.Name)
		}
	}
	cc, rc, err := node.LoadConfig(nodes[0].Home)
	if err != nil {
		return NodeInfo{}, err
	}
	genesis := cc.GenesisFile()
	home, err := filepath.Abs(filepath.Join(o.Dir, o.Name))
	if err != nil {
		return NodeInfo{}, err
	}
	if o.Backend != "" && o.Backend != rc.Backend.Kind {
		rc.Backend = node.BackendConfig{Kind: o.Backend, UnsafeSuperuser: rc.Backend.UnsafeSuperuser}
	}
	if err := joinerBackend(ctx, &rc.Backend, o.DSN); err != nil {
		return NodeInfo{}, err
	}
	var peers []string
	for _, n := range nodes {
		nk, err := p2p.LoadNodeKey(filepath.Join(n.Home, "config", "node_key.json"))
		if err != nil {
			return NodeInfo{}, fmt.Errorf("%s: %w", n.Name, err)
		}
		peers = append(peers, p2p.IDAddressString(nk.ID(), n.P2P))
	}
	ports, err := freePorts(3)
	if err != nil {
		return NodeInfo{}, err
	}
	info := NodeInfo{
		Name: o.Name,
		Home: home,
		RPC:  fmt.Sprintf("http://127.0.0.1:%d", ports[1]),
		P2P:  fmt.Sprintf("127.0.0.1:%d", ports[0]),
	}
	cc.Moniker = o.Name
	cc.P2P.ListenAddress = fmt.Sprintf("tcp://127.0.0.1:%d", ports[0])
	cc.RPC.ListenAddress = fmt.Sprintf("tcp://127.0.0.1:%d", ports[1])
	if cc.Instrumentation.Prometheus {
		// The first node's metrics port is taken: a port of its own.
		cc.Instrumentation.PrometheusListenAddr = fmt.Sprintf("127.0.0.1:%d", ports[2])
		info.Metrics = "http://" + cc.Instrumentation.PrometheusListenAddr
	}
	cc.P2P.PersistentPeers = strings.Join(peers, ",")
	if o.StateSync {
		if err := trustNewestHeader(ctx, cc, nodes); err != nil {
			return NodeInfo{}, err
		}
	}
	if err := node.SaveConfig(home, cc, rc); err != nil {
		return NodeInfo{}, err
	}
	if _, err := node.EnsureKeys(cc, o.Name); err != nil {
		return NodeInfo{}, err
	}
	gen, err := os.ReadFile(genesis)
	if err != nil {
		return NodeInfo{}, err
	}
	if err := os.WriteFile(cc.GenesisFile(), gen, 0o644); err != nil {
		return NodeInfo{}, err
	}
	if err := SaveNodes(o.Dir, append(nodes, info)); err != nil {
		return NodeInfo{}, err
	}
	return info, nil
}

// joinerBackend configures a joining node's database from the first
// node's configuration b: a server backend's node needs its own database
// (dsn, prepared as init does); a file backend's lies in its home.
func joinerBackend(ctx context.Context, b *node.BackendConfig, dsn string) error {
	drv, err := registry.Lookup(b.Kind)
	if err != nil {
		return err
	}
	if !drv.Server {
		b.DSN = ""
		return nil
	}
	if dsn == "" {
		return fmt.Errorf("the network runs %s: the new node needs its own database DSN", b.Kind)
	}
	// The copied configuration's reader account is the other node's.
	b.DSN, b.ReaderDSN = dsn, ""
	return node.PrepareBackend(ctx, b)
}

// trustNewestHeader turns state sync on in cc, trusting the newest header
// of the network's first node, with its first two nodes (validators of a
// generated network; a node added later may itself have joined by state
// sync and lack the headers the light client asks for) as RPC servers.
func trustNewestHeader(ctx context.Context, cc *cmtcfg.Config, nodes []NodeInfo) error {
	c, err := rpchttp.New(nodes[0].RPC, "/websocket")
	if err != nil {
		return err
	}
	commit, err := c.Commit(ctx, nil)
	if err != nil {
		return fmt.Errorf("read the header to trust from %s: %w", nodes[0].Name, err)
	}
	cc.StateSync.Enable = true
	second := nodes[min(1, len(nodes)-1)]
	cc.StateSync.RPCServers = []string{nodes[0].RPC, second.RPC}
	cc.StateSync.TrustHeight = commit.Height
	cc.StateSync.TrustHash = commit.Hash().String()
	cc.StateSync.DiscoveryTime = 5 * time.Second
	return nil
}

// handedOut holds every port freePorts returned in this process. The
// kernel offers a port again as soon as its probe listener closes, and a
// network's nodes bind their ports only when they start, so two networks
// set up at once (tests running in parallel) would otherwise be given the
// same port ("bind: address already in use"). A port is handed out once
// per process; the range freePorts picks from has far more ports than a
// test process uses.
var handedOut = struct {
	sync.Mutex
	ports map[int]bool
}{ports: map[int]bool{}}

// maxProbes bounds freePorts' attempts per port.
const maxProbes = 1000

// freePorts picks n distinct free loopback ports that this process has
// not handed out before: every probe listener is held until all are
// chosen, so none repeats. The ports come from below the kernel's
// ephemeral range (portRange), never from it: a port the kernel hands to a
// listener on port 0 or to an outgoing connection (a node's ABCI socket
// server, any client) must not be one a node was configured with and has
// not bound yet — CI once saw a node exit before height 1 that way.
func freePorts(n int) ([]int, error) {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	handedOut.Lock()
	defer handedOut.Unlock()
	lo, hi := portRange()
	ports := make([]int, 0, n)
	for probes := 0; len(ports) < n; probes++ {
		if probes == n*maxProbes {
			return nil, fmt.Errorf("pick a free port: %d probes in %d-%d found only %d ports this process has not used", probes, lo, hi, len(ports))
		}
		p := lo + rand.IntN(hi-lo+1)
		if handedOut.ports[p] || slices.Contains(ports, p) {
			continue
		}
		l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p))
		if err != nil {
			continue // taken
		}
		ls = append(ls, l)
		ports = append(ports, p)
	}
	for _, p := range ports {
		handedOut.ports[p] = true
	}
	return ports, nil
}

// FreeLoopbackPorts picks n free loopback ports as the networks this
// package generates with BasePort 0 do (see freePorts), for a command that
// adds listeners of its own to such a network (localnet's PostgreSQL
// gateways).
func FreeLoopbackPorts(n int) ([]int, error) { return freePorts(n) }

// portRange is where freePorts picks: from 10000 up to just below the
// kernel's ephemeral range (net.ipv4.ip_local_port_range, 32768 by
// default), or 20000-29999 if that cannot be read or leaves too little.
func portRange() (lo, hi int) {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return 20000, 29999
	}
	var first, last int
	if _, err := fmt.Sscan(string(b), &first, &last); err != nil || first-1 < 10000+4096 {
		return 20000, 29999
	}
	return 10000, first - 1
}
