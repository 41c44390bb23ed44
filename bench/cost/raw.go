package cost

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/relchain/relchain/bench/raw"
	"github.com/relchain/relchain/bench/workload"
	"github.com/relchain/relchain/txn"
)

// rawSide is the baseline: the same wl-transactions on a plain database
// through package raw (the chain's drivers and settings, prepared
// statements cached), one db-transaction per block with every
// wl-transaction in its own savepoint, as bench.RunBaseline replays an
// async trace. With several connections (Options.Lanes) each takes every
// k-th wl-transaction of a block and commits each in a db-transaction of
// its own, the connections at once, as k clients of a plain database
// would (one db-transaction per connection for the whole block held its
// locks until the block's end: the connections waited for each other,
// and deadlocked, most of the time).
type rawSide struct {
	db      *raw.DB
	conn    *raw.Conn   // the first of conns
	conns   []*raw.Conn // Options.Lanes of them
	pending []raw.Outcome
}

func openRaw(ctx context.Context, dialect, dsn string, conns int) (*rawSide, error) {
	db, err := raw.Open(ctx, dialect, dsn)
	if err != nil {
		return nil, err
	}
	s := &rawSide{db: db}
	for range max(conns, 1) {
		c, err := db.Conn(ctx)
		if err != nil {
			db.Close()
			return nil, err
		}
		s.conns = append(s.conns, c)
	}
	s.conn = s.conns[0]
	return s, nil
}

func (s *rawSide) close() { s.db.Close() }

// setup runs each setup bc-transaction in its own db-transaction.
func (s *rawSide) setup(ctx context.Context, bcs [][]txn.Statement) error {
	for i, stmts := range bcs {
		out, err := s.conn.Tx(ctx, [][]txn.Statement{stmts})
		if err != nil {
			return fmt.Errorf("raw setup bc-transaction %d: %w", i, err)
		}
		if !out[0].OK {
			return fmt.Errorf("raw setup bc-transaction %d: %v", i, out[0].Err)
		}
	}
	return nil
}

// prepare flattens a block into its wl-transactions' statement lists.
func (s *rawSide) prepare(blk [][]workload.WL) [][]txn.Statement {
	var wls [][]txn.Statement
	for _, bc := range blk {
		for _, wl := range bc {
			wls = append(wls, wl.Statements)
		}
	}
	return wls
}

// execute runs one block as one db-transaction per connection.
func (s *rawSide) execute(ctx context.Context, wls [][]txn.Statement) error {
	if len(s.conns) == 1 {
		out, err := s.conn.Tx(ctx, wls)
		if err != nil {
			return err
		}
		s.pending = out
		return nil
	}
	k := len(s.conns)
	outs := make([][]raw.Outcome, k)
	errs := make([]error, k)
	var wg sync.WaitGroup
	for c, conn := range s.conns {
		var share [][]txn.Statement
		for i := c; i < len(wls); i += k {
			share = append(share, wls[i])
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, wl := range share {
				out, err := conn.Tx(ctx, [][]txn.Statement{wl})
				if err != nil {
					errs[c] = err
					return
				}
				outs[c] = append(outs[c], out...)
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	s.pending = s.pending[:0]
	for _, out := range outs {
		s.pending = append(s.pending, out...)
	}
	return nil
}

// committed counts the last block's wl-transactions that committed.
func (s *rawSide) committed() int {
	n := 0
	for _, o := range s.pending {
		if o.OK {
			n++
		}
	}
	return n
}
