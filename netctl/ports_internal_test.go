package netctl

import (
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
