package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"sync"

	"github.com/jackc/pgx/v5"
)

// relay forwards TCP connections to a target address byte for byte, in
// this process. Point SELECTs sent to the raw backend through it measure
// the floor of any PostgreSQL front end that is a hop of its own: one
// more loopback round trip and two more socket copies, and no parsing,
// planning or consensus at all. The gateway cannot beat it.
type relay struct {
	ln     net.Listener
	target string
	wg     sync.WaitGroup

	mu    sync.Mutex
	conns map[net.Conn]bool
}

// startRelay listens on a free loopback port and forwards every accepted
// connection to target (host:port) until stop.
func startRelay(target string) (*relay, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("relay: %w", err)
	}
	r := &relay{ln: ln, target: target, conns: map[net.Conn]bool{}}
	r.wg.Add(1)
	go r.accept()
	return r, nil
}

// addr is the relay's listening address (host:port).
func (r *relay) addr() string { return r.ln.Addr().String() }

func (r *relay) accept() {
	defer r.wg.Done()
	for {
		in, err := r.ln.Accept()
		if err != nil {
			return // stopped
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

// track remembers a connection pair so that stop can close it; it reports
// false (and closes both) once the relay is stopping.
func (r *relay) track(a, b net.Conn) bool {
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
func (r *relay) pipe(dst, src net.Conn) {
	defer r.wg.Done()
	_, _ = io.Copy(dst, src)
	dst.Close()
	src.Close()
}

// stop closes the listener and every forwarded connection and waits for
// the relay's goroutines.
func (r *relay) stop() {
	r.ln.Close()
	r.mu.Lock()
	for c := range r.conns {
		c.Close()
	}
	r.conns = nil
	r.mu.Unlock()
	r.wg.Wait()
}

// relayReaders opens n pgx connections to dsn's server through a relay
// started here; stopping the relay is the caller's, after closing the
// readers.
func relayReaders(ctx context.Context, dsn string, n int) ([]pointReader, *relay, error) {
	u, err := url.Parse(dsn)
	if err != nil || u.Hostname() == "" {
		return nil, nil, errors.New("relay readers: the reader DSN names no TCP host (a Unix socket cannot be relayed here)")
	}
	target := u.Host
	if u.Port() == "" {
		target = net.JoinHostPort(u.Hostname(), "5432")
	}
	r, err := startRelay(target)
	if err != nil {
		return nil, nil, err
	}
	u.Host = r.addr()
	out := make([]pointReader, 0, n)
	for range n {
		c, err := pgx.Connect(ctx, u.String())
		if err != nil {
			closeReaders(out)
			r.stop()
			return nil, nil, fmt.Errorf("relay readers: connect through the relay: %w", err)
		}
		out = append(out, pgReader{c})
	}
	return out, r, nil
}
