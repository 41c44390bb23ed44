package client

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	abci "github.com/cometbft/cometbft/abci/types"
)

// fakeChain is a block source whose chain grows as the test says.
type fakeChain struct {
	mu      sync.Mutex
	blocks  map[int64]*blockData
	height  int64
	missing map[int64]bool // fetch fails (results not there yet)
	fetches map[int64]int
}

func newFakeChain() *fakeChain {
	return &fakeChain{blocks: map[int64]*blockData{}, missing: map[int64]bool{}, fetches: map[int64]int{}}
}

// grow appends blocks up to h; block k carries k%3 txs.
func (c *fakeChain) grow(h int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k := c.height + 1; k <= h; k++ {
		var txs [][]byte
		var res []*abci.ExecTxResult
		for i := int64(0); i < k%3; i++ {
			txs = append(txs, []byte(fmt.Sprintf("tx-%d-%d", k, i)))
			res = append(res, &abci.ExecTxResult{Code: uint32(k % 2), Log: fmt.Sprint(k)})
		}
		b, err := newBlockData(k, time.Unix(k, 0), txs, res)
		if err != nil {
			panic(err)
		}
		c.blocks[k] = b
	}
	c.height = max(c.height, h)
}

func (c *fakeChain) block(h int64) *blockData {
	c.mu.Lock()
	defer c.mu.Unlock()
	b := *c.blocks[h]
	b.Seen = time.Now()
	return &b
}

func (c *fakeChain) latest(context.Context) (int64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.height, nil
}

func (c *fakeChain) fetch(_ context.Context, h int64) (*blockData, error) {
	c.mu.Lock()
	c.fetches[h]++
	miss := c.missing[h] || h > c.height
	c.mu.Unlock()
	if miss {
		return nil, fmt.Errorf("no results for height %d yet", h)
	}
	return c.block(h), nil
}

// fakeEvents hands out subscriptions the test feeds and breaks.
type fakeEvents struct {
	mu     sync.Mutex
	refuse bool
	subs   chan *fakeSub // every subscription made
}

type fakeSub struct {
	events chan *blockData
	errc   chan error
	once   sync.Once
	closed chan struct{}
}

func (s *fakeSub) Events() <-chan *blockData { return s.events }
func (s *fakeSub) Err() <-chan error         { return s.errc }
func (s *fakeSub) Close()                    { s.once.Do(func() { close(s.closed) }) }

func (e *fakeEvents) subscribe(context.Context) (eventSub, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.refuse {
		return nil, errors.New("refused")
	}
	s := &fakeSub{events: make(chan *blockData, 100), errc: make(chan error, 1), closed: make(chan struct{})}
	e.subs <- s
	return s, nil
}

func (e *fakeEvents) setRefuse(v bool) {
	e.mu.Lock()
	e.refuse = v
	e.mu.Unlock()
}

var fastTiming = followerTiming{
	poll: 5 * time.Millisecond, stall: 50 * time.Millisecond,
	redialMin: 5 * time.Millisecond, redialMax: 20 * time.Millisecond,
	dialTimeout: time.Second, fetchTime: time.Second,
}

// recorder is a follower listener that records the heights it sees and
// fails on any gap or repetition.
type recorder struct {
	t       *testing.T
	mu      sync.Mutex
	heights []int64
}

func (r *recorder) onBlock(b *blockData) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if n := len(r.heights); n > 0 && b.Height != r.heights[n-1]+1 {
		r.t.Errorf("block %d after block %d", b.Height, r.heights[n-1])
	}
	r.heights = append(r.heights, b.Height)
}

func (r *recorder) last() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.heights) == 0 {
		return 0
	}
	return r.heights[len(r.heights)-1]
}

