package client

import (
	"context"
	"crypto/ed25519"
	"crypto/tls"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	abci "github.com/cometbft/cometbft/abci/types"
	rpchttp "github.com/cometbft/cometbft/rpc/client/http"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/client/internal/nodehttp"
	"github.com/relchain/relchain/txn"
)

// DefaultNode is the RPC address used when none is given.
const DefaultNode = "http://127.0.0.1:26657"

// Mode says how long Exec waits.
type Mode string

// Modes of Exec.
const (
	// ModeCommit waits until the tx is in a committed block and returns
	// its result.
	ModeCommit Mode = "commit"
	// ModeSync returns after the node's CheckTx admitted the tx.
	ModeSync Mode = "sync"
	// ModeAsync returns as soon as the node received the tx.
	ModeAsync Mode = "async"
)

// ParseMode parses a mode name.
func ParseMode(s string) (Mode, error) {
	switch Mode(s) {
	case ModeCommit, ModeSync, ModeAsync:
		return Mode(s), nil
	}
	return "", fmt.Errorf("unknown mode %q: use commit, sync or async", s)
}

// Client talks to one node.
type Client struct {
	url string
	rpc *rpchttp.HTTP
	key ed25519.PrivateKey

	mu      sync.Mutex
	chainID string
	nonce   *atomic.Uint64 // shared by every Client of this key in the process
	// nonceSynced: the counter was moved above the key's executed nonce
	// as the node reported it (startAboveExecuted).
	nonceSynced atomic.Bool

	local LocalQuerier // SetLocalQueries; nil: abci_query over RPC

	commitBlocks atomic.Int64  // SetCommitBlocks
	probeEvery   time.Duration // 0: quarantineProbeEvery (tests shorten it)
	streams      map[*Stream]struct{}

	// rehearseHeight is the node's height as its last answer to a
	// rehearsal said: the height the next rehearsal request is signed at.
	rehearseHeight atomic.Int64

	tableKeys sync.Map // table name -> *TableKey: TableKey's cache (cachedTableKey)
}

// nonces holds one counter per signing key for the whole process, so that
// several Clients (of several nodes, say) never reuse each other's nonces.
var nonces sync.Map // string(public key) -> *atomic.Uint64

func nonceCounter(key ed25519.PrivateKey) *atomic.Uint64 {
	if key == nil {
		return new(atomic.Uint64)
	}
	// A counter starts at the clock in nanoseconds, so a restarted process
	// continues above every nonce it used before.
	fresh := new(atomic.Uint64)
	fresh.Store(uint64(time.Now().UnixNano()))
	c, _ := nonces.LoadOrStore(string(key.Public().(ed25519.PublicKey)), fresh)
	return c.(*atomic.Uint64)
}

// New returns a client of the node at url (e.g. http://127.0.0.1:26657)
// that signs with key (may be nil for a read-only client).
func New(url string, key ed25519.PrivateKey) (*Client, error) {
	return newClient(url, key, nil)
}

// newClient is New over TLS with tc for an https URL (nil: the system's
// certificate authorities).
func newClient(url string, key ed25519.PrivateKey, tc *tls.Config) (*Client, error) {
	if url == "" {
		url = DefaultNode
	}
	if !strings.Contains(url, "://") {
		url = "http://" + url
	}
	hc, err := nodehttp.Client(url, tc, 0)
	if err != nil {
		return nil, err
	}
	rpc, err := rpchttp.NewWithClient(url, "/websocket", hc)
	if err != nil {
		return nil, fmt.Errorf("node %s: %w", url, err)
	}
	return &Client{url: url, rpc: rpc, key: key, nonce: nonceCounter(key)}, nil
}

// LocalQuerier answers abci_query requests in process: the ABCI Query
// method of the node's own application.
type LocalQuerier func(ctx context.Context, req *abci.RequestQuery) (*abci.ResponseQuery, error)

