package app

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/backend"

	abci "github.com/cometbft/cometbft/abci/types"
)

// Query serves read-only SQL on committed state.
func (a *App) Query(ctx context.Context, req *abci.RequestQuery) (*abci.ResponseQuery, error) {
	if req.Path == api.GrantsPath {
		g := a.ex.Grants()
		return &abci.ResponseQuery{Code: api.CodeOK, Value: encodeJSON(g), Height: g.Height}, nil
	}
	if req.Path == api.StatsPath {
		var r api.StatsRequest
		if err := json.Unmarshal(req.Data, &r); err != nil {
			return &abci.ResponseQuery{Code: api.CodeQueryBadInput, Log: fmt.Sprintf("stats request is not valid JSON {\"from\":H,\"to\":H}: %v", err)}, nil
		}
		return &abci.ResponseQuery{Code: api.CodeOK, Value: encodeJSON(a.stats.between(r.From, r.To))}, nil
	}
	if req.Path == ProtocolPath {
		ps := a.ex.Protocol()
		return &abci.ResponseQuery{Code: api.CodeOK, Value: encodeJSON(ps), Height: ps.Height}, nil
	}
	if req.Path == api.NoncePath {
		return a.executedNonce(req.Data), nil
	}
	if req.Path == api.RehearsePath {
		return a.rehearse(ctx, req.Data), nil
	}
	if req.Path == api.DescribePath {
		return a.describe(ctx, req.Data), nil
	}
	if req.Path == api.ProofPath {
		return a.prove(ctx, req.Data), nil
	}
	if req.Path == api.HistoryPath || req.Path == api.ChangesPath {
		return a.history(ctx, req.Path, req.Data), nil
	}
	if req.Path != api.QueryPath {
		return &abci.ResponseQuery{Code: api.CodeUnknownPath, Log: fmt.Sprintf("unknown query path %q; relchain serves %q, %q, %q, %q, %q, %q, %q, %q, %q and %q", req.Path, api.QueryPath, api.DescribePath, api.ProofPath, api.HistoryPath, api.ChangesPath, api.GrantsPath, api.StatsPath, api.RehearsePath, api.NoncePath, ProtocolPath)}, nil
	}
	return a.sqlQuery(ctx, req.Data), nil
}

// sqlQuery serves api.QueryPath: one read on committed state.
func (a *App) sqlQuery(ctx context.Context, data []byte) *abci.ResponseQuery {
	var q api.QueryRequest
	dec := json.NewDecoder(bytesReader(data))
	dec.UseNumber()
	if err := dec.Decode(&q); err != nil {
		return &abci.ResponseQuery{Code: api.CodeQueryBadInput, Log: fmt.Sprintf("query request is not valid JSON {\"sql\":..., \"args\":[...], \"min_height\":N}: %v", err)}
	}
	if q.SQL == "" {
		return &abci.ResponseQuery{Code: api.CodeQueryBadInput, Log: "query request has no sql"}
	}
	args, err := queryArgs(q.Args)
	if err != nil {
		return &abci.ResponseQuery{Code: api.CodeQueryBadInput, Log: err.Error()}
	}
	if err := a.waitQueryHeight(ctx, q.MinHeight, q.WaitMillis); err != nil {
		var re *ReadError
		if errors.As(err, &re) {
			return &abci.ResponseQuery{Code: re.Code, Log: re.Log}
		}
		return &abci.ResponseQuery{Code: api.CodeQueryFailed, Log: err.Error()}
	}
	sql, err := a.withHistoryRelation(ctx, q.SQL, false)
	if err != nil {
		return &abci.ResponseQuery{Code: api.CodeQueryBadInput, Log: err.Error(), Height: a.ex.State().Height}
	}
	rctx, done, err := a.ex.enterRead(ctx, a.MaxQueryWait)
	if err != nil {
		re := err.(*ReadError)
		return &abci.ResponseQuery{Code: re.Code, Log: re.Log, Height: a.ex.State().Height}
	}
	rows, height, err := a.ex.Backend().Query(rctx, sql, args)
	done()
	if err != nil && readPreempted(rctx) {
		return &abci.ResponseQuery{Code: api.CodeQueryBusy, Log: ErrReadPreempted.Error(), Height: a.ex.State().Height}
	}
	if err != nil {
		return queryFailure(err, a.ex.State().Height)
	}
	sanitizeRows(rows)
	resp := api.QueryResponse{Height: height, Columns: rows.Columns, Types: rows.Types, Typmods: rows.Typmods, Rows: rows.Rows}
	resp = byzantineQuery(resp)
	if resp.Columns == nil {
		resp.Columns = []string{}
	}
	if resp.Rows == nil {
		resp.Rows = [][]any{}
	}
	return &abci.ResponseQuery{Code: api.CodeOK, Value: encodeJSON(resp), Height: height}
}

