package bench

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash"
	"math"
	"strconv"
	"strings"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/bench/raw"
	"github.com/relchain/relchain/bench/workload"
	"github.com/relchain/relchain/client"
)

// TableDigest hashes every row of the workload's tables in key order, as
// read through q, so that the chain's nodes and the raw baseline can be
// compared: values are canonicalized (numbers by value, whatever their
// type or spelling), so the same rows give the same digest on both.
func TableDigest(ctx context.Context, q workload.Querier, tables []workload.Table) (string, error) {
	ds, err := TableDigests(ctx, q, tables)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	for _, t := range tables {
		fmt.Fprintf(h, "%s %s\n", t.Name, ds[t.Name])
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// TableDigests returns each table's digest (see TableDigest). Tables are
// read in pages of digestPage rows: a node answers at most 100,000 rows
// per query.
func TableDigests(ctx context.Context, q workload.Querier, tables []workload.Table) (map[string]string, error) {
	out := make(map[string]string, len(tables))
	for _, t := range tables {
		h := sha256.New()
		n := 0
		for {
			rows, err := q.Query(ctx, fmt.Sprintf("SELECT * FROM %s ORDER BY %s LIMIT %d OFFSET %d", t.Name, strings.Join(t.Key, ", "), digestPage, n))
			if err != nil {
				return nil, fmt.Errorf("digest %s: %w", t.Name, err)
			}
			hashRows(h, rows)
			n += len(rows)
			if len(rows) < digestPage {
				break
			}
		}
		fmt.Fprintf(h, "table %s %d\n", t.Name, n)
		out[t.Name] = hex.EncodeToString(h.Sum(nil))
	}
	return out, nil
}

// digestPage is how many rows TableDigests reads per query.
const digestPage = 50000

// hashRows writes rows' canonical values to h, each length-prefixed.
func hashRows(h hash.Hash, rows [][]any) {
	for _, r := range rows {
		for _, v := range r {
			s := canonical(v)
			var n [8]byte
			binary.BigEndian.PutUint64(n[:], uint64(len(s)))
			h.Write(n[:])
			h.Write([]byte(s))
		}
		h.Write([]byte{'\n'})
	}
}

// DiffTables names the tables whose digests differ between two databases.
func DiffTables(ctx context.Context, a, b workload.Querier, tables []workload.Table) ([]string, error) {
	da, err := TableDigests(ctx, a, tables)
	if err != nil {
		return nil, err
	}
	db, err := TableDigests(ctx, b, tables)
	if err != nil {
		return nil, err
	}
	var diff []string
	for _, t := range tables {
		if da[t.Name] != db[t.Name] {
			diff = append(diff, t.Name)
		}
	}
	return diff, nil
}

func canonical(v any) string {
	switch x := workload.Normalize(v).(type) {
	case nil:
		return "\x00NULL"
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<62 {
			return strconv.FormatInt(int64(x), 10)
		}
		return strconv.FormatFloat(x, 'g', -1, 64)
	case bool:
		if x {
			return "1"
		}
		return "0"
	case string:
		if f, err := strconv.ParseFloat(x, 64); err == nil && strings.TrimSpace(x) == x && x != "" {
			return canonical(f)
		}
		return x
	}
	return fmt.Sprint(v)
}

// ChainQuerier reads the chain's committed state through a node's query
// path, at least at MinHeight.
type ChainQuerier struct {
	Client    *client.Client
	MinHeight int64
}

// Query implements workload.Querier.
func (q ChainQuerier) Query(ctx context.Context, sql string, args ...any) ([][]any, error) {
	r, err := q.Client.Query(ctx, q.MinHeight, sql, args...)
	if err != nil {
		return nil, err
	}
	for _, row := range r.Rows {
		for i, v := range row {
			row[i] = workload.Normalize(v)
		}
	}
	return r.Rows, nil
}

// rawResults converts the baseline's statement results.
func rawResults(rs []raw.Result) []api.StatementResult {
	out := make([]api.StatementResult, len(rs))
	for i, r := range rs {
		out[i] = api.StatementResult{Rows: r.Rows, RowsAffected: r.RowsAffected}
	}
	return out
}
