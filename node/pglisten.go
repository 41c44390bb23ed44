package node

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/app"
	"github.com/relchain/relchain/gateway"
	"github.com/relchain/relchain/sqlcheck/pgclass"
)

// WithPGListen turns the node's PostgreSQL wire-protocol listener on at
// addr, whatever relchain.toml's [pg] listen says.
func WithPGListen(addr string) Option { return func(o *options) { o.pgListen = addr } }

// startGateway starts the PostgreSQL listener when [pg] listen is set.
// Reads, descriptions and rehearsals go to the application in process;
// transactions through the node's own RPC (CheckTx, the mempool).
func (n *Node) startGateway(ctx context.Context) error {
	if n.pg.Listen == "" {
		return nil
	}
	limits, err := n.pg.Limits()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	url, nodeTLS := loopbackURL(n.rpcAddr), (*tls.Config)(nil)
	if n.rpcTLS.cert != "" {
		if nodeTLS, err = ownCertificate(n.rpcTLS.cert, n.rpcTLS.key); err != nil {
			return fmt.Errorf("[pg] reach the node's RPC over TLS: %w", err)
		}
		url = "https" + strings.TrimPrefix(url, "http")
	}
	gw, err := gateway.Start(ctx, gateway.Config{
		Listen:     n.pg.Listen,
		Nodes:      []string{url},
		NodeTLS:    nodeTLS,
		Local:      n.app.Query,
		LocalRead:  appReader(n.app),
		Dialect:    n.app.Executor().Backend().Dialect(),
		SQLDialect: n.app.Executor().Params().SQLDialect,
		UsersFile:  n.pg.UsersFile(n.home),
		TLSCert:    inHome(n.home, n.pg.TLSCert, ""),
		TLSKey:     inHome(n.home, n.pg.TLSKey, ""),
		RequireTLS: n.pg.RequireTLS,
		Limits:     limits,
		Logf:       func(format string, args ...any) { n.logger.Info(fmt.Sprintf(format, args...), "module", "pg") },
		// PostgreSQL's parser answers what reads catalogs only and what
		// is a plain write (gateway.Classifier).
		Classifier: pgclass.Classifier{},
	})
	if err != nil {
		return fmt.Errorf("[pg] listen %s: %w", n.pg.Listen, err)
	}
	n.gateway = gw
	n.logger.Info("PostgreSQL wire protocol listening", "addr", gw.Addr().String(), "users", strings.Join(gw.Users(), ","))
	return nil
}

// appReader is the listener's read path: App.Read on the latest
// committed state, its failures as the client's *QueryError (api.QueryError: node
// does not import the client).
func appReader(a *app.App) gateway.LocalReader {
	return func(ctx context.Context, minHeight int64, sql string, args []any) (*api.QueryResponse, error) {
		resp, err := a.Read(ctx, minHeight, sql, args, false)
		var re *app.ReadError
		if errors.As(err, &re) {
			return nil, &api.QueryError{Code: re.Code, Message: re.Log, Failure: re.Failure}
		}
		return resp, err
	}
}

// PGAddr is the PostgreSQL listener's address, "" when it is off.
func (n *Node) PGAddr() string {
	if n.gateway == nil {
		return ""
	}
	return n.gateway.Addr().String()
}

// ownCertificate is a TLS configuration that accepts only the node's own
// RPC certificate (the leaf of the pair certFile, keyFile): the listener
// reaches its own node over loopback, whatever names the certificate was
// issued for.
func ownCertificate(certFile, keyFile string) (*tls.Config, error) {
	pair, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, err
	}
	leaf := pair.Certificate[0]
	return &tls.Config{
		MinVersion: tls.VersionTLS12,
		// The chain is not verified against CAs: the certificate is
		// compared with the node's own, byte for byte.
		InsecureSkipVerify: true, //nolint:gosec // pinned below
		VerifyPeerCertificate: func(raw [][]byte, _ [][]*x509.Certificate) error {
			if len(raw) == 0 || !bytes.Equal(raw[0], leaf) {
				return errors.New("the RPC server's certificate is not this node's")
			}
			return nil
		},
	}, nil
}

// loopbackURL turns CometBFT's RPC listen address (tcp://0.0.0.0:26657)
// into a URL this process can reach.
func loopbackURL(laddr string) string {
	addr := strings.TrimPrefix(laddr, "tcp://")
	addr = strings.Replace(addr, "0.0.0.0:", "127.0.0.1:", 1)
	return "http://" + addr
}
