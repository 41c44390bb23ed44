package client

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/relchain/relchain/api"
)

// BlockTimings returns the node's own per-block phase timings for heights
// from..to (those it still keeps; see api.BlockTiming).
func (c *Client) BlockTimings(ctx context.Context, from, to int64) ([]api.BlockTiming, error) {
	body, err := json.Marshal(api.StatsRequest{From: from, To: to})
	if err != nil {
		return nil, fmt.Errorf("encode stats request: %w", err)
	}
	r, err := c.abciQuery(ctx, api.StatsPath, body)
	if err != nil {
		return nil, c.wrap("abci_query "+api.StatsPath, err)
	}
	if r.Code != api.CodeOK {
		return nil, &QueryError{Code: r.Code, Message: r.Log}
	}
	var out []api.BlockTiming
	if err := json.Unmarshal(r.Value, &out); err != nil {
		return nil, fmt.Errorf("decode block timings from %s: %w", c.url, err)
	}
	return out, nil
}
