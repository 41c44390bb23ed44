package client

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	abci "github.com/cometbft/cometbft/abci/types"

	"github.com/relchain/relchain/txn"
)

// blockData is one committed block as the follower hands it on: its txs,
// their hashes and their results, in block order.
type blockData struct {
	Height  int64
	Time    time.Time // the header's time
	Seen    time.Time // when this process learnt of the block
	Txs     [][]byte
	Hashes  []string // upper-case hex SHA-256 of each tx, as CometBFT
	Results []*abci.ExecTxResult
	size    int // bytes of the event message it came in (0: fetched)
}

func newBlockData(height int64, t time.Time, txs [][]byte, results []*abci.ExecTxResult) (*blockData, error) {
	if len(txs) != len(results) {
		return nil, fmt.Errorf("block %d has %d txs but %d results", height, len(txs), len(results))
	}
	b := &blockData{Height: height, Time: t, Seen: time.Now(), Txs: txs, Results: results, Hashes: make([]string, len(txs))}
	for i, tx := range txs {
		b.Hashes[i] = hashHex(tx)
	}
	return b, nil
}

// hashHex is a tx's hash as CometBFT prints it.
func hashHex(raw []byte) string { return strings.ToUpper(hex.EncodeToString(txn.Hash(raw))) }

// blockSource reads committed blocks on request (the block and
// block_results RPCs).
type blockSource interface {
	// latest returns the node's highest committed height.
	latest(ctx context.Context) (int64, error)
	// fetch returns block h with its results.
	fetch(ctx context.Context, h int64) (*blockData, error)
}

// eventSource opens a subscription to NewBlock events.
type eventSource interface {
	subscribe(ctx context.Context) (eventSub, error)
}

// eventSub is one live subscription. Events delivers blocks in the order
// the node sent them; Err receives one error when the subscription ends
// (connection lost, subscription cancelled by the node). Close releases
// it and waits for its goroutines.
type eventSub interface {
	Events() <-chan *blockData
	Err() <-chan error
	Close()
}

// waiter is one tx someone waits for. Whoever takes it out of the
// follower's table (a block that carries it, or a cancellation) decides
// its outcome; it is taken out exactly once.
type waiter struct {
	hash   string
	height int64 // the follower's height when it was registered
	fn     func(b *blockData, i int)
	done   bool
}

// followerTiming tunes a follower.
type followerTiming struct {
	poll        time.Duration // how often to poll while there is no subscription or it is behind
	stall       time.Duration // with a subscription: poll if no event came for this long
	redialMin   time.Duration
	redialMax   time.Duration
	dialTimeout time.Duration
	fetchTime   time.Duration // bound of one block/block_results pair
}

var defaultTiming = followerTiming{
	poll:        200 * time.Millisecond,
	stall:       2 * time.Second,
	redialMin:   100 * time.Millisecond,
	redialMax:   time.Second,
	dialTimeout: 5 * time.Second,
	fetchTime:   20 * time.Second,
}

// FollowStats counts what the block follower of a node did: how blocks
// reached it and how often its subscription was lost.
type FollowStats struct {
	Events     int64 // blocks delivered from the event stream
	Fetched    int64 // blocks delivered from the block/block_results RPCs
	Duplicates int64 // events ignored because their height was already processed
	Subscribed int64 // successful subscriptions (the first plus reconnects)
	Drops      int64 // subscriptions lost
	// MaxEventBytes is the largest NewBlock event message received.
	MaxEventBytes int64
}

// follower follows the committed blocks of one node, each height exactly
// once and in order: from a NewBlock subscription while it has one, and
// from the block and block_results RPCs to fill every gap (before the
// first event after a reconnect, after a missed event, and while there is
// no subscription at all). It resolves the waiters of the txs it finds and
// tells its listeners of every block.
type follower struct {
	node   string
	src    blockSource
	events eventSource // nil: polling only
	timing followerTiming

	mu        sync.Mutex
	last      int64
	waiters   map[string][]*waiter
	listeners map[int]func(*blockData)
	nextL     int
	live      bool // a subscription is up
	lastEvent time.Time
	stats     FollowStats
	users     int // registry reference count

	ready    chan struct{} // closed once start returned
	startErr error

	ctx    context.Context // cancelled by stop
	cancel context.CancelFunc
	done   chan struct{}
}

