package pgwire

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"net"
	"runtime/debug"
	"sync"
	"time"
)

// DefaultServerVersion is reported when Server.ServerVersion is empty.
const DefaultServerVersion = "16.0 (relchain)"

// Server accepts connections and runs one Session per connection.
type Server struct {
	TLS        *tls.Config // nil: SSLRequest answered 'N'; set: 'S' then TLS handshake
	RequireTLS bool        // refuse a startup without TLS (FATAL 28000 with a clear message)
	Users      UserLookup  // SCRAM-SHA-256 verifiers by user name
	// NewSession creates the Session for an authenticated connection. An *Error it returns is
	// sent to the client as FATAL with its code (e.g. 3D000 for an unknown database).
	NewSession    func(ctx context.Context, user string, startupParams map[string]string) (Session, error)
	ServerVersion string                           // reported in ParameterStatus server_version (default "16.0 (relchain)")
	Logf          func(format string, args ...any) // optional
	// Limits caps connections, timeouts and message sizes; the zero value is the defaults.
	Limits

	mu        sync.Mutex
	listeners map[net.Listener]struct{}
	conns     map[*conn]struct{}
	perAddr   map[string]int        // live connections by remote IP address
	refusing  map[net.Conn]struct{} // connections being refused over a cap
	refuseSem chan struct{}         // bounds refusals in progress
	refusals  refusalLog            // rate-limited log of refusals
	byPID     map[uint32]*conn      // for CancelRequest
	closed    bool
	wg        sync.WaitGroup
	baseCtx   context.Context
	stopAll   context.CancelFunc
	secret    []byte
	initOnce  sync.Once
}

func (s *Server) init() {
	s.initOnce.Do(func() {
		s.listeners = map[net.Listener]struct{}{}
		s.conns = map[*conn]struct{}{}
		s.perAddr = map[string]int{}
		s.refusing = map[net.Conn]struct{}{}
		s.refuseSem = make(chan struct{}, maxRefusing)
		s.byPID = map[uint32]*conn{}
		s.baseCtx, s.stopAll = context.WithCancel(context.Background())
		s.secret = make([]byte, 32)
		_, _ = rand.Read(s.secret)
	})
}

func (s *Server) mockSecret() []byte {
	s.init()
	return s.secret
}

func (s *Server) logf(format string, args ...any) {
	if s.Logf != nil {
		s.Logf(format, args...)
	}
}

func (s *Server) serverVersion() string {
	if s.ServerVersion != "" {
		return s.ServerVersion
	}
	return DefaultServerVersion
}

// ErrServerClosed is returned by Serve after Close.
var ErrServerClosed = errors.New("pgwire: server closed")

// Serve accepts connections on l until l is closed or Close is called; after Close it
// returns ErrServerClosed, after l.Close by someone else net.ErrClosed. Other accept errors
// are logged and retried with backoff. Each connection runs in its own goroutine, which Close waits for.
func (s *Server) Serve(l net.Listener) error {
	s.init()
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		_ = l.Close()
		return ErrServerClosed
	}
	s.listeners[l] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.listeners, l)
		s.mu.Unlock()
	}()
	var backoff time.Duration
	for {
		nc, err := l.Accept()
		if err != nil {
			if s.isClosed() {
				return ErrServerClosed
			}
			if errors.Is(err, net.ErrClosed) {
				return err
			}
			// Anything else (EMFILE, ECONNABORTED, …) may pass: back off and keep serving
			// rather than take the front end down.
			backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
			s.logf("pgwire: accept: %v; retrying in %v", err, backoff)
			time.Sleep(backoff)
			continue
		}
		backoff = 0
		if !s.track(nc) {
			continue
		}
	}
}

func (s *Server) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// track registers a new connection and starts its goroutine, or refuses it over a cap;
// false if the server closed.
func (s *Server) track(nc net.Conn) bool {
	c := &conn{srv: s, raw: nc, nc: nc, addr: remoteHost(nc)}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		_ = nc.Close()
		return false
	}
	if refusal := s.overCap(c.addr); refusal != nil {
		s.mu.Unlock()
		s.refuse(nc, refusal)
		return true
	}
	s.conns[c] = struct{}{}
	s.perAddr[c.addr]++
	s.wg.Add(1)
	s.mu.Unlock()
	go func() {
		defer s.wg.Done()
		defer s.untrack(c)
		// A bug in a Session (or here) ends this connection, never the
		// process: a node serving clients must not fall over with one.
		defer func() {
			if r := recover(); r != nil {
				s.logf("pgwire: connection %s ended by a panic: %v\n%s", nc.RemoteAddr(), r, debug.Stack())
			}
		}()
		c.serve(s.baseCtx)
	}()
	return true
}

func (s *Server) untrack(c *conn) {
	s.mu.Lock()
	delete(s.conns, c)
	if s.perAddr[c.addr]--; s.perAddr[c.addr] <= 0 {
		delete(s.perAddr, c.addr)
	}
	if s.byPID[c.pid] == c {
		delete(s.byPID, c.pid)
	}
	s.mu.Unlock()
}

// registerPID assigns c a process ID unique among live connections and a random secret.
func (s *Server) registerPID(c *conn) error {
	var b [8]byte
	for {
		if _, err := rand.Read(b[:]); err != nil {
			return err
		}
		pid := binary.BigEndian.Uint32(b[:4]) & 0x7fffffff // psql prints it as a signed int
		s.mu.Lock()
		if _, taken := s.byPID[pid]; !taken && pid != 0 {
			c.pid, c.secretKey = pid, binary.BigEndian.Uint32(b[4:])
			s.byPID[pid] = c
			s.mu.Unlock()
			return nil
		}
		s.mu.Unlock()
	}
}

// cancel handles a CancelRequest: a matching (pid, secret) cancels the target's running
// statement; anything else is ignored without a reply, as PostgreSQL does.
func (s *Server) cancel(pid, secret uint32) {
	s.mu.Lock()
	c := s.byPID[pid]
	s.mu.Unlock()
	if c == nil {
		return
	}
	var want, got [4]byte
	binary.BigEndian.PutUint32(want[:], c.secretKey)
	binary.BigEndian.PutUint32(got[:], secret)
	if subtle.ConstantTimeCompare(want[:], got[:]) != 1 {
		s.logf("pgwire: CancelRequest for pid %d with a wrong secret ignored", pid)
		return
	}
	c.cancelRunning()
}

// Close closes every listener and connection, cancels running statements and waits for all
// connection goroutines (and so every Session.Close) to finish.
func (s *Server) Close() error {
	s.init()
	s.mu.Lock()
	s.closed = true
	var errs []error
	for l := range s.listeners {
		errs = append(errs, l.Close())
		delete(s.listeners, l) // closed once: a second Close must not fail on it
	}
	for c := range s.conns {
		_ = c.raw.Close()
	}
	for nc := range s.refusing {
		_ = nc.Close()
	}
	s.mu.Unlock()
	s.stopAll()
	s.wg.Wait()
	return errors.Join(errs...)
}
