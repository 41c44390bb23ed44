package nodehttp

import (
	"bytes"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	jsonrpcclient "github.com/cometbft/cometbft/rpc/jsonrpc/client"
)

// Client is the HTTP client of a node's RPC at url (an http:// URL if it
// names no scheme): TLS with tc (nil: the system's certificate
// authorities), connections kept for concurrent callers and dropped after
// idleConnTimeout unused, reads sent again on a new connection when a kept
// one turns out closed (replayReads). timeout > 0 bounds each call.
func Client(url string, tc *tls.Config, timeout time.Duration) (*http.Client, error) {
	if !strings.Contains(url, "://") {
		url = "http://" + url
	}
	hc, err := jsonrpcclient.DefaultHTTPClient(url)
	if err != nil {
		return nil, fmt.Errorf("node %s: %w", url, err)
	}
	tr, ok := hc.Transport.(*http.Transport)
	if !ok {
		return nil, fmt.Errorf("node %s: the RPC client's transport is a %T, not an *http.Transport", url, hc.Transport)
	}
	// A Stream submits from many goroutines: keep their connections
	// instead of Go's default of two idle ones per host.
	tr.MaxIdleConnsPerHost = 64
	tr.IdleConnTimeout = idleConnTimeout
	tr.TLSClientConfig = tc
	hc.Transport = replayReads{tr}
	hc.Timeout = timeout
	return hc, nil
}

// idleConnTimeout closes a kept connection to a node after this long
// unused: under the CometBFT RPC server's own limit for an idle
// connection (its read timeout, 10 s), so the client rarely picks up a
// connection at the moment the node closes it.
const idleConnTimeout = 5 * time.Second

// replayableMethods are the RPC methods that only read: sent again on a
// fresh connection, they change nothing. A broadcast_tx_* is not among
// them (sent twice, the second is refused as already seen, and a caller
// would be told so about a tx that went in).
var replayableMethods = map[string]bool{
	"abci_query": true, "abci_info": true, "status": true, "health": true, "net_info": true,
	"block": true, "block_by_hash": true, "block_results": true, "blockchain": true, "header": true,
	"header_by_hash": true, "commit": true, "validators": true, "consensus_params": true,
	"genesis": true, "genesis_chunked": true, "tx": true, "tx_search": true, "block_search": true,
	"num_unconfirmed_txs": true, "unconfirmed_txs": true, "check_tx": true,
}

// replayReads marks the JSON-RPC requests of replayableMethods as
// idempotent (an "Idempotency-Key" header entry, which net/http's
// Transport documents for this), so that the Transport sends such a
// request again on a new connection when the kept connection it took
// turns out closed by the node (its idle timeout, a restart) as the
// request went out — which otherwise fails a read with "EOF".
type replayReads struct{ next http.RoundTripper }

func (r replayReads) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method == http.MethodPost && req.GetBody != nil && replayableMethods[rpcMethod(req)] {
		req = req.Clone(req.Context())
		req.Header["Idempotency-Key"] = nil
	}
	return r.next.RoundTrip(req)
}

// rpcMethod is the method of req's JSON-RPC call, found in the first bytes
// of its body (CometBFT's client writes "jsonrpc", "id", then "method"),
// or "" (a batch, or a body it does not recognise).
func rpcMethod(req *http.Request) string {
	body, err := req.GetBody()
	if err != nil {
		return ""
	}
	defer body.Close()
	head := make([]byte, 256)
	n, _ := io.ReadFull(body, head)
	head = head[:n]
	const key = `"method":"`
	i := bytes.Index(head, []byte(key))
	if i < 0 || bytes.IndexByte(head[:i], '[') >= 0 {
		return ""
	}
	rest := head[i+len(key):]
	j := bytes.IndexByte(rest, '"')
	if j < 0 {
		return ""
	}
	return string(rest[:j])
}
