package tcprelay

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

// TestDelayedRelayDelaysBothWays: with 40 ms one way, a round trip through
// the relay takes at least 80 ms; with a 500 ms delay set back to zero, a
// round trip takes well under the delay again.
func TestDelayedRelayDelaysBothWays(t *testing.T) {
	r, err := StartDelayed("127.0.0.1:0", mustStartUpperEcho(t))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	c, err := net.Dial("tcp", r.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(20 * time.Second))
	rd := bufio.NewReader(c)
	roundTrip := func(msg string) time.Duration {
		t.Helper()
		start := time.Now()
		if _, err := io.WriteString(c, msg); err != nil {
			t.Fatal(err)
		}
		got, err := rd.ReadString('\n')
		if err != nil || got != strings.ToUpper(msg) {
			t.Fatalf("through the relay: %q, %v; want %q", got, err, strings.ToUpper(msg))
		}
		return time.Since(start)
	}
	roundTrip("warm up\n")
	r.SetDelay(40*time.Millisecond, 0)
	if d := roundTrip("slow\n"); d < 80*time.Millisecond {
		t.Errorf("a round trip with 40 ms each way took %v, want >= 80 ms", d)
	}
	// A bound with a wide margin on a loaded machine: had the delay not
	// been reset, the round trip would take at least 1 s.
	r.SetDelay(500*time.Millisecond, 0)
	r.SetDelay(0, 0)
	if d := roundTrip("fast\n"); d >= time.Second {
		t.Errorf("a round trip with the delay set back to zero took %v, want well under 1 s", d)
	}
}

// TestJitterKeepsChunksInOrder: 200 chunks, each delayed by 5 ms plus its
// own draw in [0, 20 ms), come out whole and in the order they went in.
// The relay's ends are net.Pipes: each Write on the source is one chunk of
// the relay (one Read), and each chunk is one Read at the destination, so
// every line gets its own draw, however loaded the machine.
func TestJitterKeepsChunksInOrder(t *testing.T) {
	s := &delayState{}
	s.delay.Store(int64(5 * time.Millisecond))
	s.jitter.Store(int64(20 * time.Millisecond))
	in, relayIn := net.Pipe()
	relayOut, out := net.Pipe()
	go s.delayedCopy(relayOut, relayIn)
	defer in.Close()
	defer out.Close()
	out.SetDeadline(time.Now().Add(20 * time.Second))
	const n = 200
	start := time.Now()
	go func() {
		for i := range n {
			if _, err := fmt.Fprintf(in, "line %d\n", i); err != nil {
				return // the test failed and closed the pipes
			}
		}
	}()
	buf := make([]byte, 64)
	for i := range n {
		k, err := out.Read(buf)
		if want := fmt.Sprintf("line %d\n", i); err != nil || string(buf[:k]) != want {
			t.Fatalf("chunk %d: %q, %v; want %q (bytes reordered, merged or lost)", i, buf[:k], err, want)
		}
		if i == 0 && time.Since(start) < 5*time.Millisecond {
			t.Fatalf("the first chunk came out after %v, want the 5 ms delay", time.Since(start))
		}
	}
}
