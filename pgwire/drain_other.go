//go:build !unix

package pgwire

import "net"

// drainNow is a no-op where non-blocking reads are not wired: the connection is just closed.
func drainNow(net.Conn) {}
