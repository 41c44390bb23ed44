package client

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/txn"
)

// ErrStreamClosed is returned by Submit after Close, and wrapped by the
// outcome of every tx still pending when the stream was closed.
var ErrStreamClosed = errors.New("stream closed")

// Outcome is what a Stream reports, exactly once, for every tx it
// accepted from Submit.
type Outcome struct {
	Tag  any    // the caller's tag from Submit
	Hash string // upper-case hex tx hash
	// Height and Index locate the committed tx (Height 0: not committed).
	Height int64
	Index  int
	// Result is the bc-transaction's result: for a committed tx its code,
	// statement results and failure (Result.Batch: one outcome per
	// wl-transaction of a batch envelope); for a tx CheckTx rejected
	// CheckTx's code and log (Height 0). Always set (Hash at least).
	Result *Result
	// Err is set when the tx did not reach a block: a *TxError for a
	// CheckTx rejection, an error wrapping ErrQuarantined when the node
	// quarantined it after admitting it (learnt within seconds: the stream
	// re-submits long-pending txs, as a commit-mode wait does), one
	// wrapping ErrNotCommitted when it was not committed within the
	// stream's MaxBlocks, wrapping ErrStreamClosed when it was still
	// pending at Close, or wrapping ErrOutcomeUnknown when CheckTx refused
	// a resubmission because its nonce is used and the node's tx index
	// could not tell whether by this very tx. A committed tx has Err nil,
	// even if its execution failed (see Result.Code), and so has a
	// resubmission of a committed tx: its outcome is the committed one.
	Err error
	// SubmitTime is when Submit handed the tx over; CommitTime when the
	// stream learnt of its block; BlockTime is the block header's time.
	SubmitTime time.Time
	CommitTime time.Time
	BlockTime  time.Time
}

// Included reports whether the tx is in a committed block.
func (o *Outcome) Included() bool { return o.Height > 0 }

// OK reports whether the tx was committed and executed successfully.
func (o *Outcome) OK() bool { return o.Included() && o.Result != nil && o.Result.OK() }

// Latency is the time from submission to the stream seeing the block.
func (o *Outcome) Latency() time.Duration {
	if !o.Included() {
		return 0
	}
	return o.CommitTime.Sub(o.SubmitTime)
}

// BlockInfo describes one committed block the stream processed.
type BlockInfo struct {
	Height int64
	Time   time.Time // the header's time
	Seen   time.Time // when the stream learnt of it
	Txs    int       // txs in the block (all clients')
	Mine   int       // txs of this stream in it
}

// StreamOption configures a Stream.
type StreamOption func(*streamOptions)

type streamOptions struct {
	maxBlocks int64
	buffer    int
	onBlock   func(BlockInfo)
}

// MaxBlocks sets how many blocks after its submission a tx may take to be
// committed before the stream reports it with ErrNotCommitted (it was
// evicted from the mempool, say). Default DefaultCommitBlocks.
func MaxBlocks(n int64) StreamOption { return func(o *streamOptions) { o.maxBlocks = n } }

// ResultsBuffer sets the capacity of the Results channel (default 1024).
// Outcomes never wait for the channel: they queue in the stream.
func ResultsBuffer(n int) StreamOption { return func(o *streamOptions) { o.buffer = n } }

// OnBlock sets a hook called for every committed block the stream
// processes, in height order, after the outcomes of that block's txs were
// delivered to Results. It runs on the stream's delivery goroutine: a slow
// hook delays Results.
func OnBlock(fn func(BlockInfo)) StreamOption { return func(o *streamOptions) { o.onBlock = fn } }

