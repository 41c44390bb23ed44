package e2e

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/relchain/relchain/client"
	"github.com/relchain/relchain/internal/tcprelay"
	"github.com/relchain/relchain/netctl"
	"github.com/relchain/relchain/node"
)

// Env is what a run needs from its caller.
type Env struct {
	// Bin is the relchain binary the nodes run.
	Bin string
	// ClockBin is an e2e_clock build of relchain (BuildClockBinary), run
	// by the nodes of a clock fault only; "" when no manifest needs it.
	ClockBin string
	// DSNTemplate returns a server backend's DSN template with {node}
	// (postgres, mysql), or "" for a backend in the node's own files; the
	// caller owns the server and its databases.
	DSNTemplate func(backend string) (string, error)
	// Dir holds the network's homes; ReportDir the report and history.
	Dir, ReportDir string
	Logf           func(format string, args ...any)
}

// network is a running manifest network.
type network struct {
	m       *Manifest
	net     *netctl.Network
	ns      *netctl.Namespaces // nil on loopback
	mode    string             // "netns" or "loopback"
	relay   *tcprelay.Relay    // netns with a server backend: the way to the database
	chainID string

	// The faults on nodes' data: small disks mounted (data dirs), disks
	// filled, nodes tampered with (when), and when nodes were seen to
	// exit. note records what the report should say about them.
	disks    []string
	fills    map[int]*diskFill
	tampered map[int]time.Time
	emu      sync.Mutex
	exits    map[int]time.Time
	// expected are the nodes whose current process is meant to end
	// (killed, or stopping for a fault on its data); stopping says every
	// node is being stopped; crashes are the other exits (effects.go).
	expected map[int]bool
	stopping bool
	crashes  []string
	note     func(string)
	// links are the p2p relays of a manifest that delays links (nil
	// otherwise): links.go.
	links *netctl.LinkRelays
	// throttled are the nodes whose bandwidth is capped now; delays the
	// one-way delay set on each node's links.
	throttled map[int]bool
	delays    map[int]time.Duration

	// Database servers (dbfaults.go): each validator's superuser DSN
	// template as the harness reaches it (not relayed); the private
	// servers of db-kill nodes, or the one of shared-db-kill; relays to
	// them (netns).
	dbTmpl     []string
	serversDir string
	servers    map[int]*dbServer
	shared     *dbServer
	relays     []*tcprelay.Relay
	// dir is the network's directory, env the run's (nodes added later:
	// statesync.go); syncNodes counts the state-sync nodes added.
	dir       string
	env       Env
	syncNodes int
	// disconnecting are the nodes whose connections are terminated again
	// and again (db-disconnect with for): closing the channel stops it,
	// and the count of terminations comes back on it.
	disconnecting map[int]chan int
}

// chooseMode decides where the nodes run; a manifest that cuts links and
// cannot have namespaces is an error, not a silent loopback run.
func chooseMode(m *Manifest) (string, error) {
	nsErr := netctl.NamespacesSupported()
	switch {
	case m.Network == "loopback":
		if m.needsNamespaces() {
			return "", fmt.Errorf("manifest %s partitions nodes: it needs network = netns", m.Name)
		}
		return "loopback", nil
	case nsErr == nil:
		return "netns", nil
	case m.Network == "netns" || m.needsNamespaces():
		return "", fmt.Errorf("manifest %s needs network namespaces: %w", m.Name, nsErr)
	}
	return "loopback", nil
}

// startNetwork generates the homes, starts every node and waits until each
// has committed a block. close stops the nodes and removes the namespaces;
// the caller defers it on every path.
// mixedDSNTemplates gives each server-backed validator of a mixed network
// its engine's DSN template.
func mixedDSNTemplates(m *Manifest, env Env, opts *netctl.Options) error {
	if !m.mixed() {
		return nil
	}
	opts.DSNTemplates = make([]string, len(m.Backends))
	for i, b := range m.Backends {
		tmpl, err := env.DSNTemplate(b)
		if err != nil {
			return err
		}
		opts.DSNTemplates[i] = tmpl
	}
	return nil
}

