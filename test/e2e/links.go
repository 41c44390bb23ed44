package e2e

import (
	"fmt"
	"strings"
	"time"

	"github.com/relchain/relchain/internal/tcprelay"
	"github.com/relchain/relchain/node"
)

// Added latency without netem: this machine's kernel has no sch_netem
// ("Specified qdisc kind is unknown"), so a manifest with a delay fault
// routes every p2p link through a relay of its own in the harness
// (tcprelay.StartDelayed): node i reaches peer j only at relay (i, j),
// which forwards to j's p2p address. A delay fault on node n sets the
// delay of every relay with n at either end, both directions: each byte
// between n and a peer arrives that much later, one way.

// link is an ordered pair of nodes: the dialer and the peer it dials.
type link struct{ from, to int }

// routeLinksThroughRelays starts a delaying relay per ordered pair of
// nodes, listening on host, and rewrites each node's persistent peers to
// its relays, with peer exchange off so that no node learns a direct
// address. The nodes must not have started.
func (nw *network) routeLinksThroughRelays(host string) error {
	nw.links = map[link]*tcprelay.Relay{}
	n := len(nw.net.Nodes)
	for i := range n {
		cc, rc, err := node.LoadConfig(nw.net.Nodes[i].Home)
		if err != nil {
			return err
		}
		ids, err := peerIDs(cc.P2P.PersistentPeers)
		if err != nil {
			return fmt.Errorf("node%d: %w", i, err)
		}
		var peers []string
		for j := range n {
			if j == i {
				continue
			}
			id, ok := ids[nw.net.Nodes[j].P2P]
			if !ok {
				return fmt.Errorf("node%d has no persistent peer at node%d's %s", i, j, nw.net.Nodes[j].P2P)
			}
			r, err := tcprelay.StartDelayed(host+":0", nw.net.Nodes[j].P2P)
			if err != nil {
				return err
			}
			nw.links[link{i, j}] = r
			peers = append(peers, id+"@"+r.Addr())
		}
		cc.P2P.PersistentPeers = strings.Join(peers, ",")
		cc.P2P.PexReactor = false
		cc.P2P.AllowDuplicateIP = true // every relayed peer comes from the relays' address
		if err := node.SaveConfig(nw.net.Nodes[i].Home, cc, rc); err != nil {
			return err
		}
	}
	return nil
}

// peerIDs maps each address of a persistent_peers list to its node ID.
func peerIDs(list string) (map[string]string, error) {
	out := map[string]string{}
	for _, p := range strings.Split(list, ",") {
		id, addr, ok := strings.Cut(strings.TrimSpace(p), "@")
		if !ok {
			return nil, fmt.Errorf("persistent peer %q: want id@host:port", p)
		}
		out[addr] = id
	}
	return out, nil
}

// setDelay gives every link of node i the one-way delay d (plus up to
// jitter), both directions.
func (nw *network) setDelay(i int, d, jitter time.Duration) error {
	if nw.links == nil {
		return fmt.Errorf("delay on node%d: the links do not run through relays", i)
	}
	for l, r := range nw.links {
		if l.from == i || l.to == i {
			r.SetDelay(d, jitter)
		}
	}
	return nil
}

// closeLinks stops the link relays (after the nodes).
func (nw *network) closeLinks() {
	for _, r := range nw.links {
		_ = r.Close()
	}
}
