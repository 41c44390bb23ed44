package tcprelay

import (
	"bufio"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

// An echo server that upper-cases each line, so that the test can tell
// the relay forwarded both ways and did not answer by itself.
func mustStartUpperEcho(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				r := bufio.NewReader(c)
				for {
					line, err := r.ReadString('\n')
					if err != nil {
						return
					}
					if _, err := io.WriteString(c, strings.ToUpper(line)); err != nil {
						return
					}
				}
			}()
		}
	}()
	return ln.Addr().String()
}

func TestRelayForwardsBothWaysAndCloseClosesConnections(t *testing.T) {
	r, err := Start("127.0.0.1:0", mustStartUpperEcho(t))
	if err != nil {
		t.Fatal(err)
	}
	c, err := net.Dial("tcp", r.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	rd := bufio.NewReader(c)
	for _, msg := range []string{"select 1\n", "and again\n"} {
		if _, err := io.WriteString(c, msg); err != nil {
			t.Fatal(err)
		}
		got, err := rd.ReadString('\n')
		if err != nil || got != strings.ToUpper(msg) {
			t.Fatalf("through the relay: %q, %v; want %q", got, err, strings.ToUpper(msg))
		}
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := rd.ReadString('\n'); err == nil {
		t.Fatal("a relayed connection stayed open after Close")
	}
	if _, err := net.DialTimeout("tcp", r.Addr(), time.Second); err == nil {
		t.Fatal("the relay still accepts connections after Close")
	}
}
