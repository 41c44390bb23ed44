package main

import (
	"bufio"
	"context"
	"crypto/ed25519"
	"crypto/rand"
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
	"golang.org/x/term"

	"github.com/relchain/relchain/gateway"
	"github.com/relchain/relchain/keyring"
	"github.com/relchain/relchain/netctl"
	"github.com/relchain/relchain/node"
	"github.com/relchain/relchain/pgwire"
	"github.com/relchain/relchain/sqlcheck/pgclass"
)

func gatewayCmd() *cobra.Command {
	// PostgreSQL's parser answers what reads catalogs only and what is a
	// plain write (gateway.Classifier).
	cfg := gateway.Config{Classifier: pgclass.Classifier{}}
	var nodes string
	var lim gatewayLimits
	cmd := &cobra.Command{
		Use:   "gateway",
		Short: "Serve the PostgreSQL wire protocol in front of one or more nodes until SIGINT/SIGTERM",
		Long: `Serve the PostgreSQL wire protocol in front of one or more nodes, so that psql,
drivers and ORMs use the network unchanged (docs/clients.md). A
client's user name picks a signing key from the users file; its password is
checked with SCRAM-SHA-256. Reads go to the first node that answers, at a
height no lower than the session's last commit; writes are signed and
committed; BEGIN … COMMIT is validated by the chain (SQLSTATE 40001 when it
conflicts).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			cfg.Nodes = strings.Split(nodes, ",")
			return serveGateway(ctx, cfg, lim, "relchain gateway", nodes)
		},
	}
	cmd.Flags().StringVar(&cfg.Listen, "pg-listen", "127.0.0.1:5432", "address PostgreSQL clients connect to")
	cmd.Flags().StringVar(&nodes, "node", "http://127.0.0.1:26657", "RPC addresses of the nodes, comma-separated, preferred first")
	cmd.Flags().StringVar(&cfg.UsersFile, "users", filepath.Join(defaultHome(), "gateway", "users.toml"), "users file (relchain gateway users add)")
	cmd.Flags().StringVar(&cfg.TLSCert, "tls-cert", "", "TLS certificate (PEM); with --tls-key turns TLS on")
	cmd.Flags().StringVar(&cfg.TLSKey, "tls-key", "", "TLS private key (PEM)")
	cmd.Flags().BoolVar(&cfg.RequireTLS, "require-tls", false, "refuse clients that do not use TLS")
	lim.flags(cmd)
	cmd.AddCommand(gatewayUsersCmd())
	return cmd
}

func gatewayUsersCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "users", Short: "Manage who may connect to a gateway or a node's PostgreSQL listener"}
	var usersFile, home, keyFile string
	var passwordStdin bool
	add := &cobra.Command{
		Use:   "add NAME",
		Short: "Add a user (or change its password): a signing key and a SCRAM-SHA-256 verifier",
		Long: `Add a user to a users file, or change its password. Without --key the user
gets a new signing key beside the file (keys/NAME.json). The password is read
from the terminal (twice) or, with --password-stdin, from standard input; the
file keeps only its SCRAM-SHA-256 verifier. The user's writes are signed with
its key: on a network with admins, grant it write access with the printed key.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path := usersPath(usersFile, home)
			password, err := readPassword(passwordStdin)
			if err != nil {
				return err
			}
			pub, err := gateway.AddUser(path, args[0], password, keyPath(keyFile))
			if err != nil {
				return err
			}
			fmt.Printf("user %s in %s\npublic key %s\ngrant it writes (networks with admins): relchain admin grant %s <table|*>\n",
				args[0], path, hex.EncodeToString(pub), hex.EncodeToString(pub))
			return nil
		},
	}
	add.Flags().StringVar(&keyFile, "key", "", "the user's signing key: a key name in ~/.relchain/keys or a key file (default: a new key beside the users file)")
	add.Flags().BoolVar(&passwordStdin, "password-stdin", false, "read the password from standard input (one line)")
	list := &cobra.Command{
		Use:   "list",
		Short: "List the users of a users file",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			u, err := gateway.LoadUsers(usersPath(usersFile, home))
			if err != nil {
				return err
			}
			for _, n := range u.Names() {
				usr, _ := u.Lookup(n)
				fmt.Printf("%s\t%s\n", n, hex.EncodeToString(usr.Key.Public().(ed25519.PublicKey)))
			}
			return nil
		},
	}
	for _, c := range []*cobra.Command{add, list} {
		c.Flags().StringVar(&usersFile, "users", "", "users file (default: the node home's, or ~/.relchain/gateway/users.toml)")
		c.Flags().StringVar(&home, "home", "", "a node home: use its PostgreSQL listener's users file")
		cmd.AddCommand(c)
	}
	return cmd
}

