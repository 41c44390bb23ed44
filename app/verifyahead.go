// Verifying a block's envelopes ahead: the pure part of each uncached tx's
// validation (decoding with its canonical-form check, the signature) runs
// on a node-local pool while the block's goroutine executes the txs before
// it. See app/DESIGN.md, "Pipelining: the validator's other cores".

package app

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/txn"
)

// Bounds of the work done ahead of the block's loop: at most this many
// txs, or this many bytes of envelopes, verified and not yet taken. The
// loop keeps each verdict only while it handles its tx, as the serial
// path does; the bound keeps a large block from being held decoded twice.
const (
	aheadMaxTxs   = 1024
	aheadMaxBytes = 8 << 20
)

// WithVerifyPool sets how many cores verify a block's envelopes: the
// block's goroutine and n-1 helpers (n ≤ 1: the block's goroutine alone,
// one tx after the other, as before the pool). The default (0) is
// GOMAXPROCS. Node-local: no verdict depends on it.
func WithVerifyPool(n int) ExecutorOption {
	return func(o *executorOptions) { o.verifyPool = n }
}

// verifyPoolSize is the pool size of e's options.
func (e *Executor) verifyPoolSize() int {
	if e.opts.verifyPool == 0 {
		return runtime.GOMAXPROCS(0)
	}
	return e.opts.verifyPool
}

// aheadVerdicts are a block's envelope verdicts computed ahead by the
// pool, by tx index. Each slot is claimed once, by a helper or by the
// block's goroutine (take), so every tx is decoded and verified at most
// once per execution of the block.
type aheadVerdicts struct {
	txs   [][]byte
	slots []aheadSlot
	// warm judges a verified tx's statements ahead (warmVerdicts).
	warm func(sql string)

	mu      sync.Mutex
	cond    *sync.Cond
	next    int // next index a helper claims
	taken   int // one past the highest index the loop took
	held    int // bytes of envelopes claimed by helpers and not yet taken
	stopped bool
}

type aheadSlot struct {
	claimed atomic.Bool
	done    chan struct{} // closed when a helper has set tx, err, sigErr
	skip    bool          // cached, or too large: the loop decides
	tx      *txn.Tx
	err     error // txn.Decode's
	sigErr  error // verifySignature's; nil when not verified (header refused)
}

// verifyAhead starts the pool on the block's txs, from which the block's
// loop then takes each verdict (validateAt), and returns the function that
// ends it when the loop ends (execute defers it). Nothing starts with a
// pool of one or a block of fewer than two txs. Only pure functions of the
// bytes run ahead; whatever depends on state or parameters runs in the
// loop, in order. Nothing computed here enters the envelope cache.
//
// The block's goroutine is the only caller (consensus holds the block
// slot), so one block's verdicts are in e.ahead at a time.
func (e *Executor) verifyAhead(txs [][]byte) (stop func()) {
	helpers := min(e.verifyPoolSize()-1, len(txs)-1)
	if helpers < 1 {
		return func() {}
	}
	a := &aheadVerdicts{txs: txs, slots: make([]aheadSlot, len(txs)), warm: e.verdictWarmer()}
	a.cond = sync.NewCond(&a.mu)
	for i := range a.slots {
		a.slots[i].done = make(chan struct{})
	}
	e.ahead.Store(a)
	for range helpers {
		go a.work(e)
	}
	return func() {
		e.ahead.CompareAndSwap(a, nil)
		a.stop()
	}
}

