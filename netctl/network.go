package netctl

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/relchain/relchain/client"
)

// Network runs the nodes of a generated network as child processes of the
// relchain binary Bin (`Bin node --home HOME`), each logging to
// HOME/node.log.
type Network struct {
	Bin   string
	Nodes []NodeInfo
	// ExtraArgs are appended to every node's command line, e.g.
	// {"--app", "kvstore"} for the consensus-ceiling network.
	ExtraArgs []string
	// NodeArgs and NodeEnv, if set, add arguments and environment variables
	// ("NAME=value") for node i only (e.g. a byzantine proposer, or a node
	// with another time zone).
	NodeArgs [][]string
	NodeEnv  [][]string
	// NodeBin, if set, runs node i with NodeBin[i] instead of Bin where
	// it is not "" (e.g. a fault-injection build: SetClockOffset).
	NodeBin []string
	// Namespaces, if set, runs node i inside the network namespace
	// Namespaces.Name(i) (`ip netns exec`), so that Partition and
	// Disconnect cut its links.
	Namespaces *Namespaces
	// Links, if set, are the relays the nodes' p2p links run through
	// (RelayLinks); StopAll closes them once the nodes have stopped.
	Links *LinkRelays

	mu    sync.Mutex
	procs []*proc
}

type proc struct {
	cmd  *exec.Cmd
	done chan struct{}
	err  error
}

// NewNetwork prepares to run nodes with the relchain binary bin.
func NewNetwork(bin string, nodes []NodeInfo) *Network {
	return &Network{Bin: bin, Nodes: nodes, procs: make([]*proc, len(nodes))}
}

// Add adds a node (e.g. made by AddNode) and returns its index.
func (n *Network) Add(info NodeInfo) int {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.Nodes = append(n.Nodes, info)
	n.procs = append(n.procs, nil)
	return len(n.Nodes) - 1
}

// LogFile is the log of node i.
func (n *Network) LogFile(i int) string { return filepath.Join(n.Nodes[i].Home, "node.log") }

// Start starts node i; it fails if it is already running.
func (n *Network) Start(i int) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if p := n.procs[i]; p != nil && !p.exited() {
		return fmt.Errorf("%s is already running", n.Nodes[i].Name)
	}
	logf, err := os.OpenFile(n.LogFile(i), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("%s: open log: %w", n.Nodes[i].Name, err)
	}
	args := append([]string{"node", "--home", n.Nodes[i].Home}, n.ExtraArgs...)
	if i < len(n.NodeArgs) {
		args = append(args, n.NodeArgs[i]...)
	}
	bin := n.Bin
	if i < len(n.NodeBin) && n.NodeBin[i] != "" {
		bin = n.NodeBin[i]
	}
	cmd := exec.Command(bin, args...)
	if n.Namespaces != nil && i < n.Namespaces.nodes {
		// ip netns exec enters the namespace and execs the node: the
		// node keeps the pid (signals, Pdeathsig) of the child. A node
		// added later (a full node, AddNode) runs in the caller's
		// namespace and reaches the others through the bridge.
		cmd = exec.Command("ip", append([]string{"netns", "exec", n.Namespaces.Name(i), bin}, args...)...)
	}
	if i < len(n.NodeEnv) && len(n.NodeEnv[i]) > 0 {
		cmd.Env = append(os.Environ(), n.NodeEnv[i]...)
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	// Pdeathsig: a node outlives neither a crashed localnet nor a test
	// binary killed at its timeout (which runs no cleanup).
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	if err := cmd.Start(); err != nil {
		logf.Close()
		return fmt.Errorf("%s: start %s: %w", n.Nodes[i].Name, bin, err)
	}
	p := &proc{cmd: cmd, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		logf.Close()
		close(p.done)
	}()
	n.procs[i] = p
	return nil
}

func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// StartAll starts every node.
func (n *Network) StartAll() error {
	for i := range n.Nodes {
		if err := n.Start(i); err != nil {
			n.StopAll()
			return err
		}
	}
	return nil
}

// Kill sends SIGKILL to node i and waits for it to die.
func (n *Network) Kill(i int) error { return n.signal(i, syscall.SIGKILL, 10*time.Second) }

// Stop sends SIGTERM to node i and waits (then SIGKILL after 30 s).
func (n *Network) Stop(i int) error {
	err := n.signal(i, syscall.SIGTERM, 30*time.Second)
	if errors.Is(err, errTimeout) {
		return n.Kill(i)
	}
	return err
}

// Pause sends SIGSTOP to node i: the process keeps its connections open
// but answers nothing, as a hung or overloaded validator would. Resume
// undoes it; Stop and Kill work on a paused node too (Stop sends SIGCONT
// after its SIGTERM, which a stopped process only sees once it runs).
func (n *Network) Pause(i int) error { return n.signalRunning(i, syscall.SIGSTOP) }

// Resume sends SIGCONT to a paused node i.
func (n *Network) Resume(i int) error { return n.signalRunning(i, syscall.SIGCONT) }

