package client

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/relchain/relchain/api"
)

// RowHistory returns the versions of one row that the node's history
// holds (api.HistoryPath; docs/history-and-changes.md), ascending by
// height. A node that keeps no history, or a from height below its
// history's start, answers a *QueryError saying so.
func (c *Client) RowHistory(ctx context.Context, req api.HistoryRequest) (*api.HistoryResponse, error) {
	var out api.HistoryResponse
	if err := c.historyQuery(ctx, api.HistoryPath, req, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Changes returns the row versions of whole blocks from req.FromHeight on
// in commit order (api.ChangesPath): change data capture. Continue from
// the response's Next.
func (c *Client) Changes(ctx context.Context, req api.ChangesRequest) (*api.ChangesResponse, error) {
	var out api.ChangesResponse
	if err := c.historyQuery(ctx, api.ChangesPath, req, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// FollowChanges calls fn with every change event from height from on, a
// block's events always together, and polls every poll for new blocks
// until ctx is done or fn fails. It returns the height to resume from.
func (c *Client) FollowChanges(ctx context.Context, from int64, poll time.Duration, fn func(api.ChangeEvent) error) (int64, error) {
	for {
		resp, err := c.Changes(ctx, api.ChangesRequest{FromHeight: from})
		if err != nil {
			return from, err
		}
		for _, ev := range resp.Events {
			if err := fn(ev); err != nil {
				return from, err
			}
		}
		from = resp.Next
		if len(resp.Events) > 0 {
			continue
		}
		select {
		case <-ctx.Done():
			return from, ctx.Err()
		case <-time.After(poll):
		}
	}
}

func (c *Client) historyQuery(ctx context.Context, path string, req, out any) error {
	body, err := json.Marshal(req)
	if err != nil {
		return fmt.Errorf("encode %s request: %w", path, err)
	}
	r, err := c.abciQuery(ctx, path, body)
	if err != nil {
		return c.wrap("abci_query "+path, err)
	}
	if r.Code != api.CodeOK {
		return &QueryError{Code: r.Code, Message: r.Log}
	}
	if err := decodeJSON(r.Value, out); err != nil {
		return fmt.Errorf("decode %s response from %s: %w", path, c.url, err)
	}
	return nil
}