// SetLocalQueries makes c send its abci_query requests (reads,
// rehearsals, grants, stats) to q instead of over RPC: for a front end
// that runs inside the node, which saves an HTTP round trip and the RPC's
// JSON per read. Transactions still go through the RPC (CheckTx, the
// mempool). Call it before c is used.
func (c *Client) SetLocalQueries(q LocalQuerier) { c.local = q }

// abciQuery runs one abci_query, in process or over RPC.
func (c *Client) abciQuery(ctx context.Context, path string, data []byte) (*abci.ResponseQuery, error) {
	if c.local != nil {
		return c.local(ctx, &abci.RequestQuery{Path: path, Data: data})
	}
	r, err := c.rpc.ABCIQuery(ctx, path, data)
	if err != nil {
		return nil, err
	}
	return &r.Response, nil
}

// URL returns the node's address.
func (c *Client) URL() string { return c.url }

// RPC returns the underlying CometBFT RPC client.
func (c *Client) RPC() *rpchttp.HTTP { return c.rpc }

// ChainID returns the network's chain id (asked once, then remembered).
func (c *Client) ChainID(ctx context.Context) (string, error) {
	c.mu.Lock()
	id := c.chainID
	c.mu.Unlock()
	if id != "" {
		return id, nil
	}
	st, err := c.rpc.Status(ctx)
	if err != nil {
		return "", c.wrap("status", err)
	}
	c.mu.Lock()
	c.chainID = st.NodeInfo.Network
	c.mu.Unlock()
	return st.NodeInfo.Network, nil
}

// SetChainID sets the chain id instead of asking the node.
func (c *Client) SetChainID(id string) {
	c.mu.Lock()
	c.chainID = id
	c.mu.Unlock()
}

func (c *Client) wrap(what string, err error) error {
	if hint := tlsHint(err); hint != "" {
		return fmt.Errorf("%s on node %s: %w%s", what, c.url, err, hint)
	}
	var op *net.OpError
	if errors.As(err, &op) {
		return fmt.Errorf("%s on node %s: %w (is the node running? start one with `relchain localnet` or pass --node)", what, c.url, err)
	}
	return fmt.Errorf("%s on node %s: %w", what, c.url, err)
}

// Sign builds and signs the envelope of a bc-transaction with the client's
// next nonce. The chain executes a (key, nonce) at most once and accepts
// nonces up to 1,024 below the key's highest executed one, and up to about
// 18 minutes (in nanoseconds) ahead of the chain's clock or 2^20 above the
// key's highest (app.ReplayWindow); this client counts from its machine's
// clock in nanoseconds. Clients of one
// key in one process share a counter; one key should not be used by two
// processes at a time.
func (c *Client) Sign(ctx context.Context, stmts []txn.Statement) ([]byte, error) {
	if c.key == nil {
		return nil, errors.New("this client has no signing key")
	}
	chainID, err := c.ChainID(ctx)
	if err != nil {
		return nil, err
	}
	tx := &txn.Tx{ChainID: chainID, Nonce: c.nonce.Add(1), Statements: stmts}
	tx.Sign(c.key)
	return txn.Encode(tx), nil
}

// Result is the outcome of a submitted bc-transaction. In commit mode all
// fields are set; in sync mode Code and Log are CheckTx's; in async mode
// only Hash is. In every mode, a tx found already committed (a
// resubmission, see Broadcast) has all fields set, Height included.
type Result struct {
	Hash    string           `json:"hash"`
	Height  int64            `json:"height,omitempty"`
	Code    uint32           `json:"code"`
	Error   string           `json:"error,omitempty"`
	Failure *api.FailureData `json:"failure,omitempty"`
	// Own is what the answering node's engine said of the failure where
	// Failure records only its SQLSTATE's class (a network over several
	// engines): its SQLSTATE and class, not part of consensus.
	Own     *api.ExecInfo         `json:"own,omitempty"`
	Results []api.StatementResult `json:"results,omitempty"`
	// Batch holds one outcome per wl-transaction of a committed batch
	// envelope (see ExecBatch); Results is then empty.
	Batch []api.WLResult `json:"batch,omitempty"`
}

