// Row history and change data capture: the read path (api.HistoryPath,
// api.ChangesPath), from the backend's history store
// (backend.HistoryReader).

package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/rowcanon"

	abci "github.com/cometbft/cometbft/abci/types"
)

// ErrHistoryStart is the error of a read from a height below the oldest
// the node's history holds (pruned, or before the node began recording).
var ErrHistoryStart = errors.New("below the start of this node's history")

// historyReader returns the backend's history store and the heights it
// holds.
func (e *Executor) historyReader(ctx context.Context) (backend.HistoryReader, int64, int64, error) {
	hr, ok := e.Backend().(backend.HistoryReader)
	if !ok || e.historyConfig().Off {
		return nil, 0, 0, backend.ErrNoHistory
	}
	start, end, err := hr.HistoryRange(ctx)
	if err != nil {
		return nil, 0, 0, fmt.Errorf("history: %w", err)
	}
	return hr, start, end, nil
}

// checkFrom refuses a read from below the history's start.
func checkFrom(from, start int64) error {
	if from > 0 && from < start {
		return fmt.Errorf("%w: from height %d, the history starts at height %d (older blocks were pruned or never recorded: this node began recording there)", ErrHistoryStart, from, start)
	}
	return nil
}

// RowHistory answers a HistoryRequest: the row's versions ascending by
// height.
func (e *Executor) RowHistory(ctx context.Context, req api.HistoryRequest) (api.HistoryResponse, error) {
	if err := req.Check(); err != nil {
		return api.HistoryResponse{}, fmt.Errorf("%w: %w", errBadHistoryRequest, err)
	}
	key, err := requestKey(req)
	if err != nil {
		return api.HistoryResponse{}, fmt.Errorf("%w: %w", errBadHistoryRequest, err)
	}
	hr, start, end, err := e.historyReader(ctx)
	if err != nil {
		return api.HistoryResponse{}, err
	}
	if err := checkFrom(req.FromHeight, start); err != nil {
		return api.HistoryResponse{}, err
	}
	vs, err := hr.RowHistory(ctx, req.Table, key, max(req.FromHeight, start), limitOf(req.Limit))
	if err != nil {
		return api.HistoryResponse{}, fmt.Errorf("history of %s: %w", req.Table, err)
	}
	resp := api.HistoryResponse{Start: start, End: end, Events: make([]api.ChangeEvent, 0, len(vs))}
	infos := map[int64]backend.HistoryBlockInfo{}
	for _, v := range vs {
		info, ok := infos[v.Height]
		if !ok {
			if info, err = blockInfoAt(ctx, hr, v.Height); err != nil {
				return resp, err
			}
			infos[v.Height] = info
		}
		ev, err := changeEvent(v, info)
		if err != nil {
			return resp, err
		}
		resp.Events = append(resp.Events, ev)
	}
	return resp, nil
}

// blockInfoAt reads the recorded info of block h (its first version
// names it).
func blockInfoAt(ctx context.Context, hr backend.HistoryReader, h int64) (backend.HistoryBlockInfo, error) {
	blocks, err := hr.HistoryChanges(ctx, h, 1)
	if err != nil {
		return backend.HistoryBlockInfo{}, fmt.Errorf("history of block %d: %w", h, err)
	}
	if len(blocks) == 0 || blocks[0].Info.Height != h {
		return backend.HistoryBlockInfo{Height: h}, nil // pruned meanwhile
	}
	return blocks[0].Info, nil
}

