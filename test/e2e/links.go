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
// jitter), both directions.
func (nw *network) setDelay(i int, d, jitter time.Duration) error {
	if nw.links == nil {
		return fmt.Errorf("delay on node%d: the links do not run through relays", i)
	}
	nw.links.SetDelay(i, d, jitter)
	return nil
}