// usersPath is --users, or the node home's users file, or the standalone
// gateway's default.
func usersPath(usersFile, home string) string {
	switch {
	case usersFile != "":
		return usersFile
	case home != "":
		_, rc, err := node.LoadConfig(home)
		if err == nil {
			return rc.PG.UsersFile(home)
		}
		return node.PGConfig{}.UsersFile(home)
	}
	return filepath.Join(defaultHome(), "gateway", "users.toml")
}

// readPassword reads a password from stdin (one line) or the terminal.
func readPassword(fromStdin bool) (string, error) {
	if fromStdin || !term.IsTerminal(int(os.Stdin.Fd())) {
		line, err := bufio.NewReader(os.Stdin).ReadString('\n')
		if err != nil && line == "" {
			return "", fmt.Errorf("read the password from standard input: %w", err)
		}
		return strings.TrimRight(line, "\r\n"), nil
	}
	fmt.Fprint(os.Stderr, "password: ")
	p1, err := term.ReadPassword(int(os.Stdin.Fd()))
	fmt.Fprintln(os.Stderr)
	if err != nil {
		return "", err
	}
	fmt.Fprint(os.Stderr, "again: ")
	p2, err := term.ReadPassword(int(os.Stdin.Fd()))
	fmt.Fprintln(os.Stderr)
	if err != nil {
		return "", err
	}
	if string(p1) != string(p2) {
		return "", errors.New("the passwords differ")
	}
	return string(p1), nil
}

// localnetPGUser and its password are the development user localnet
// creates on every node's PostgreSQL listener.
const localnetPGUser, localnetPGPassword = "relchain", "relchain"

// localnetPGKeys makes the keys localnet's wire user signs with, one per
// node: a key of its own, not this machine's default key, so that the
// CLI (which signs with the default key) and each node's listener never
// share a key's nonces across processes. They are made before the
// network (to be genesis admins) and saved after it (saveLocalnetPGKeys),
// since the network's directory must be empty when it is generated.
func localnetPGKeys(validators int) (keys []ed25519.PrivateKey, pubs []string, err error) {
	for range validators {
		pub, priv, err := ed25519.GenerateKey(rand.Reader)
		if err != nil {
			return nil, nil, fmt.Errorf("localnet: PostgreSQL user key: %w", err)
		}
		keys = append(keys, priv)
		pubs = append(pubs, hex.EncodeToString(pub))
	}
	return keys, pubs, nil
}

// saveLocalnetPGKeys writes keys into dir/keys/pg-nodeI.json and returns
// their absolute paths.
func saveLocalnetPGKeys(dir string, keys []ed25519.PrivateKey) ([]string, error) {
	d := keyring.Dir(filepath.Join(dir, "keys"))
	var files []string
	for i, priv := range keys {
		k, err := d.Import(fmt.Sprintf("pg-node%d", i), priv)
		if err != nil {
			return nil, fmt.Errorf("localnet: PostgreSQL user key: %w", err)
		}
		abs, err := filepath.Abs(d.Path(k.Name))
		if err != nil {
			return nil, err
		}
		files = append(files, abs)
	}
	return files, nil
}

// enableLocalnetPG turns on node i's PostgreSQL listener at
// 127.0.0.1:ports[i] with the development user, which signs with
// keyFiles[i] (localnetPGKeys): a genesis admin unless --admin named
// others.
func enableLocalnetPG(nodes []netctl.NodeInfo, ports []int, keyFiles []string) error {
	if len(keyFiles) != len(nodes) {
		return fmt.Errorf("localnet: %d PostgreSQL user keys for %d nodes", len(keyFiles), len(nodes))
	}
	for i, n := range nodes {
		cc, rc, err := node.LoadConfig(n.Home)
		if err != nil {
			return err
		}
		rc.PG.Listen = fmt.Sprintf("127.0.0.1:%d", ports[i])
		if err := node.SaveConfig(n.Home, cc, rc); err != nil {
			return err
		}
		if _, err := gateway.AddUser(rc.PG.UsersFile(n.Home), localnetPGUser, localnetPGPassword, keyFiles[i]); err != nil {
			return fmt.Errorf("localnet: %s: %w", n.Name, err)
		}
	}
	return nil
}

