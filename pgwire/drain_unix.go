//go:build unix

package pgwire

import (
	"net"
	"syscall"
)

// drainNow reads and discards, without waiting, up to 16 KiB the client already sent, so
// that closing nc sends FIN rather than a reset that could destroy the answer written just
// before.
func drainNow(nc net.Conn) {
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return
	}
	var buf [4096]byte
	_ = rc.Read(func(fd uintptr) bool {
		for range 4 {
			n, err := syscall.Read(int(fd), buf[:])
			if n <= 0 || err != nil {
				break
			}
		}
		return true // never wait for more
	})
}