func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// The follower delivers every height once and in order, whether blocks
// come as events, with gaps, repeated, or while the subscription is down,
// and resolves each waiter exactly once.
func TestFollowerExactlyOnceAcrossGapsAndDrops(t *testing.T) {
	before := runtime.NumGoroutine()
	chain := newFakeChain()
	chain.grow(5)
	evs := &fakeEvents{subs: make(chan *fakeSub, 10)}
	f := newFollower("fake", chain, evs, fastTiming)
	if err := f.start(context.Background()); err != nil {
		t.Fatal(err)
	}
	sub := <-evs.subs
	rec := &recorder{t: t}
	f.listen(rec.onBlock)

	// A waiter for every tx of blocks 6..40.
	chain.grow(40)
	var mu sync.Mutex
	got := map[string]int64{}
	calls := 0
	for h := int64(6); h <= 40; h++ {
		for i, hash := range chain.block(h).Hashes {
			f.register(hash, func(b *blockData, j int) {
				mu.Lock()
				defer mu.Unlock()
				calls++
				if j != i || b.Hashes[j] != hash {
					t.Errorf("waiter of %s called with tx %d of block %d", hash, j, b.Height)
				}
				got[hash] = b.Height
			})
		}
	}
	chain.mu.Lock()
	chain.height = 5 // the node has committed only up to 5 so far
	chain.mu.Unlock()

	setHeight := func(h int64) {
		chain.mu.Lock()
		chain.height = h
		chain.mu.Unlock()
	}
	send := func(s *fakeSub, h int64) { s.events <- chain.block(h) }

	setHeight(7)
	send(sub, 6)
	send(sub, 7)
	waitUntil(t, "block 7", func() bool { return rec.last() == 7 })
	setHeight(10)
	send(sub, 10) // 8 and 9 missed: fetched first
	send(sub, 9)  // late repeat: ignored
	waitUntil(t, "block 10", func() bool { return rec.last() == 10 })

	// The subscription drops and cannot come back for a while: the
	// follower polls.
	evs.setRefuse(true)
	sub.errc <- errors.New("connection reset")
	setHeight(15)
	waitUntil(t, "block 15 by polling", func() bool { return rec.last() == 15 })

	// Block 17's results lag: 16 comes, 17 is retried until it is there.
	chain.mu.Lock()
	chain.missing[17] = true
	tried := chain.fetches[17]
	chain.mu.Unlock()
	setHeight(18)
	waitUntil(t, "block 16", func() bool { return rec.last() == 16 })
	// Five failed fetches of 17: the follower has tried it again and again, not
	// gone past it.
	waitUntil(t, "five fetches of the missing block 17", func() bool {
		chain.mu.Lock()
		defer chain.mu.Unlock()
		return chain.fetches[17] >= tried+5
	})
	if rec.last() != 16 {
		t.Fatalf("delivered %d past the missing block 17", rec.last())
	}
	chain.mu.Lock()
	chain.missing[17] = false
	chain.mu.Unlock()
	waitUntil(t, "block 18", func() bool { return rec.last() == 18 })

	// Resubscribing: the events of blocks it already has are ignored,
	// later ones used, and a gap before an event is filled.
	evs.setRefuse(false)
	sub2 := <-evs.subs
	setHeight(22)
	send(sub2, 17)
	send(sub2, 18)
	send(sub2, 19)
	send(sub2, 22)
	waitUntil(t, "block 22", func() bool { return rec.last() == 22 })

	// A drop while events are still queued, then quiet: the stall poll
	// fetches what the lost events carried.
	sub2.errc <- errors.New("subscription was canceled (reason: client is not pulling messages fast enough)")
	sub3 := <-evs.subs
	setHeight(40)
	send(sub3, 25)
	waitUntil(t, "block 40", func() bool { return rec.last() == 40 })

	mu.Lock()
	for h := int64(6); h <= 40; h++ {
		for _, hash := range chain.block(h).Hashes {
			if got[hash] != h {
				t.Errorf("tx %s of block %d resolved at %d", hash, h, got[hash])
			}
		}
	}
	if calls != len(got) {
		t.Errorf("%d waiter calls for %d txs", calls, len(got))
	}
	mu.Unlock()
	st := f.snapshot()
	if st.Drops != 2 || st.Subscribed != 3 || st.Duplicates < 3 || st.Fetched == 0 {
		t.Errorf("stats %+v", st)
	}
	f.stop()
	waitUntil(t, "goroutines to end", func() bool { return runtime.NumGoroutine() <= before })
}

// A waiter cancelled before its block is never called; one resolved by a
// block cannot be cancelled.
func TestFollowerCancelWaiter(t *testing.T) {
	chain := newFakeChain()
	chain.grow(3)
	f := newFollower("fake", chain, nil, fastTiming)
	if err := f.start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer f.stop()
	chain.grow(6)
	b4, b5 := chain.block(4), chain.block(5)
	called := make(chan int64, 2)
	w1 := f.register(b4.Hashes[0], func(b *blockData, _ int) { called <- b.Height })
	w2 := f.register(b5.Hashes[0], func(b *blockData, _ int) { called <- b.Height })
	if !f.cancelWaiter(w1) || f.cancelWaiter(w1) {
		t.Fatal("cancel of a pending waiter")
	}
	if h := <-called; h != 5 {
		t.Fatalf("called for block %d", h)
	}
	if f.cancelWaiter(w2) {
		t.Fatal("cancelled a resolved waiter")
	}
	waitUntil(t, "block 6", func() bool { return f.height() == 6 })
	select {
	case h := <-called:
		t.Fatalf("cancelled waiter called for block %d", h)
	default:
	}
}

// Without an event source at all the follower works by polling.
func TestFollowerStartFailsWithoutHeight(t *testing.T) {
	f := newFollower("fake", failingSource{}, nil, fastTiming)
	if err := f.start(context.Background()); err == nil {
		t.Fatal("started without a height")
	}
	f.stop() // must not hang
}

type failingSource struct{}

func (failingSource) latest(context.Context) (int64, error) { return 0, errors.New("down") }
func (failingSource) fetch(context.Context, int64) (*blockData, error) {
	return nil, errors.New("down")
}

// After a resubscription the follower fetches what it missed at once, not
// only when the next event or the stall poll comes.
func TestFollowerCatchesUpOnResubscribe(t *testing.T) {
	chain := newFakeChain()
	chain.grow(3)
	evs := &fakeEvents{subs: make(chan *fakeSub, 10)}
	timing := fastTiming
	timing.stall = time.Hour
	f := newFollower("fake", chain, evs, timing)
	if err := f.start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer f.stop()
	sub := <-evs.subs
	chain.grow(9) // committed, but its events are lost with the connection
	sub.errc <- errors.New("EOF")
	<-evs.subs
	waitUntil(t, "block 9", func() bool { return f.height() == 9 })
}
