package bench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/relchain/relchain/netctl"
	"github.com/relchain/relchain/node"
)

// NetworkOptions describe a local network started for a measurement.
type NetworkOptions struct {
	Bin        string // the relchain binary
	Dir        string // parent directory for the network
	Validators int
	Backend    string
	// Backends, when set, is validator i's backend (netctl.Options.Backends):
	// a network over several engines. Backend then names the engine
	// DSNTemplate serves.
	Backends []string
	// SQLDialect is the SQL dialect the network's genesis fixes
	// (sql_dialect, docs/dialects.md): "" is Backend's own, "postgres" on
	// sqlite translates PostgreSQL's SQL (netctl writes the translator's
	// version).
	SQLDialect string
	// Protocol is the genesis protocol version (0: the newest the binary
	// runs).
	Protocol    uint64
	DSNTemplate string
	// DSNTemplates, where DSNTemplates[i] is not "", is validator i's
	// template instead (a network over two server engines).
	DSNTemplates []string
	Tuning       node.Tuning
	// App is "relchain" or "kvstore" (the ceiling).
	App string
	// ABCI is how CometBFT reaches relchain's app: "builtin" (in-process
	// calls; also "") or "socket" (ABCI's socket protocol over loopback
	// TCP, the paper's server variant). The kvstore ceiling is always
	// builtin.
	ABCI string
	// NoGate runs relchain with the determinism and safety gate off
	// (backend.unsafe_no_gate), to measure the gate's cost.
	NoGate bool
	// Lanes, if above 1, runs every validator's blocks on that many
	// database connections ([block] lanes; issue 38).
	Lanes int
	// LanesAlways runs every block that splits on lanes ([block]
	// lanes_always), not only while that is measured faster.
	LanesAlways bool
	// MaxStatements, if not 0, sets the genesis max_statements (batches
	// of many wl-transactions need more than the default 256).
	MaxStatements int
	// PGListen turns every node's PostgreSQL wire-protocol listener on (a
	// free loopback port each, see PGAddrs) with one user, GatewayUser.
	PGListen bool
	// RelayLinks runs every p2p link through a relay in this process
	// (netctl.RelayLinks) that adds LinkDelay one way, both directions:
	// WAN latency where the kernel has no netem.
	RelayLinks bool
	LinkDelay  time.Duration
}

// StartNetwork generates and starts a loopback network and waits until
// every node has committed a block. Stop it with StopAll. Ports are picked
// by probing, so another process may bind one between the pick and the
// node's start: a network a node of which could not bind its port is
// generated once more, on fresh ports.
func StartNetwork(ctx context.Context, o NetworkOptions) (*netctl.Network, error) {
	n, err := startNetworkOnce(ctx, o)
	if errors.Is(err, errPortTaken) {
		n, err = startNetworkOnce(ctx, o)
	}
	return n, err
}

// errPortTaken marks a network a node of which found its port taken.
var errPortTaken = errors.New("a node's port was taken by another process")

// portTaken reports whether a node of n logged that its address was in
// use.
func portTaken(n *netctl.Network) bool {
	for i := range n.Nodes {
		if b, err := os.ReadFile(n.LogFile(i)); err == nil && bytes.Contains(b, []byte("address already in use")) {
			return true
		}
	}
	return false
}

func startNetworkOnce(ctx context.Context, o NetworkOptions) (*netctl.Network, error) {
	dir, err := os.MkdirTemp(o.Dir, o.App+"-")
	if err != nil {
		return nil, err
	}
	// Each run gets its own databases: {node} becomes <run>_<node>.
	run := strings.ReplaceAll(filepath.Base(dir), "-", "_") + "_{node}"
	dsn := strings.ReplaceAll(o.DSNTemplate, "{node}", run)
	dsns := make([]string, len(o.DSNTemplates))
	for i, t := range o.DSNTemplates {
		dsns[i] = strings.ReplaceAll(t, "{node}", run)
	}
	// Zero genesis parameters are the defaults (netctl fills them in);
	// only max_statements may differ.
	nopts := netctl.Options{
		Validators: o.Validators, Dir: dir, Backend: o.Backend, Backends: o.Backends, DSNTemplate: dsn, DSNTemplates: dsns,
		Tuning: o.Tuning, UnsafeNoGate: o.NoGate,
	}
	if o.Lanes > 1 {
		nopts.Lanes = slices.Repeat([]int{o.Lanes}, o.Validators)
		nopts.LanesAlways = o.LanesAlways
	}
	nopts.Params.MaxStatements = o.MaxStatements
	nopts.Params.SQLDialect = o.SQLDialect
	nopts.Params.ProtocolVersion = o.Protocol
	nodes, err := netctl.Generate(nopts)
	if err != nil {
		return nil, err
	}
	n := netctl.NewNetwork(o.Bin, nodes)
	if o.RelayLinks {
		if n.Links, err = netctl.RelayLinks(nodes, "127.0.0.1"); err != nil {
			return nil, fmt.Errorf("relay the p2p links: %w", err)
		}
		n.Links.SetDelay(-1, o.LinkDelay, 0)
	}
	if o.PGListen {
		if err := enablePG(n, dir); err != nil {
			return nil, err
		}
	}
	switch {
	case o.App == "kvstore":
		n.ExtraArgs = []string{"--app", "kvstore"}
	case o.ABCI == "socket":
		n.ExtraArgs = []string{"--abci", "socket"}
	case o.ABCI != "" && o.ABCI != "builtin":
		return nil, fmt.Errorf("unknown ABCI transport %q: use builtin or socket", o.ABCI)
	}
	if err := n.StartAll(); err != nil {
		n.StopAll() // closes the link relays
		return nil, err
	}
	if err := n.WaitReady(ctx); err != nil {
		n.StopAll()
		if portTaken(n) {
			err = fmt.Errorf("%w: %w", errPortTaken, err)
		}
		return nil, fmt.Errorf("network in %s: %w", filepath.Base(dir), err)
	}
	return n, nil
}

// RPCs lists the nodes' RPC addresses.
func RPCs(n *netctl.Network) []string {
	out := make([]string, len(n.Nodes))
	for i, nd := range n.Nodes {
		out[i] = nd.RPC
	}
	return out
}
