package netctl

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Namespaces gives each node of a network a Linux network namespace of
// its own, joined by a veth pair to one bridge in the caller's namespace:
// node i has the address Host(i) on the bridge's /24, and the caller (a
// test, a client) reaches every node through the bridge. A partition is
// a set of blackhole routes inside the namespaces (node a drops what it
// sends to node b, and b what it sends to a), so it cuts exactly the
// links named, leaves the caller's links up, and heals by deleting the
// routes: TCP connections whose packets were dropped carry on.
//
// Everything is named after the owning process (prefix "rce2e<pid>"): a
// namespace or bridge whose process is gone is stale and removed by the
// next NewNamespaces (SweepStaleNamespaces). Close removes what this one
// created; call it on every exit path. It needs root and `ip` (iproute2).
type Namespaces struct {
	prefix string
	subnet string // "10.213.S": bridge .1, node i at .(10+i)
	nodes  int

	mu      sync.Mutex
	blocked map[[2]int]bool // a → b dropped in a's namespace
	closed  bool
}

// namespacePrefix names everything a process creates; the pid after it
// tells a sweep whether the owner is alive.
const namespacePrefix = "rce2e"

var openNamespaces sync.Mutex // one Namespaces per process at a time

// NewNamespaces creates the bridge and n namespaces, each with its veth
// and loopback up. It sweeps stale namespaces first. On an error it
// removes what it created.
func NewNamespaces(n int) (_ *Namespaces, err error) {
	if n < 1 || n > 200 {
		return nil, fmt.Errorf("namespaces for %d nodes: want 1 to 200", n)
	}
	if !openNamespaces.TryLock() {
		return nil, errors.New("this process already has network namespaces open (close them first)")
	}
	defer func() {
		if err != nil {
			openNamespaces.Unlock()
		}
	}()
	if err := SweepStaleNamespaces(); err != nil {
		return nil, err
	}
	pid := os.Getpid()
	subnet, err := freeSubnet(pid)
	if err != nil {
		return nil, err
	}
	ns := &Namespaces{
		prefix:  namespacePrefix + strconv.Itoa(pid),
		subnet:  subnet,
		nodes:   n,
		blocked: map[[2]int]bool{},
	}
	defer func() {
		if err != nil {
			ns.removeAll()
		}
	}()
	if err := ns.createBridge(); err != nil {
		return nil, err
	}
	for i := range n {
		if err := ns.createNode(i); err != nil {
			return nil, err
		}
	}
	return ns, nil
}

// freeSubnet picks a 10.213.S.0/24 no interface of this namespace uses,
// starting from one the pid chooses (two runs at once get two bridges).
func freeSubnet(pid int) (string, error) {
	out, err := exec.Command("ip", "-o", "-4", "addr", "show").Output()
	if err != nil {
		return "", fmt.Errorf("list addresses: %w", err)
	}
	for k := range 250 {
		subnet := fmt.Sprintf("10.213.%d", (pid+k)%250+1)
		if !bytes.Contains(out, []byte(" "+subnet+".")) {
			return subnet, nil
		}
	}
	return "", errors.New("no free 10.213.S.0/24 for a bridge")
}

// Name is node i's namespace (for `ip netns exec`).
func (ns *Namespaces) Name(i int) string { return fmt.Sprintf("%sn%d", ns.prefix, i) }

// Host is node i's address.
func (ns *Namespaces) Host(i int) string { return fmt.Sprintf("%s.%d", ns.subnet, 10+i) }

// Gateway is the bridge's address in the caller's namespace: what a node
// dials to reach a service of the caller's (a relay to a database that
// listens on the caller's loopback, say).
func (ns *Namespaces) Gateway() string { return ns.subnet + ".1" }

func (ns *Namespaces) bridge() string { return ns.prefix + "b" }

func (ns *Namespaces) createBridge() error {
	br := ns.bridge()
	return runIP([][]string{
		{"link", "add", br, "type", "bridge"},
		{"addr", "add", ns.subnet + ".1/24", "dev", br},
		{"link", "set", br, "up"},
	})
}

