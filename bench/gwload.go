package bench

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/relchain/relchain/bench/workload"
	"github.com/relchain/relchain/client"
	"github.com/relchain/relchain/txn"
)

// The statements of the gateway benchmark, in PostgreSQL's syntax (the
// gateway takes $n placeholders whatever the backend). A transfer moves
// one unit: on SQLite the gateway types a parameter only where it meets a
// column (id = $1), so an amount in bal - $1 would reach pgx as text.
const (
	pointUpdate   = "UPDATE bench_acct SET bal = bal + 1 WHERE id = $1"
	pointSelect   = "SELECT bal FROM bench_acct WHERE id = $1"
	debitAccount  = "UPDATE bench_acct SET bal = bal - 1 WHERE id = $1"
	creditAccount = pointUpdate
	totalBalance  = "SELECT CAST(SUM(bal) AS BIGINT) FROM bench_acct"
)

// OpStats summarise a run of one kind of operation; latencies in
// milliseconds.
type OpStats struct {
	Ops     int     `json:"ops"`
	Seconds float64 `json:"seconds"`
	PerSec  float64 `json:"per_sec"`
	P50     float64 `json:"p50_ms"`
	P95     float64 `json:"p95_ms"`
	Mean    float64 `json:"mean_ms"`
}

// opStats summarises latencies (ms) of ops that took seconds in all.
func opStats(lat []float64, seconds float64) OpStats {
	s := OpStats{Ops: len(lat), Seconds: seconds}
	if len(lat) == 0 {
		return s
	}
	sort.Float64s(lat)
	sum := 0.0
	for _, l := range lat {
		sum += l
	}
	q := func(p float64) float64 { return lat[int(p*float64(len(lat)-1)+0.5)] }
	s.P50, s.P95, s.Mean = q(0.50), q(0.95), sum/float64(len(lat))
	if seconds > 0 {
		s.PerSec = float64(len(lat)) / seconds
	}
	return s
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// gatewayUpdate sends one autocommit UPDATE of account id on conn,
// answered once committed, and says how long it took.
func gatewayUpdate(ctx context.Context, conn *pgx.Conn, id int64) (time.Duration, error) {
	t0 := time.Now()
	tag, err := conn.Exec(ctx, pointUpdate, id)
	d := time.Since(t0)
	if err != nil {
		return 0, fmt.Errorf("gateway UPDATE of account %d: %w", id, err)
	}
	if tag.RowsAffected() != 1 {
		return 0, fmt.Errorf("gateway UPDATE of account %d: %d rows affected, want 1", id, tag.RowsAffected())
	}
	return d, nil
}

// clientUpdate sends the same UPDATE as `relchain bench` sync mode does
// (maker, runCommit): signed by the Go client, broadcast in commit mode,
// in the backend's placeholder style; timed as runCommit times it, from
// the broadcast (signing, ~0.1 ms, before it).
func clientUpdate(ctx context.Context, c *client.Client, dialect string, id int64) (time.Duration, error) {
	sql := pointUpdate
	sql = strings.ReplaceAll(sql, "$1", workload.OnlyPlaceholder(dialect))
	raw, err := c.Sign(ctx, []txn.Statement{{SQL: sql, Args: []txn.Arg{txn.Int(id)}}})
	if err != nil {
		return 0, fmt.Errorf("the Go client UPDATE of account %d: %w", id, err)
	}
	t0 := time.Now()
	out, err := c.Broadcast(ctx, client.ModeCommit, raw)
	d := time.Since(t0)
	if err != nil {
		return 0, fmt.Errorf("the Go client UPDATE of account %d: %w", id, err)
	}
	if err := out.Err(); err != nil {
		return 0, fmt.Errorf("the Go client UPDATE of account %d: %w", id, err)
	}
	return d, nil
}

// pointReads has every reader run n/len(readers) point SELECTs at once
// and returns their latencies (ms) and the wall time (s).
func pointReads(ctx context.Context, readers []pointReader, n, accounts int, seed uint64) ([]float64, float64, error) {
	var mu sync.Mutex
	var lat []float64
	var firstErr error
	var wg sync.WaitGroup
	start := time.Now()
	for i, rd := range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(seed, uint64(i)+2))
			mine := make([]float64, 0, split(n, len(readers), i))
			var err error
			for range split(n, len(readers), i) {
				id := int64(r.IntN(accounts)) + 1
				t0 := time.Now()
				if _, err = rd.read(ctx, id); err != nil {
					err = fmt.Errorf("point SELECT of account %d: %w", id, err)
					break
				}
				mine = append(mine, ms(time.Since(t0)))
			}
			mu.Lock()
			defer mu.Unlock()
			lat = append(lat, mine...)
			if err != nil && firstErr == nil {
				firstErr = err
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return nil, 0, firstErr
	}
	return lat, time.Since(start).Seconds(), nil
}

// gatewayReader reads through a gateway connection (pgx prepares and
// caches the statement: the extended protocol).
type gatewayReader struct{ c *pgx.Conn }

func (r gatewayReader) read(ctx context.Context, id int64) (int64, error) {
	var bal int64
	err := r.c.QueryRow(ctx, pointSelect, id).Scan(&bal)
	return bal, err
}

func (r gatewayReader) close() { r.c.Close(context.Background()) }

// rpcReader reads through the node's RPC query path (the Go client).
type rpcReader struct {
	c   *client.Client
	sql string
}

// rpcReaders are n Go clients of the node at url, with the point SELECT
// in the backend's own placeholder style (the RPC path does not translate).
func rpcReaders(url, backend string, n int) []pointReader {
	sql := pointSelect
	sql = strings.ReplaceAll(sql, "$1", workload.OnlyPlaceholder(backend))
	out := make([]pointReader, n)
	for i := range out {
		c, err := client.New(url, nil)
		if err != nil {
			return []pointReader{failedReader{err}}
		}
		out[i] = rpcReader{c: c, sql: sql}
	}
	return out
}

func (r rpcReader) read(ctx context.Context, id int64) (int64, error) {
	resp, err := r.c.Query(ctx, 0, r.sql, id)
	if err != nil {
		return 0, err
	}
	if len(resp.Rows) != 1 {
		return 0, fmt.Errorf("%d rows, want 1", len(resp.Rows))
	}
	return 0, nil
}

func (r rpcReader) close() {}

// failedReader fails every read with the error that prevented it.
type failedReader struct{ err error }

func (r failedReader) read(context.Context, int64) (int64, error) { return 0, r.err }
func (r failedReader) close()                                     {}

// isSerializationFailure reports whether err carries SQLSTATE 40001.
func isSerializationFailure(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "40001"
}
