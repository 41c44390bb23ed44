package bench

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// CopyOptions describe one measurement of COPY through a node's listener (MeasureCopy):
// Rows rows copied with COPY FROM STDIN (pgx CopyFrom) beside the same rows sent as
// multi-row INSERT bc-transactions (autocommit INSERTs of InsertRows rows each), Runs times
// each, the two taking turns on fresh tables.
type CopyOptions struct {
	Network    NetworkOptions
	Rows       int
	InsertRows int
	Runs       int
	Log        io.Writer
}

// CopyResult is what MeasureCopy reports: rows per second, median of the runs.
type CopyResult struct {
	Backend    string    `json:"backend"`
	Validators int       `json:"validators"`
	Rows       int       `json:"rows"`
	InsertRows int       `json:"insert_rows"`
	CopyRowsS  []float64 `json:"copy_rows_per_s"`
	InsRowsS   []float64 `json:"insert_rows_per_s"`
	CopyMedian float64   `json:"copy_rows_per_s_median"`
	InsMedian  float64   `json:"insert_rows_per_s_median"`
}

// copyBenchRow is row i of the measurement's table: an int key, two ints and a short text
// (pgbench_accounts' shape).
func copyBenchRow(i int) []any {
	return []any{int32(i), int32(i%10 + 1), int32(0), fmt.Sprintf("filler-%08d", i)}
}

// MeasureCopy starts a network with its listeners on and measures node 0's listener.
func MeasureCopy(ctx context.Context, o CopyOptions) (*CopyResult, error) {
	if o.Rows < 1 || o.InsertRows < 1 || o.Runs < 1 {
		return nil, fmt.Errorf("copy benchmark: rows, insert rows and runs must be positive")
	}
	logf := logTo(o.Log)
	nopts := o.Network
	n, addrs, err := startListeningNetwork(ctx, nopts, logf)
	if err != nil {
		return nil, err
	}
	defer n.StopAll()
	conn, err := pgx.Connect(ctx, GatewayURL(addrs[0]))
	if err != nil {
		return nil, err
	}
	defer conn.Close(context.Background())
	rows := make([][]any, o.Rows)
	for i := range rows {
		rows[i] = copyBenchRow(i + 1)
	}
	cols := []string{"aid", "bid", "abalance", "filler"}
	res := &CopyResult{Backend: nopts.Backend, Validators: len(n.Nodes), Rows: o.Rows, InsertRows: o.InsertRows}
	for run := 1; run <= o.Runs; run++ {
		for _, how := range []string{"copy", "insert"} {
			table := fmt.Sprintf("copy_%s_%d", how, run)
			if _, err := conn.Exec(ctx, "CREATE TABLE "+table+" (aid INTEGER PRIMARY KEY, bid INTEGER, abalance INTEGER, filler TEXT)"); err != nil {
				return nil, fmt.Errorf("%s: %w", table, err)
			}
			start := time.Now()
			if how == "copy" {
				m, err := conn.CopyFrom(ctx, pgx.Identifier{table}, cols, pgx.CopyFromRows(rows))
				if err != nil {
					return nil, fmt.Errorf("COPY %s: %w", table, err)
				}
				if int(m) != o.Rows {
					return nil, fmt.Errorf("COPY %s copied %d rows, want %d", table, m, o.Rows)
				}
			} else if err := insertRows(ctx, conn, table, rows, o.InsertRows); err != nil {
				return nil, err
			}
			rate := float64(o.Rows) / time.Since(start).Seconds()
			var count int64
			if err := conn.QueryRow(ctx, "SELECT COUNT(*) FROM "+table).Scan(&count); err != nil || count != int64(o.Rows) {
				return nil, fmt.Errorf("%s holds %d rows after the run (%v), want %d", table, count, err, o.Rows)
			}
			logf("run %d: %-6s %d rows in %s: %.0f rows/s", run, how, o.Rows, time.Since(start).Round(time.Millisecond), rate)
			if how == "copy" {
				res.CopyRowsS = append(res.CopyRowsS, rate)
			} else {
				res.InsRowsS = append(res.InsRowsS, rate)
			}
		}
	}
	res.CopyMedian, res.InsMedian = median(res.CopyRowsS), median(res.InsRowsS)
	return res, nil
}

// insertRows sends rows as autocommit multi-row INSERTs of per rows each: one
// bc-transaction per INSERT.
func insertRows(ctx context.Context, conn *pgx.Conn, table string, rows [][]any, per int) error {
	for i := 0; i < len(rows); i += per {
		chunk := rows[i:min(i+per, len(rows))]
		var b strings.Builder
		b.WriteString("INSERT INTO " + table + " (aid, bid, abalance, filler) VALUES ")
		args := make([]any, 0, 4*len(chunk))
		for j, r := range chunk {
			if j > 0 {
				b.WriteString(", ")
			}
			n := len(args)
			fmt.Fprintf(&b, "($%d, $%d, $%d, $%d)", n+1, n+2, n+3, n+4)
			args = append(args, r...)
		}
		if _, err := conn.Exec(ctx, b.String(), args...); err != nil {
			return fmt.Errorf("INSERT into %s at row %d: %w", table, i+1, err)
		}
	}
	return nil
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
