package netctl

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func mustNamespaces(t *testing.T, n int) *Namespaces {
	t.Helper()
	if err := NamespacesSupported(); err != nil {
		t.Skip(err)
	}
	ns, err := NewNamespaces(n)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ns.Close() })
	return ns
}

// blackholes lists the addresses node i's namespace drops.
func blackholes(t *testing.T, ns *Namespaces, i int) []string {
	t.Helper()
	out, err := exec.Command("ip", "-n", ns.Name(i), "route", "show", "type", "blackhole").Output()
	if err != nil {
		t.Fatalf("routes of %s: %v", ns.Name(i), err)
	}
	var addrs []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if f := strings.Fields(line); len(f) >= 2 {
			addrs = append(addrs, f[1])
		}
	}
	slices.Sort(addrs)
	return addrs
}

func TestPartitionCutsExactlyTheLinksBetweenGroupsAndHealRestoresThem(t *testing.T) {
	ns := mustNamespaces(t, 4)
	if err := ns.Partition([]int{0, 1}, []int{2, 3}); err != nil {
		t.Fatal(err)
	}
	if got, want := blackholes(t, ns, 0), []string{ns.Host(2), ns.Host(3)}; !slices.Equal(got, want) {
		t.Errorf("node0 drops %v, want %v", got, want)
	}
	if got, want := blackholes(t, ns, 3), []string{ns.Host(0), ns.Host(1)}; !slices.Equal(got, want) {
		t.Errorf("node3 drops %v, want %v", got, want)
	}
	if len(ns.Cut()) != 8 {
		t.Errorf("%d links cut, want 8 (2x2 pairs, both ways): %v", len(ns.Cut()), ns.Cut())
	}
	if err := ns.Heal(); err != nil {
		t.Fatal(err)
	}
	for i := range 4 {
		if got := blackholes(t, ns, i); len(got) != 0 {
			t.Errorf("after Heal node%d still drops %v", i, got)
		}
	}
	if err := ns.Disconnect(1); err != nil {
		t.Fatal(err)
	}
	if got := blackholes(t, ns, 1); len(got) != 3 {
		t.Errorf("a disconnected node1 drops %v, want the other three", got)
	}
	if got := blackholes(t, ns, 2); !slices.Equal(got, []string{ns.Host(1)}) {
		t.Errorf("node2 drops %v, want only node1", got)
	}
	if err := ns.Partition([]int{0}, []int{0, 1}); err == nil {
		t.Error("a node in two groups was accepted")
	}
}

func TestCloseAndSweepLeaveNoNamespaceBehind(t *testing.T) {
	ns := mustNamespaces(t, 2)
	names := []string{ns.Name(0), ns.Name(1)}
	// A namespace left by a process that is gone: a pid above pid_max.
	stale := fmt.Sprintf("%s%dn0", namespacePrefix, 1<<23)
	if out, err := exec.Command("ip", "netns", "add", stale).CombinedOutput(); err != nil {
		t.Fatalf("make a stale namespace: %v: %s", err, out)
	}
	if err := ns.Close(); err != nil {
		t.Fatal(err)
	}
	if err := SweepStaleNamespaces(); err != nil {
		t.Fatal(err)
	}
	left, err := listNamespaces()
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range append(names, stale) {
		if slices.Contains(left, n) {
			t.Errorf("namespace %s is still there", n)
		}
	}
	if _, err := os.Stat("/sys/class/net/" + ns.bridge()); err == nil {
		t.Errorf("bridge %s is still there", ns.bridge())
	}
}

func TestOwnerParsesOnlyNamesThisPackageMade(t *testing.T) {
	for name, want := range map[string]string{
		"rce2e123n0": "rce2e123", "rce2e123b": "rce2e123", "rce2e42h3": "rce2e42",
		"rce2en0": "", "rce2e12x": "", "other123n0": "", "rce2e": "",
	} {
		if got := owner(name); got != want {
			t.Errorf("owner(%q) = %q, want %q", name, got, want)
		}
	}
}