func startNetwork(ctx context.Context, m *Manifest, env Env) (nw *network, err error) {
	mode, err := chooseMode(m)
	if err != nil {
		return nil, err
	}
	nw = &network{m: m, mode: mode, fills: map[int]*diskFill{}, tampered: map[int]time.Time{}, exits: map[int]time.Time{}, expected: map[int]bool{}, throttled: map[int]bool{}, delays: map[int]time.Duration{},
		servers: map[int]*dbServer{}, disconnecting: map[int]chan int{}, env: env, note: func(s string) { env.Logf("%s: %s", m.Name, s) }}
	opts := netctl.Options{Validators: m.Validators, Dir: filepath.Join(env.Dir, "net"), Backend: m.Backend, Backends: m.Backends, Lanes: m.Lanes,
		// Every block that splits runs on lanes: the faults meet them.
		LanesAlways: true}
	nw.dir = opts.Dir
	if m.syncsState() {
		opts.CheckpointEvery = 10 // snapshots to sync from, within seconds
	}
	// A disk-full fault checks /readyz, which the metrics listener serves;
	// a network on lanes is checked for blocks that ran on them
	// (checkLanes).
	opts.Prometheus = len(m.diskFullNodes()) > 0 || len(m.Lanes) > 0
	opts.Tuning = node.Tuning{FastGossip: true}
	if behind := slices.Min(append(slices.Collect(maps.Values(m.clockFaults())), 0)); behind < 0 {
		// CometBFT sleeps until its clock reaches the genesis time: a
		// node an hour behind a genesis of now would start an hour late.
		opts.GenesisTime = time.Now().Add(behind - time.Minute)
	}
	if opts.DSNTemplate, err = env.DSNTemplate(m.Backend); err != nil {
		return nil, err
	}
	if err := mixedDSNTemplates(m, env, &opts); err != nil {
		return nil, err
	}
	if err := nw.startDBServers(ctx, &opts, env.Dir); err != nil {
		nw.close()
		return nil, err
	}
	if mode == "netns" {
		if nw.ns, err = netctl.NewNamespaces(m.Validators); err != nil {
			return nil, err
		}
		for i := range m.Validators {
			opts.Hosts = append(opts.Hosts, nw.ns.Host(i))
		}
		opts.PrivateHosts = true
		if opts.DSNTemplate != "" {
			if opts.DSNTemplate, nw.relay, err = relayDSN(nw.ns.Gateway(), opts.DSNTemplate); err != nil {
				nw.close()
				return nil, err
			}
		}
		for i, t := range opts.DSNTemplates {
			if t == "" {
				continue
			}
			rt, relay, err := relayDSN(nw.ns.Gateway(), t)
			if err != nil {
				nw.close()
				return nil, err
			}
			nw.relays = append(nw.relays, relay)
			opts.DSNTemplates[i] = rt
		}
	}
	nodes, err := netctl.Generate(opts)
	if err != nil {
		nw.close()
		return nil, fmt.Errorf("generate network: %w", err)
	}
	nw.net = netctl.NewNetwork(env.Bin, nodes)
	nw.net.Namespaces = nw.ns
	if err := nw.mountSmallDisks(m.diskFullNodes()); err != nil {
		nw.close()
		return nil, err
	}
	if m.delaysLinks() {
		host := "127.0.0.1"
		if nw.ns != nil {
			host = nw.ns.Gateway()
		}
		if nw.links, err = netctl.RelayLinks(nw.net.Nodes, host); err != nil {
			nw.close()
			return nil, fmt.Errorf("relay the p2p links: %w", err)
		}
	}
	for i, offset := range m.clockFaults() {
		if err := nw.net.SetClockOffset(i, env.ClockBin, offset); err != nil {
			nw.close()
			return nil, err
		}
	}
	for i := range nw.net.Nodes {
		if err := nw.start(i); err != nil {
			nw.close()
			return nil, fmt.Errorf("start network: %w", err)
		}
	}
	wctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	if err := nw.net.WaitReady(wctx); err != nil {
		nw.close()
		return nil, fmt.Errorf("network did not become ready: %w", err)
	}
	st, err := nw.client(0, nil).Status(wctx)
	if err != nil {
		nw.close()
		return nil, fmt.Errorf("status of node0: %w", err)
	}
	nw.chainID = st.ChainID
	if err := nw.addFullNodes(wctx, opts.Dir, env); err != nil {
		nw.close()
		return nil, err
	}
	return nw, nil
}

