package gateway

import (
	"context"
	"crypto/ed25519"
	"crypto/tls"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/client"
	"github.com/relchain/relchain/txn"
)

// Nodes is the gateway's access to the chain: one or more nodes' RPC
// addresses, tried in order (the current one first, the next when it
// does not answer), and, inside a node, its application in process.
type Nodes struct {
	urls  []string
	local client.LocalQuerier
	tls   *tls.Config // for https urls; nil: the system's CAs
	// localRead answers Query in process (the gateway runs in the node).
	localRead LocalReader

	current atomic.Int64 // index of the node that answered last

	mu      sync.Mutex
	clients map[string]*client.Client // by url + "\x00" + public key ("" for reads)
	dialect string
	sql     string // the genesis' sql_dialect, learnt with dialect
}

// NewNodes returns access to the nodes at urls. local, when not nil,
// answers reads, descriptions and rehearsals in process (the gateway runs
// inside the node at urls[0]).
func NewNodes(urls []string, local client.LocalQuerier) (*Nodes, error) {
	if len(urls) == 0 {
		return nil, errors.New("gateway: no node address")
	}
	return &Nodes{urls: urls, local: local, clients: map[string]*client.Client{}}, nil
}

// client returns the (cached) client of url that signs with key.
func (n *Nodes) client(url string, key ed25519.PrivateKey) (*client.Client, error) {
	id := url + "\x00"
	if key != nil {
		id += string(key.Public().(ed25519.PublicKey))
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if c, ok := n.clients[id]; ok {
		return c, nil
	}
	c, err := client.NewWithOptions(url, key, client.Options{TLS: n.tls})
	if err != nil {
		return nil, err
	}
	if n.local != nil && url == n.urls[0] {
		c.SetLocalQueries(n.local)
	}
	n.clients[id] = c
	return c, nil
}

// try runs f on the current node, then on each other node while the
// failure is the node's unavailability rather than an answer.
func (n *Nodes) try(ctx context.Context, key ed25519.PrivateKey, f func(*client.Client) error) error {
	start := int(n.current.Load())
	var err error
	for k := range n.urls {
		i := (start + k) % len(n.urls)
		c, cerr := n.client(n.urls[i], key)
		if cerr != nil {
			return cerr
		}
		if err = f(c); err == nil || answered(err) || ctx.Err() != nil {
			if err == nil {
				n.current.Store(int64(i))
			}
			return err
		}
	}
	return err
}

// answered reports an error that is a node's answer (a failed read, a
// rejected transaction), not its absence.
func answered(err error) bool {
	var qe *client.QueryError
	var te *client.TxError
	return errors.As(err, &qe) || errors.As(err, &te) || errors.Is(err, client.ErrNotCommitted) || errors.Is(err, client.ErrQuarantined)
}

// LocalReader runs a read outside a transaction on the node the gateway
// runs in, at a height of at least minHeight: what client.Query returns
// through abci_query, and a failure as a *client.QueryError. The height it
// reports may be lower than the state it read (a lower bound): Query's
// callers do not compare heights (QueryAll does and never uses it).
type LocalReader func(ctx context.Context, minHeight int64, sql string, args []any) (*api.QueryResponse, error)

// Query reads on committed state at a height of at least minHeight.
func (n *Nodes) Query(ctx context.Context, minHeight int64, sql string, args []any) (*api.QueryResponse, error) {
	if n.localRead != nil {
		return n.localRead(ctx, minHeight, sql, args)
	}
	var resp *api.QueryResponse
	err := n.try(ctx, nil, func(c *client.Client) (err error) {
		resp, err = c.Query(ctx, minHeight, sql, args...)
		return err
	})
	return resp, err
}

// QueryAll reads on every node at one height and cross-checks the
// answers (client.QueryAll).
func (n *Nodes) QueryAll(ctx context.Context, minHeight int64, sql string, args []any) (*api.QueryResponse, error) {
	if len(n.urls) < 2 {
		return nil, refused("relchain.cross_check needs a gateway in front of several nodes (relchain gateway --node URL,URL,…)")
	}
	clients := make([]*client.Client, len(n.urls))
	for i, u := range n.urls {
		c, err := n.client(u, nil)
		if err != nil {
			return nil, err
		}
		clients[i] = c
	}
	return client.QueryAll(ctx, clients, minHeight, sql, args...)
}

// Describe asks for a statement's parameter and column types.
func (n *Nodes) Describe(ctx context.Context, sql string) (*api.DescribeResponse, error) {
	var resp *api.DescribeResponse
	err := n.try(ctx, nil, func(c *client.Client) (err error) {
		resp, err = c.Describe(ctx, sql)
		return err
	})
	return resp, err
}

// Rehearse runs stmts as key's next bc-transaction would and rolls them
// back; probe, when not nil, is run after them under the read policy
// (client.RehearseProbe).
func (n *Nodes) Rehearse(ctx context.Context, key ed25519.PrivateKey, stmts []txn.Statement, probe *txn.Statement) (*api.RehearseResponse, error) {
	var resp *api.RehearseResponse
	err := n.try(ctx, key, func(c *client.Client) (err error) {
		resp, err = c.RehearseProbe(ctx, stmts, probe)
		return err
	})
	return resp, err
}

// Commit signs stmts (with what the client observed of each, or none)
// and submits the envelope until a node answers, then waits for its
// block. The same envelope sent twice executes once (its nonce), and a
// node that already has it committed answers its committed result
// (client.Broadcast): a resubmission to the next node after one failed
// in transit is never reported as a failure. When a node proves the
// envelope is not committed because another process of the key used its
// nonce (the key's nonce advanced past this gateway's counter), the same
// statements are signed again above the executed nonce
// (client.SubmitInteractive); never when the outcome is unknown. An
// error names the tx's hash, so its outcome can be looked up.
func (n *Nodes) Commit(ctx context.Context, key ed25519.PrivateKey, stmts []txn.Statement, seen []txn.Observation) (*client.Result, error) {
	first, err := n.client(n.urls[int(n.current.Load())], key)
	if err != nil {
		return nil, err
	}
	return first.SubmitInteractive(ctx, stmts, seen, func(ctx context.Context, raw []byte) (*client.Result, error) {
		return n.broadcast(ctx, key, raw)
	})
}

// broadcast submits raw until a node answers and waits for its block.
func (n *Nodes) broadcast(ctx context.Context, key ed25519.PrivateKey, raw []byte) (*client.Result, error) {
	var res *client.Result
	err := n.try(ctx, key, func(c *client.Client) (err error) {
		res, err = c.Broadcast(ctx, client.ModeCommit, raw)
		return err
	})
	if err != nil {
		hash := strings.ToUpper(hex.EncodeToString(txn.Hash(raw)))
		if !strings.Contains(err.Error(), hash) {
			err = fmt.Errorf("tx %s: %w", hash, err)
		}
	}
	return res, err
}

// Dialect is the network's SQL dialect ("sqlite", "postgres", "mysql"),
// from the node's abci_info.
func (n *Nodes) Dialect(ctx context.Context) (string, error) {
	n.mu.Lock()
	d := n.dialect
	n.mu.Unlock()
	if d != "" {
		return d, nil
	}
	var sql string
	err := n.try(ctx, nil, func(c *client.Client) error {
		info, err := c.RPC().ABCIInfo(ctx)
		if err != nil {
			return err
		}
		var data api.InfoData
		if err := json.Unmarshal([]byte(info.Response.Data), &data); err != nil {
			return fmt.Errorf("node %s: abci_info data: %w", c.URL(), err)
		}
		d, sql = data.Backend, data.SQLDialect
		return nil
	})
	if err != nil {
		return "", err
	}
	n.mu.Lock()
	n.dialect, n.sql = d, sql
	n.mu.Unlock()
	return d, nil
}

// SQLDialect is the network's SQL dialect as its genesis names it ("" the
// backend's own), learnt by Dialect.
func (n *Nodes) SQLDialect() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.sql
}