func TestThrottleCapsBothEndsOfTheNodesLink(t *testing.T) {
	ns := mustNamespaces(t, 2)
	qdisc := func(args ...string) string {
		out, err := exec.Command("tc", append(args, "qdisc", "show")...).CombinedOutput()
		if err != nil {
			t.Fatalf("tc qdisc show: %v: %s", err, out)
		}
		return string(out)
	}
	inNode := func() string { return qdisc("-n", ns.Name(1)) }
	atHost := func() string {
		out, _ := exec.Command("tc", "qdisc", "show", "dev", ns.hostVeth(1)).CombinedOutput()
		return string(out)
	}
	if err := ns.Throttle(1, "256kbit"); err != nil {
		t.Fatal(err)
	}
	for where, got := range map[string]string{"node1": inNode(), "its host veth": atHost()} {
		if !strings.Contains(got, "tbf") || !strings.Contains(got, "rate 256Kbit") {
			t.Errorf("%s after Throttle: %s", where, got)
		}
	}
	if strings.Contains(qdisc("-n", ns.Name(0)), "tbf") {
		t.Error("node0 was throttled too")
	}
	if err := ns.Unthrottle(1); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(inNode(), "tbf") || strings.Contains(atHost(), "tbf") {
		t.Errorf("still throttled after Unthrottle: %s %s", inNode(), atHost())
	}
	for _, bad := range []string{"fast", "0kbit", "10 mbit", "1tbit"} {
		if err := ns.Throttle(0, bad); err == nil {
			t.Errorf("rate %q accepted", bad)
		}
	}
}

// One process creates namespaces again right after closing them (the e2e
// tests do, one network after another): Close leaves no host-side veth for
// the next NewNamespaces to collide with. Deleting a namespace alone tears
// its veths down asynchronously; CI once failed on it ("ip link add
// rce2e905h0 …: File exists").
func TestNamespacesAgainRightAfterClose(t *testing.T) {
	for round := range 10 {
		ns := mustNamespaces(t, 3)
		if err := ns.Close(); err != nil {
			t.Fatalf("round %d: close: %v", round, err)
		}
	}
}

// listenIn opens a TCP listener on node i's address inside its namespace
// (the socket keeps the namespace it was made in), accepting and closing
// every connection until the test ends.
func listenIn(t *testing.T, ns *Namespaces, i int) string {
	t.Helper()
	type result struct {
		ln  net.Listener
		err error
	}
	got := make(chan result, 1)
	go func() {
		// The thread enters the namespace and is never unlocked: Go
		// discards it when this goroutine ends.
		runtime.LockOSThread()
		f, err := os.Open("/var/run/netns/" + ns.Name(i))
		if err != nil {
			got <- result{err: err}
			return
		}
		defer f.Close()
		if err := unix.Setns(int(f.Fd()), unix.CLONE_NEWNET); err != nil {
			got <- result{err: err}
			return
		}
		ln, err := net.Listen("tcp", net.JoinHostPort(ns.Host(i), "0"))
		got <- result{ln, err}
	}()
	r := <-got
	if r.err != nil {
		t.Fatalf("listen in %s: %v", ns.Name(i), r.err)
	}
	t.Cleanup(func() { _ = r.ln.Close() })
	go func() {
		for {
			c, err := r.ln.Accept()
			if err != nil {
				return
			}
			_ = c.Close()
		}
	}()
	_, port, _ := net.SplitHostPort(r.ln.Addr().String())
	return port
}

func TestReachableSeesCutsAndHeals(t *testing.T) {
	ns := mustNamespaces(t, 3)
	p1, p2 := listenIn(t, ns, 1), listenIn(t, ns, 2)
	if err := ns.Reachable(0, 1, p1, time.Second); err != nil {
		t.Fatalf("before any cut: %v", err)
	}
	if err := ns.Partition([]int{0}, []int{1}); err != nil {
		t.Fatal(err)
	}
	if err := ns.Reachable(0, 1, p1, time.Second); err == nil {
		t.Error("node0 reaches node1 across the cut")
	}
	if err := ns.Reachable(0, 2, p2, time.Second); err != nil {
		t.Errorf("node0 → node2 is not cut: %v", err)
	}
	if err := ns.Heal(); err != nil {
		t.Fatal(err)
	}
	if err := ns.Reachable(0, 1, p1, time.Second); err != nil {
		t.Errorf("after Heal: %v", err)
	}
}

func TestThrottledSeesTheCap(t *testing.T) {
	ns := mustNamespaces(t, 2)
	if on, err := ns.Throttled(1); err != nil || on {
		t.Fatalf("before: %v, %v", on, err)
	}
	if err := ns.Throttle(1, "64kbit"); err != nil {
		t.Fatal(err)
	}
	if on, err := ns.Throttled(1); err != nil || !on {
		t.Fatalf("throttled: %v, %v", on, err)
	}
	if err := ns.Unthrottle(1); err != nil {
		t.Fatal(err)
	}
	if on, err := ns.Throttled(1); err != nil || on {
		t.Fatalf("unthrottled: %v, %v", on, err)
	}
}