// addFullNodes adds the manifest's full nodes to the running network
// (netctl.AddNode: every validator a persistent peer, replaying from
// genesis) and waits until every node answers. Their databases are the
// backend's own for "full<j>" (on a server, reached directly: they run in
// the caller's namespace).
func (nw *network) addFullNodes(ctx context.Context, dir string, env Env) error {
	if nw.m.FullNodes == 0 {
		return nil
	}
	tmpl, err := env.DSNTemplate(nw.m.Backend)
	if err != nil {
		return err
	}
	for j := range nw.m.FullNodes {
		name := fmt.Sprintf("full%d", j)
		dsn := ""
		if tmpl != "" {
			dsn = strings.ReplaceAll(tmpl, "{node}", name)
		}
		info, err := netctl.AddNode(ctx, netctl.JoinOptions{Dir: dir, Name: name, DSN: dsn})
		if err != nil {
			return fmt.Errorf("add full node %s: %w", name, err)
		}
		if err := nw.start(nw.net.Add(info)); err != nil {
			return fmt.Errorf("start full node %s: %w", name, err)
		}
	}
	if err := nw.net.WaitReady(ctx); err != nil {
		return fmt.Errorf("the full nodes did not become ready: %w", err)
	}
	return nil
}

// close stops every node, then removes the namespaces (a namespace with
// a process inside outlives its deletion).
func (nw *network) close() {
	if nw.net != nil {
		nw.stopAll()
	}
	if nw.links != nil {
		_ = nw.links.Close()
	}
	nw.unmountDisks()
	if nw.relay != nil {
		_ = nw.relay.Close()
	}
	for _, r := range nw.relays {
		_ = r.Close()
	}
	for _, s := range nw.servers {
		_ = s.stop()
	}
	if nw.shared != nil {
		_ = nw.shared.stop()
	}
	if nw.serversDir != "" {
		_ = os.RemoveAll(nw.serversDir)
	}
	if nw.ns != nil {
		_ = nw.ns.Close()
	}
}

// client returns a client of node i signing with key (nil: read-only).
func (nw *network) client(i int, key []byte) *client.Client {
	c, err := nw.net.Client(i, key)
	if err != nil {
		panic(fmt.Sprintf("client of node %d: %v", i, err)) // a URL netctl made: a bug
	}
	if nw.chainID != "" {
		c.SetChainID(nw.chainID)
	}
	return c
}

// height is node i's committed height, or -1 if it does not answer
// within a short time (killed, paused, cut off).
func (nw *network) height(ctx context.Context, i int) int64 {
	ctx, cancel := context.WithTimeout(ctx, 700*time.Millisecond)
	defer cancel()
	info, err := nw.client(i, nil).RPC().ABCIInfo(ctx)
	if err != nil {
		return -1
	}
	return info.Response.LastBlockHeight
}

// running reports whether node i's process is alive.
func (nw *network) running(i int) bool { return nw.net.Running(i) }

// heights polls every node.
func (nw *network) heights(ctx context.Context) []int64 {
	out := make([]int64, len(nw.net.Nodes))
	for i := range out {
		out[i] = nw.height(ctx, i)
	}
	return out
}

