package gateway

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"regexp"
	"time"

	"github.com/relchain/relchain/client"
	"github.com/relchain/relchain/dialect"
	"github.com/relchain/relchain/pgwire"
)

// Config configures a gateway.
type Config struct {
	// Listen is the TCP address PostgreSQL clients connect to.
	Listen string
	// Nodes are the RPC addresses of the nodes, the preferred one first.
	Nodes []string
	// Local, inside a node, answers reads and rehearsals in process;
	// Dialect then names the node's backend.
	Local   client.LocalQuerier
	Dialect string
	// SQLDialect, with Dialect, is the network's SQL dialect as its
	// genesis names it ("" the backend's own; see dialect.Dialect.Speaks).
	SQLDialect string
	// LocalRead, inside a node, runs reads outside a transaction in
	// process without abci_query's JSON (node: App.Read); nil: Local.
	LocalRead LocalReader
	// NodeTLS is the TLS configuration for https node addresses; nil: the
	// system's certificate authorities.
	NodeTLS *tls.Config
	// UsersFile is the users file (LoadUsers).
	UsersFile string
	// TLSCert and TLSKey enable TLS (sslmode=require); RequireTLS refuses
	// clients that do not use it.
	TLSCert, TLSKey string
	RequireTLS      bool
	// Limits caps connections, timeouts and message sizes (pgwire.Limits;
	// the zero value is its defaults).
	Limits pgwire.Limits
	// Logf receives connection-level errors; nil discards them.
	Logf func(format string, args ...any)
	// Verifier, when set, answers every read outside a transaction
	// without trusting any one node, and each such read's result carries
	// a NOTICE naming its guarantee (relchain proxy; verified.go).
	Verifier ReadVerifier
	// Classifier answers which statements read catalogs only and which
	// are plain writes (Classifier); required: Start refuses nil. Pass
	// sqlcheck/pgclass.Classifier{}, or Conservative{} to go without.
	Classifier Classifier
}

// Gateway is a running PostgreSQL front end of a relchain network.
type Gateway struct {
	nodes   *Nodes
	users   *Users
	dialect string
	// network names the network's SQL dialect and storage in messages
	// (dialect.Dialect.NetworkName).
	network string
	wire    dialect.Wire
	// classify is Config.Classifier (classifier).
	classify Classifier
	verifier ReadVerifier // Config.Verifier
	srv      *pgwire.Server
	ln       net.Listener
	done     chan error
}

// ServerVersion is the PostgreSQL version the gateway reports: the
// protocol and catalog it follows.
const ServerVersion = "16.0 (relchain)"

// Start loads the users, learns the network's dialect (waiting up to
// ctx's deadline for a node to answer), listens and serves.
func Start(ctx context.Context, cfg Config) (*Gateway, error) {
	if cfg.Classifier == nil {
		return nil, errNoClassifier
	}
	users, err := LoadUsers(cfg.UsersFile)
	if err != nil {
		return nil, fmt.Errorf("gateway: %w", err)
	}
	nodes, err := NewNodes(cfg.Nodes, cfg.Local)
	if nodes != nil {
		nodes.tls = cfg.NodeTLS
		nodes.localRead = cfg.LocalRead
	}
	if err != nil {
		return nil, err
	}
	g := &Gateway{nodes: nodes, users: users, dialect: cfg.Dialect, classify: cfg.Classifier, verifier: cfg.Verifier, done: make(chan error, 1)}
	sql := cfg.SQLDialect
	if g.dialect == "" {
		if g.dialect, err = waitDialect(ctx, nodes); err != nil {
			return nil, err
		}
		sql = nodes.SQLDialect()
	}
	d, err := dialect.Lookup(g.dialect)
	if err != nil {
		return nil, fmt.Errorf("gateway: the nodes run backend %q: %w", g.dialect, err)
	}
	// The network's SQL dialect decides: $n placeholders and PostgreSQL's
	// quoting on a postgres-dialect network, whatever its storage.
	if g.wire, err = d.NetworkWire(sql); err != nil {
		return nil, fmt.Errorf("gateway: %w", err)
	}
	g.network = d.NetworkName(sql)
	g.srv = &pgwire.Server{Users: users.Verifier, NewSession: g.newSession, RequireTLS: cfg.RequireTLS,
		ServerVersion: ServerVersion, Logf: cfg.Logf, Limits: cfg.Limits}
	if cfg.TLSCert != "" || cfg.TLSKey != "" {
		cert, err := tls.LoadX509KeyPair(cfg.TLSCert, cfg.TLSKey)
		if err != nil {
			return nil, fmt.Errorf("gateway: TLS certificate: %w", err)
		}
		g.srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	} else if cfg.RequireTLS {
		return nil, errors.New("gateway: RequireTLS needs a TLS certificate and key")
	}
	if g.ln, err = net.Listen("tcp", cfg.Listen); err != nil {
		return nil, fmt.Errorf("gateway: listen: %w", err)
	}
	go func() { g.done <- g.srv.Serve(g.ln) }()
	return g, nil
}

// waitDialect asks the nodes for their backend until one answers.
func waitDialect(ctx context.Context, nodes *Nodes) (string, error) {
	for {
		d, err := nodes.Dialect(ctx)
		if err == nil {
			return d, nil
		}
		select {
		case <-ctx.Done():
			return "", fmt.Errorf("gateway: no node answered: %w", err)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// Addr is the address the gateway listens on.
func (g *Gateway) Addr() net.Addr { return g.ln.Addr() }

// Dialect is the network's SQL dialect.
func (g *Gateway) Dialect() string { return g.dialect }

// Users lists the users who may connect.
func (g *Gateway) Users() []string { return g.users.Names() }

// Close stops accepting, closes every connection and waits for them.
func (g *Gateway) Close() error {
	err := g.srv.Close()
	<-g.done
	return err
}

func (g *Gateway) newSession(_ context.Context, user string, params map[string]string) (pgwire.Session, error) {
	u, ok := g.users.Lookup(user)
	if !ok { // pgwire authenticated the name already; the file cannot change under it
		return nil, &pgwire.Error{Code: "28000", Message: fmt.Sprintf("role %q does not exist", user), Severity: "FATAL"}
	}
	return newSession(g, u, params), nil
}

func (g *Gateway) serverVersion() string { return ServerVersion }

func (g *Gateway) versionString() string {
	return fmt.Sprintf("PostgreSQL %s on a relchain network (%s backend)", ServerVersion, g.network)
}

// catalogQuery matches SQL that reads PostgreSQL's catalogs.
var catalogQuery = regexp.MustCompile(`(?i)\b(pg_catalog|information_schema|pg_[a-z_]+)\b`)

// readError maps a failed read or description; a catalog query on a
// network that answers no PostgreSQL catalog query (a SQLite network in
// its own sqlite dialect: dialect.Wire.PGCatalog) gets the limitation's
// name, unless the node named what it does not support itself (0A000).
func (g *Gateway) readError(sql string, err error) error {
	var qe *client.QueryError
	if !g.wire.PGCatalog && errors.As(err, &qe) && catalogQuery.MatchString(sql) && (qe.Failure == nil || qe.Failure.SQLState != stateFeature) {
		e := refused("this relchain network runs %s: PostgreSQL catalog queries (pg_catalog, information_schema; psql's \\d) cannot be answered", g.network)
		e.Detail = qe.Message
		e.Hint = g.wire.CatalogHint
		return e
	}
	return nodeError(err)
}