// OK reports whether the tx was accepted (and, in commit mode, applied).
func (r *Result) OK() bool { return r.Code == api.CodeOK }

// Err returns an error describing a rejected or failed tx, or nil.
func (r *Result) Err() error {
	if r.OK() {
		return nil
	}
	return &TxError{Code: r.Code, Message: r.Error, Failure: r.Failure}
}

// TxError is a rejected or failed bc-transaction.
type TxError struct {
	Code    uint32
	Message string
	Failure *api.FailureData
}

func (e *TxError) Error() string {
	return fmt.Sprintf("transaction %s (code %d): %s", api.CodeName(e.Code), e.Code, e.Message)
}

// Exec signs and submits one bc-transaction of the given statements.
func (c *Client) Exec(ctx context.Context, mode Mode, stmts ...txn.Statement) (*Result, error) {
	raw, err := c.Sign(ctx, stmts)
	if err != nil {
		return nil, err
	}
	return c.Broadcast(ctx, mode, raw)
}

// Broadcast submits an already signed envelope.
//
// Resubmitting the same bytes is safe and answers the committed outcome:
// the chain executes a signed envelope at most once, and whenever the node
// answers that it has these bytes already (its mempool cache) or refuses
// them because their nonce is used (api.CodeCommitted, or api.CodeReplayed
// from a node that could not tell), Broadcast looks the tx up by hash in
// the node's tx index and returns its committed result (Height set; for a
// tx that failed in its block, that failure), in every mode, before or
// after the nodes restarted. A refusal stays a refusal (CodeReplayed) only
// when the index, covering the whole chain, proves these bytes never
// committed: another tx of the key used the nonce. When the index cannot
// tell (the node does not index txs, or has the chain only from a
// snapshot on), the error wraps ErrOutcomeUnknown instead of reporting a
// failure. In async mode a resubmission the node does not remember
// returns only the hash, as any async submission does; its outcome is
// Tx's.
//
// ModeCommit submits with broadcast_tx_sync (CometBFT documents
// broadcast_tx_commit as fit for testing only) and waits for the block
// that carries the tx, learnt from a NewBlock websocket subscription that
// every Client of the node in this process shares, or, if no subscription
// can be had, by polling the tx RPC. A CheckTx rejection returns at once
// with its code (Height 0). A tx not committed within SetCommitBlocks
// blocks returns an error wrapping ErrNotCommitted.
func (c *Client) Broadcast(ctx context.Context, mode Mode, raw []byte) (*Result, error) {
	hash := strings.ToUpper(hex.EncodeToString(txn.Hash(raw)))
	switch mode {
	case ModeAsync:
		_, err := c.rpc.BroadcastTxAsync(ctx, raw)
		if isInCache(err) {
			return c.known(ctx, hash)
		}
		if err != nil {
			return nil, c.wrap("broadcast_tx_async", err)
		}
		return &Result{Hash: hash}, nil
	case ModeSync:
		r, err := c.rpc.BroadcastTxSync(ctx, raw)
		if isInCache(err) {
			return c.known(ctx, hash)
		}
		if err != nil {
			return nil, c.wrap("broadcast_tx_sync", err)
		}
		res, _, err := c.settleRefusal(ctx, hash, r.Code, r.Log)
		return res, err
	case ModeCommit, "":
		return c.broadcastCommit(ctx, raw)
	}
	return nil, fmt.Errorf("unknown mode %q", mode)
}

