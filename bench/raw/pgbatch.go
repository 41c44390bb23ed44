package raw

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/relchain/relchain/txn"
)

// pgBatchTx is Tx of several wl-transactions on PostgreSQL with the
// chain's round trips (backend/postgres does the same): a wl-transaction's
// SAVEPOINT, preceded by the previous one's RELEASE, travels with its
// first statement in one pipeline, and a failed one's ROLLBACK TO and
// RELEASE go in one message; COMMIT releases the last savepoint.
func (c *Conn) pgBatchTx(ctx context.Context, wls [][]txn.Statement) ([]Outcome, error) {
	if _, err := c.pg.Exec(ctx, "BEGIN"); err != nil {
		return nil, fmt.Errorf("raw postgres: begin: %w", err)
	}
	out := make([]Outcome, len(wls))
	releaseDue := false
	for i, wl := range wls {
		prefix := []string{"SAVEPOINT wl"}
		if releaseDue {
			prefix = []string{"RELEASE SAVEPOINT wl", "SAVEPOINT wl"}
		}
		res := make([]Result, 0, len(wl))
		var err error
		for j, st := range wl {
			var r Result
			if j == 0 {
				r, err = c.execAfter(ctx, prefix, st)
			} else {
				r, err = c.exec(ctx, st)
			}
			if err != nil {
				err = fmt.Errorf("statement %d: %w", j+1, err)
				break
			}
			res = append(res, r)
		}
		var pe *prefixError
		if errors.As(err, &pe) {
			_, _ = c.pg.Exec(ctx, "ROLLBACK")
			return nil, fmt.Errorf("raw postgres: %w", err)
		}
		if err != nil {
			out[i] = Outcome{Err: err}
			if _, rerr := c.pg.Exec(ctx, "ROLLBACK TO SAVEPOINT wl; RELEASE SAVEPOINT wl"); rerr != nil {
				return nil, fmt.Errorf("raw postgres: rollback to savepoint: %w", rerr)
			}
			releaseDue = false
			continue
		}
		out[i] = Outcome{OK: true, Results: res}
		releaseDue = true
	}
	if _, err := c.pg.Exec(ctx, "COMMIT"); err != nil {
		return nil, fmt.Errorf("raw postgres: commit: %w", err)
	}
	return out, nil
}

// execAfter runs the utility statements prefix and then st in one round
// trip (a pipeline with one Sync); a prefix statement's failure comes back
// as *prefixError.
func (c *Conn) execAfter(ctx context.Context, prefix []string, st txn.Statement) (Result, error) {
	b := &pgx.Batch{}
	for _, p := range prefix {
		b.Queue(p)
	}
	args := make([]any, len(st.Args))
	for i, a := range st.Args {
		args[i] = a.Value()
	}
	b.Queue(st.SQL, args...)
	br := c.pg.SendBatch(ctx, b)
	for _, p := range prefix {
		if _, err := br.Exec(); err != nil {
			closeBatch(br)
			return Result{}, &prefixError{stmt: p, err: err}
		}
	}
	rows, err := br.Query()
	if err != nil {
		closeBatch(br)
		return Result{}, err
	}
	r, err := collectPG(rows)
	if err != nil {
		closeBatch(br)
		return Result{}, err
	}
	if err := br.Close(); err != nil {
		return Result{}, err
	}
	return r, nil
}

// closeBatch ends a batch whose statement failed. pgx v5.7.5's Close
// returns the failed rows' error without ending the pipeline, leaving the
// connection busy (the next statement fails with "conn busy"); a second
// Close ends it.
func closeBatch(br pgx.BatchResults) {
	_ = br.Close()
	_ = br.Close()
}

// prefixError is the failure of a utility statement sent before a
// wl-transaction's first statement: a failure of the database, never of
// the wl-transaction.
type prefixError struct {
	stmt string
	err  error
}

func (e *prefixError) Error() string { return fmt.Sprintf("%s: %v", e.stmt, e.err) }
func (e *prefixError) Unwrap() error { return e.err }