func (n *Network) signalRunning(i int, sig syscall.Signal) error {
	n.mu.Lock()
	p := n.procs[i]
	n.mu.Unlock()
	if p == nil || p.exited() {
		return fmt.Errorf("%s: not running", n.Nodes[i].Name)
	}
	if err := p.cmd.Process.Signal(sig); err != nil {
		return fmt.Errorf("%s: signal %v: %w", n.Nodes[i].Name, sig, err)
	}
	return nil
}

var errTimeout = errors.New("timed out waiting for the process to exit")

func (n *Network) signal(i int, sig syscall.Signal, wait time.Duration) error {
	n.mu.Lock()
	p := n.procs[i]
	n.mu.Unlock()
	if p == nil || p.exited() {
		return nil
	}
	if err := p.cmd.Process.Signal(sig); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("%s: signal: %w", n.Nodes[i].Name, err)
	}
	if sig != syscall.SIGKILL {
		// A paused node (Pause) handles SIGTERM only once continued.
		_ = p.cmd.Process.Signal(syscall.SIGCONT)
	}
	select {
	case <-p.done:
		return nil
	case <-time.After(wait):
		return fmt.Errorf("%s: %w", n.Nodes[i].Name, errTimeout)
	}
}

// StopAll stops every running node.
func (n *Network) StopAll() {
	var wg sync.WaitGroup
	for i := range n.Nodes {
		wg.Add(1)
		go func(i int) { defer wg.Done(); _ = n.Stop(i) }(i)
	}
	wg.Wait()
	if n.Links != nil {
		_ = n.Links.Close()
		n.Links = nil
	}
}

// Running reports whether node i's process is alive.
func (n *Network) Running(i int) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.procs[i] != nil && !n.procs[i].exited()
}

// Pid is the process id of node i's current process, or 0 if it never
// started. The process may have exited since (Running says).
func (n *Network) Pid(i int) int {
	n.mu.Lock()
	defer n.mu.Unlock()
	if p := n.procs[i]; p != nil && p.cmd.Process != nil {
		return p.cmd.Process.Pid
	}
	return 0
}

// Exited returns a channel closed when node i's current process exits.
func (n *Network) Exited(i int) <-chan struct{} {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.procs[i] == nil {
		c := make(chan struct{})
		close(c)
		return c
	}
	return n.procs[i].done
}

// Watch returns, for node i's current process, a channel closed when it
// exits and a function telling how it ended (ExitError of that process,
// even after node i was started again).
func (n *Network) Watch(i int) (<-chan struct{}, func() error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	p := n.procs[i]
	if p == nil {
		c := make(chan struct{})
		close(c)
		return c, func() error { return nil }
	}
	return p.done, func() error { <-p.done; return p.err }
}

// ExitError is how node i's current process ended: nil while it runs or
// after a clean exit, the *exec.ExitError (or signal) otherwise.
func (n *Network) ExitError(i int) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if p := n.procs[i]; p != nil && p.exited() {
		return p.err
	}
	return nil
}

// Client returns a client of node i.
func (n *Network) Client(i int, key []byte) (*client.Client, error) {
	return client.New(n.Nodes[i].RPC, key)
}

// WaitHeight waits until node i's application has committed height h. It
// fails early if the node's process exits.
func (n *Network) WaitHeight(ctx context.Context, i int, h int64) error {
	return n.waitUntil(ctx, i, fmt.Sprintf("reach height %d", h), func(c *client.Client) bool {
		info, err := c.RPC().ABCIInfo(ctx)
		return err == nil && info.Response.LastBlockHeight >= h
	})
}

// waitUntil polls node i until done says so, the node exits or ctx ends;
// what names the wait in the error.
func (n *Network) waitUntil(ctx context.Context, i int, what string, done func(*client.Client) bool) error {
	c, err := client.New(n.Nodes[i].RPC, nil)
	if err != nil {
		return err
	}
	exited := n.Exited(i)
	for {
		if done(c) {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s did not %s: %w (log: %s)", n.Nodes[i].Name, what, ctx.Err(), n.LogFile(i))
		case <-exited:
			return fmt.Errorf("%s exited before it could %s (log: %s)", n.Nodes[i].Name, what, n.LogFile(i))
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// WaitReady waits until every node has committed at least one block and
// runs consensus: a node that started behind its peers block-syncs first,
// and until it has caught up it answers /readyz with 503 and its status
// says catching_up (CometBFT's consensus reactor still waiting for sync).
func (n *Network) WaitReady(ctx context.Context) error {
	for i := range n.Nodes {
		err := n.waitUntil(ctx, i, "commit a block and catch up", func(c *client.Client) bool {
			st, err := c.RPC().Status(ctx)
			return err == nil && st.SyncInfo.LatestBlockHeight >= 1 && !st.SyncInfo.CatchingUp
		})
		if err != nil {
			return err
		}
	}
	return nil
}
