package main

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/relchain/relchain/client"
	"github.com/relchain/relchain/client/lightverify"
	"github.com/relchain/relchain/cmd/internal/clientcmd"
	"github.com/relchain/relchain/gateway"
	"github.com/relchain/relchain/proxy"
	"github.com/relchain/relchain/sqlcheck/pgclass"
)

// proxyTrust is relchain proxy's trust root flags.
type proxyTrust struct {
	genesis     string
	trustHeight int64
	trustHash   string
	maxLag      int64
}

func proxyCmd() *cobra.Command {
	cfg := gateway.Config{Classifier: pgclass.Classifier{}}
	var nodes string
	var lim gatewayLimits
	var trust proxyTrust
	cmd := &cobra.Command{
		Use:   "proxy",
		Short: "Serve the PostgreSQL wire protocol where the application runs, with reads that trust no single node",
		Long: `Serve the PostgreSQL wire protocol where the application runs, in front of
any nodes of a network, so that psql, drivers and ORMs get reads they need not
take on one node's word (docs/verified-reads.md). A read outside a transaction
by primary key (a point or a range of a one-column key) comes back with a proof
checked against a header CometBFT's light client verified from your trust root
(--trust-genesis, or --trust-height and --trust-hash); any other read is asked
of every node and needs f+1 alike answers at one height. Each such result
carries a NOTICE naming its guarantee (also SHOW relchain.read_guarantee); a
read that fails verification is an error (SQLSTATE XX001), never an
unverified answer. Writes and transactions work as through relchain gateway:
signed with the user's key, validated by the chain.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			cfg.Nodes = strings.Split(nodes, ",")
			v, err := trust.verifier(ctx, cfg.Nodes)
			if err != nil {
				return err
			}
			cfg.Verifier = v
			return serveGateway(ctx, cfg, lim, "relchain proxy (verified reads)", nodes)
		},
	}
	cmd.Flags().StringVar(&cfg.Listen, "pg-listen", "127.0.0.1:5432", "address PostgreSQL clients connect to")
	cmd.Flags().StringVar(&nodes, "node", "http://127.0.0.1:26657", "RPC addresses of the nodes, comma-separated, preferred first: f+1 agreement needs f+1 of them, and the others are the light client's witnesses")
	cmd.Flags().StringVar(&cfg.UsersFile, "users", filepath.Join(defaultHome(), "gateway", "users.toml"), "users file (relchain gateway users add)")
	cmd.Flags().StringVar(&cfg.TLSCert, "tls-cert", "", "TLS certificate (PEM); with --tls-key turns TLS on")
	cmd.Flags().StringVar(&cfg.TLSKey, "tls-key", "", "TLS private key (PEM)")
	cmd.Flags().BoolVar(&cfg.RequireTLS, "require-tls", false, "refuse clients that do not use TLS")
	cmd.Flags().StringVar(&trust.genesis, "trust-genesis", "", "the genesis file you trust (its chain ID and validators)")
	cmd.Flags().Int64Var(&trust.trustHeight, "trust-height", 0, "the height of a header you trust (with --trust-hash)")
	cmd.Flags().StringVar(&trust.trustHash, "trust-hash", "", "the hash (hex) of the header at --trust-height")
	cmd.Flags().Int64Var(&trust.maxLag, "max-lag", client.DefaultMaxLag, "refuse a proven answer more than this many blocks behind the newest verified header")
	lim.flags(cmd)
	return cmd
}

// serveGateway starts a gateway (or proxy) with cfg and serves until ctx
// ends.
func serveGateway(ctx context.Context, cfg gateway.Config, lim gatewayLimits, what, nodes string) error {
	limits, err := lim.pgwire()
	if err != nil {
		return err
	}
	cfg.Limits = limits
	if ca := clientcmd.CAFile(); ca != "" {
		tc, err := client.TLSConfig(ca)
		if err != nil {
			return err
		}
		cfg.NodeTLS = tc
	}
	sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	gw, err := gateway.Start(sctx, cfg)
	cancel()
	if err != nil {
		return err
	}
	fmt.Printf("%s: PostgreSQL protocol on %s (%s network via %s; users: %s)\n",
		what, gw.Addr(), gw.Dialect(), nodes, strings.Join(gw.Users(), ", "))
	<-ctx.Done()
	return gw.Close()
}

// verifier starts the proxy's verifier on nodes from the flags' root.
func (t proxyTrust) verifier(ctx context.Context, nodes []string) (*proxy.Verifier, error) {
	opts := client.Options{CAFile: clientcmd.CAFile()}
	first, err := client.NewWithOptions(nodes[0], nil, opts)
	if err != nil {
		return nil, fmt.Errorf("proxy: node %s: %w", nodes[0], err)
	}
	root, err := t.root(ctx, first)
	if err != nil {
		return nil, err
	}
	sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	return proxy.NewVerifier(sctx, root, nodes, proxy.Options{Client: opts, MaxLag: t.maxLag})
}

// root is the trust root the flags name.
func (t proxyTrust) root(ctx context.Context, c *client.Client) (lightverify.Root, error) {
	switch {
	case t.genesis != "" && (t.trustHeight != 0 || t.trustHash != ""):
		return lightverify.Root{}, errors.New("proxy: give either --trust-genesis or --trust-height and --trust-hash, not both")
	case t.genesis != "":
		return lightverify.FromGenesis(t.genesis)
	case t.trustHeight <= 0 || t.trustHash == "":
		return lightverify.Root{}, errors.New("proxy needs a trust root: --trust-genesis FILE, or --trust-height N and --trust-hash HEX")
	}
	hash, err := hex.DecodeString(t.trustHash)
	if err != nil {
		return lightverify.Root{}, fmt.Errorf("--trust-hash %q: %w", t.trustHash, err)
	}
	// The chain ID is the node's word; a wrong one fails the trusted
	// header's hash.
	chainID, err := c.ChainID(ctx)
	if err != nil {
		return lightverify.Root{}, err
	}
	return lightverify.FromHeader(chainID, t.trustHeight, hash), nil
}
