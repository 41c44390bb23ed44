package clientcmd

import (
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/relchain/relchain/client"
)

// Env is what the client commands learn from the node side, whose
// packages (netctl, node) link the databases' drivers and so stay out of
// this package: cmd/relchain fills it in with them, cmd/relchain-client
// uses FileEnv. Both functions are required.
type Env struct {
	// Nodes reads the nodes.json of a network directory (--net).
	Nodes func(dir string) ([]Node, error)
	// Stopped says why the node with the given home stopped, as its home
	// records it, or "" if it records no stop (status --net).
	Stopped func(home string) string
	// KeyRead recognises a SELECT by primary key for query --verify (a
	// SQL parser, which the client side does not link: relchain passes
	// sqlcheck/pgclass's). Nil: every statement is answered by f+1
	// agreement.
	KeyRead func(sql string) (client.KeyRead, bool)
}

// Node is a node of a network directory's nodes.json.
type Node struct {
	Name string
	Home string
	RPC  string
}

// nodesFile is the list of nodes in a network directory (netctl.NodesFile).
const nodesFile = "nodes.json"

// Commands returns the commands that talk to a network as a client (exec,
// query, history, changes, tx, status, keys, admin), for the root command of relchain and of
// relchain-client.
func Commands(env Env) []*cobra.Command {
	e := &env
	return []*cobra.Command{e.execCmd(), e.txCmd(), e.queryCmd(), e.historyCmd(), e.changesCmd(), e.statusCmd(), keysCmd(), e.adminCmd()}
}

// DefaultHome is relchain's home when --home is not given: $RELCHAIN_HOME,
// else ~/.relchain.
func DefaultHome() string {
	if h := os.Getenv("RELCHAIN_HOME"); h != "" {
		return h
	}
	if h, err := os.UserHomeDir(); err == nil {
		return filepath.Join(h, ".relchain")
	}
	return ".relchain"
}