// known is the answer to a submission the node already has (CometBFT's
// mempool cache): its committed result if the tx index holds it, else an
// admitted tx (code 0, Height 0) pending in the mempool.
func (c *Client) known(ctx context.Context, hash string) (*Result, error) {
	res, ok := c.lookupTx(ctx, hash)
	switch {
	case !ok:
		return &Result{Hash: hash}, nil
	case res.Code == api.CodeReplayed:
		return nil, replayedInBlock(c.url, res)
	}
	return res, nil
}

// ExecResult converts a committed tx's result.
func ExecResult(hash string, height int64, r *abci.ExecTxResult) *Result {
	res := &Result{Hash: hash, Height: height, Code: r.Code, Error: r.Log}
	if r.Code == api.CodeOK {
		var d api.ExecData
		if err := decodeJSON(r.Data, &d); err != nil {
			res.Code, res.Error = api.CodeExecFailed, "cannot decode the result data: "+err.Error()
			return res
		}
		res.Results = d.Results
		res.Batch = d.Batch
		return res
	}
	var f api.FailureData
	if decodeJSON(r.Data, &f) == nil {
		res.Failure = &f
	}
	var own api.ExecInfo
	if r.Info != "" && decodeJSON([]byte(r.Info), &own) == nil && len(own.SQLState) == 5 {
		res.Own = &own
	}
	return res
}

func decodeJSON(b []byte, v any) error {
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.UseNumber()
	return dec.Decode(v)
}

// QueryError is a failed read (api.QueryError, so that a node reports a
// failed read of its own as this type without importing the client).
type QueryError = api.QueryError

// queryError is a failed abci_query's error, with the failure's class and
// SQLSTATE when the node sent them.
func queryError(code uint32, log string, value []byte) *QueryError {
	e := &QueryError{Code: code, Message: log}
	var f api.FailureData
	if len(value) > 0 && decodeJSON(value, &f) == nil {
		e.Failure = &f
	}
	return e
}

// Query runs one read-only statement on the node's committed state. With
// minHeight > 0 the node first waits until it has committed that height.
func (c *Client) Query(ctx context.Context, minHeight int64, sql string, args ...any) (*api.QueryResponse, error) {
	body, err := json.Marshal(api.QueryRequest{SQL: sql, Args: args, MinHeight: minHeight})
	if err != nil {
		return nil, fmt.Errorf("encode query: %w", err)
	}
	r, err := c.abciQuery(ctx, api.QueryPath, body)
	if err != nil {
		return nil, c.wrap("abci_query", err)
	}
	if r.Code != api.CodeOK {
		return nil, queryError(r.Code, r.Log, r.Value)
	}
	var out api.QueryResponse
	if err := decodeJSON(r.Value, &out); err != nil {
		return nil, fmt.Errorf("decode query response: %w", err)
	}
	return &out, nil
}

// Describe returns the types of sql's parameters and result columns on
// the node's committed state, without executing it (api.DescribePath):
// what a PostgreSQL client's Parse + Describe needs. A statement the
// node's database cannot compile, or its gate refuses, is a *QueryError.
func (c *Client) Describe(ctx context.Context, sql string) (*api.DescribeResponse, error) {
	body, err := json.Marshal(api.DescribeRequest{SQL: sql})
	if err != nil {
		return nil, fmt.Errorf("encode describe request: %w", err)
	}
	r, err := c.abciQuery(ctx, api.DescribePath, body)
	if err != nil {
		return nil, c.wrap("abci_query", err)
	}
	if r.Code != api.CodeOK {
		return nil, queryError(r.Code, r.Log, r.Value)
	}
	var out api.DescribeResponse
	if err := decodeJSON(r.Value, &out); err != nil {
		return nil, fmt.Errorf("decode describe response: %w", err)
	}
	return &out, nil
}

