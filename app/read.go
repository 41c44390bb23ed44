package app

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/backend"
)

// ReadError is a failed Read: the code and log abci_query would answer
// and, when the backend classified the failure, its class and SQLSTATE.
type ReadError struct {
	Code    uint32
	Log     string
	Failure *api.FailureData
}

func (e *ReadError) Error() string { return e.Log }

// Read is the query path in process, for a front end inside the node (the
// PostgreSQL listener): abci_query's api.QueryPath without its JSON. args
// are what a JSON request decodes to (nil, bool, int64, float64, string);
// the response's rows hold what a JSON response decodes to with
// UseNumber (numbers as json.Number, byte strings base64), so a caller
// sees exactly what it would through abci_query.
//
// With exact false the read may run on a backend.LatestReader: the state
// it reads is then at least the response's Height rather than exactly it
// (PostgreSQL saves the read's db-transaction: its BEGIN, height and
// ROLLBACK). A caller that compares heights (a cross-check of nodes) asks
// for exact.
func (a *App) Read(ctx context.Context, minHeight int64, sql string, args []any, exact bool) (*api.QueryResponse, error) {
	args, err := normalizeArgs(args)
	if err != nil {
		return nil, &ReadError{Code: api.CodeQueryBadInput, Log: err.Error()}
	}
	if err := a.waitQueryHeight(ctx, minHeight, 0); err != nil {
		return nil, err
	}
	if sql, err = a.withHistoryRelation(ctx, sql, false); err != nil {
		return nil, &ReadError{Code: api.CodeQueryBadInput, Log: err.Error()}
	}
	var (
		rows   *backend.Rows
		height int64
	)
	rctx, done, err := a.ex.enterRead(ctx, a.MaxQueryWait)
	if err != nil {
		return nil, err
	}
	if lr, ok := a.ex.Backend().(backend.LatestReader); ok && !exact {
		height = a.ex.State().Height // a lower bound: see LatestReader
		rows, err = lr.QueryLatest(rctx, sql, args)
	} else {
		rows, height, err = a.ex.Backend().Query(rctx, sql, args)
	}
	done()
	if err != nil && readPreempted(rctx) {
		return nil, preemptedRead()
	}
	if err != nil {
		f := queryFailure(err, a.ex.State().Height)
		e := &ReadError{Code: f.Code, Log: f.Log}
		if be := backend.AsError(err); be != nil {
			e.Failure = &api.FailureData{Class: string(be.Class), SQLState: be.SQLState}
		}
		return nil, e
	}
	sanitizeRows(rows)
	resp := &api.QueryResponse{Height: height, Columns: rows.Columns, Types: rows.Types, Typmods: rows.Typmods, Rows: rows.Rows}
	if resp.Columns == nil {
		resp.Columns = []string{}
	}
	if resp.Rows == nil {
		resp.Rows = [][]any{}
	}
	for _, row := range resp.Rows {
		for i, v := range row {
			row[i] = jsonValue(v)
		}
	}
	return resp, nil
}

// waitQueryHeight waits until minHeight (if any) is committed, at most
// MaxQueryWait or waitMillis when shorter; a timeout is a *ReadError.
func (a *App) waitQueryHeight(ctx context.Context, minHeight, waitMillis int64) error {
	if minHeight <= 0 || a.ex.State().Height >= minHeight {
		return nil // no timer for the common case
	}
	wait := a.MaxQueryWait
	if waitMillis > 0 && time.Duration(waitMillis)*time.Millisecond < wait {
		wait = time.Duration(waitMillis) * time.Millisecond
	}
	wctx, cancel := context.WithTimeout(ctx, wait)
	err := a.ex.WaitHeight(wctx, minHeight)
	cancel()
	if err != nil {
		return &ReadError{Code: api.CodeQueryTimeout, Log: fmt.Sprintf("min_height %d not reached within %s (node at height %d); retry later or ask another node", minHeight, wait, a.ex.State().Height)}
	}
	return nil
}

// normalizeArgs turns Read's arguments into what queryArgs makes of the
// same arguments sent as JSON, so that both paths bind the same types: an
// integral float64 below 2^63 is an int64 (JSON writes it without a
// fraction), int and int32 widen, and anything but null, booleans,
// numbers and strings is refused.
func normalizeArgs(in []any) ([]any, error) {
	out := make([]any, len(in))
	for i, v := range in {
		switch x := v.(type) {
		case nil, string, bool, int64:
			out[i] = x
		case int:
			out[i] = int64(x)
		case int32:
			out[i] = int64(x)
		case float64:
			b, err := json.Marshal(x)
			if err != nil {
				return nil, fmt.Errorf("argument %d: %w", i+1, err)
			}
			if n, err := strconv.ParseInt(string(b), 10, 64); err == nil {
				out[i] = n
			} else {
				out[i] = x
			}
		default:
			return nil, errors.New("argument " + strconv.Itoa(i+1) + ": only null, booleans, numbers and strings are accepted")
		}
	}
	return out, nil
}

// jsonValue is v as a QueryResponse row holds it after a JSON round trip
// decoded with UseNumber.
func jsonValue(v any) any {
	switch x := v.(type) {
	case int64:
		return json.Number(strconv.FormatInt(x, 10))
	case float64:
		b, err := json.Marshal(x)
		if err != nil {
			return v // NaN and infinities were made strings by sanitizeRows
		}
		return json.Number(b)
	case []byte:
		return base64.StdEncoding.EncodeToString(x)
	case nil, string, bool, json.Number:
		return v
	}
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	dec := json.NewDecoder(bytesReader(b))
	dec.UseNumber()
	if dec.Decode(&out) != nil {
		return v
	}
	return out
}
