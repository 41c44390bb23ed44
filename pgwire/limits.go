package pgwire

import "time"

// Defaults for the zero values of Limits.
const (
	DefaultMaxMessage         = 16 << 20
	DefaultStartupTimeout     = 10 * time.Second
	DefaultMaxConns           = 256
	DefaultMaxConnsPerAddr    = 32
	DefaultIdleSessionTimeout = time.Hour
	DefaultIdleInTxTimeout    = 10 * time.Minute
	DefaultWriteTimeout       = time.Minute
	DefaultMaxSessionMemory   = 64 << 20
	DefaultMaxCopyData        = 1 << 20
	DefaultMaxCopyBytes       = 1 << 30
)

// maxAuthMessage bounds a message read before authentication succeeds: PostgreSQL's
// PG_MAX_AUTH_TOKEN_LENGTH. A SCRAM message is a few hundred bytes.
const maxAuthMessage = 65535

// maxSmallMessage bounds messages that carry no statement or value (Describe, Close, Execute,
// Sync, Flush, Terminate, CopyDone, CopyFail): PostgreSQL's PQ_SMALL_MESSAGE_LIMIT.
const maxSmallMessage = 10000

// Limits bounds what one listener gives its clients. The zero value of each field means its
// default; a negative value turns that limit off (no cap, no timeout). None of them decides
// a transaction's outcome: they are node-local and only choose which connections are served.
type Limits struct {
	// MaxConns caps the connections the Server serves at once over all its listeners,
	// startups included (default 256). A
	// connection over the cap gets FATAL 53300 "sorry, too many clients already" and is
	// closed without its startup packet being read (a CancelRequest on it is still honoured).
	MaxConns int
	// MaxConnsPerAddr caps the connections from one remote IP address (default 32): FATAL
	// 53300 "sorry, too many connections from this address already". Behind a proxy or
	// pooler every client has the proxy's address.
	MaxConnsPerAddr int
	// StartupTimeout is one deadline over the TLS handshake, the startup packets
	// (SSLRequest, GSSENCRequest, CancelRequest, StartupMessage), SCRAM and NewSession
	// (default 10 s): FATAL 08P01 "startup did not finish in time".
	StartupTimeout time.Duration
	// IdleSessionTimeout closes an authenticated session outside a transaction that sends
	// nothing for this long (default 1 h): FATAL 57P05, like PostgreSQL's
	// idle_session_timeout.
	IdleSessionTimeout time.Duration
	// IdleInTransactionTimeout closes a session inside a transaction (ReadyForQuery 'T' or
	// 'E') that sends nothing for this long (default 10 min): FATAL 25P03, like PostgreSQL's
	// idle_in_transaction_session_timeout.
	IdleInTransactionTimeout time.Duration
	// WriteTimeout bounds how long one write to a client that does not read may block
	// (default 1 min); the connection is then closed.
	WriteTimeout time.Duration
	// MaxMessage is the largest frontend message after authentication, in bytes (default
	// 16 MiB; before authentication 64 KiB, and 10,000 bytes for messages that carry no
	// statement). A longer declared length gets FATAL 08P01 before anything is allocated for
	// it; a message's buffer grows only as its bytes arrive.
	MaxMessage int
	// MaxSessionMemory bounds the bytes of prepared statements and bound portals (their
	// statement text and parameter values) one connection keeps (default 64 MiB). A Parse or
	// Bind beyond it fails with 54000; Close frees the space.
	MaxSessionMemory int
	// MaxCopyData is the largest CopyData message a client may send during COPY FROM STDIN,
	// in bytes (default 1 MiB; drivers send 8–64 KiB, psql one line per message). A longer
	// one gets FATAL 08P01 before anything is allocated for it.
	MaxCopyData int
	// MaxCopyBytes bounds the bytes of one COPY FROM STDIN stream (default 1 GiB): beyond
	// it the COPY fails with 54000 (what the Session committed before stays committed; its
	// error says what).
	MaxCopyBytes int
}

// orDefault resolves a limit: 0 → def, negative → 0 (off).
func orDefault[T int | time.Duration](v, def T) T {
	switch {
	case v == 0:
		return def
	case v < 0:
		return 0
	}
	return v
}

func (l Limits) maxConns() int        { return orDefault(l.MaxConns, DefaultMaxConns) }
func (l Limits) maxConnsPerAddr() int { return orDefault(l.MaxConnsPerAddr, DefaultMaxConnsPerAddr) }
func (l Limits) maxMessage() int      { return orDefault(l.MaxMessage, DefaultMaxMessage) }
func (l Limits) maxCopyData() int     { return orDefault(l.MaxCopyData, DefaultMaxCopyData) }
func (l Limits) maxCopyBytes() int    { return orDefault(l.MaxCopyBytes, DefaultMaxCopyBytes) }
func (l Limits) maxSessionMemory() int {
	return orDefault(l.MaxSessionMemory, DefaultMaxSessionMemory)
}
func (l Limits) idleSessionTimeout() time.Duration {
	return orDefault(l.IdleSessionTimeout, DefaultIdleSessionTimeout)
}
func (l Limits) idleInTxTimeout() time.Duration {
	return orDefault(l.IdleInTransactionTimeout, DefaultIdleInTxTimeout)
}
func (l Limits) writeTimeout() time.Duration { return orDefault(l.WriteTimeout, DefaultWriteTimeout) }

// startupTimeout cannot be turned off: a negative value is the default too.
func (l Limits) startupTimeout() time.Duration {
	if l.StartupTimeout > 0 {
		return l.StartupTimeout
	}
	return DefaultStartupTimeout
}
