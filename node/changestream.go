package node

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/app"
	"github.com/relchain/relchain/backend"
)

// The node streams its change data capture over HTTP on its RPC
// listener (docs/history-and-changes.md):
//
//	GET /changes?from_height=H[&follow=1][&limit=N]
//
// answers NDJSON, one api.ChangeEvent per line in commit order, read in
// pages of whole blocks (api.ChangesRequest) so a block's events are never
// split and the memory a stream holds is one page. With follow=1 the
// stream stays open and sends each new block once it commits, woken by the
// executor's commit (Executor.WaitHeight), never holding an executor lock
// while it writes. Each write has a deadline: a client that stops reading
// is dropped. The stream ends when the client goes, or the node stops.

const (
	// changeStreamWriteTimeout bounds one page's write to the client.
	changeStreamWriteTimeout = 30 * time.Second
	// changeStreamIdle is how long a follow stream waits for a block
	// before it writes nothing but checks its client is still there
	// (an empty flush); a stream also ends when the node stops.
	changeStreamIdle = 15 * time.Second
)

// changeStreamParams are a stream request's parameters.
type changeStreamParams struct {
	from   int64
	limit  int
	follow bool
}

// parseChangeStream reads and checks the query parameters.
func parseChangeStream(r *http.Request) (changeStreamParams, error) {
	var p changeStreamParams
	q := r.URL.Query()
	for name := range q {
		switch name {
		case "from_height", "follow", "limit":
			if len(q[name]) > 1 {
				return p, fmt.Errorf("parameter %s given %d times", name, len(q[name]))
			}
		default:
			return p, fmt.Errorf("unknown parameter %q (from_height, follow, limit)", name)
		}
	}
	if s := q.Get("from_height"); s != "" {
		h, err := strconv.ParseInt(s, 10, 64)
		if err != nil || h < 0 {
			return p, fmt.Errorf("from_height %q: want a height, 0 to %d (0: the start of the history)", clip(s), int64(maxHeight))
		}
		p.from = h
	}
	if s := q.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > api.MaxHistoryLimit {
			return p, fmt.Errorf("limit %q: want 1 to %d versions a page", clip(s), api.MaxHistoryLimit)
		}
		p.limit = n
	}
	switch s := q.Get("follow"); s {
	case "", "0", "false":
	case "1", "true":
		p.follow = true
	default:
		return p, fmt.Errorf("follow %q: want 1 or 0", clip(s))
	}
	return p, nil
}

// maxHeight is the largest height a stream may name (heights are int64).
const maxHeight = 1<<63 - 1

func clip(s string) string { return oneLine(s, 40) }

// serveChangeStream serves GET /changes.
func (n *Node) serveChangeStream(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		writeStreamError(w, http.StatusMethodNotAllowed, "use GET /changes?from_height=H[&follow=1][&limit=N]", nil)
		return
	}
	p, err := parseChangeStream(r)
	if err != nil {
		writeStreamError(w, http.StatusBadRequest, err.Error(), nil)
		return
	}
	if n.app == nil {
		writeStreamError(w, http.StatusServiceUnavailable, "the node is not running", nil)
		return
	}
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	go func() {
		select {
		case <-n.stopping:
			cancel()
		case <-ctx.Done():
		}
	}()
	ex := n.app.Executor()
	seen := ex.State().Height
	first, err := ex.Changes(ctx, api.ChangesRequest{FromHeight: p.from, Limit: p.limit})
	if err != nil {
		n.refuseChangeStream(ctx, w, err)
		return
	}
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Relchain-History-Start", strconv.FormatInt(first.Start, 10))
	w.WriteHeader(http.StatusOK)
	if err := streamChanges(ctx, ex, w, p, first, seen); err != nil && ctx.Err() == nil {
		n.logger.Debug("change stream ended", "remote", r.RemoteAddr, "err", err)
	}
}

// refuseChangeStream answers a first read that failed: below the
// history's start (410, naming the start), history off (404), else 500.
func (n *Node) refuseChangeStream(ctx context.Context, w http.ResponseWriter, err error) {
	switch {
	case errors.Is(err, app.ErrHistoryStart):
		extra := map[string]any{}
		if resp, err2 := n.app.Executor().Changes(ctx, api.ChangesRequest{Limit: 1}); err2 == nil {
			extra["start"], extra["end"] = resp.Start, resp.End
		}
		writeStreamError(w, http.StatusGone, err.Error(), extra)
	case errors.Is(err, backend.ErrNoHistory):
		writeStreamError(w, http.StatusNotFound, "this node keeps no row history ([history] off, or a backend without it): "+err.Error(), nil)
	default:
		writeStreamError(w, http.StatusInternalServerError, err.Error(), nil)
	}
}

// streamChanges writes page after page from first on (read when the
// node had committed height seen) up to the node's latest block; with
// follow it then waits for each next commit.
func streamChanges(ctx context.Context, ex *app.Executor, w http.ResponseWriter, p changeStreamParams, page api.ChangesResponse, seen int64) error {
	rc := http.NewResponseController(w)
	for {
		if err := writePage(rc, w, page.Events); err != nil {
			return err
		}
		if len(page.Events) == 0 || page.Next > seen {
			// Every block up to seen was read: done, or wait for the next.
			if !p.follow {
				return nil
			}
			if err := waitNext(ctx, ex, rc, max(seen+1, page.Next)); err != nil {
				return err
			}
		}
		if p.follow {
			seen = ex.State().Height
		}
		next, err := ex.Changes(ctx, api.ChangesRequest{FromHeight: page.Next, Limit: p.limit})
		if err != nil {
			return fmt.Errorf("changes from height %d: %w", page.Next, err)
		}
		page = next
	}
}

// waitNext waits until height h commits, checking now and then that the
// client still reads (an empty flush under a deadline).
func waitNext(ctx context.Context, ex *app.Executor, rc *http.ResponseController, h int64) error {
	for {
		wctx, cancel := context.WithTimeout(ctx, changeStreamIdle)
		err := ex.WaitHeight(wctx, h)
		cancel()
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err := rc.SetWriteDeadline(time.Now().Add(changeStreamWriteTimeout)); err != nil {
			return fmt.Errorf("write deadline: %w", err)
		}
		if err := rc.Flush(); err != nil {
			return fmt.Errorf("flush: %w", err)
		}
	}
}

// writePage writes events, one JSON line each, under one deadline, and
// flushes them.
func writePage(rc *http.ResponseController, w http.ResponseWriter, events []api.ChangeEvent) error {
	if err := rc.SetWriteDeadline(time.Now().Add(changeStreamWriteTimeout)); err != nil {
		return fmt.Errorf("write deadline: %w", err)
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for i := range events {
		if err := enc.Encode(&events[i]); err != nil {
			return fmt.Errorf("write event: %w", err)
		}
	}
	if err := rc.Flush(); err != nil {
		return fmt.Errorf("flush: %w", err)
	}
	return nil
}

// writeStreamError answers a refused stream: {"error":..., more}.
func writeStreamError(w http.ResponseWriter, code int, msg string, extra map[string]any) {
	body := map[string]any{"error": msg}
	for k, v := range extra {
		body[k] = v
	}
	writeHealth(w, code, body)
}