func (ns *Namespaces) createNode(i int) error {
	name := ns.Name(i)
	host, peer := ns.hostVeth(i), fmt.Sprintf("%sp%d", ns.prefix, i)
	return runIP([][]string{
		{"netns", "add", name},
		{"link", "add", host, "type", "veth", "peer", "name", peer, "netns", name},
		{"link", "set", host, "master", ns.bridge(), "up"},
		{"-n", name, "link", "set", peer, "name", "eth0"},
		{"-n", name, "addr", "add", ns.Host(i) + "/24", "dev", "eth0"},
		{"-n", name, "link", "set", "eth0", "up"},
		{"-n", name, "link", "set", "lo", "up"},
	})
}

// Partition cuts every link between nodes of different groups (both
// directions); links inside a group and the caller's links stay up. A
// node in no group keeps all its links. Partitions add up until Heal.
func (ns *Namespaces) Partition(groups ...[]int) error {
	group := map[int]int{}
	for g, nodes := range groups {
		for _, i := range nodes {
			if i < 0 || i >= ns.nodes {
				return fmt.Errorf("partition: no node %d (the network has %d)", i, ns.nodes)
			}
			if _, dup := group[i]; dup {
				return fmt.Errorf("partition: node %d is in two groups", i)
			}
			group[i] = g
		}
	}
	for a := range ns.nodes {
		for b := range ns.nodes {
			ga, oka := group[a]
			gb, okb := group[b]
			if oka && okb && ga != gb {
				if err := ns.block(a, b); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// Disconnect cuts every link between node i and the other nodes.
func (ns *Namespaces) Disconnect(i int) error {
	rest := []int{}
	for j := range ns.nodes {
		if j != i {
			rest = append(rest, j)
		}
	}
	return ns.Partition([]int{i}, rest)
}

func (ns *Namespaces) block(a, b int) error {
	ns.mu.Lock()
	defer ns.mu.Unlock()
	if ns.blocked[[2]int{a, b}] {
		return nil
	}
	if err := runIP([][]string{{"-n", ns.Name(a), "route", "add", "blackhole", ns.Host(b) + "/32"}}); err != nil {
		return fmt.Errorf("cut node%d → node%d: %w", a, b, err)
	}
	ns.blocked[[2]int{a, b}] = true
	return nil
}

// Heal restores every link Partition or Disconnect cut.
func (ns *Namespaces) Heal() error {
	ns.mu.Lock()
	defer ns.mu.Unlock()
	var errs []error
	for _, l := range sortedLinks(ns.blocked) {
		if err := runIP([][]string{{"-n", ns.Name(l[0]), "route", "del", "blackhole", ns.Host(l[1]) + "/32"}}); err != nil {
			errs = append(errs, fmt.Errorf("heal node%d → node%d: %w", l[0], l[1], err))
			continue
		}
		delete(ns.blocked, l)
	}
	return errors.Join(errs...)
}

// Reachable reports whether a new TCP connection from inside node from's
// namespace to node to's address on port opens within timeout: nil if it
// does, else why not. It probes the effect of Partition, Disconnect and
// Heal (a blackhole route fails the connect at once). It runs bash's
// /dev/tcp in the namespace (`ip netns exec`): no tool to install.
func (ns *Namespaces) Reachable(from, to int, port string, timeout time.Duration) error {
	secs := fmt.Sprintf("%.1f", timeout.Seconds())
	script := fmt.Sprintf("exec 3<>/dev/tcp/%s/%s", ns.Host(to), port)
	out, err := exec.Command("ip", "netns", "exec", ns.Name(from), "timeout", secs, "bash", "-c", script).CombinedOutput()
	if err != nil {
		return fmt.Errorf("node%d → node%d port %s: %w: %s", from, to, port, err, bytes.TrimSpace(out))
	}
	return nil
}

// Cut lists the links currently cut, as [from, to] pairs in order.
func (ns *Namespaces) Cut() [][2]int {
	ns.mu.Lock()
	defer ns.mu.Unlock()
	return sortedLinks(ns.blocked)
}

func sortedLinks(m map[[2]int]bool) [][2]int {
	out := make([][2]int, 0, len(m))
	for l := range m {
		out = append(out, l)
	}
	slices.SortFunc(out, func(x, y [2]int) int {
		if x[0] != y[0] {
			return x[0] - y[0]
		}
		return x[1] - y[1]
	})
	return out
}

// Close deletes the namespaces (their veths go with them) and the bridge.
// Stop the nodes first: a process inside a deleted namespace keeps it
// alive, unreachable, until it exits.
func (ns *Namespaces) Close() error {
	ns.mu.Lock()
	if ns.closed {
		ns.mu.Unlock()
		return nil
	}
	ns.closed = true
	ns.mu.Unlock()
	defer openNamespaces.Unlock()
	return ns.removeAll()
}

func (ns *Namespaces) removeAll() error {
	return removeOwned(ns.prefix)
}

// removeOwned deletes every link (host-side veths first), namespace and
// bridge whose name starts with prefix followed by "h", "n" or "b" (an
// owner's objects). The veths go explicitly: deleting a namespace tears
// its devices down asynchronously, so a host-side end could still exist
// when the same process creates namespaces again (seen in CI: "ip link add
// rce2e905h0 …: File exists").
func removeOwned(prefix string) error {
	var errs []error
	links, err := exec.Command("ip", "-o", "link", "show").Output()
	if err != nil {
		return fmt.Errorf("list links: %w", err)
	}
	for _, line := range strings.Split(string(links), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		name, _, _ := strings.Cut(strings.TrimSuffix(f[1], ":"), "@")
		if owner(name) == prefix && strings.HasPrefix(name[len(prefix):], "h") {
			if err := runIP([][]string{{"link", "del", name}}); err != nil {
				errs = append(errs, err)
			}
		}
	}
	names, err := listNamespaces()
	if err != nil {
		return err
	}
	for _, name := range names {
		if owner(name) == prefix {
			if err := runIP([][]string{{"netns", "del", name}}); err != nil {
				errs = append(errs, err)
			}
		}
	}
	if _, err := exec.Command("ip", "link", "show", prefix+"b").Output(); err == nil {
		if err := runIP([][]string{{"link", "del", prefix + "b"}}); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// SweepStaleNamespaces removes the namespaces and bridges left by
// processes that are gone (a test binary killed at its timeout runs no
// cleanup).
func SweepStaleNamespaces() error {
	names, err := listNamespaces()
	if err != nil {
		return err
	}
	links, err := exec.Command("ip", "-o", "link", "show", "type", "bridge").Output()
	if err != nil {
		return fmt.Errorf("list bridges: %w", err)
	}
	for _, f := range strings.Fields(string(links)) {
		if name := strings.TrimSuffix(f, ":"); name != f && strings.HasPrefix(name, namespacePrefix) {
			names = append(names, name)
		}
	}
	var errs []error
	done := map[string]bool{}
	for _, name := range names {
		o := owner(name)
		if o == "" || done[o] || ownerAlive(o) {
			continue
		}
		done[o] = true
		errs = append(errs, removeOwned(o))
	}
	return errors.Join(errs...)
}

// owner returns the "rce2e<pid>" prefix of a name this file made, or "".
func owner(name string) string {
	if !strings.HasPrefix(name, namespacePrefix) {
		return ""
	}
	rest := name[len(namespacePrefix):]
	end := strings.IndexFunc(rest, func(r rune) bool { return r < '0' || r > '9' })
	if end <= 0 || !strings.ContainsRune("nbhp", rune(rest[end])) {
		return ""
	}
	return namespacePrefix + rest[:end]
}

func ownerAlive(prefix string) bool {
	pid := strings.TrimPrefix(prefix, namespacePrefix)
	if pid == strconv.Itoa(os.Getpid()) {
		return true
	}
	_, err := os.Stat("/proc/" + pid)
	return err == nil
}

func listNamespaces() ([]string, error) {
	out, err := exec.Command("ip", "netns", "list").Output()
	if err != nil {
		return nil, fmt.Errorf("ip netns list: %w", err)
	}
	var names []string
	for _, line := range bytes.Split(out, []byte("\n")) {
		if f := strings.Fields(string(line)); len(f) > 0 {
			names = append(names, f[0])
		}
	}
	return names, nil
}

// NamespacesSupported reports why this machine cannot run nodes in
// network namespaces (not root, no `ip`), or nil.
func NamespacesSupported() error {
	if os.Geteuid() != 0 {
		return errors.New("network namespaces need root")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		return fmt.Errorf("network namespaces need ip (iproute2): %w", err)
	}
	if _, err := os.Stat("/proc/self/ns/net"); err != nil {
		return fmt.Errorf("this kernel has no network namespaces: %w", err)
	}
	return nil
}

func runIP(cmds [][]string) error {
	for _, args := range cmds {
		if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
			return fmt.Errorf("ip %s: %w: %s", strings.Join(args, " "), err, bytes.TrimSpace(out))
		}
	}
	return nil
}
