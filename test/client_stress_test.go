package e2e

import (
	"context"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/relchain/relchain/txn"
)

// TestClientStreamStress pushes txs through one Stream from 32 goroutines
// as fast as the node takes them and checks that each is reported once:
// 2,000 by default, 20,000 with RELCHAIN_STRESS=1.
func TestClientStreamStress(t *testing.T) {
	n := 2000
	if os.Getenv("RELCHAIN_STRESS") != "" {
		n = 20000
	}
	c := mustStartCluster(t, clusterOptions{})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	c.mustExec(ctx, 0, stmt("CREATE TABLE ev (id INTEGER PRIMARY KEY, w INTEGER NOT NULL)"))
	cl := c.client(0, newKey(t))
	s, err := cl.Stream(ctx)
	if err != nil {
		t.Fatal(err)
	}
	const writers = 32
	cnt, ok := 0, 0
	seen := map[int]bool{}
	var maxLat time.Duration
	done := make(chan struct{})
	go func() {
		defer close(done)
		for o := range s.Results() {
			if seen[o.Tag.(int)] {
				t.Errorf("tx %d reported twice", o.Tag)
			}
			seen[o.Tag.(int)] = true
			cnt++
			if o.OK() {
				ok++
			}
			maxLat = max(maxLat, o.Latency())
		}
	}()
	start := time.Now()
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for id := w; id < n; id += writers {
				if err := s.Submit(ctx, id, stmt("INSERT INTO ev (id, w) VALUES (?1, ?2)", txn.Int(int64(id)), txn.Int(int64(w)))); err != nil {
					t.Errorf("submit: %v", err)
					return
				}
			}
		}()
	}
	wg.Wait()
	sub := time.Since(start)
	if err := s.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	all := time.Since(start)
	s.Close()
	<-done
	t.Logf("%d txs: submitted in %v, all outcomes in %v (%.0f tx/s); %d outcomes, %d ok, max latency %v; stats %+v", n, sub, all, float64(n)/all.Seconds(), cnt, ok, maxLat, s.Stats())
	if cnt != n || ok != n {
		t.Fatalf("%d outcomes, %d ok, want %d", cnt, ok, n)
	}
}
