package netctl

import (
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/relchain/relchain/internal/tcprelay"
	"github.com/relchain/relchain/node"
)

// LinkRelays carry every p2p link of a network through a relay of their
// own, in this process, so that latency can be added per link where the
// kernel has no netem qdisc (tcprelay.StartDelayed): node i reaches peer
// j only at relay (i, j), which forwards to j's p2p address.
type LinkRelays struct {
	relays map[[2]int]*tcprelay.Relay
}

// RelayLinks starts a delaying relay per ordered pair of nodes, listening
// on host (an address every node reaches: 127.0.0.1, or the namespaces'
// gateway), and rewrites each node's persistent peers to its relays, with
// peer exchange off so that no node learns a direct address. The nodes
// must have been generated (Generate) and not started.
func RelayLinks(nodes []NodeInfo, host string) (l *LinkRelays, err error) {
	l = &LinkRelays{relays: map[[2]int]*tcprelay.Relay{}}
	defer func() {
		if err != nil {
			l.Close()
		}
	}()
	for i, n := range nodes {
		cc, rc, err := node.LoadConfig(n.Home)
		if err != nil {
			return nil, err
		}
		ids, err := peerIDs(cc.P2P.PersistentPeers)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", n.Name, err)
		}
		var peers []string
		for j, m := range nodes {
			if j == i {
				continue
			}
			id, ok := ids[m.P2P]
			if !ok {
				return nil, fmt.Errorf("%s has no persistent peer at %s's %s", n.Name, m.Name, m.P2P)
			}
			r, err := tcprelay.StartDelayed(host+":0", m.P2P)
			if err != nil {
				return nil, err
			}
			l.relays[[2]int{i, j}] = r
			peers = append(peers, id+"@"+r.Addr())
		}
		cc.P2P.PersistentPeers = strings.Join(peers, ",")
		cc.P2P.PexReactor = false
		cc.P2P.AllowDuplicateIP = true // every relayed peer comes from the relays' address
		if err := node.SaveConfig(n.Home, cc, rc); err != nil {
			return nil, err
		}
	}
	return l, nil
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

// SetDelay gives every link of node i the one-way delay d plus a uniform
// draw below jitter, in both directions, from now on; i < 0 means every
// link.
func (l *LinkRelays) SetDelay(i int, d, jitter time.Duration) {
	for ends, r := range l.relays {
		if i < 0 || ends[0] == i || ends[1] == i {
			r.SetDelay(d, jitter)
		}
	}
}

// Close stops the relays (after the nodes).
func (l *LinkRelays) Close() error {
	var errs []error
	for _, r := range l.relays {
		errs = append(errs, r.Close())
	}
	return errors.Join(errs...)
}

// FirstByte dials the relay that carries node from's link to node to, and
// returns how long to's first byte took to arrive through it: a CometBFT
// node sends its handshake as soon as it accepts, so this is the link's
// one-way delay plus a loopback round trip (the proof that a delay took
// effect). The probe's connection is closed at once; the node sees a
// peer that failed its handshake.
func (l *LinkRelays) FirstByte(from, to int, timeout time.Duration) (time.Duration, error) {
	r, ok := l.relays[[2]int{from, to}]
	if !ok {
		return 0, fmt.Errorf("no relay from node%d to node%d", from, to)
	}
	start := time.Now()
	c, err := net.DialTimeout("tcp", r.Addr(), timeout)
	if err != nil {
		return 0, fmt.Errorf("dial the relay node%d → node%d: %w", from, to, err)
	}
	defer c.Close()
	if err := c.SetReadDeadline(start.Add(timeout)); err != nil {
		return 0, err
	}
	var b [1]byte
	if _, err := c.Read(b[:]); err != nil {
		return 0, fmt.Errorf("node%d's first byte through the relay from node%d: %w", to, from, err)
	}
	return time.Since(start), nil
}
