package bench

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/relchain/relchain/client"
)

// TxStats are the explicit transactions' figures for one key set.
type TxStats struct {
	Keys     string  `json:"keys"`
	Sessions int     `json:"sessions"`
	Seconds  float64 `json:"seconds"`
	// Commits succeeded; CommitFailures40001 of the COMMITs sent failed
	// with SQLSTATE 40001 (the block observed other values than the
	// client's statements did).
	Commits             int     `json:"commits"`
	CommitsSent         int     `json:"commits_sent"`
	CommitFailures40001 int     `json:"commit_failures_40001"`
	CommitsPerSec       float64 `json:"commits_per_sec"`
	// Statements (SELECT, UPDATE, UPDATE; not BEGIN or COMMIT) sent
	// inside transactions, and those that failed with 40001.
	Statements        int `json:"statements"`
	StatementFailures int `json:"statement_failures_40001"`
	// OtherErrors counts every other failure; the first is kept.
	OtherErrors     int     `json:"other_errors"`
	FirstOtherError string  `json:"first_other_error,omitempty"`
	CommitP50       float64 `json:"commit_p50_ms"`
	CommitP95       float64 `json:"commit_p95_ms"`
	// StatementP50 and StatementP95: the latency of one statement inside
	// a transaction (each is rehearsed on the node before it is answered).
	StatementP50 float64 `json:"statement_p50_ms"`
	StatementP95 float64 `json:"statement_p95_ms"`
	// Blocks committed during the run, bc-transactions per block with
	// any, and node 0's mean phases of those blocks (the time a block
	// holds the node's one writer, which rehearsals wait for).
	Blocks      int     `json:"blocks"`
	TxsPerBlock float64 `json:"txs_per_block"`
	Phases      *Phases `json:"phases,omitempty"`
	TotalBefore int64   `json:"total_before"`
	TotalAfter  int64   `json:"total_after"`
	Conserved   bool    `json:"conserved"`
}

// keyPicker chooses the two distinct accounts of a transfer.
type keyPicker func(r *rand.Rand) (a, b int64)

// uniformKeys picks both accounts uniformly among accounts.
func uniformKeys(accounts int) keyPicker {
	return func(r *rand.Rand) (int64, int64) { return distinctPair(r, 0, accounts) }
}

// skewedKeys puts a share hotShare of the transfers on the hot accounts
// 1..hot (both accounts hot), the rest uniformly on all accounts.
func skewedKeys(accounts, hot int, hotShare float64) keyPicker {
	return func(r *rand.Rand) (int64, int64) {
		if r.Float64() < hotShare {
			return distinctPair(r, 0, hot)
		}
		return distinctPair(r, 0, accounts)
	}
}

// distinctPair picks two distinct ids in (lo, lo+n].
func distinctPair(r *rand.Rand, lo, n int) (int64, int64) {
	a := r.IntN(n)
	b := r.IntN(n - 1)
	if b >= a {
		b++
	}
	return int64(lo + a + 1), int64(lo + b + 1)
}

// txTally is one session's count, merged at the end.
type txTally struct {
	commits, commitsSent, commitAborts, statements, stmtAborts, other int
	firstOther                                                        error
	commitLat, stmtLat                                                []float64
}

func (t *txTally) otherError(err error) {
	t.other++
	if t.firstOther == nil {
		t.firstOther = err
	}
}

// transferSession runs transfers on conn until the deadline: BEGIN; read
// a's balance; move one unit from a to b; COMMIT. A 40001 ends the transaction
// (rolled back) and the next one starts with new keys.
func transferSession(ctx context.Context, conn *pgx.Conn, pick keyPicker, r *rand.Rand, deadline time.Time) *txTally {
	t := &txTally{}
	for time.Now().Before(deadline) && ctx.Err() == nil {
		a, b := pick(r)
		tx, err := conn.Begin(ctx)
		if err != nil {
			t.otherError(fmt.Errorf("BEGIN: %w", err))
			continue
		}
		err = transferStatements(ctx, tx, a, b, t)
		if err != nil {
			_ = tx.Rollback(ctx)
			if isSerializationFailure(err) {
				t.stmtAborts++
			} else {
				t.otherError(err)
			}
			continue
		}
		t0 := time.Now()
		t.commitsSent++
		err = tx.Commit(ctx)
		switch {
		case err == nil:
			t.commits++
			t.commitLat = append(t.commitLat, ms(time.Since(t0)))
		case isSerializationFailure(err):
			t.commitAborts++
		default:
			t.otherError(fmt.Errorf("COMMIT: %w", err))
		}
	}
	return t
}

