package netctl

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// Pause freezes node i with SIGSTOP: its process keeps its sockets and its
// state but runs no code, so peers and clients see a node that accepts
// connections (the kernel still does) and answers nothing. A paused node
// is resumed by Resume; Stop and Kill work on it as on a running one.
func (n *Network) Pause(i int) error { return n.sendSignal(i, syscall.SIGSTOP) }

// Resume continues node i after Pause (SIGCONT).
func (n *Network) Resume(i int) error { return n.sendSignal(i, syscall.SIGCONT) }

// sendSignal delivers sig to node i's process without waiting for it to
// exit. A node that is not running is an error: pausing a dead node is a
// mistake in a fault schedule, not a no-op.
func (n *Network) sendSignal(i int, sig syscall.Signal) error {
	n.mu.Lock()
	p := n.procs[i]
	n.mu.Unlock()
	if p == nil || p.exited() {
		return fmt.Errorf("%s: %v: the node is not running", n.Nodes[i].Name, sig)
	}
	if err := p.cmd.Process.Signal(sig); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("%s: send %v: %w", n.Nodes[i].Name, sig, err)
	}
	return nil
}