func newFollower(node string, src blockSource, events eventSource, timing followerTiming) *follower {
	ctx, cancel := context.WithCancel(context.Background())
	return &follower{
		node: node, src: src, events: events, timing: timing,
		waiters:   map[string][]*waiter{},
		listeners: map[int]func(*blockData){},
		ready:     make(chan struct{}),
		ctx:       ctx, cancel: cancel,
		done: make(chan struct{}),
	}
}

// start subscribes (if it can), then takes the node's committed height as
// the starting point, and runs the follower. Blocks up to that height are
// never delivered; every later one is. It fails only if the height cannot
// be had; without a subscription the follower polls and keeps trying to
// subscribe.
func (f *follower) start(ctx context.Context) error {
	var sub eventSub
	var subErr error
	if f.events != nil {
		dctx, cancel := context.WithTimeout(ctx, f.timing.dialTimeout)
		sub, subErr = f.events.subscribe(dctx)
		cancel()
	}
	h, err := f.src.latest(ctx)
	if err != nil {
		if sub != nil {
			sub.Close()
		}
		f.cancel()
		close(f.done)
		if subErr != nil {
			return fmt.Errorf("follow blocks of node %s: %w (subscribe: %v)", f.node, err, subErr)
		}
		return fmt.Errorf("follow blocks of node %s: %w", f.node, err)
	}
	f.mu.Lock()
	f.last = h
	if sub != nil {
		f.live = true
		f.stats.Subscribed++
		f.lastEvent = time.Now()
	}
	f.mu.Unlock()
	go f.run(sub)
	return nil
}

// stop ends the follower and waits for it.
func (f *follower) stop() {
	f.cancel()
	<-f.done
}

func (f *follower) run(sub eventSub) {
	defer close(f.done)
	defer func() {
		if sub != nil {
			sub.Close()
		}
	}()
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	redial := f.timing.redialMin
	var nextDial time.Time
	behind := false
	for {
		var evc <-chan *blockData
		var errc <-chan error
		wait := f.timing.poll
		if sub != nil {
			evc, errc = sub.Events(), sub.Err()
			if !behind {
				wait = f.timing.stall
			}
		}
		timer.Reset(wait)
		poll := false
		select {
		case <-f.ctx.Done():
			return
		case b, ok := <-evc:
			if !ok {
				evc = nil
				continue
			}
			behind = !f.onEvent(b)
		case <-errc:
			sub.Close()
			sub = nil
			f.mu.Lock()
			f.live = false
			f.stats.Drops++
			f.mu.Unlock()
			nextDial = time.Now()
			poll = true
		case <-timer.C:
			poll = true
		}
		if !timer.Stop() {
			select {
			case <-timer.C:
			default:
			}
		}
		if sub == nil && f.events != nil && !time.Now().Before(nextDial) {
			// A short bound: the follower does not poll while it dials.
			dctx, cancel := context.WithTimeout(f.ctx, min(f.timing.dialTimeout, 2*time.Second))
			s, err := f.events.subscribe(dctx)
			cancel()
			if err != nil {
				nextDial = time.Now().Add(redial)
				redial = min(2*redial, f.timing.redialMax)
			} else {
				sub, redial = s, f.timing.redialMin
				f.mu.Lock()
				f.live = true
				f.stats.Subscribed++
				f.lastEvent = time.Now()
				f.mu.Unlock()
				// Whatever was committed while there was no
				// subscription is fetched now, before the next event.
				poll, behind = true, true
			}
		}
		if poll {
			f.mu.Lock()
			quiet := time.Since(f.lastEvent)
			f.mu.Unlock()
			switch {
			case sub == nil || behind:
				behind = !f.catchUp(0)
			case quiet >= 3*f.timing.stall:
				// An event was lost (a node drops events it cannot write
				// to a slow client) and the chain went quiet.
				behind = !f.catchUp(0)
			case quiet >= f.timing.stall:
				// Blocks are slow, or events are lost: fetch all but the
				// newest block, whose event may be on its way.
				behind = !f.catchUp(1)
			}
		}
	}
}