// Stream submits bc-transactions asynchronously and reports their
// outcomes: the paper's RPC-sender (Submit) and RPC-listener (Results).
//
// Submit hands a tx over with broadcast_tx_sync and returns; Results
// reports every tx whose Submit returned nil exactly once: committed (with
// height, index and result), rejected by CheckTx, not committed within
// MaxBlocks, or still pending at Close. A Submit that returns an error
// reports nothing.
//
// The listener follows the node's committed blocks through a NewBlock
// websocket subscription shared by every Client of the node in the
// process. When the subscription is lost it polls, resubscribes, and first
// fetches every block it missed with the block and block_results RPCs, so
// every height is processed once and in order and nothing is lost or
// reported twice.
//
// Submit, SubmitBatch, SubmitRaw and Flush may be called from many
// goroutines.
type Stream struct {
	c    *Client
	f    *follower
	opts streamOptions

	unlisten func()
	stopCtx  func() bool     // context.AfterFunc of the caller's context
	retryCtx context.Context // cancelled by Close: ends Submit's retries
	cancel   context.CancelFunc
	userDone <-chan struct{} // the caller's context

	inflight sync.WaitGroup

	mu       sync.Mutex
	closed   bool
	pending  []*streamTx // submission order
	npending int
	idle     chan struct{} // closed while npending == 0
	queue    []streamItem
	wake     chan struct{}
	mine     int    // txs of this stream in the block being processed
	seq      uint64 // the last streamTx.seq given

	out      chan Outcome
	pumpDone chan struct{}
}

type streamTx struct {
	w         *waiter
	tag       any
	hash      string
	raw       []byte // for probeLoop; nil once resolved
	seq       uint64 // submission order, from 1
	submitted time.Time
	done      bool
}

type streamItem struct {
	outcome *Outcome
	block   *BlockInfo
}

// Stream opens an asynchronous submission stream on the client's node.
// Cancelling ctx closes the stream and discards outcomes not yet
// delivered.
func (c *Client) Stream(ctx context.Context, opts ...StreamOption) (*Stream, error) {
	o := streamOptions{maxBlocks: DefaultCommitBlocks, buffer: 1024}
	for _, fn := range opts {
		fn(&o)
	}
	if o.maxBlocks <= 0 {
		o.maxBlocks = DefaultCommitBlocks
	}
	if o.buffer < 0 {
		o.buffer = 0
	}
	f, err := c.acquireFollower(ctx)
	if err != nil {
		return nil, fmt.Errorf("open stream: %w", err)
	}
	s := &Stream{c: c, f: f, opts: o, wake: make(chan struct{}, 1), out: make(chan Outcome, o.buffer),
		pumpDone: make(chan struct{}), idle: make(chan struct{}), userDone: ctx.Done()}
	close(s.idle)
	s.retryCtx, s.cancel = context.WithCancel(context.Background())
	c.mu.Lock()
	if c.streams == nil {
		c.streams = map[*Stream]struct{}{}
	}
	c.streams[s] = struct{}{}
	c.mu.Unlock()
	s.unlisten = f.listen(s.onBlock)
	s.stopCtx = context.AfterFunc(ctx, func() { go s.Close() })
	go s.pump()
	go s.probeLoop()
	return s, nil
}

// Results delivers one Outcome per submitted tx. It is closed after Close
// once every outcome has been delivered (or at once when the context
// given to Stream is cancelled). Read it until it is closed.
func (s *Stream) Results() <-chan Outcome { return s.out }

// Stats reports how the node's block follower got its blocks so far.
func (s *Stream) Stats() FollowStats { return s.f.snapshot() }

// Submit signs the statements as one bc-transaction and submits it.
func (s *Stream) Submit(ctx context.Context, tag any, stmts ...txn.Statement) error {
	raw, err := s.c.Sign(ctx, stmts)
	if err != nil {
		return err
	}
	return s.SubmitRaw(ctx, tag, raw)
}

// SubmitBatch signs the wl-transactions as one batch envelope and submits
// it; its outcome's Result.Batch holds one outcome per wl-transaction.
func (s *Stream) SubmitBatch(ctx context.Context, tag any, wls [][]txn.Statement) error {
	raw, err := s.c.SignBatch(ctx, wls)
	if err != nil {
		return err
	}
	return s.SubmitRaw(ctx, tag, raw)
}

