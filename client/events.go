package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/gorilla/websocket"
)

// rpcSource reads blocks with the block and block_results RPCs.
type rpcSource struct{ c *Client }

func (s *rpcSource) latest(ctx context.Context) (int64, error) {
	st, err := s.c.rpc.Status(ctx)
	if err != nil {
		return 0, s.c.wrap("status", err)
	}
	return st.SyncInfo.LatestBlockHeight, nil
}

func (s *rpcSource) fetch(ctx context.Context, h int64) (*blockData, error) {
	blk, err := s.c.rpc.Block(ctx, &h)
	if err != nil {
		return nil, s.c.wrap(fmt.Sprintf("block %d", h), err)
	}
	res, err := s.c.rpc.BlockResults(ctx, &h)
	if err != nil {
		return nil, s.c.wrap(fmt.Sprintf("block_results %d", h), err)
	}
	if blk.Block == nil {
		return nil, fmt.Errorf("block %d on node %s: empty answer", h, s.c.url)
	}
	txs := make([][]byte, len(blk.Block.Txs))
	for i, tx := range blk.Block.Txs {
		txs[i] = tx
	}
	b, err := newBlockData(h, blk.Block.Time, txs, res.TxsResults)
	if err != nil {
		return nil, fmt.Errorf("node %s: %w", s.c.url, err)
	}
	return b, nil
}

// newBlockQuery is the subscription's query.
const newBlockQuery = "tm.event='NewBlock'"

// wsURL turns an RPC address into its websocket endpoint.
func wsURL(rpcURL string) (string, error) {
	u, err := url.Parse(rpcURL)
	if err != nil {
		return "", err
	}
	switch u.Scheme {
	case "http", "tcp", "ws":
		u.Scheme = "ws"
	case "https", "wss":
		u.Scheme = "wss"
	default:
		return "", fmt.Errorf("no websocket for scheme %q", u.Scheme)
	}
	u.Path = strings.TrimSuffix(u.Path, "/") + "/websocket"
	return u.String(), nil
}

// wsSource subscribes to NewBlock events over CometBFT's websocket. It
// speaks the JSON-RPC itself rather than through rpc/client/http's
// WSEvents, which reconnects silently (so a caller cannot know events were
// lost), drops events when its channel is full, and does not notice a
// connection that was cut without a close frame.
type wsSource struct {
	url  string
	node string
}

const (
	wsPingEvery = 5 * time.Second
	wsReadWait  = 20 * time.Second // without any message or pong
	wsWriteWait = 5 * time.Second
	wsCloseWait = time.Second // for the node's answer to a close frame
)

func (s *wsSource) subscribe(ctx context.Context) (eventSub, error) {
	d := websocket.Dialer{HandshakeTimeout: wsWriteWait}
	conn, _, err := d.DialContext(ctx, s.url, nil) //nolint:bodyclose // gorilla closes it
	if err != nil {
		return nil, fmt.Errorf("websocket %s of node %s: %w", s.url, s.node, err)
	}
	fail := func(what string, err error) (eventSub, error) {
		conn.Close()
		return nil, fmt.Errorf("websocket of node %s: %s: %w", s.node, what, err)
	}
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(wsReadWait)
	}
	_ = conn.SetWriteDeadline(deadline)
	req := map[string]any{"jsonrpc": "2.0", "id": 1, "method": "subscribe", "params": map[string]any{"query": newBlockQuery}}
	if err := conn.WriteJSON(req); err != nil {
		return fail("send subscribe", err)
	}
	_ = conn.SetWriteDeadline(time.Time{})
	// The acknowledgement may come after the first events: keep those.
	var early []*blockData
	_ = conn.SetReadDeadline(deadline)
	for {
		_, data, err := conn.ReadMessage()
		if err != nil {
			return fail("read subscribe answer", err)
		}
		b, ack, err := parseWSMessage(data)
		if err != nil {
			return fail("subscribe", err)
		}
		if ack {
			break
		}
		if b != nil {
			early = append(early, b)
		}
	}
	sub := &wsSub{conn: conn, events: make(chan *blockData, 64+len(early)), errc: make(chan error, 1), closed: make(chan struct{}), readDone: make(chan struct{})}
	for _, b := range early {
		sub.events <- b
	}
	_ = conn.SetReadDeadline(time.Now().Add(wsReadWait))
	conn.SetPongHandler(func(string) error {
		return conn.SetReadDeadline(time.Now().Add(wsReadWait))
	})
	sub.wg.Add(2)
	go sub.read()
	go sub.ping()
	return sub, nil
}