// onEvent handles one block from the subscription; false means a gap
// could not be filled (the block is then left to the next poll).
func (f *follower) onEvent(b *blockData) bool {
	f.mu.Lock()
	last := f.last
	f.lastEvent = time.Now()
	if b.Height <= last {
		f.stats.Duplicates++
		f.mu.Unlock()
		return true
	}
	f.mu.Unlock()
	if b.Height > last+1 && !f.fill(last+1, b.Height-1) {
		return false
	}
	f.mu.Lock()
	f.stats.Events++
	f.stats.MaxEventBytes = max(f.stats.MaxEventBytes, int64(b.size))
	f.mu.Unlock()
	f.deliver(b)
	return true
}

// catchUp fetches every block after the last delivered one up to the
// node's committed height less spare; false if it could not get them all.
func (f *follower) catchUp(spare int64) bool {
	ctx, cancel := context.WithTimeout(f.ctx, f.timing.fetchTime)
	h, err := f.src.latest(ctx)
	cancel()
	if err != nil {
		return false
	}
	h -= spare
	f.mu.Lock()
	last := f.last
	f.mu.Unlock()
	if h <= last {
		return true
	}
	return f.fill(last+1, h)
}

// fill fetches and delivers heights from..to, in order; it stops at the
// first one it cannot get (block_results may lag the block store by one).
func (f *follower) fill(from, to int64) bool {
	for h := from; h <= to; h++ {
		ctx, cancel := context.WithTimeout(f.ctx, f.timing.fetchTime)
		b, err := f.src.fetch(ctx, h)
		cancel()
		if err != nil {
			return false
		}
		f.mu.Lock()
		f.stats.Fetched++
		f.mu.Unlock()
		f.deliver(b)
	}
	return true
}

// deliver records b as processed and resolves its txs' waiters, then
// tells the listeners. Only the follower's goroutine calls it, with
// heights strictly increasing by one.
func (f *follower) deliver(b *blockData) {
	type hit struct {
		w *waiter
		i int
	}
	var hits []hit
	f.mu.Lock()
	if b.Height <= f.last {
		f.mu.Unlock()
		return
	}
	f.last = b.Height
	for i, h := range b.Hashes {
		ws, ok := f.waiters[h]
		if !ok {
			continue
		}
		delete(f.waiters, h)
		for _, w := range ws {
			w.done = true
			hits = append(hits, hit{w, i})
		}
	}
	ls := make([]func(*blockData), 0, len(f.listeners))
	for i := 0; i < f.nextL; i++ {
		if l, ok := f.listeners[i]; ok {
			ls = append(ls, l)
		}
	}
	f.mu.Unlock()
	for _, h := range hits {
		h.w.fn(b, h.i)
	}
	for _, l := range ls {
		l(b)
	}
}

// register adds a waiter for the tx with this hash; fn runs (once, on the
// follower's goroutine, and must not block) when a block carries it.
func (f *follower) register(hash string, fn func(b *blockData, i int)) *waiter {
	f.mu.Lock()
	defer f.mu.Unlock()
	w := &waiter{hash: hash, height: f.last, fn: fn}
	f.waiters[hash] = append(f.waiters[hash], w)
	return w
}