// Changes answers a ChangesRequest: whole blocks' versions in commit
// order.
func (e *Executor) Changes(ctx context.Context, req api.ChangesRequest) (api.ChangesResponse, error) {
	if err := req.Check(); err != nil {
		return api.ChangesResponse{}, fmt.Errorf("%w: %w", errBadHistoryRequest, err)
	}
	hr, start, end, err := e.historyReader(ctx)
	if err != nil {
		return api.ChangesResponse{}, err
	}
	if err := checkFrom(req.FromHeight, start); err != nil {
		return api.ChangesResponse{}, err
	}
	from := max(req.FromHeight, start, 1)
	blocks, err := hr.HistoryChanges(ctx, from, limitOf(req.Limit))
	if err != nil {
		return api.ChangesResponse{}, fmt.Errorf("changes: %w", err)
	}
	resp := api.ChangesResponse{Start: start, End: end, Next: max(from, end+1), Events: []api.ChangeEvent{}}
	for _, b := range blocks {
		for _, v := range b.Versions {
			ev, err := changeEvent(v, b.Info)
			if err != nil {
				return resp, err
			}
			resp.Events = append(resp.Events, ev)
		}
		resp.Next = b.Info.Height + 1
		resp.End = max(resp.End, b.Info.Height)
	}
	return resp, nil
}

func limitOf(n int) int {
	if n <= 0 {
		return api.DefaultHistoryLimit
	}
	return min(n, backend.MaxHistoryRows)
}

// requestKey is the canonical key a HistoryRequest names.
func requestKey(req api.HistoryRequest) ([]byte, error) {
	if len(req.Key) > 0 {
		return req.Key, nil
	}
	vals := make([]rowcanon.Value, len(req.KeyValues))
	for i, x := range req.KeyValues {
		v, err := keyValue(x)
		if err != nil {
			return nil, fmt.Errorf("history request: key value %d: %w", i+1, err)
		}
		vals[i] = v
	}
	key, err := rowcanon.EncodeKey(vals)
	if err != nil {
		return nil, fmt.Errorf("history request: key values: %w", err)
	}
	return key, nil
}

// keyValue is a primary-key value given in JSON.
func keyValue(x any) (rowcanon.Value, error) {
	switch v := x.(type) {
	case json.Number:
		n, err := v.Int64()
		if err != nil {
			return rowcanon.Value{}, fmt.Errorf("%s is not an integer (numeric keys: give the canonical key)", v)
		}
		return rowcanon.Int(n), nil
	case float64:
		if v != math.Trunc(v) || math.Abs(v) > 1<<53 {
			return rowcanon.Value{}, fmt.Errorf("%v is not an integer", v)
		}
		return rowcanon.Int(int64(v)), nil
	case string:
		return rowcanon.Text(v)
	case bool:
		return rowcanon.Bool(v), nil
	}
	return rowcanon.Value{}, fmt.Errorf("%v: only integers, strings and booleans name a key", x)
}

// history serves api.HistoryPath and api.ChangesPath.
func (a *App) history(ctx context.Context, path string, data []byte) *abci.ResponseQuery {
	dec := json.NewDecoder(bytesReader(data))
	dec.UseNumber()
	var resp any
	var err error
	if path == api.HistoryPath {
		var r api.HistoryRequest
		if err := dec.Decode(&r); err != nil {
			return &abci.ResponseQuery{Code: api.CodeQueryBadInput, Log: fmt.Sprintf("history request is not valid JSON {\"table\":..., \"key\":base64 | \"key_values\":[...], \"from_height\":H, \"limit\":N}: %v", err)}
		}
		resp, err = a.ex.RowHistory(ctx, r)
	} else {
		var r api.ChangesRequest
		if err := dec.Decode(&r); err != nil {
			return &abci.ResponseQuery{Code: api.CodeQueryBadInput, Log: fmt.Sprintf("changes request is not valid JSON {\"from_height\":H, \"limit\":N}: %v", err)}
		}
		resp, err = a.ex.Changes(ctx, r)
	}
	if err != nil {
		code := api.CodeQueryFailed
		if errors.Is(err, errBadHistoryRequest) || errors.Is(err, ErrHistoryStart) {
			code = api.CodeQueryBadInput
		}
		return &abci.ResponseQuery{Code: code, Log: err.Error(), Height: a.ex.State().Height}
	}
	return &abci.ResponseQuery{Code: api.CodeOK, Value: encodeJSON(resp), Height: a.ex.State().Height}
}

// errBadHistoryRequest marks a history request's own fault.
var errBadHistoryRequest = errors.New("bad history request")
