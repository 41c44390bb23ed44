// Transient database faults: a lost connection or a restarting server
// (backend.ErrDatabaseUnavailable) inside a block is waited out and the
// block runs again from the committed state; an ambiguous COMMIT is
// resolved from the (height, AppHash) the database records.

package app

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/cometbft/cometbft/libs/log"

	"github.com/relchain/relchain/backend"
)

// Backoff between attempts while the database is unavailable: the first
// retry after RetryMinBackoff, each next one after twice the wait before,
// at most RetryMaxBackoff. An attempt against a server that is down costs
// a refused dial, so the cap is short: a node resumes at most
// RetryMaxBackoff after its server accepts connections again.
const (
	RetryMinBackoff = 100 * time.Millisecond
	RetryMaxBackoff = 2 * time.Second
)

// retryLogEvery bounds how often a retry is logged after the first
// retryLogFirst attempts of an outage.
const (
	retryLogFirst = 3
	retryLogEvery = 10 * time.Second
)

// ErrStopping is wrapped by the error of FinalizeBlock, Commit or
// Speculate when the node stopped (StopRetrying) while it waited for an
// unavailable database: nothing of the block was committed, and CometBFT
// replays it at the next start.
var ErrStopping = errors.New("the node is stopping")

// ErrBrokenInvariant is wrapped by Commit's error when the state the
// database records after a lost connection is neither the committed block
// nor the one being committed, or when the block, run again from the
// committed state, gives another AppHash: going on could apply a block
// twice or commit a state the network did not sign, so the node stops.
var ErrBrokenInvariant = errors.New("relchain's record of the committed block contradicts this node's state")

// DatabaseStatus is what the executor knows of its database's
// availability, for metrics and /readyz.
type DatabaseStatus struct {
	// Unavailable is set while a block waits for the database (the last
	// attempt failed with backend.ErrDatabaseUnavailable).
	Unavailable bool
	// Since is when the current outage began (zero when available).
	Since time.Time
	// Reason is the last attempt's error (empty when available).
	Reason string
	// Retries counts every attempt that failed for unavailability, over
	// the process's life; Outages counts the outages.
	Retries, Outages int64
	// LostCommitsApplied counts the block commits that failed with a
	// lost connection although the database had applied them (the
	// acknowledgement was lost); LostCommitsRerun those it had not (the
	// block ran again and was committed once).
	LostCommitsApplied, LostCommitsRerun int64
}

// dbHealth is the executor's DatabaseStatus and the retry machinery's
// own state.
type dbHealth struct {
	mu      sync.Mutex
	st      DatabaseStatus
	lastLog time.Time
	logger  log.Logger
	// minWait and maxWait are the backoff bounds (RetryMinBackoff and
	// RetryMaxBackoff unless a test sets others).
	minWait, maxWait time.Duration
	stop             chan struct{} // closed by StopRetrying
	stopOnce         sync.Once
}

func newDBHealth() *dbHealth {
	return &dbHealth{logger: log.NewNopLogger(), minWait: RetryMinBackoff, maxWait: RetryMaxBackoff, stop: make(chan struct{})}
}

// SetLogger makes the executor log its retries on l.
func (e *Executor) SetLogger(l log.Logger) {
	e.db.mu.Lock()
	defer e.db.mu.Unlock()
	e.db.logger = l
}

// DatabaseStatus reports the database's availability as the executor saw
// it last.
func (e *Executor) DatabaseStatus() DatabaseStatus {
	e.db.mu.Lock()
	defer e.db.mu.Unlock()
	return e.db.st
}

// StopRetrying ends every wait for an unavailable database, now and
// later: the waiting call returns an error wrapping ErrStopping. The node
// calls it when it stops.
func (e *Executor) StopRetrying() {
	e.db.stopOnce.Do(func() { close(e.db.stop) })
}

// failed records an attempt of what (at height) that failed with err,
// logs it (the first attempts of an outage, then at most every
// retryLogEvery) and returns how long to wait before the next.
func (h *dbHealth) failed(what string, height int64, attempt int, err error) time.Duration {
	h.mu.Lock()
	defer h.mu.Unlock()
	now := time.Now()
	if !h.st.Unavailable {
		h.st.Unavailable, h.st.Since = true, now
		h.st.Outages++
	}
	h.st.Retries++
	h.st.Reason = err.Error()
	wait := h.minWait << min(attempt-1, 30)
	if wait > h.maxWait || wait <= 0 {
		wait = h.maxWait
	}
	if attempt <= retryLogFirst || now.Sub(h.lastLog) >= retryLogEvery {
		h.lastLog = now
		h.logger.Error("the database is unavailable: the block waits for it and runs again from the committed state (no operator action needed; it resumes when the database answers)",
			"op", what, "height", height, "attempt", attempt, "unavailable_for", now.Sub(h.st.Since).Round(time.Millisecond), "retry_in", wait, "err", err)
	}
	return wait
}

// recovered records that the database answered again after an outage.
func (h *dbHealth) recovered(what string, height int64, attempts int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.st.Unavailable {
		return
	}
	h.logger.Info("the database is available again; the block went on", "op", what, "height", height,
		"attempts", attempts, "unavailable_for", time.Since(h.st.Since).Round(time.Millisecond))
	h.st.Unavailable, h.st.Since, h.st.Reason = false, time.Time{}, ""
}

// lostCommit counts a COMMIT lost with the connection, resolved as
// applied or not.
func (h *dbHealth) lostCommit(applied bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if applied {
		h.st.LostCommitsApplied++
	} else {
		h.st.LostCommitsRerun++
	}
}

// wait sleeps d, or until ctx ends or StopRetrying: then it returns why.
func (h *dbHealth) wait(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-h.stop:
		return ErrStopping
	}
}

// untilAvailable runs op until it returns nil or an error that does not
// wrap backend.ErrDatabaseUnavailable, waiting between attempts with
// exponential backoff. Before every retry, resolve (if not nil) runs on
// the recovered connection; its error ends the loop unless it is
// unavailability too. what and height name the operation in logs.
func (e *Executor) untilAvailable(ctx context.Context, what string, height int64, op func() error, resolve func() error) error {
	err := op()
	attempt := 1
	for ; err != nil && backend.IsUnavailable(err); attempt++ {
		if ctx.Err() != nil {
			return err
		}
		if werr := e.db.wait(ctx, e.db.failed(what, height, attempt, err)); werr != nil {
			return fmt.Errorf("%w while waiting for the database: %w", werr, err)
		}
		if resolve != nil {
			if err = resolve(); err != nil {
				continue
			}
		}
		err = op()
	}
	if err == nil {
		e.db.recovered(what, height, attempt)
	}
	return err
}

// checkRecorded verifies, after a lost connection, that the database
// records the committed state: a block that failed before its COMMIT was
// sent cannot have changed it. It waits for the lost session's
// db-transaction to end (backend.Backend.RecordedState).
func (e *Executor) checkRecorded(ctx context.Context, height int64) error {
	rec, err := e.Backend().RecordedState(ctx)
	if err != nil {
		return err
	}
	committed := e.State()
	if rec.Height == committed.Height && bytes.Equal(rec.AppHash, committed.AppHash) {
		return nil
	}
	return fmt.Errorf("block %d: %w: after a lost connection the database records height %d (AppHash %X), this node committed height %d (AppHash %X) and never sent the COMMIT of a later block: something else wrote relchain's state; check the database with `relchain verify`",
		height, ErrBrokenInvariant, rec.Height, rec.AppHash, committed.Height, committed.AppHash)
}