// queryArgs converts JSON arguments: integers stay int64, other numbers
// become float64; objects {"bytes": "<base64>"} are not supported yet.
func queryArgs(in []any) ([]any, error) {
	out := make([]any, len(in))
	for i, v := range in {
		switch x := v.(type) {
		case json.Number:
			if n, err := x.Int64(); err == nil {
				out[i] = n
			} else if f, err := x.Float64(); err == nil {
				out[i] = f
			} else {
				return nil, fmt.Errorf("argument %d: %q is not a number", i+1, x)
			}
		case nil, string, bool:
			out[i] = x
		default:
			return nil, errors.New("argument " + fmt.Sprint(i+1) + ": only null, booleans, numbers and strings are accepted")
		}
	}
	return out, nil
}

// rehearse serves api.RehearsePath: a signed request (txn.Rehearsal) is
// decoded and authenticated before anything runs; then at most
// MaxQueryWait for the block slot and the statements together.
func (a *App) rehearse(ctx context.Context, data []byte) *abci.ResponseQuery {
	if max := a.ex.Params().MaxTxBytes; max > 0 && len(data) > max {
		return &abci.ResponseQuery{Code: api.CodeQueryBadInput, Log: fmt.Sprintf("rehearsal request of %d bytes, more than max_tx_bytes %d: no transaction could carry its statements", len(data), max)}
	}
	r, rej := a.ex.AuthenticateRehearsal(data)
	if rej != nil {
		return &abci.ResponseQuery{Code: rej.Code, Log: rej.Reason, Height: a.ex.State().Height}
	}
	if len(r.Statements) > a.ex.Params().MaxStatements {
		return &abci.ResponseQuery{Code: api.CodeQueryBadInput, Log: fmt.Sprintf("a rehearsal of %d statements exceeds max_statements %d", len(r.Statements), a.ex.Params().MaxStatements)}
	}
	ctx, cancel := context.WithTimeout(ctx, a.MaxQueryWait)
	defer cancel()
	resp, err := a.ex.RehearseProbe(ctx, r.Sender, r.Statements, r.Probe)
	switch {
	case errors.Is(err, ErrRehearsalBusy):
		return &abci.ResponseQuery{Code: api.CodeQueryBusy, Log: err.Error(), Height: a.ex.State().Height}
	case err != nil:
		return &abci.ResponseQuery{Code: api.CodeQueryFailed, Log: err.Error(), Height: a.ex.State().Height}
	}
	return &abci.ResponseQuery{Code: api.CodeOK, Value: encodeJSON(resp), Height: resp.Height}
}

// byzantineProof and byzantineQuery alter the answers of /proof and
// /query; only a test-hooks build sets them (byzantine_testhooks.go).
var (
	byzantineProof = func(r api.ProofResponse) api.ProofResponse { return r }
	byzantineQuery = func(r api.QueryResponse) api.QueryResponse { return r }
)

// queryFailure is a failed read's response: the backend's message in the
// log and, when the backend classified the failure, its class and
// SQLSTATE as a JSON api.FailureData in the value (what a PostgreSQL
// wire-protocol client is told).
func queryFailure(err error, height int64) *abci.ResponseQuery {
	resp := &abci.ResponseQuery{Code: api.CodeQueryFailed, Log: err.Error(), Height: height}
	if be := backend.AsError(err); be != nil {
		resp.Value = encodeJSON(api.FailureData{Class: string(be.Class), SQLState: be.SQLState})
	}
	return resp
}

// executedNonce answers a NoncePath query for the public key in data.
func (a *App) executedNonce(data []byte) *abci.ResponseQuery {
	if len(data) != ed25519.PublicKeySize {
		return &abci.ResponseQuery{Code: api.CodeQueryBadInput, Log: fmt.Sprintf("nonce request has %d bytes: want the key's %d-byte ed25519 public key", len(data), ed25519.PublicKeySize)}
	}
	n, h := a.ex.ExecutedNonce(data)
	return &abci.ResponseQuery{Code: api.CodeOK, Value: encodeJSON(api.NonceResponse{Executed: n, Height: h}), Height: h}
}

// prove serves api.ProofPath: rows of the latest committed block with a
// proof against its AppHash (Executor.Prove).
func (a *App) prove(ctx context.Context, data []byte) *abci.ResponseQuery {
	var r api.ProofRequest
	if err := json.Unmarshal(data, &r); err != nil {
		return &abci.ResponseQuery{Code: api.CodeQueryBadInput, Log: fmt.Sprintf("proof request is not valid JSON {\"table\":..., \"key\":base64 | \"lo\",\"hi\":base64}: %v", err)}
	}
	if err := r.Check(); err != nil {
		return &abci.ResponseQuery{Code: api.CodeQueryBadInput, Log: err.Error()}
	}
	ctx, cancel := context.WithTimeout(ctx, a.MaxQueryWait)
	defer cancel()
	resp, err := a.ex.Prove(ctx, r)
	if err != nil {
		code := api.CodeQueryFailed
		if errors.Is(err, backend.ErrKeyMismatch) {
			code = api.CodeQueryBadInput
		}
		return &abci.ResponseQuery{Code: code, Log: err.Error()}
	}
	resp = byzantineProof(resp)
	return &abci.ResponseQuery{Code: api.CodeOK, Value: encodeJSON(resp), Height: resp.Height}
}