// wsMessage is one JSON-RPC message of the subscription, decoded in one
// pass of encoding/json into the few fields the follower uses. CometBFT's
// own decoder (libs/json into ctypes.ResultEvent) decodes the whole block —
// last commit, evidence, every result's events — by reflection, and that
// cost a client following blocks of 100-wl bc-transactions more CPU than
// the node spent executing them (BENCHMARKS.md, issue 19).
type wsMessage struct {
	Result *struct {
		Data struct {
			Type  string `json:"type"`
			Value struct {
				Block *struct {
					Header struct {
						Height int64     `json:"height,string"`
						Time   time.Time `json:"time"`
					} `json:"header"`
					Data struct {
						Txs [][]byte `json:"txs"`
					} `json:"data"`
				} `json:"block"`
				Result struct {
					TxResults []wsTxResult `json:"tx_results"`
				} `json:"result_finalize_block"`
			} `json:"value"`
		} `json:"data"`
	} `json:"result"`
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Data    string `json:"data"`
	} `json:"error"`
}

// wsTxResult is the part of an ExecTxResult that ExecResult reads.
type wsTxResult struct {
	Code      uint32 `json:"code"`
	Data      []byte `json:"data"`
	Log       string `json:"log"`
	Codespace string `json:"codespace"`
}

// newBlockEvent is the type tag CometBFT's JSON gives a NewBlock event.
const newBlockEvent = "tendermint/event/NewBlock"

// parseWSMessage reads one JSON-RPC message of the subscription: the
// acknowledgement ({} result), a NewBlock event, or an error (the node
// refused or cancelled the subscription, e.g. because this client was too
// slow).
func parseWSMessage(data []byte) (b *blockData, ack bool, err error) {
	var m wsMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, false, fmt.Errorf("undecodable message: %w", err)
	}
	if m.Error != nil {
		return nil, false, fmt.Errorf("node says: %s %s (code %d)", m.Error.Message, m.Error.Data, m.Error.Code)
	}
	if m.Result == nil || m.Result.Data.Type == "" {
		return nil, true, nil
	}
	if m.Result.Data.Type != newBlockEvent {
		return nil, false, nil
	}
	v := m.Result.Data.Value
	if v.Block == nil {
		return nil, false, errors.New("NewBlock event without a block")
	}
	results := make([]*abci.ExecTxResult, len(v.Result.TxResults))
	for i, r := range v.Result.TxResults {
		results[i] = &abci.ExecTxResult{Code: r.Code, Data: r.Data, Log: r.Log, Codespace: r.Codespace}
	}
	b, err = newBlockData(v.Block.Header.Height, v.Block.Header.Time, v.Block.Data.Txs, results)
	return b, false, err
}

type wsSub struct {
	conn   *websocket.Conn
	events chan *blockData
	errc   chan error
	closed chan struct{}
	// readDone is closed when the read routine ends.
	readDone chan struct{}
	once     sync.Once
	wg       sync.WaitGroup
}

func (s *wsSub) Events() <-chan *blockData { return s.events }
func (s *wsSub) Err() <-chan error         { return s.errc }

// Close ends the subscription the way the websocket protocol asks: a
// close frame (normal closure), then, once the node answered with its own
// or after wsCloseWait, the connection. The node then sees a client that
// left (it drops the subscription with the connection), not a broken
// connection it would log as an error.
func (s *wsSub) Close() {
	s.once.Do(func() {
		close(s.closed)
		msg := websocket.FormatCloseMessage(websocket.CloseNormalClosure, "")
		if err := s.conn.WriteControl(websocket.CloseMessage, msg, time.Now().Add(wsWriteWait)); err == nil {
			// The read routine ends when the node's close frame arrives.
			_ = s.conn.SetReadDeadline(time.Now().Add(wsCloseWait))
			select {
			case <-s.readDone:
			case <-time.After(wsCloseWait):
			}
		}
		_ = s.conn.Close()
	})
	s.wg.Wait()
}

func (s *wsSub) fail(err error) {
	select {
	case s.errc <- err:
	default:
	}
}

func (s *wsSub) read() {
	defer s.wg.Done()
	defer close(s.readDone)
	for {
		_, data, err := s.conn.ReadMessage()
		if err != nil {
			select {
			case <-s.closed: // Close ended it: not a failure
			default:
				s.fail(err)
			}
			return
		}
		_ = s.conn.SetReadDeadline(time.Now().Add(wsReadWait))
		b, _, err := parseWSMessage(data)
		if err != nil {
			s.fail(err)
			return
		}
		if b == nil {
			continue
		}
		b.size = len(data)
		select {
		case s.events <- b:
		case <-s.closed:
			return
		}
	}
}

func (s *wsSub) ping() {
	defer s.wg.Done()
	t := time.NewTicker(wsPingEvery)
	defer t.Stop()
	for {
		select {
		case <-s.closed:
			return
		case <-t.C:
			if err := s.conn.WriteControl(websocket.PingMessage, nil, time.Now().Add(wsWriteWait)); err != nil {
				s.fail(err)
				return
			}
		}
	}
}