// apply carries out one perturbation and confirms it took effect
// (effects.go): an error either way.
func (nw *network) apply(p Perturb) error {
	switch p.Action {
	case ActKill:
		return nw.kill(p.Node)
	case ActRestart:
		return nw.restartKilled(p.Node)
	case ActPause:
		return nw.pause(p.Node)
	case ActResume:
		return nw.resume(p.Node)
	case ActPartition:
		if err := nw.ns.Partition(p.Groups...); err != nil {
			return err
		}
		return nw.confirmLinks()
	case ActDisconnect:
		if err := nw.ns.Disconnect(p.Node); err != nil {
			return err
		}
		return nw.confirmLinks()
	case ActHeal:
		if err := nw.ns.Heal(); err != nil {
			return err
		}
		return nw.confirmLinks()
	case ActClock:
		return nil // in force since the node started (startNetwork)
	case ActTamper:
		return nw.tamper(p.Node, p.SQL)
	case ActRebuild:
		return nw.rebuild(p.Node)
	case ActDiskFull:
		return nw.fillDisk(p.Node)
	case ActFreeDisk:
		return nw.freeDisk(p.Node)
	case ActDelay:
		return nw.setDelay(p.Node, p.Latency.Duration, p.Jitter.Duration)
	case ActUndelay:
		return nw.setDelay(p.Node, 0, 0)
	case ActDBDisconnect:
		if p.For.Duration > 0 {
			return nw.startDisconnecting(p.Node)
		}
		return nw.terminateConnections(p.Node)
	case ActDBReconnect:
		return nw.stopDisconnecting(p.Node)
	case ActDBKill:
		return nw.servers[p.Node].kill()
	case ActDBRestart:
		return nw.servers[p.Node].restart(context.Background())
	case ActSharedDBKill:
		return nw.shared.kill()
	case ActSharedDBRestart:
		return nw.shared.restart(context.Background())
	case ActStateSyncKill:
		return nw.stateSyncKill()
	case ActStateSyncRestart:
		return nw.restartKilled(len(nw.net.Nodes) - 1)
	case ActRestartAll:
		return nw.restartAll()
	case ActThrottle:
		return nw.setThrottle(p.Node, p.Rate)
	case ActUnthrottle:
		return nw.setThrottle(p.Node, "")
	}
	return fmt.Errorf("unknown action %q", p.Action)
}

// undoAll brings every node back: heals links, frees full disks,
// rebuilds tampered nodes, resumes and restarts.
func (nw *network) undoAll(paused map[int]bool) error {
	if nw.ns != nil {
		if err := nw.ns.Heal(); err != nil {
			return err
		}
		for i := range nw.throttled {
			if err := nw.ns.Unthrottle(i); err != nil {
				return err
			}
			delete(nw.throttled, i)
		}
	}
	var errs []error
	for i := range nw.disconnecting {
		errs = append(errs, nw.stopDisconnecting(i))
	}
	for _, srv := range nw.servers {
		if !srv.running() {
			errs = append(errs, srv.restart(context.Background()))
		}
	}
	if nw.shared != nil && !nw.shared.running() {
		errs = append(errs, nw.shared.restart(context.Background()))
	}
	for i := range nw.fills {
		errs = append(errs, nw.freeDisk(i))
	}
	for i := range nw.tampered {
		errs = append(errs, nw.rebuild(i))
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	for i := range nw.net.Nodes {
		if paused[i] {
			if err := nw.net.Resume(i); err != nil {
				return err
			}
		}
		if !nw.net.Running(i) {
			// A node that crashed on its own was reported when it exited
			// (start's watch); it runs again so the checks can read it.
			if err := nw.start(i); err != nil {
				return err
			}
		}
	}
	return nil
}

// BuildClockBinary builds the fault-injection relchain (go build -tags
// e2e_clock: internal/clockfault) into dir for the nodes of clock faults.
// Release builds never contain it.
func BuildClockBinary(dir string) (string, error) {
	bin := filepath.Join(dir, "relchain-e2e-clock")
	cmd := exec.Command("go", "build", "-tags", "e2e_clock", "-o", bin, "github.com/relchain/relchain/cmd/relchain")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build the e2e_clock relchain: %w\n%s", err, out)
	}
	return bin, nil
}