// SubmitRaw submits an already signed envelope with broadcast_tx_sync,
// retrying with a short backoff while the node's mempool is full, and
// returns once the node's CheckTx answered. The outcome comes on Results.
// It returns an error, and reports no outcome, if the tx could not be
// handed over (closed stream, node unreachable, ctx done); a tx whose
// handover failed in transit may in rare cases still be committed
// unreported.
func (s *Stream) SubmitRaw(ctx context.Context, tag any, raw []byte) error {
	hash := hashHex(raw)
	// A copy: the caller may reuse raw once SubmitRaw returns, and the
	// probe re-submits these bytes later.
	st := &streamTx{tag: tag, hash: hash, raw: bytes.Clone(raw), submitted: time.Now()}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return fmt.Errorf("submit %s: %w", hash, ErrStreamClosed)
	}
	s.seq++
	st.seq = s.seq
	s.inflight.Add(1)
	defer s.inflight.Done()
	st.w = s.f.register(hash, func(b *blockData, i int) { s.committed(st, b, i) })
	s.pending = append(s.pending, st)
	if s.npending == 0 {
		s.idle = make(chan struct{})
	}
	s.npending++
	s.mu.Unlock()

	bctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(s.retryCtx, cancel)
	defer stop()
	a, err := s.c.broadcastSync(bctx, raw)
	switch {
	case err != nil:
		if s.f.cancelWaiter(st.w) {
			s.resolve(st, nil)
			return fmt.Errorf("submit %s: %w", hash, err)
		}
	case a.inCache:
		// The node has this very tx: pending in its mempool, or already
		// committed (perhaps before this stream followed blocks, or
		// after an attempt that failed in transit). A block after the
		// one the follower had reached at registration is the follower's
		// to report; an earlier one it will never see.
		if res, idx, ok := s.c.lookupTxIndex(ctx, hash); ok && res.Height <= st.w.height && s.f.cancelWaiter(st.w) {
			s.resolve(st, &Outcome{Height: res.Height, Index: idx, Result: res, CommitTime: time.Now()})
		}
	case isResubmitRefusal(a.r.Code):
		// Its nonce is used: by this very tx, committed (before a
		// restart, say), or by another one; the tx index tells.
		s.settle(ctx, st, a.r.Code, a.r.Log)
	case a.r.Code != api.CodeOK:
		if s.f.cancelWaiter(st.w) {
			res := &Result{Hash: hash, Code: a.r.Code, Error: a.r.Log}
			s.resolve(st, &Outcome{Result: res, Err: res.Err()})
		}
	}
	return nil
}

// settle reports st, which CheckTx refused with code and log as already
// committed or replayed, as Client.settleRefusal finds it: committed (a
// block after the follower's height at registration is left to the
// follower), refused, or with an error wrapping ErrOutcomeUnknown.
func (s *Stream) settle(ctx context.Context, st *streamTx, code uint32, log string) {
	res, idx, err := s.c.settleRefusal(ctx, st.hash, code, log)
	switch {
	case err != nil:
		if s.f.cancelWaiter(st.w) {
			s.resolve(st, &Outcome{Result: &Result{Hash: st.hash, Code: code, Error: log}, Err: err})
		}
	case res.Height == 0:
		if s.f.cancelWaiter(st.w) {
			s.resolve(st, &Outcome{Result: res, Err: res.Err()})
		}
	case res.Height <= st.w.height:
		if s.f.cancelWaiter(st.w) {
			s.resolve(st, &Outcome{Height: res.Height, Index: idx, Result: res, CommitTime: time.Now()})
		}
	}
}

// resolve records st's outcome (nil: none, Submit failed).
func (s *Stream) resolve(st *streamTx, o *Outcome) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.resolveLocked(st, o)
}

func (s *Stream) resolveLocked(st *streamTx, o *Outcome) {
	if st.done {
		return
	}
	st.done = true
	st.raw = nil
	if o != nil {
		o.Tag, o.Hash, o.SubmitTime = st.tag, st.hash, st.submitted
		if o.Result == nil {
			o.Result = &Result{Hash: st.hash}
		}
		s.queue = append(s.queue, streamItem{outcome: o})
		s.signal()
	}
	s.npending--
	if s.npending == 0 {
		close(s.idle)
		s.signal()
	}
}

func (s *Stream) signal() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// committed runs on the follower's goroutine when a block carries st.
func (s *Stream) committed(st *streamTx, b *blockData, i int) {
	o := &Outcome{Height: b.Height, Index: i, Result: ExecResult(st.hash, b.Height, b.Results[i]),
		CommitTime: b.Seen, BlockTime: b.Time}
	s.mu.Lock()
	s.mine++
	s.resolveLocked(st, o)
	s.mu.Unlock()
}