// cancel takes w out; false if a block already resolved it (or it was
// cancelled before).
func (f *follower) cancelWaiter(w *waiter) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if w.done {
		return false
	}
	w.done = true
	ws := f.waiters[w.hash]
	for i, x := range ws {
		if x == w {
			ws = append(ws[:i], ws[i+1:]...)
			break
		}
	}
	if len(ws) == 0 {
		delete(f.waiters, w.hash)
	} else {
		f.waiters[w.hash] = ws
	}
	return true
}

// listen adds a block listener (called on the follower's goroutine after
// the block's waiters; must not block) and returns its remover.
func (f *follower) listen(fn func(*blockData)) func() {
	f.mu.Lock()
	id := f.nextL
	f.nextL++
	f.listeners[id] = fn
	f.mu.Unlock()
	return func() {
		f.mu.Lock()
		delete(f.listeners, id)
		f.mu.Unlock()
	}
}

// height is the last height delivered.
func (f *follower) height() int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.last
}

// isLive reports whether a subscription is up.
func (f *follower) isLive() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.live
}

func (f *follower) snapshot() FollowStats {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.stats
}

// The registry shares one follower per node address in the process: every
// Client of that node waits through it, so short-lived Clients do not each
// hold a websocket. A follower nobody uses stops after followerLinger.
var (
	registryMu     sync.Mutex
	registry       = map[string]*follower{}
	followerLinger = 3 * time.Second
)

// errNoFollower is returned by acquire when the follower could not start.
var errNoFollower = errors.New("cannot follow blocks")

// acquireFollower returns the running follower of the client's node,
// starting it if needed. Release it with releaseFollower.
func (c *Client) acquireFollower(ctx context.Context) (*follower, error) {
	registryMu.Lock()
	f := registry[c.url]
	creator := false
	if f == nil {
		src := &rpcSource{c: c}
		var evs eventSource
		if u, err := wsURL(c.url); err == nil {
			evs = &wsSource{url: u, node: c.url}
		}
		f = newFollower(c.url, src, evs, defaultTiming)
		registry[c.url] = f
		creator = true
	}
	f.users++
	registryMu.Unlock()
	if creator {
		f.startErr = f.start(ctx)
		close(f.ready)
		if f.startErr != nil {
			registryMu.Lock()
			if registry[c.url] == f {
				delete(registry, c.url)
			}
			registryMu.Unlock()
		}
	} else {
		select {
		case <-f.ready:
		case <-ctx.Done():
			releaseFollower(f)
			return nil, fmt.Errorf("follow blocks of node %s: %w", c.url, ctx.Err())
		}
	}
	if f.startErr != nil {
		registryMu.Lock()
		f.users--
		registryMu.Unlock()
		return nil, fmt.Errorf("%w: %w", errNoFollower, f.startErr)
	}
	return f, nil
}

// releaseFollower drops one reference; the follower stops after
// followerLinger without users.
func releaseFollower(f *follower) {
	registryMu.Lock()
	defer registryMu.Unlock()
	f.users--
	if f.users > 0 {
		return
	}
	stopIdle := func() {
		registryMu.Lock()
		if f.users > 0 || registry[f.node] != f {
			registryMu.Unlock()
			return
		}
		delete(registry, f.node)
		registryMu.Unlock()
		f.stop()
	}
	if followerLinger <= 0 {
		go stopIdle()
		return
	}
	time.AfterFunc(followerLinger, stopIdle)
}

// CloseSubscriptions ends every block subscription this process holds
// (they are shared by the Clients of a node and linger a few seconds after
// their last use), closing each websocket with a close frame. A program
// calls it before it exits, so that nodes see clients leave rather than
// connections break. Clients used afterwards subscribe again.
func CloseSubscriptions() { stopAllFollowers() }

// stopAllFollowers stops every follower at once.
func stopAllFollowers() {
	registryMu.Lock()
	fs := make([]*follower, 0, len(registry))
	for k, f := range registry {
		fs = append(fs, f)
		delete(registry, k)
	}
	registryMu.Unlock()
	for _, f := range fs {
		f.stop()
	}
}
