package backend

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
)

// ErrDatabaseUnavailable is wrapped by a backend's error when the
// database could not be reached or the connection the call used was lost:
// the server closed or terminated it (PostgreSQL 57P01..57P03 and 08xxx,
// MySQL 2006, 2013, 1053, 1927), refused a new one, or is restarting. It
// is a transient fault of this node's database, not a result of what the
// statements did: the same block on the same committed state gives the
// same outcome once the database is back. The executor discards the
// block's db-transaction and runs the block again from the committed
// state, on a fresh connection, until the database answers.
//
// It is never wrapped together with an *Error (a statement's deterministic
// failure), nor with a context's error (the caller's deadline), nor with a
// fault after which going on could be wrong (ErrOutOfBandChange, a broken
// invariant): those keep their own meaning.
//
// A failed COMMIT that wraps it is ambiguous: the server may have applied
// it before the acknowledgement was lost. Backend.RecordedState tells.
var ErrDatabaseUnavailable = errors.New("the database is unavailable (connection lost or server restarting)")

// Unavailable wraps err with ErrDatabaseUnavailable; nil stays nil, and
// an error that already wraps it is returned as is.
func Unavailable(err error) error {
	if err == nil || errors.Is(err, ErrDatabaseUnavailable) {
		return err
	}
	return fmt.Errorf("%w: %w", ErrDatabaseUnavailable, err)
}

// IsUnavailable reports whether err wraps ErrDatabaseUnavailable.
func IsUnavailable(err error) bool { return errors.Is(err, ErrDatabaseUnavailable) }

// ClassifyUnavailable returns err wrapped with ErrDatabaseUnavailable when
// transient(err) says the connection is gone or the server cannot be
// reached, and err unchanged otherwise: always when ctx has ended (the
// caller's deadline or cancellation, not the database's fault), when err
// holds a statement's *Error (a deterministic result), and when it holds
// ErrOutOfBandChange or ErrBlockOpen. A backend calls it on every error of
// the calls that talk to its server.
func ClassifyUnavailable(ctx context.Context, err error, transient func(error) bool) error {
	if err == nil || IsUnavailable(err) {
		return err
	}
	if ctx.Err() != nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	if AsError(err) != nil || errors.Is(err, ErrOutOfBandChange) || errors.Is(err, ErrBlockOpen) || errors.Is(err, ErrBlockLost) {
		return err
	}
	if !transient(err) {
		return err
	}
	return Unavailable(err)
}

// ConnectionLost reports whether err is a failure of the transport to the
// database server, whatever the driver: the driver's bad connection
// (driver.ErrBadConn), an end of stream (io.EOF, io.ErrUnexpectedEOF), a
// refused, reset, aborted or broken connection, a closed socket, or any
// other network error of the dial or of a read or write. Drivers add
// their own (PostgreSQL's SQLSTATEs, MySQL's error numbers) on top.
func ConnectionLost(err error) bool {
	if err == nil {
		return false
	}
	for _, target := range []error{driver.ErrBadConn, io.EOF, io.ErrUnexpectedEOF, net.ErrClosed,
		syscall.ECONNREFUSED, syscall.ECONNRESET, syscall.ECONNABORTED, syscall.EPIPE, syscall.ENOTCONN,
		syscall.EHOSTUNREACH, syscall.ENETUNREACH, syscall.ETIMEDOUT} {
		if errors.Is(err, target) {
			return true
		}
	}
	var op *net.OpError
	return errors.As(err, &op)
}
