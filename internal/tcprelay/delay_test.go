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

// TestDelayedRelayDelaysBothWaysInOrder: with 40 ms one way, a round trip
// through the relay takes at least 80 ms; with jitter, 200 lines come
// back whole and in order; with the delay set back to zero, a round trip
// is fast again.
func TestDelayedRelayDelaysBothWaysInOrder(t *testing.T) {
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
	r.SetDelay(5*time.Millisecond, 20*time.Millisecond)
	go func() {
		for i := range 200 {
			fmt.Fprintf(c, "line %d\n", i)
			time.Sleep(100 * time.Microsecond)
		}
	}()
	for i := range 200 {
		got, err := rd.ReadString('\n')
		if want := fmt.Sprintf("LINE %d\n", i); err != nil || got != want {
			t.Fatalf("with jitter: %q, %v; want %q (bytes reordered or lost)", got, err, want)
		}
	}
	r.SetDelay(0, 0)
	if d := roundTrip("fast\n"); d > 60*time.Millisecond {
		t.Errorf("a round trip without delay took %v", d)
	}
}
