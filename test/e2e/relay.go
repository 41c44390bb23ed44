package e2e

import (
	"errors"
	"fmt"
	"io"
	"net"
	"regexp"
	"sync"
)

// relay forwards TCP connections from an address the nodes' namespaces
// reach (the bridge's) to a database server that listens on the caller's
// loopback only. The server sees a loopback client, as without
// namespaces.
type relay struct {
	ln     net.Listener
	target string
	wg     sync.WaitGroup
	mu     sync.Mutex
	conns  map[net.Conn]bool
}

func startRelay(listenHost, target string) (*relay, error) {
	ln, err := net.Listen("tcp", net.JoinHostPort(listenHost, "0"))
	if err != nil {
		return nil, fmt.Errorf("relay to %s: %w", target, err)
	}
	r := &relay{ln: ln, target: target, conns: map[net.Conn]bool{}}
	r.wg.Add(1)
	go r.accept()
	return r, nil
}

// Addr is where the nodes connect.
func (r *relay) Addr() string { return r.ln.Addr().String() }

func (r *relay) accept() {
	defer r.wg.Done()
	for {
		c, err := r.ln.Accept()
		if err != nil {
			return // closed
		}
		r.wg.Add(1)
		go func() { defer r.wg.Done(); r.pipe(c) }()
	}
}

func (r *relay) pipe(c net.Conn) {
	up, err := net.Dial("tcp", r.target)
	if err != nil {
		c.Close()
		return
	}
	if !r.track(c, up) {
		return
	}
	defer r.untrack(c, up)
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(up, c); done <- struct{}{} }()
	go func() { _, _ = io.Copy(c, up); done <- struct{}{} }()
	<-done
}

func (r *relay) track(cs ...net.Conn) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.conns == nil { // closed
		for _, c := range cs {
			c.Close()
		}
		return false
	}
	for _, c := range cs {
		r.conns[c] = true
	}
	return true
}

func (r *relay) untrack(cs ...net.Conn) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range cs {
		c.Close()
		delete(r.conns, c)
	}
}

// Close stops accepting, closes every relayed connection and waits.
func (r *relay) Close() error {
	err := r.ln.Close()
	r.mu.Lock()
	for c := range r.conns {
		c.Close()
	}
	r.conns = nil
	r.mu.Unlock()
	r.wg.Wait()
	if errors.Is(err, net.ErrClosed) {
		return nil
	}
	return err
}

var loopbackAddr = regexp.MustCompile(`(127\.0\.0\.1|localhost):([0-9]+)`)

// relayDSN starts a relay on host for the loopback server a DSN template
// names and returns the template pointing at the relay.
func relayDSN(host, tmpl string) (string, *relay, error) {
	target := loopbackAddr.FindString(tmpl)
	if target == "" {
		return "", nil, fmt.Errorf("DSN template %q names no loopback server (127.0.0.1:port) to relay to", tmpl)
	}
	r, err := startRelay(host, target)
	if err != nil {
		return "", nil, err
	}
	return loopbackAddr.ReplaceAllLiteralString(tmpl, r.Addr()), r, nil
}
