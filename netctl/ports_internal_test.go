package netctl

import (
	"net"
	"sync"
	"testing"
)

// Networks set up at once in one process (parallel tests) never get the
// same port: the kernel offers a closed probe's port again, so freePorts
// remembers what it handed out.
func TestFreePortsNeverRepeatsInAProcess(t *testing.T) {
	var mu sync.Mutex
	seen := map[int]bool{}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				ports, err := freePorts(8)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				for _, p := range ports {
					if seen[p] {
						t.Errorf("port %d handed out twice", p)
					}
					seen[p] = true
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(seen) != 8*20*8 {
		t.Fatalf("%d distinct ports, want %d", len(seen), 8*20*8)
	}
}

// Ports come from below the kernel's ephemeral range, which listeners on
// port 0 (a node's ABCI socket server) and outgoing connections draw
// from: a configured port that a node has not bound yet cannot be taken
// that way.
func TestFreePortsStayBelowTheEphemeralRange(t *testing.T) {
	lo, hi := portRange()
	if lo < 1024 || hi <= lo {
		t.Fatalf("portRange %d-%d", lo, hi)
	}
	for i := range 50 {
		l, err := net.Listen("tcp", "127.0.0.1:0") // an ephemeral port
		if err != nil {
			t.Fatal(err)
		}
		eph := l.Addr().(*net.TCPAddr).Port
		l.Close()
		if eph >= lo && eph <= hi {
			t.Fatalf("probe %d: the kernel gave ephemeral port %d, inside freePorts' range %d-%d", i, eph, lo, hi)
		}
	}
	ports, err := freePorts(16)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ports {
		if p < lo || p > hi {
			t.Errorf("port %d outside %d-%d", p, lo, hi)
		}
	}
}
