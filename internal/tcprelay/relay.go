package tcprelay

import (
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
)

// Relay forwards every connection accepted on its listener to its target.
type Relay struct {
	ln     net.Listener
	target string
	wg     sync.WaitGroup
	delay  *delayState // nil: bytes go on at once

	mu    sync.Mutex
	conns map[net.Conn]bool // nil once closing
}

// Start listens on listen (host:port; port 0 picks a free one) and
// forwards every accepted connection to target (host:port) until Close.
// A connection the target refuses is closed.
func Start(listen, target string) (*Relay, error) { return start(listen, target, nil) }

func start(listen, target string, delay *delayState) (*Relay, error) {
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return nil, fmt.Errorf("relay to %s: %w", target, err)
	}
	r := &Relay{ln: ln, target: target, conns: map[net.Conn]bool{}, delay: delay}
	r.wg.Add(1)
	go r.accept()
	return r, nil
}

// Addr is the relay's listening address (host:port).
func (r *Relay) Addr() string { return r.ln.Addr().String() }

func (r *Relay) accept() {
	defer r.wg.Done()
	for {
		in, err := r.ln.Accept()
		if err != nil {
			return // closed
		}
		out, err := net.Dial("tcp", r.target)
		if err != nil {
			in.Close()
			continue
		}
		if !r.track(in, out) {
			return
		}
		r.wg.Add(2)
		go r.pipe(out, in)
		go r.pipe(in, out)
	}
}

// track remembers a connection pair so that Close can close it; it
// reports false (and closes both) once the relay is closing.
func (r *Relay) track(a, b net.Conn) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.conns == nil {
		a.Close()
		b.Close()
		return false
	}
	r.conns[a], r.conns[b] = true, true
	return true
}

// pipe copies from src to dst until either side ends, then closes both.
func (r *Relay) pipe(dst, src net.Conn) {
	defer r.wg.Done()
	if r.delay != nil {
		r.delay.delayedCopy(dst, src)
	} else {
		_, _ = io.Copy(dst, src)
	}
	dst.Close()
	src.Close()
	r.mu.Lock()
	if r.conns != nil {
		delete(r.conns, dst)
		delete(r.conns, src)
	}
	r.mu.Unlock()
}

// Close stops accepting, closes every forwarded connection and waits for
// the relay's goroutines.
func (r *Relay) Close() error {
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
