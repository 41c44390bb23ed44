package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/relchain/relchain/bench/raw"
	"github.com/relchain/relchain/bench/workload"
	"github.com/relchain/relchain/txn"
)

// RunBaseline replays the chain's trace on the raw database, grouped as the
// chain grouped it: sync and pseudo-sync, every client on its own
// connection, one db-transaction per bc-transaction and each read in its
// own read-only db-transaction, in the client's order; async, one
// db-transaction per block in height order, then the reads the chain
// answered at that height. It returns the baseline's time and throughput
// (wl-transactions per second) and, in applied, the write wl-transactions'
// outcomes.
func RunBaseline(ctx context.Context, db *raw.DB, tr *Trace) (*Baseline, []workload.Applied, error) {
	var rec recorder
	var applied []workload.Applied
	t0 := time.Now()
	var err error
	switch tr.Mode {
	case ModeAsync:
		applied, err = replayBlocks(ctx, db, tr, &rec)
	default:
		applied, err = replayClients(ctx, db, tr, &rec)
	}
	secs := time.Since(t0).Seconds()
	if err != nil {
		return nil, nil, fmt.Errorf("baseline: %w", err)
	}
	var r Result
	rec.fill(&r)
	b := &Baseline{Seconds: secs, LatencyMS: r.LatencyMS}
	if secs > 0 {
		b.TPS = float64(r.Succeeded+r.Failed) / secs
	}
	return b, applied, nil
}

func statements(wls []workload.WL) [][]txn.Statement {
	out := make([][]txn.Statement, len(wls))
	for i, wl := range wls {
		out[i] = wl.Statements
	}
	return out
}

func rawRead(ctx context.Context, c *raw.Conn, wl workload.WL) error {
	for j, st := range wl.Statements {
		args := make([]any, len(st.Args))
		for k, a := range st.Args {
			args[k] = a.Value()
		}
		if _, err := c.Query(ctx, st.SQL, args...); err != nil {
			return fmt.Errorf("%s statement %d: %w", wl.Kind, j+1, err)
		}
	}
	return nil
}

func appliedOf(wls []workload.WL, outs []raw.Outcome) []workload.Applied {
	a := make([]workload.Applied, len(wls))
	for i, wl := range wls {
		a[i] = workload.Applied{WL: wl, Code: 10}
		if outs[i].OK {
			a[i].Code = 0
			a[i].Results = rawResults(outs[i].Results)
		}
	}
	return a
}

func replayClients(ctx context.Context, db *raw.DB, tr *Trace, rec *recorder) ([]workload.Applied, error) {
	conns := make([]*raw.Conn, len(tr.Clients))
	for i := range conns {
		c, err := db.Conn(ctx)
		if err != nil {
			return nil, err
		}
		conns[i] = c
	}
	perClient := make([][]workload.Applied, len(tr.Clients))
	err := runClients(len(tr.Clients), func(ci int) error {
		c := conns[ci]
		for _, st := range tr.Clients[ci] {
			t0 := time.Now()
			if st.Read {
				if err := rawRead(ctx, c, st.WLs[0]); err != nil {
					return err
				}
				rec.add(st.WLs[0].Kind, true, time.Since(t0))
				continue
			}
			outs, err := c.Tx(ctx, statements(st.WLs))
			if err != nil {
				return err
			}
			d := time.Since(t0)
			for i, wl := range st.WLs {
				rec.add(wl.Kind, outs[i].OK, d)
			}
			perClient[ci] = append(perClient[ci], appliedOf(st.WLs, outs)...)
		}
		return nil
	})
	var all []workload.Applied
	for _, a := range perClient {
		all = append(all, a...)
	}
	return all, err
}

func replayBlocks(ctx context.Context, db *raw.DB, tr *Trace, rec *recorder) ([]workload.Applied, error) {
	c, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	var all []workload.Applied
	for _, b := range tr.Blocks {
		var wls []workload.WL
		for _, bc := range b.BCs {
			wls = append(wls, bc...)
		}
		if len(wls) > 0 {
			t0 := time.Now()
			outs, err := c.Tx(ctx, statements(wls))
			if err != nil {
				return nil, fmt.Errorf("block %d: %w", b.Height, err)
			}
			d := time.Since(t0)
			for i, wl := range wls {
				rec.add(wl.Kind, outs[i].OK, d)
			}
			all = append(all, appliedOf(wls, outs)...)
		}
		for _, wl := range b.Reads {
			t0 := time.Now()
			if err := rawRead(ctx, c, wl); err != nil {
				return nil, err
			}
			rec.add(wl.Kind, true, time.Since(t0))
		}
	}
	return all, nil
}