// onBlock runs on the follower's goroutine after the block's txs were
// resolved: it gives up on txs pending for more than MaxBlocks, and
// queues the block's information for the OnBlock hook.
func (s *Stream) onBlock(b *blockData) {
	s.mu.Lock()
	defer s.mu.Unlock()
	mine := s.mine
	s.mine = 0
	n := 0
	for ; n < len(s.pending); n++ {
		st := s.pending[n]
		if st.done {
			continue
		}
		if b.Height-st.w.height <= s.opts.maxBlocks {
			break
		}
		if s.f.cancelWaiter(st.w) {
			s.resolveLocked(st, &Outcome{Err: fmt.Errorf("tx %s on node %s: %w within %d blocks (evicted from the mempool?)",
				st.hash, s.c.url, ErrNotCommitted, b.Height-st.w.height)})
		}
	}
	for n < len(s.pending) && s.pending[n].done {
		n++
	}
	clear(s.pending[:n])
	s.pending = s.pending[n:]
	if s.opts.onBlock != nil && !s.closed {
		s.queue = append(s.queue, streamItem{block: &BlockInfo{Height: b.Height, Time: b.Time, Seen: b.Seen, Txs: len(b.Txs), Mine: mine}})
		s.signal()
	}
}

// Flush waits until every tx submitted so far has its outcome queued for
// Results (committed, rejected or given up on); it does not wait for the
// reader of Results. Submissions may continue meanwhile; Flush then also
// waits for them.
func (s *Stream) Flush(ctx context.Context) error {
	s.mu.Lock()
	idle := s.idle
	n := s.npending
	s.mu.Unlock()
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("flush stream on node %s: %d txs pending: %w", s.c.url, n, ctx.Err())
	}
}

// Close stops the stream: Submit fails from now on, Submits in progress
// are interrupted, every tx still pending is reported with an outcome
// wrapping ErrStreamClosed, and Results is closed once everything has been
// delivered. Call Flush first to wait for pending txs instead. Close
// returns without waiting for the reader of Results; the stream's
// goroutines end when Results has been drained (or the Stream's context
// is cancelled).
func (s *Stream) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.mu.Unlock()
	s.cancel()
	s.stopCtx()
	s.inflight.Wait()
	s.unlisten()
	s.mu.Lock()
	for _, st := range s.pending {
		if !st.done && s.f.cancelWaiter(st.w) {
			s.resolveLocked(st, &Outcome{Err: fmt.Errorf("tx %s on node %s: %w before it was committed", st.hash, s.c.url, ErrStreamClosed)})
		}
	}
	s.pending = nil
	s.signal()
	s.mu.Unlock()
	s.c.mu.Lock()
	delete(s.c.streams, s)
	s.c.mu.Unlock()
	// The follower is released by the pump once every outcome is out: a
	// block being delivered right now may still resolve a tx.
	return nil
}

// pump delivers queued outcomes and block information in order.
func (s *Stream) pump() {
	defer close(s.pumpDone)
	defer releaseFollower(s.f)
	defer close(s.out)
	for {
		s.mu.Lock()
		for len(s.queue) == 0 {
			if s.closed && s.npending == 0 {
				s.mu.Unlock()
				return
			}
			s.mu.Unlock()
			select {
			case <-s.wake:
			case <-s.userDone:
				s.discard()
				return
			}
			s.mu.Lock()
		}
		it := s.queue[0]
		s.queue[0] = streamItem{}
		s.queue = s.queue[1:]
		s.mu.Unlock()
		if it.block != nil {
			s.opts.onBlock(*it.block)
			continue
		}
		select {
		case s.out <- *it.outcome:
		case <-s.userDone:
			s.discard()
			return
		}
	}
}

// discard ends delivery after the caller's context was cancelled: it waits
// for Close (started by the context) to resolve every pending tx.
func (s *Stream) discard() {
	_ = s.Close()
	for {
		s.mu.Lock()
		s.queue = nil
		done := s.npending == 0
		s.mu.Unlock()
		if done {
			return
		}
		<-s.wake
	}
}

// Close closes the client's open streams (see Stream.Close). The block
// follower the client's node shares in the process stops by itself shortly
// after its last user is gone. The client stays usable.
func (c *Client) Close() error {
	c.mu.Lock()
	ss := make([]*Stream, 0, len(c.streams))
	for s := range c.streams {
		ss = append(ss, s)
	}
	c.mu.Unlock()
	var errs []error
	for _, s := range ss {
		errs = append(errs, s.Close())
	}
	return errors.Join(errs...)
}
