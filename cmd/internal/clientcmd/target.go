package clientcmd

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/relchain/relchain/client"
	"github.com/relchain/relchain/keyring"
)

// NodeEnv names the node a client command talks to when --node is not
// given.
const NodeEnv = "RELCHAIN_NODE"

const nodeHelp = `Which node: --node URL, else $RELCHAIN_NODE, else the first reachable node
of --net DIR (its nodes.json, as localnet and testnet write it), else
http://127.0.0.1:26657.`

// target is the node a client command talks to: --node, $RELCHAIN_NODE,
// --net DIR or the default, in that order.
type target struct {
	node  string
	net   string
	fs    *pflag.FlagSet
	nodes func(dir string) ([]Node, error) // Env.Nodes
}

// register adds --node and --net to fs.
func (t *target) register(fs *pflag.FlagSet) {
	t.fs = fs
	fs.StringVar(&t.node, "node", client.DefaultNode, "RPC address of a node (default: $"+NodeEnv+", then --net, then http://127.0.0.1:26657)")
	fs.StringVar(&t.net, "net", "", "a network directory (nodes.json, as localnet and testnet write it): talk to its first reachable node")
}

// explicit reports whether --node was given (or comes from the
// environment): then exec names it in the hints it prints.
func (t *target) explicit() bool {
	return (t.fs != nil && t.fs.Changed("node")) || os.Getenv(NodeEnv) != ""
}

// url resolves the node: --node if given, else $RELCHAIN_NODE, else the
// first node of --net whose RPC answers, else the default.
func (t *target) url(ctx context.Context) (string, error) {
	if t.fs != nil && t.fs.Changed("node") {
		return t.node, nil
	}
	if v := strings.TrimSpace(os.Getenv(NodeEnv)); v != "" {
		return v, nil
	}
	if t.net != "" {
		return firstReachable(ctx, t.nodes, t.net)
	}
	return client.DefaultNode, nil
}

// firstReachable returns the RPC address of the first node listed in
// dir/nodes.json (read by load) that answers a status request.
func firstReachable(ctx context.Context, load func(dir string) ([]Node, error), dir string) (string, error) {
	nodes, err := load(dir)
	if err != nil {
		return "", fmt.Errorf("--net %s: %w (a network directory made by relchain localnet or testnet)", dir, err)
	}
	if len(nodes) == 0 {
		return "", fmt.Errorf("--net %s: %s lists no node", dir, filepath.Join(dir, nodesFile))
	}
	var tried []string
	for _, n := range nodes {
		if err := ping(ctx, n.RPC); err == nil {
			return n.RPC, nil
		}
		tried = append(tried, n.Name+" "+n.RPC)
	}
	return "", fmt.Errorf("--net %s: no node answers (%s): is the network running? start it with `relchain localnet --home %s`", dir, strings.Join(tried, ", "), dir)
}

// ping asks the node at url for its status, within two seconds.
func ping(ctx context.Context, url string) error {
	c, err := newClient(url, nil)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	_, err = c.RPC().Status(ctx)
	return err
}

// client returns a read-only client of the resolved node.
func (t *target) client(ctx context.Context) (*client.Client, error) {
	url, err := t.url(ctx)
	if err != nil {
		return nil, err
	}
	return newClient(url, nil)
}

// signer is what signs a client command's transactions: --key (a key
// name in HOME/keys, or a key file) or HOME's default key.
type signer struct {
	key  string
	home string
}

func (s *signer) register(fs *pflag.FlagSet, what string) {
	fs.StringVar(&s.key, "key", "", what+" to sign with: a key name in HOME/keys or a key file (default: the key 'default', created on first use)")
	fs.StringVar(&s.home, "home", DefaultHome(), "relchain home holding keys/")
}

// client returns a client of the resolved node that signs with the key.
func (s *signer) client(ctx context.Context, t *target) (*client.Client, error) {
	key, err := loadKey(s.home, s.key)
	if err != nil {
		return nil, err
	}
	url, err := t.url(ctx)
	if err != nil {
		return nil, err
	}
	return newClient(url, key.Private)
}

// loadKey resolves --key: empty is HOME's default key (created on first
// use); a name of a key in HOME/keys is that key; anything else must be a
// key file.
func loadKey(home, key string) (keyring.Key, error) {
	dir := keyring.Dir(filepath.Join(home, "keys"))
	if key == "" {
		return dir.LoadOrCreateDefault()
	}
	if dir.Has(key) {
		return dir.Load(key)
	}
	if _, err := os.Stat(key); err == nil {
		return keyring.LoadFile(key)
	}
	return keyring.Key{}, fmt.Errorf("--key %s: %w: neither a key named %q in %s nor a key file (relchain keys list shows the keys; relchain keys add %s creates one)",
		key, keyring.ErrNotFound, key, dir, key)
}

// withTarget registers --node and --net on cmd's flags and returns the
// target.
func (e *Env) withTarget(cmd *cobra.Command, persistent bool) *target {
	t := &target{nodes: e.Nodes}
	if persistent {
		t.register(cmd.PersistentFlags())
	} else {
		t.register(cmd.Flags())
	}
	return t
}
