package app

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/relchain/relchain/api"

	abci "github.com/cometbft/cometbft/abci/types"
)

// describe serves api.DescribePath: the types of one statement's
// parameters and result columns, on committed state, without executing
// it (backend.Describer). Like a query it is open to anyone who reaches
// the node: the text goes through the backend's gate and bounds, a text
// no bc-transaction could carry (longer than max_tx_bytes) is refused
// before the backend sees it, and the whole call is bounded by
// MaxQueryWait.
func (a *App) describe(ctx context.Context, data []byte) *abci.ResponseQuery {
	var r api.DescribeRequest
	if err := json.Unmarshal(data, &r); err != nil {
		return &abci.ResponseQuery{Code: api.CodeQueryBadInput, Log: fmt.Sprintf("describe request is not valid JSON {\"sql\":...}: %v", err)}
	}
	if r.SQL == "" {
		return &abci.ResponseQuery{Code: api.CodeQueryBadInput, Log: "describe request has no sql"}
	}
	if max := a.ex.Params().MaxTxBytes; max > 0 && len(r.SQL) > max {
		return &abci.ResponseQuery{Code: api.CodeQueryBadInput, Log: fmt.Sprintf("describe request's sql is %d bytes, more than max_tx_bytes %d: no transaction could carry it", len(r.SQL), max)}
	}
	ctx, cancel := context.WithTimeout(ctx, a.MaxQueryWait)
	defer cancel()
	sql, err := a.withHistoryRelation(ctx, r.SQL, true)
	if err != nil {
		return &abci.ResponseQuery{Code: api.CodeQueryBadInput, Log: err.Error(), Height: a.ex.State().Height}
	}
	d, err := a.ex.Backend().Describe(ctx, sql)
	if err != nil {
		// With the failure's class and SQLSTATE, as a failed read: a
		// PostgreSQL client's Parse of a bad statement gets 42601, not XX000.
		return queryFailure(err, a.ex.State().Height)
	}
	resp := api.DescribeResponse{Height: d.Height, Params: d.Params, Columns: make([]api.ColumnType, len(d.Columns))}
	if resp.Params == nil {
		resp.Params = []string{}
	}
	for i, c := range d.Columns {
		resp.Columns[i] = api.ColumnType{Name: c.Name, Type: c.Type, Typmod: c.Typmod}
	}
	return &abci.ResponseQuery{Code: api.CodeOK, Value: encodeJSON(resp), Height: d.Height}
}
