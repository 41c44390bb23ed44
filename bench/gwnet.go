package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"time"

	"github.com/relchain/relchain/gateway"
	"github.com/relchain/relchain/keyring"
	"github.com/relchain/relchain/netctl"
	"github.com/relchain/relchain/node"
)

// GatewayUser and GatewayPassword are the one PostgreSQL user of a network
// started with NetworkOptions.PGListen. The lab's networks are open (no
// admins), so the user's key may write and change the schema.
const GatewayUser, GatewayPassword = "bench", "bench"

// enablePG gives every node of n the user GatewayUser (one signing key,
// kept in dir, shared by the nodes) and a listener on a free port: port 0,
// because a port chosen here could be taken before the node starts.
func enablePG(n *netctl.Network, dir string) error {
	keys := keyring.Dir(filepath.Join(dir, "pg-keys"))
	if _, err := keys.Add(GatewayUser); err != nil {
		return fmt.Errorf("PostgreSQL user key: %w", err)
	}
	keyFile := filepath.Join(string(keys), GatewayUser+".json")
	n.NodeArgs = make([][]string, len(n.Nodes))
	for i, nd := range n.Nodes {
		users := node.PGConfig{}.UsersFile(nd.Home)
		if _, err := gateway.AddUser(users, GatewayUser, GatewayPassword, keyFile); err != nil {
			return fmt.Errorf("%s: PostgreSQL user: %w", nd.Name, err)
		}
		n.NodeArgs[i] = []string{"--pg-listen", "127.0.0.1:0"}
	}
	return nil
}

// pgListening is the line `relchain node` logs once its listener is up.
var pgListening = regexp.MustCompile(`relchain: PostgreSQL wire protocol on (\S+)`)

// PGAddrs reads each node's PostgreSQL listener address from its log,
// waiting until every node has reported one.
func PGAddrs(ctx context.Context, n *netctl.Network) ([]string, error) {
	addrs := make([]string, len(n.Nodes))
	for i := range n.Nodes {
		for addrs[i] == "" {
			b, err := os.ReadFile(n.LogFile(i))
			if err != nil {
				return nil, fmt.Errorf("%s: read log: %w", n.Nodes[i].Name, err)
			}
			if m := pgListening.FindAllSubmatch(b, -1); len(m) > 0 {
				addrs[i] = string(m[len(m)-1][1])
				break
			}
			select {
			case <-ctx.Done():
				return nil, fmt.Errorf("%s did not report its PostgreSQL listener in %s: %w", n.Nodes[i].Name, n.LogFile(i), ctx.Err())
			case <-time.After(50 * time.Millisecond):
			}
		}
	}
	return addrs, nil
}

// GatewayURL is a pgx/libpq URL for GatewayUser on the listener at addr.
func GatewayURL(addr string) string {
	return fmt.Sprintf("postgres://%s:%s@%s/relchain?sslmode=disable", GatewayUser, GatewayPassword, addr)
}
