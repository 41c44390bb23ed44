package e2e

import (
	"fmt"
	"time"
)

// Added latency without netem: this machine's kernel has no sch_netem
// ("Specified qdisc kind is unknown"), so a manifest with a delay fault
// routes every p2p link through a relay of its own in the harness
// (netctl.RelayLinks). A delay fault on node n sets the delay of every
// relay with n at either end, both directions: each byte between n and a
// peer arrives that much later, one way.

// setDelay gives every link of node i the one-way delay d (plus up to
// jitter), both directions, and confirms it on one link: a peer's first
// byte through node i's relay to it arrives at least d later, or (d = 0,
// the undo) sooner than the delay taken off.
func (nw *network) setDelay(i int, d, jitter time.Duration) error {
	if nw.links == nil {
		return fmt.Errorf("delay on node%d: the links do not run through relays", i)
	}
	nw.links.SetDelay(i, d, jitter)
	prev := nw.delays[i]
	nw.delays[i] = d
	peer := -1
	for j := range nw.m.Validators {
		if j != i && nw.net.Running(j) {
			peer = j
			break
		}
	}
	if peer < 0 {
		return fmt.Errorf("delay on node%d: no running peer to confirm it with", i)
	}
	got, err := nw.links.FirstByte(i, peer, d+jitter+10*time.Second)
	switch {
	case err != nil:
		return fmt.Errorf("confirm the delay of node%d's links: %w", i, err)
	case d > 0 && got < d:
		return fmt.Errorf("node%d's link to node%d is not delayed: a first byte after %v, want at least %v", i, peer, got, d)
	case d == 0 && prev > 0 && got >= prev:
		return fmt.Errorf("node%d's link to node%d is still delayed: a first byte after %v (the delay taken off was %v)", i, peer, got, prev)
	}
	return nil
}

// setThrottle caps (rate != "") or uncaps node i's link and confirms the
// qdisc on both ends of its veth.
func (nw *network) setThrottle(i int, rate string) error {
	var err error
	if rate != "" {
		nw.throttled[i] = true
		err = nw.ns.Throttle(i, rate)
	} else {
		delete(nw.throttled, i)
		err = nw.ns.Unthrottle(i)
	}
	if err != nil {
		return err
	}
	on, err := nw.ns.Throttled(i)
	if err != nil {
		return err
	}
	if on != (rate != "") {
		return fmt.Errorf("node%d's link capped: %v after setting rate %q", i, on, rate)
	}
	return nil
}