// Grants returns the node's committed permission state.
func (c *Client) Grants(ctx context.Context) (*api.Grants, error) {
	r, err := c.abciQuery(ctx, api.GrantsPath, nil)
	if err != nil {
		return nil, c.wrap("abci_query", err)
	}
	if r.Code != api.CodeOK {
		return nil, &QueryError{Code: r.Code, Message: r.Log}
	}
	var out api.Grants
	if err := decodeJSON(r.Value, &out); err != nil {
		return nil, fmt.Errorf("decode grants: %w", err)
	}
	return &out, nil
}

// GrantWrite is the system statement that lets grantee write table (or
// api.AllTables); only an admin key's tx may carry it.
func GrantWrite(grantee ed25519.PublicKey, table string) txn.Statement {
	return txn.Statement{SQL: api.SystemGrant, Args: []txn.Arg{txn.Bytes(grantee), txn.Text(table)}}
}

// RevokeWrite is the system statement that takes a grant back; revoking
// api.AllTables revokes every grant of the key.
func RevokeWrite(grantee ed25519.PublicKey, table string) txn.Statement {
	return txn.Statement{SQL: api.SystemRevoke, Args: []txn.Arg{txn.Bytes(grantee), txn.Text(table)}}
}

// AddValidator is the system statement that adds a validator with the
// ed25519 consensus public key key and voting power power; force lets the
// change lower the number of faults the set tolerates. Admin keys only.
func AddValidator(key ed25519.PublicKey, power int64, force bool) txn.Statement {
	return txn.Statement{SQL: api.SystemValidatorAdd, Args: []txn.Arg{txn.Bytes(key), txn.Int(power), txn.Bool(force)}}
}

// SetValidatorPower is the system statement that changes a validator's
// voting power (at least 1; RemoveValidator removes).
func SetValidatorPower(key ed25519.PublicKey, power int64, force bool) txn.Statement {
	return txn.Statement{SQL: api.SystemValidatorPower, Args: []txn.Arg{txn.Bytes(key), txn.Int(power), txn.Bool(force)}}
}

// RemoveValidator is the system statement that removes a validator.
func RemoveValidator(key ed25519.PublicKey, force bool) txn.Statement {
	return txn.Statement{SQL: api.SystemValidatorRemove, Args: []txn.Arg{txn.Bytes(key), txn.Bool(force)}}
}

// Status is what `relchain status` shows.
type Status struct {
	Node        string   `json:"node"`
	ChainID     string   `json:"chain_id"`
	Moniker     string   `json:"moniker"`
	Height      int64    `json:"height"`
	AppHash     string   `json:"app_hash"`
	CatchingUp  bool     `json:"catching_up"`
	Backend     string   `json:"backend"`
	BlockAtomic bool     `json:"block_atomic"`
	Validators  []string `json:"validators"`
}

// Status returns the node's view of the chain. Height and AppHash are the
// application's (the last block the database committed).
func (c *Client) Status(ctx context.Context) (*Status, error) {
	st, err := c.rpc.Status(ctx)
	if err != nil {
		return nil, c.wrap("status", err)
	}
	info, err := c.rpc.ABCIInfo(ctx)
	if err != nil {
		return nil, c.wrap("abci_info", err)
	}
	var d api.InfoData
	_ = json.Unmarshal([]byte(info.Response.Data), &d)
	out := &Status{
		Node:        c.url,
		ChainID:     st.NodeInfo.Network,
		Moniker:     st.NodeInfo.Moniker,
		Height:      info.Response.LastBlockHeight,
		AppHash:     strings.ToUpper(hex.EncodeToString(info.Response.LastBlockAppHash)),
		CatchingUp:  st.SyncInfo.CatchingUp,
		Backend:     d.Backend,
		BlockAtomic: d.BlockAtomic,
	}
	perPage := 100
	vals, err := c.rpc.Validators(ctx, nil, nil, &perPage)
	if err != nil {
		return nil, c.wrap("validators", err)
	}
	for _, v := range vals.Validators {
		out.Validators = append(out.Validators, fmt.Sprintf("%s power=%d", v.Address, v.VotingPower))
	}
	return out, nil
}