// transferStatements sends the transfer's statements inside tx, counting
// each one sent.
func transferStatements(ctx context.Context, tx pgx.Tx, a, b int64, t *txTally) error {
	var bal int64
	t.statements++
	t0 := time.Now()
	if err := tx.QueryRow(ctx, pointSelect, a).Scan(&bal); err != nil {
		return fmt.Errorf("SELECT balance of %d: %w", a, err)
	}
	t.stmtLat = append(t.stmtLat, ms(time.Since(t0)))
	for _, st := range []struct {
		sql string
		id  int64
	}{{debitAccount, a}, {creditAccount, b}} {
		t.statements++
		t0 := time.Now()
		tag, err := tx.Exec(ctx, st.sql, st.id)
		if err != nil {
			return fmt.Errorf("UPDATE account %d: %w", st.id, err)
		}
		t.stmtLat = append(t.stmtLat, ms(time.Since(t0)))
		if tag.RowsAffected() != 1 {
			return fmt.Errorf("UPDATE account %d: %d rows affected, want 1", st.id, tag.RowsAffected())
		}
	}
	return nil
}

// runTransfers runs one transfer session per connection for d and merges
// their tallies.
func runTransfers(ctx context.Context, conns []*pgx.Conn, pick keyPicker, d time.Duration, seed uint64) TxStats {
	deadline := time.Now().Add(d)
	tallies := make([]*txTally, len(conns))
	var wg sync.WaitGroup
	start := time.Now()
	for i, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tallies[i] = transferSession(ctx, c, pick, rand.New(rand.NewPCG(seed, uint64(i)+100)), deadline)
		}()
	}
	wg.Wait()
	s := TxStats{Sessions: len(conns), Seconds: time.Since(start).Seconds()}
	var lat, stmtLat []float64
	var first error
	for _, t := range tallies {
		s.Commits += t.commits
		s.CommitsSent += t.commitsSent
		s.CommitFailures40001 += t.commitAborts
		s.Statements += t.statements
		s.StatementFailures += t.stmtAborts
		s.OtherErrors += t.other
		first = errors.Join(first, t.firstOther)
		lat = append(lat, t.commitLat...)
		stmtLat = append(stmtLat, t.stmtLat...)
	}
	if first != nil {
		s.FirstOtherError = first.Error()
	}
	cl := opStats(lat, s.Seconds)
	s.CommitP50, s.CommitP95 = cl.P50, cl.P95
	sl := opStats(stmtLat, s.Seconds)
	s.StatementP50, s.StatementP95 = sl.P50, sl.P95
	if s.Seconds > 0 {
		s.CommitsPerSec = float64(s.Commits) / s.Seconds
	}
	return s
}

// blockPhases fills s's block figures from node 0's blocks from..to.
func blockPhases(ctx context.Context, c *client.Client, from, to int64, s *TxStats) error {
	if to < from {
		return nil
	}
	timings, err := c.BlockTimings(ctx, from, to)
	if err != nil {
		return fmt.Errorf("block timings %d-%d: %w", from, to, err)
	}
	var sum Phases
	withTxs, txs := 0, 0
	for _, t := range timings {
		s.Blocks++
		if t.Txs == 0 {
			continue
		}
		withTxs++
		txs += t.Txs
		sum.Propose += float64(t.ProposeUS) / 1000
		sum.Consensus += float64(t.ConsensusUS) / 1000
		sum.Execute += float64(t.ExecuteUS) / 1000
		sum.Commit += float64(t.CommitUS) / 1000
	}
	if withTxs > 0 {
		f := float64(withTxs)
		s.TxsPerBlock = float64(txs) / f
		s.Phases = &Phases{Propose: sum.Propose / f, Consensus: sum.Consensus / f, Execute: sum.Execute / f, Commit: sum.Commit / f}
	}
	return nil
}

// totalOf reads the sum of every balance through conn.
func totalOf(ctx context.Context, conn *pgx.Conn) (int64, error) {
	var total int64
	if err := conn.QueryRow(ctx, totalBalance).Scan(&total); err != nil {
		return 0, fmt.Errorf("total balance: %w", err)
	}
	return total, nil
}
