package netctl

import (
	"net"
	"testing"
	"time"

	"github.com/relchain/relchain/internal/tcprelay"
)

// FirstByte measures the delay a relay adds to a peer that speaks first,
// as a CometBFT node does on accept.
func TestFirstByteSeesTheRelaysDelay(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_, _ = c.Write([]byte{1})
			_ = c.Close()
		}
	}()
	r, err := tcprelay.StartDelayed("127.0.0.1:0", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	l := &LinkRelays{relays: map[[2]int]*tcprelay.Relay{{0, 1}: r}}
	defer l.Close()
	l.SetDelay(1, 300*time.Millisecond, 0)
	if d, err := l.FirstByte(0, 1, 5*time.Second); err != nil || d < 300*time.Millisecond {
		t.Fatalf("delayed link: first byte after %v (%v), want at least 300ms", d, err)
	}
	if _, err := l.FirstByte(1, 0, time.Second); err == nil {
		t.Fatal("a relay that does not exist answered")
	}
}