// printLocalnetPG prints each node's PostgreSQL address and a psql line.
func printLocalnetPG(nodes []netctl.NodeInfo) {
	for _, n := range nodes {
		_, rc, err := node.LoadConfig(n.Home)
		if err != nil || rc.PG.Listen == "" {
			continue
		}
		host, port, _ := strings.Cut(rc.PG.Listen, ":")
		fmt.Printf("%s pg=%s  psql \"host=%s port=%s user=%s password=%s dbname=relchain sslmode=disable\"\n",
			n.Name, rc.PG.Listen, host, port, localnetPGUser, localnetPGPassword)
	}
}

// keyPath is the file of --key: a key name in the default home's keys,
// else a key file's path as given (as every command's --key).
func keyPath(key string) string {
	if d := keyring.Dir(filepath.Join(defaultHome(), "keys")); key != "" && d.Has(key) {
		return d.Path(key)
	}
	return key
}

// gatewayLimits are the gateway's connection-limit flags (relchain.toml
// [pg] has the same keys for a node's listener).
type gatewayLimits struct {
	maxConns, maxConnsPerAddr, maxMessage, maxSessionMemory int
	startup, idleSession, idleInTx, write                   time.Duration
}

func (l *gatewayLimits) flags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.IntVar(&l.maxConns, "max-connections", pgwire.DefaultMaxConns, "connections served at once; more are refused with 53300 (-1: no limit)")
	f.IntVar(&l.maxConnsPerAddr, "max-connections-per-address", pgwire.DefaultMaxConnsPerAddr, "connections from one IP address (-1: no limit)")
	f.DurationVar(&l.startup, "startup-timeout", pgwire.DefaultStartupTimeout, "TLS, startup and authentication must finish within this")
	f.DurationVar(&l.idleSession, "idle-session-timeout", pgwire.DefaultIdleSessionTimeout, "close a session idle outside a transaction this long, 57P05 (0: never)")
	f.DurationVar(&l.idleInTx, "idle-in-transaction-timeout", pgwire.DefaultIdleInTxTimeout, "close a session idle inside a transaction this long, 25P03 (0: never)")
	f.DurationVar(&l.write, "write-timeout", pgwire.DefaultWriteTimeout, "close a connection whose client does not read an answer for this long (0: never)")
	f.IntVar(&l.maxMessage, "max-message-bytes", pgwire.DefaultMaxMessage, "largest client message after authentication (-1: no limit)")
	f.IntVar(&l.maxSessionMemory, "max-session-memory-bytes", pgwire.DefaultMaxSessionMemory, "bytes of prepared statements and portals one connection may keep (-1: no limit)")
}

// pgwire converts the flags: counts 0 → default, -1 → no limit; durations
// 0 → off (pgwire's -1), except the startup timeout, which must be positive.
func (l *gatewayLimits) pgwire() (pgwire.Limits, error) {
	for _, f := range []struct {
		name string
		v    int
	}{{"max-connections", l.maxConns}, {"max-connections-per-address", l.maxConnsPerAddr},
		{"max-message-bytes", l.maxMessage}, {"max-session-memory-bytes", l.maxSessionMemory}} {
		if f.v < -1 {
			return pgwire.Limits{}, fmt.Errorf("--%s %d: give a positive number or -1 (no limit)", f.name, f.v)
		}
	}
	if l.startup <= 0 {
		return pgwire.Limits{}, fmt.Errorf("--startup-timeout %v: give a positive duration", l.startup)
	}
	off := func(d time.Duration) time.Duration {
		if d <= 0 {
			return -1
		}
		return d
	}
	return pgwire.Limits{
		MaxConns: l.maxConns, MaxConnsPerAddr: l.maxConnsPerAddr, StartupTimeout: l.startup,
		IdleSessionTimeout: off(l.idleSession), IdleInTransactionTimeout: off(l.idleInTx), WriteTimeout: off(l.write),
		MaxMessage: l.maxMessage, MaxSessionMemory: l.maxSessionMemory,
	}, nil
}
