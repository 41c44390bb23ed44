package e2e

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/relchain/relchain/gateway"
	"github.com/relchain/relchain/keyring"
	"github.com/relchain/relchain/node"
)

// pgUsers are the users of the clusters' PostgreSQL listeners; each one's
// password is "pw-" + its name. Test networks are open (no admins), so
// every user may write and change the schema.
var pgUsers = []string{"alice", "bob"}

func pgPassword(user string) string { return "pw-" + user }

// enablePG gives every node a PostgreSQL listener on a free port and the
// same users (one signing key per user, shared by the nodes).
func (c *cluster) enablePG() {
	c.t.Helper()
	keys := keyring.Dir(filepath.Join(c.dir, "pg-keys"))
	for _, u := range pgUsers {
		if _, err := keys.Add(u); err != nil {
			c.t.Fatal(err)
		}
	}
	for i, nd := range c.nodes {
		users := node.PGConfig{}.UsersFile(nd.Home)
		for _, u := range pgUsers {
			if _, err := gateway.AddUser(users, u, pgPassword(u), filepath.Join(string(keys), u+".json")); err != nil {
				c.t.Fatal(err)
			}
		}
		for len(c.net.NodeArgs) <= i {
			c.net.NodeArgs = append(c.net.NodeArgs, nil)
		}
		// Port 0: the node picks a free one and says which in its log
		// (pgAddr); a port chosen here could be taken before it starts.
		c.net.NodeArgs[i] = append(c.net.NodeArgs[i], "--pg-listen", "127.0.0.1:0")
	}
}

// pgListening is the line a node logs when its listener is up.
var pgListening = regexp.MustCompile(`relchain: PostgreSQL wire protocol on (\S+)`)

// pgAddr is node i's PostgreSQL listener address: the newest such line
// of its log that accepts connections (a restarted node listens on a new
// port and logs it once it is up).
func (c *cluster) pgAddr(i int) string {
	c.t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		b, _ := os.ReadFile(c.net.LogFile(i))
		if m := pgListening.FindAllSubmatch(b, -1); len(m) > 0 {
			addr := string(m[len(m)-1][1])
			if nc, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
				nc.Close()
				return addr
			}
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("node %d reports no PostgreSQL listener that accepts connections in %s", i, c.net.LogFile(i))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// pgURL is a libpq URL for user on node i's listener.
func (c *cluster) pgURL(i int, user string) string {
	return pgURLAt(c.pgAddr(i), user)
}

func pgURLAt(addr, user string) string {
	return fmt.Sprintf("postgres://%s:%s@%s/relchain?sslmode=disable", user, pgPassword(user), addr)
}

// psqlConn is psql's connection string for user on addr.
func psqlConn(addr, user string) string {
	host, port, _ := strings.Cut(addr, ":")
	return fmt.Sprintf("host=%s port=%s user=%s dbname=relchain sslmode=disable", host, port, user)
}
