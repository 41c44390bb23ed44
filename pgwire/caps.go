package pgwire

import (
	"encoding/binary"
	"io"
	"net"
	"sync"
	"time"
)

// Refusing a connection over a cap. The refusal is written after at most three 8-byte
// packet heads (an SSLRequest/GSSENCRequest answered 'N', a CancelRequest honoured, as
// PostgreSQL honours cancel requests when it is full); the startup packet itself is not
// read. Then the write side is shut and what the client sent is drained for a moment:
// closing a socket with unread bytes would reset it, and the client could lose the refusal
// before reading it.
const (
	// maxRefusing bounds the refusals in progress; beyond it a connection gets the refusal
	// written at once, what it already sent is drained without waiting, and it is closed.
	maxRefusing = 64
	// refuseLinger bounds each wait of a refusal: for the client's first packet heads, then
	// for it to read the answer and close.
	refuseLinger = 500 * time.Millisecond
	// refuseDrain bounds the bytes read from a refused connection.
	refuseDrain = 16 << 10
	// refusalLogEvery spaces the log lines that count refusals.
	refusalLogEvery = 10 * time.Second
)

// codeTooManyConnections is SQLSTATE too_many_connections.
const codeTooManyConnections = "53300"

// remoteHost is the IP address part of a connection's remote address (the whole address
// when it has no port, e.g. a pipe).
func remoteHost(nc net.Conn) string {
	addr := nc.RemoteAddr()
	if addr == nil {
		return ""
	}
	if tcp, ok := addr.(*net.TCPAddr); ok {
		return tcp.IP.String()
	}
	host, _, err := net.SplitHostPort(addr.String())
	if err != nil {
		return addr.String()
	}
	return host
}

// overCap is the refusal for a new connection from addr, nil when it may be served. s.mu held.
func (s *Server) overCap(addr string) *Error {
	if max := s.maxConns(); max > 0 && len(s.conns) >= max {
		return fatalf(codeTooManyConnections, "sorry, too many clients already")
	}
	if max := s.maxConnsPerAddr(); max > 0 && s.perAddr[addr] >= max {
		return fatalf(codeTooManyConnections, "sorry, too many connections from this address already")
	}
	return nil
}

// refuse answers nc with refusal and closes it, in a goroutine of its own while fewer than
// maxRefusing refusals are in progress, else at once from the accept loop (without the
// SSLRequest courtesy, and without waiting for anything).
func (s *Server) refuse(nc net.Conn, refusal *Error) {
	s.refusals.note(s, refusal)
	select {
	case s.refuseSem <- struct{}{}:
	default:
		sendFatalRaw(nc, refusal, 10*time.Millisecond) // an empty socket buffer takes it at once
		drainNow(nc)
		_ = nc.Close()
		return
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		<-s.refuseSem
		_ = nc.Close()
		return
	}
	s.refusing[nc] = struct{}{}
	s.wg.Add(1)
	s.mu.Unlock()
	go func() {
		defer s.wg.Done()
		defer func() { <-s.refuseSem }()
		defer func() {
			s.mu.Lock()
			delete(s.refusing, nc)
			s.mu.Unlock()
			_ = nc.Close()
		}()
		s.answerRefusal(nc, refusal)
	}()
}

// answerRefusal answers a refused connection. At most three 8-byte packet heads are read
// first: an SSLRequest or GSSENCRequest is answered 'N' (no TLS handshake for a connection
// that will not be served), so that the client, like psql with sslmode=prefer, reads the
// refusal in plaintext and reports its text; a CancelRequest is honoured without an answer.
// Then the refusal is written, the write side shut and what the client sent drained.
func (s *Server) answerRefusal(nc net.Conn, refusal *Error) {
	_ = nc.SetDeadline(time.Now().Add(refuseLinger))
	var pkt [16]byte
	for range 3 {
		if _, err := io.ReadFull(nc, pkt[:8]); err != nil {
			break // nothing (more) sent: answer anyway
		}
		length, code := binary.BigEndian.Uint32(pkt[:4]), binary.BigEndian.Uint32(pkt[4:8])
		if length == 16 && code == cancelRequestCode {
			if _, err := io.ReadFull(nc, pkt[8:]); err == nil {
				s.cancel(binary.BigEndian.Uint32(pkt[8:12]), binary.BigEndian.Uint32(pkt[12:]))
			}
			return
		}
		if length != 8 || (code != sslRequestCode && code != gssEncRequestCode) {
			break // a StartupMessage (or garbage): its rest is drained below
		}
		if _, err := nc.Write([]byte{'N'}); err != nil {
			return
		}
	}
	_ = nc.SetDeadline(time.Now().Add(refuseLinger))
	sendFatalRaw(nc, refusal, refuseLinger)
	if cw, ok := nc.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite()
	}
	_, _ = io.CopyN(io.Discard, nc, refuseDrain)
}

// refusalLog logs refusals at most once per refusalLogEvery, with their count.
type refusalLog struct {
	mu      sync.Mutex
	last    time.Time
	pending int
}

func (r *refusalLog) note(s *Server, refusal *Error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.pending++
	if now := time.Now(); now.Sub(r.last) >= refusalLogEvery {
		s.logf("pgwire: refused %d connection(s) over the caps (max_connections %d, per address %d): %s",
			r.pending, s.maxConns(), s.maxConnsPerAddr(), refusal.Message)
		r.last, r.pending = now, 0
	}
}
