package netctl

import (
	"bytes"
	"fmt"
	"os/exec"
	"regexp"
	"strings"
)

// rateSyntax is what Throttle accepts: tc's rate units.
var rateSyntax = regexp.MustCompile(`^[1-9][0-9]*(bit|kbit|mbit|gbit)$`)

// Throttle caps node i's link to the bridge at rate in both directions
// (a token-bucket filter on each end of its veth, tc's tbf: this kernel
// has no netem). Packets beyond what the bucket and a 200 ms queue hold are
// dropped, so a node sending faster than rate sees real packet loss and
// TCP's retransmissions. Unthrottle (or Close) takes it off.
func (ns *Namespaces) Throttle(i int, rate string) error {
	if !rateSyntax.MatchString(rate) {
		return fmt.Errorf("throttle: rate %q: want a number and bit, kbit, mbit or gbit", rate)
	}
	if i < 0 || i >= ns.nodes {
		return fmt.Errorf("throttle: no node %d (the network has %d)", i, ns.nodes)
	}
	tbf := []string{"root", "tbf", "rate", rate, "burst", "32kbit", "latency", "200ms"}
	return runTC(
		append([]string{"-n", ns.Name(i), "qdisc", "replace", "dev", "eth0"}, tbf...),
		append([]string{"qdisc", "replace", "dev", ns.hostVeth(i)}, tbf...),
	)
}

// Unthrottle takes node i's rate cap off.
func (ns *Namespaces) Unthrottle(i int) error {
	return runTC(
		[]string{"-n", ns.Name(i), "qdisc", "del", "dev", "eth0", "root"},
		[]string{"qdisc", "del", "dev", ns.hostVeth(i), "root"},
	)
}

func (ns *Namespaces) hostVeth(i int) string { return fmt.Sprintf("%sh%d", ns.prefix, i) }

func runTC(cmds ...[]string) error {
	for _, args := range cmds {
		if out, err := exec.Command("tc", args...).CombinedOutput(); err != nil {
			return fmt.Errorf("tc %s: %w: %s", strings.Join(args, " "), err, bytes.TrimSpace(out))
		}
	}
	return nil
}

// Throttled reports whether node i's link is capped: a tbf qdisc on both
// ends of its veth (true), on neither (false); one end only is an error.
func (ns *Namespaces) Throttled(i int) (bool, error) {
	inside, err := exec.Command("tc", "-n", ns.Name(i), "qdisc", "show", "dev", "eth0").CombinedOutput()
	if err != nil {
		return false, fmt.Errorf("tc qdisc show in %s: %w: %s", ns.Name(i), err, bytes.TrimSpace(inside))
	}
	outside, err := exec.Command("tc", "qdisc", "show", "dev", ns.hostVeth(i)).CombinedOutput()
	if err != nil {
		return false, fmt.Errorf("tc qdisc show dev %s: %w: %s", ns.hostVeth(i), err, bytes.TrimSpace(outside))
	}
	in, out := bytes.Contains(inside, []byte("tbf")), bytes.Contains(outside, []byte("tbf"))
	if in != out {
		return false, fmt.Errorf("node%d's link is capped on one end only (inside %v, outside %v)", i, in, out)
	}
	return in, nil
}
