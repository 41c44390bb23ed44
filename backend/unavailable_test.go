package backend_test

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"testing"

	"github.com/relchain/relchain/backend"
)

// ClassifyUnavailable wraps what the backend's test calls transient, and
// never a statement's deterministic failure, the caller's deadline, an
// out-of-band change or a lost block, whatever the test says.
func TestClassifyUnavailableKeepsResultsDeadlinesAndNodeFaults(t *testing.T) {
	always := func(error) bool { return true }
	lost := fmt.Errorf("exec: %w", io.ErrUnexpectedEOF)
	if err := backend.ClassifyUnavailable(context.Background(), lost, always); !backend.IsUnavailable(err) || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("a lost connection: %v, want ErrDatabaseUnavailable wrapping it", err)
	}
	if err := backend.ClassifyUnavailable(context.Background(), nil, always); err != nil {
		t.Fatalf("nil became %v", err)
	}
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	for name, c := range map[string]struct {
		ctx context.Context
		err error
	}{
		"statement result": {context.Background(), fmt.Errorf("wrapped: %w", &backend.Error{Class: backend.ClassConstraint, SQLState: "23505"})},
		"deadline":         {context.Background(), fmt.Errorf("exec: %w: %w", context.DeadlineExceeded, io.EOF)},
		"ended context":    {ended, lost},
		"out of band":      {context.Background(), fmt.Errorf("begin: %w", backend.ErrOutOfBandChange)},
		"block lost":       {context.Background(), fmt.Errorf("exec: %w", backend.ErrBlockLost)},
		"not transient":    {context.Background(), errors.New("disk full")},
	} {
		test := always
		if name == "not transient" {
			test = func(error) bool { return false }
		}
		if err := backend.ClassifyUnavailable(c.ctx, c.err, test); backend.IsUnavailable(err) || err != c.err {
			t.Errorf("%s: classified as %v", name, err)
		}
	}
}

// ConnectionLost knows the transport failures of every driver.
func TestConnectionLostKnowsTransportFailures(t *testing.T) {
	for _, err := range []error{driver.ErrBadConn, io.EOF, io.ErrUnexpectedEOF, net.ErrClosed,
		fmt.Errorf("dial: %w", syscall.ECONNREFUSED), fmt.Errorf("read: %w", syscall.ECONNRESET), syscall.EPIPE,
		&net.OpError{Op: "dial", Net: "tcp", Err: errors.New("no route")}} {
		if !backend.ConnectionLost(err) {
			t.Errorf("%v is not taken for a lost connection", err)
		}
	}
	for _, err := range []error{nil, errors.New("syntax error"), context.DeadlineExceeded, &backend.Error{Class: backend.ClassData}} {
		if backend.ConnectionLost(err) {
			t.Errorf("%v is taken for a lost connection", err)
		}
	}
}