// work claims slots in order while the loop is within the bounds and
// computes their verdicts, until every slot is claimed or stop.
func (a *aheadVerdicts) work(e *Executor) {
	for {
		a.mu.Lock()
		for !a.stopped && a.next < len(a.txs) && a.next > a.taken &&
			(a.next-a.taken >= aheadMaxTxs || a.held+len(a.txs[a.next]) > aheadMaxBytes) {
			a.cond.Wait()
		}
		if a.stopped || a.next >= len(a.txs) {
			a.mu.Unlock()
			return
		}
		i := a.next
		a.next++
		a.mu.Unlock()
		s := &a.slots[i]
		if !s.claimed.CompareAndSwap(false, true) {
			continue // the loop got there first
		}
		raw := a.txs[i]
		a.mu.Lock()
		a.held += len(raw)
		a.mu.Unlock()
		var verified *txn.Tx
		if len(raw) > e.params.MaxTxBytes || e.envelopes.has(key(raw)) {
			s.skip = true
		} else if s.tx, s.err = txn.Decode(raw); s.err == nil && e.checkHeader(s.tx) == nil {
			if s.sigErr = verifySignature(s.tx); s.sigErr == nil {
				verified = s.tx
			}
		}
		close(s.done)
		warmVerdicts(a.warm, verified)
	}
}

// verdictWarmer is the gate's Warm (backend.TextGate), set where the
// gate's verdict is a pure function of the text that it caches
// (PostgreSQL's); nil otherwise.
func (e *Executor) verdictWarmer() func(sql string) {
	if g, ok := e.gate().(*backend.TextGate); ok {
		return g.Warm
	}
	return nil
}

// warmVerdicts has the gate judge tx's statements ahead of the block's
// loop (warm: verdictWarmer's): a tx the node never saw brings texts
// CheckTx never judged. The loop then finds each verdict made (or makes
// it itself, if it gets there first: the same verdict). System
// statements never reach the gate.
func warmVerdicts(warm func(sql string), tx *txn.Tx) {
	if warm == nil || tx == nil {
		return
	}
	for _, st := range tx.Statements {
		if !isSystem(st.SQL) {
			warm(st.SQL)
		}
	}
}

// take returns slot i's verdict, waiting for a helper that claimed it, or
// ok false when the loop is to do the work itself (no helper claimed it,
// or the tx is cached or too large). The slot is emptied.
func (a *aheadVerdicts) take(i int) (tx *txn.Tx, decodeErr, sigErr error, ok bool) {
	s := &a.slots[i]
	mine := s.claimed.CompareAndSwap(false, true)
	if !mine {
		<-s.done
		tx, decodeErr, sigErr, ok = s.tx, s.err, s.sigErr, !s.skip
		s.tx, s.err, s.sigErr = nil, nil, nil
	}
	a.mu.Lock()
	if !mine {
		a.held -= len(a.txs[i])
	}
	a.taken = max(a.taken, i+1)
	a.next = max(a.next, a.taken)
	a.cond.Broadcast()
	a.mu.Unlock()
	return tx, decodeErr, sigErr, ok
}

// stop ends the helpers: the block's loop ended (early, on a failure,
// or with every slot taken); a helper finishes the verdict in hand first.
func (a *aheadVerdicts) stop() {
	a.mu.Lock()
	a.stopped = true
	a.cond.Broadcast()
	a.mu.Unlock()
}

// validateAt is validate for tx i of the block being executed: the same
// checks in the same order, with the decoding and signature the pool
// computed ahead (verifyAhead) when it did, so that the verdict is byte
// for byte the one validate gives.
func (e *Executor) validateAt(i int, raw []byte, h [32]byte) (*txn.Tx, *Rejection) {
	a := e.ahead.Load()
	if a == nil || i >= len(a.txs) || len(raw) == 0 || len(a.txs[i]) != len(raw) || &a.txs[i][0] != &raw[0] {
		return e.validate(raw, h)
	}
	tx, decodeErr, sigErr, ok := a.take(i)
	if !ok {
		return e.validate(raw, h)
	}
	if len(raw) > e.params.MaxTxBytes {
		// Not reached (helpers skip such txs), kept for the order.
		return e.validate(raw, h)
	}
	if cached, hit := e.envelopes.get(h); hit {
		return cached, e.checkHeader(cached)
	}
	if decodeErr != nil {
		return nil, &Rejection{Code: api.CodeMalformed, Reason: decodeErr.Error()}
	}
	if rej := e.checkHeader(tx); rej != nil {
		return nil, rej
	}
	if sigErr != nil {
		return nil, &Rejection{Code: api.CodeBadSignature, Reason: sigErr.Error()}
	}
	return tx, nil
}
