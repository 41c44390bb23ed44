package main

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/relchain/relchain/app"
	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/registry"
	"github.com/relchain/relchain/cmd/internal/clientcmd"
	"github.com/relchain/relchain/dialect"
	"github.com/relchain/relchain/keyring"
	"github.com/relchain/relchain/netctl"
	"github.com/relchain/relchain/node"
	"github.com/relchain/relchain/protocol"
)

func initCmd() *cobra.Command {
	var home, backendKind, dsn, chainID, sqlDialect string
	var blockAtomic, printPGSetup, unsafeSuperuser bool
	var timeouts timeoutFlags
	var admins adminFlags
	cmd := &cobra.Command{
		Use:   "init",
		Short: "Create a single-validator node home",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if printPGSetup {
				return printPostgresSetup(dsn)
			}
			p := app.DefaultParams()
			p.BlockAtomic = blockAtomic
			var err error
			if p.SQLDialect, err = newNetworkSQLDialect(backendKind, sqlDialect); err != nil {
				return err
			}
			if err := admins.apply(&p); err != nil {
				return err
			}
			t := node.DefaultTuning()
			timeouts.apply(&t)
			g, err := node.Init(home, node.InitOptions{
				ChainID: chainID,
				Backend: node.BackendConfig{Kind: backendKind, DSN: dsn, UnsafeSuperuser: unsafeSuperuser},
				Params:  p,
				Tuning:  t,
			})
			if err != nil {
				return err
			}
			fmt.Printf("initialized node home %s (chain %s, %s)\nstart it with: relchain node --home %s\n", home, g.ChainID, networkName(backendKind, p.SQLDialect), home)
			return nil
		},
	}
	cmd.Flags().StringVar(&home, "home", defaultHome(), "node home directory")
	cmd.Flags().StringVar(&backendKind, "backend", registry.Default, "database backend: "+strings.Join(registry.Names(), ", "))
	cmd.Flags().StringVar(&dsn, "dsn", "", "PostgreSQL DSN (backend postgres: a superuser's, from which init creates the node's roles <db>_writer and <db>_reader, or the writer's), MySQL DSN such as root@tcp(127.0.0.1:3306)/relchain (backend mysql), or SQLite file (default HOME/data/relchain.db)")
	cmd.Flags().BoolVar(&printPGSetup, "print-pg-setup", false, "print the SQL a PostgreSQL superuser runs once to create the database and roles of --dsn's database, and exit")
	cmd.Flags().BoolVar(&unsafeSuperuser, "unsafe-superuser", false, "PostgreSQL, TESTS ONLY: connect as --dsn's role even if it is a superuser, instead of creating least-privilege roles")
	cmd.Flags().StringVar(&chainID, "chain-id", "", "chain id (default: random)")
	cmd.Flags().BoolVar(&blockAtomic, "block-atomic", false, "roll back a whole block when any of its transactions fails (the paper's behaviour)")
	registerSQLDialect(cmd, &sqlDialect)
	timeouts.register(cmd)
	admins.register(cmd)
	return cmd
}

func nodeCmd() *cobra.Command {
	var home, appKind, abciMode, pgListen string
	var unsafeSuperuser bool
	var hookOptions func() []node.Option // test-hooks build only (testhooks.go)
	cmd := &cobra.Command{
		Use:   "node",
		Short: "Run a validator until SIGINT/SIGTERM",
		Long: `Run a validator until SIGINT/SIGTERM. The node stops, exits non-zero and
says why when it cannot go on: a block it could not apply (database
unreachable, disk full), or a divergence: the AppHash it computed for a block
differs from the one the network signed ("AppHash mismatch at height H:
expected X (network), local Y; ..." naming the first tx whose result differed
when known). With relchain.toml [recover] on_mismatch = "recover" it instead
restores its newest checkpoint the chain confirms (as relchain recover) and
starts again by itself.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			var opts []node.Option
			if unsafeSuperuser {
				opts = append(opts, node.WithUnsafeSuperuser())
			}
			if pgListen != "" {
				opts = append(opts, node.WithPGListen(pgListen))
			}
			n, autoRecover, err := newNode(ctx, home, appKind, abciMode, append(opts, hookOptions()...))
			if err != nil {
				return err
			}
			if err := n.Start(); err != nil {
				_ = n.Stop()
				return err
			}
			// With log_format = "json" the node's output stays one JSON
			// object a line: these are in its log already.
			if a := n.PGAddr(); a != "" && !n.JSONLogs() {
				fmt.Fprintf(os.Stderr, "relchain: PostgreSQL wire protocol on %s\n", a)
			}
			if a := n.ABCIAddr(); a != "" && !n.JSONLogs() {
				fmt.Fprintf(os.Stderr, "relchain: CometBFT reaches the application over ABCI's socket protocol at %s (the server variant)\n", a)
			}
			var herr error
			select {
			case <-ctx.Done():
				serr := n.Stop()
				if herr = n.HaltError(); herr == nil {
					return serr
				}
			case herr = <-n.Halted():
				_ = n.Stop()
			}
			var d *node.DivergenceError
			if errors.As(herr, &d) {
				if autoRecover {
					return recoverAndRestart(ctx, home, d)
				}
				return herr
			}
			if errors.Is(herr, node.ErrConsensusStopped) || errors.Is(herr, backend.ErrOutOfBandChange) || errors.Is(herr, node.ErrDiskFull) || errors.Is(herr, protocol.ErrUnsupported) {
				return herr // says what to do; a restart alone would stop again
			}
			return fmt.Errorf("%w\nthe node stopped without recording that block; fix the cause (database reachable, disk space) and start it again: it re-applies the block from its block store", herr)
		},
	}
	cmd.Flags().StringVar(&home, "home", defaultHome(), "node home directory")
	cmd.Flags().StringVar(&appKind, "app", "relchain", "application: relchain, or kvstore (CometBFT's example app: the consensus ceiling for benchmarks)")
	cmd.Flags().StringVar(&abciMode, "abci", "builtin", "how CometBFT reaches the application: builtin (in-process calls) or socket (ABCI's socket protocol over loopback TCP: the paper's server variant, for comparison)")
	cmd.Flags().StringVar(&pgListen, "pg-listen", "", "serve the PostgreSQL wire protocol on this address, e.g. 127.0.0.1:5433 (as relchain.toml [pg] listen; users in [pg] users, default HOME/config/pg-users.toml)")
	cmd.Flags().BoolVar(&unsafeSuperuser, "unsafe-superuser", false, "TESTS ONLY: start even if the database roles or accounts have more privilege than relchain needs, e.g. a superuser (as relchain.toml backend.unsafe_superuser; by default the node refuses them)")
	hookOptions = registerHookFlags(cmd)
	return cmd
}

// newNode builds the node `relchain node` runs: relchain (with opts) or
// the kvstore ceiling, reached builtin or over ABCI's socket protocol.
// autoRecover says whether relchain.toml asks it to recover by itself.
func newNode(ctx context.Context, home, appKind, abciMode string, opts []node.Option) (n *node.Node, autoRecover bool, err error) {
	switch appKind {
	case "relchain":
		switch abciMode {
		case "builtin":
		case "socket":
			opts = append(opts, node.WithABCISocket())
		default:
			return nil, false, fmt.Errorf("unknown --abci %q: use builtin (in-process calls) or socket (ABCI's socket protocol over loopback TCP)", abciMode)
		}
		_, rc, err := node.LoadConfig(home)
		if err != nil {
			return nil, false, err
		}
		n, err = node.New(ctx, home, nil, opts...)
		return n, rc.AutoRecover(), err
	case "kvstore":
		if abciMode != "builtin" {
			return nil, false, fmt.Errorf("--abci %s: the kvstore ceiling runs builtin only", abciMode)
		}
		n, err = node.NewKVStore(home, nil)
		return n, false, err
	}
	return nil, false, fmt.Errorf("unknown --app %q: use relchain or kvstore", appKind)
}

// adminFlags choose the genesis admins.
type adminFlags struct {
	admins []string
	open   bool
	// alsoAdmins are keys (hex) made admins beside the default key when
	// no --admin is given: localnet's wire users (localnetPGKeys).
	alsoAdmins []string
}

func (a *adminFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringArrayVar(&a.admins, "admin", nil, "genesis admin: a hex public key or the name of a key in HOME/keys (repeatable; default: this machine's default key)")
	cmd.Flags().BoolVar(&a.open, "open", false, "no admin: an open network where every key may change the schema and write every table (development only)")
}

// apply puts the admins into p, resolving key names in the default home.
func (a *adminFlags) apply(p *app.Params) error {
	if a.open {
		if len(a.admins) > 0 {
			return fmt.Errorf("--open and --admin contradict each other")
		}
		fmt.Println("open network: no admin; every key may change the schema and write every table")
		return nil
	}
	if len(a.admins) == 0 {
		k, err := keyring.Dir(filepath.Join(defaultHome(), "keys")).LoadOrCreateDefault()
		if err != nil {
			return fmt.Errorf("default admin key: %w", err)
		}
		p.Admins = append([]string{k.PublicHex()}, a.alsoAdmins...)
		fmt.Printf("admin: %s (%s; 'relchain admin grant' lets other keys write)\n", k.PublicHex(), filepath.Join(defaultHome(), "keys", k.Name+".json"))
		slices.Sort(p.Admins)
		p.Admins = slices.Compact(p.Admins)
		return nil
	}
	for _, s := range a.admins {
		k, err := clientcmd.ResolveKey(defaultHome(), s)
		if err != nil {
			return fmt.Errorf("--admin: %w", err)
		}
		p.Admins = append(p.Admins, hex.EncodeToString(k))
	}
	slices.Sort(p.Admins)
	p.Admins = slices.Compact(p.Admins)
	return nil
}

type netFlags struct {
	adminFlags
	validators   int
	backend      string
	backends     string
	dsnTemplates []string
	chainID      string
	blockAtomic  bool
	timeouts     timeoutFlags
	basePort     int
	unsafeSuper  bool
	prometheus   bool
	sqlDialect   string
	changed      func(flag string) bool // the command's: whether a flag was given
}

// timeoutFlags are the CometBFT consensus timeouts an operator may set
// instead of node.DefaultTuning's (measured on loopback; see BENCHMARKS.md).
type timeoutFlags struct {
	commit, propose, proposeDelta, precommit time.Duration
}

func (f *timeoutFlags) register(cmd *cobra.Command) {
	d := node.DefaultTuning()
	cmd.Flags().DurationVar(&f.commit, "timeout-commit", d.TimeoutCommit, "CometBFT timeout_commit")
	cmd.Flags().DurationVar(&f.propose, "timeout-propose", d.TimeoutPropose, "CometBFT timeout_propose: how long validators wait for a proposal before moving past its proposer")
	cmd.Flags().DurationVar(&f.proposeDelta, "timeout-propose-delta", d.TimeoutProposeDelta, "CometBFT timeout_propose_delta, added to timeout_propose for each further round of a height")
	cmd.Flags().DurationVar(&f.precommit, "timeout-precommit", d.TimeoutPrecommit, "CometBFT timeout_precommit: the wait after +2/3 precommits that commit nothing")
}

// apply copies the flags into t; a flag set to 0 keeps CometBFT's own
// timeout, except timeout_commit, where 0 is a value.
func (f *timeoutFlags) apply(t *node.Tuning) {
	t.TimeoutCommit = f.commit
	t.TimeoutPropose, t.TimeoutProposeDelta, t.TimeoutPrecommit = f.propose, f.proposeDelta, f.precommit
}

func (f *netFlags) register(cmd *cobra.Command, basePort int) {
	f.changed = cmd.Flags().Changed
	cmd.Flags().IntVar(&f.validators, "validators", 4, "number of validators (--backends: one per backend listed)")
	cmd.Flags().StringVar(&f.backend, "backend", registry.Default, "database backend: "+strings.Join(registry.Names(), ", "))
	cmd.Flags().StringVar(&f.backends, "backends", "", "one backend per validator, comma-separated, for a network over several engines (e.g. postgres,postgres,sqlite,sqlite): it speaks PostgreSQL's SQL at protocol version 5; replaces --backend")
	cmd.Flags().StringArrayVar(&f.dsnTemplates, "dsn-template", nil, "PostgreSQL or MySQL DSN with {node}, e.g. postgres://127.0.0.1:5432/relchain_{node}?sslmode=disable or root@tcp(127.0.0.1:3306)/relchain_{node}; a network over two server engines (--backends) takes one per engine as ENGINE=DSN, e.g. --dsn-template postgres=postgres://... --dsn-template mysql=root@tcp(...)/relchain_{node}")
	cmd.Flags().StringVar(&f.chainID, "chain-id", "", "chain id (default: random)")
	cmd.Flags().BoolVar(&f.blockAtomic, "block-atomic", false, "roll back a whole block when any of its transactions fails (the paper's behaviour)")
	registerSQLDialect(cmd, &f.sqlDialect)
	f.timeouts.register(cmd)
	cmd.Flags().BoolVar(&f.unsafeSuper, "unsafe-superuser", false, "PostgreSQL, TESTS ONLY: nodes connect as --dsn-template's role (a superuser) instead of least-privilege roles created from it")
	cmd.Flags().IntVar(&f.basePort, "base-port", basePort, "node i uses ports BASE+10i (p2p), BASE+10i+1 (RPC) and BASE+10i+2 (metrics and health, when on); 0 picks free ports")
	cmd.Flags().BoolVar(&f.prometheus, "prometheus", false, "serve metrics and health (/metrics, /readyz, /livez) on every node, at port BASE+10i+2 (localnet: always)")
}

func (f *netFlags) options(dir string, hosts []string) (netctl.Options, error) {
	p := app.DefaultParams()
	p.BlockAtomic = f.blockAtomic
	var backends []string
	if f.backends != "" {
		backends = strings.Split(f.backends, ",")
		if f.changed("backend") {
			return netctl.Options{}, fmt.Errorf("give --backend (every validator) or --backends (one per validator), not both")
		}
		if !f.changed("validators") {
			f.validators = len(backends)
		}
	}
	var err error
	if p.SQLDialect, err = newNetworkSQLDialect(f.backend, f.sqlDialect); err != nil {
		return netctl.Options{}, err
	}
	if len(backends) > 0 && f.sqlDialect == "" {
		p.SQLDialect = dialect.SQLPostgres // what every engine of a mixed network speaks
	}
	if err := f.apply(&p); err != nil {
		return netctl.Options{}, err
	}
	t := node.DefaultTuning()
	f.timeouts.apply(&t)
	if len(hosts) > 0 {
		// Real hosts: keep CometBFT's gossip pacing, tuned for WANs.
		t.FastGossip = false
	}
	tmpl, tmpls, err := netctl.DSNTemplates(f.dsnTemplates, backends)
	if err != nil {
		return netctl.Options{}, err
	}
	return netctl.Options{
		Validators: f.validators, Dir: dir, ChainID: f.chainID, Backend: f.backend, Backends: backends,
		DSNTemplate: tmpl, DSNTemplates: tmpls, Hosts: hosts, BasePort: f.basePort, Params: p, Tuning: t,
		UnsafeSuperuser: f.unsafeSuper, Prometheus: f.prometheus,
	}, nil
}

func testnetCmd() *cobra.Command {
	var f netFlags
	var output, hosts string
	cmd := &cobra.Command{
		Use:   "testnet",
		Short: "Create the node homes of a network (loopback, or one host per validator)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var hs []string
			if hosts != "" {
				hs = strings.Split(hosts, ",")
			}
			o, err := f.options(output, hs)
			if err != nil {
				return err
			}
			nodes, err := netctl.Generate(o)
			if err != nil {
				return err
			}
			for _, n := range nodes {
				metrics := ""
				if n.Metrics != "" {
					metrics = "  metrics=" + n.Metrics
				}
				fmt.Printf("%s  home=%s  rpc=%s  p2p=%s%s\n", n.Name, n.Home, n.RPC, n.P2P, metrics)
			}
			fmt.Printf("start each with: relchain node --home HOME\n")
			return nil
		},
	}
	f.register(cmd, 26656)
	f.adminFlags.register(cmd)
	cmd.Flags().StringVar(&output, "output", "./testnet", "directory for the node homes (must be empty)")
	cmd.Flags().StringVar(&hosts, "hosts", "", "comma-separated host per validator, for a multi-machine deployment")
	return cmd
}

func addNodeCmd() *cobra.Command {
	var o netctl.JoinOptions
	cmd := &cobra.Command{
		Use:   "add-node",
		Short: "Create the home of a full node that joins a network made by testnet or localnet",
		Long: `Create the home of a full node (not a validator) that joins the network in --net:
configured like its first node, with every node as a persistent peer, and listed in nodes.json.
With --statesync it joins from a snapshot of its peers' checkpoints (CometBFT state sync,
verified against the AppHash of a header read from the first node) instead of replaying every
block. Start it with: relchain node --home NET/NAME`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, cancel := context.WithTimeout(cmd.Context(), 30*time.Second)
			defer cancel()
			n, err := netctl.AddNode(ctx, o)
			if err != nil {
				return err
			}
			fmt.Printf("%s  home=%s  rpc=%s  p2p=%s\nstart it with: relchain node --home %s\n", n.Name, n.Home, n.RPC, n.P2P, n.Home)
			return nil
		},
	}
	cmd.Flags().StringVar(&o.Dir, "net", "./localnet", "the network's directory (with nodes.json)")
	cmd.Flags().StringVar(&o.Name, "name", "", "the new node's name and home directory inside --net")
	cmd.Flags().StringVar(&o.DSN, "dsn", "", "PostgreSQL and MySQL networks: the new node's own database")
	cmd.Flags().StringVar(&o.Backend, "backend", "", "the new node's engine (default: the first node's); a network over several engines takes any its genesis lists")
	cmd.Flags().BoolVar(&o.StateSync, "statesync", false, "join by state sync from the peers' checkpoints")
	_ = cmd.MarkFlagRequired("name")
	return cmd
}

func localnetCmd() *cobra.Command {
	var f netFlags
	var dir string
	var pgPort int
	cmd := &cobra.Command{
		Use:   "localnet",
		Short: "Create (if DIR is empty) and run a whole network on loopback until SIGINT/SIGTERM",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			nodes, err := netctl.LoadNodes(dir)
			if err != nil {
				if entries, rerr := os.ReadDir(dir); rerr == nil && len(entries) > 0 {
					return fmt.Errorf("%s is neither empty nor a relchain network: %w", dir, err)
				}
				if nodes, err = createLocalnet(&f, dir, pgPort, f.basePort == 0 && !cmd.Flags().Changed("pg-port")); err != nil {
					return err
				}
				sql, _ := newNetworkSQLDialect(f.backend, f.sqlDialect) // checked by createLocalnet
				name := networkName(f.backend, sql)
				if f.backends != "" {
					name = "backends " + f.backends + ", SQL dialect postgres, protocol version 5"
				}
				fmt.Printf("created a %d-validator network in %s: %s\n", len(nodes), dir, name)
			}
			bin, err := os.Executable()
			if err != nil {
				return err
			}
			net := netctl.NewNetwork(bin, nodes)
			if err := net.StartAll(); err != nil {
				return err
			}
			defer net.StopAll()
			for _, n := range nodes {
				metrics := ""
				if n.Metrics != "" {
					metrics = " metrics=" + n.Metrics // serves /metrics, /readyz, /livez
				}
				fmt.Printf("%s rpc=%s%s log=%s/node.log\n", n.Name, n.RPC, metrics, n.Home)
			}
			printLocalnetPG(nodes)
			rctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
			err = net.WaitReady(rctx)
			cancel()
			if err != nil {
				return fmt.Errorf("network did not become ready: %w%s", err, exitedNodesCause(net))
			}
			fmt.Printf("ready: %d validators committed a block; nodes listed in %s/nodes.json; metrics= serves /metrics, /readyz, /livez; Ctrl-C stops\n", len(nodes), dir)
			// A node that dies is reported; the others keep running (a BFT
			// network tolerates f of 3f+1 failures).
			for i := range nodes {
				go func(i int) {
					select {
					case <-net.Exited(i):
						if ctx.Err() == nil {
							fmt.Fprintf(os.Stderr, "warning: %s exited; see %s\n", nodes[i].Name, net.LogFile(i))
						}
					case <-ctx.Done():
					}
				}(i)
			}
			<-ctx.Done()
			fmt.Println("stopping")
			return nil
		},
	}
	f.register(cmd, 26656)
	f.adminFlags.register(cmd)
	cmd.Flags().StringVar(&dir, "home", "./localnet", "network directory (created if empty)")
	cmd.Flags().IntVar(&pgPort, "pg-port", 5433, "a new network's nodes serve the PostgreSQL wire protocol on 127.0.0.1:PORT+i (user relchain, password relchain, signing with HOME/keys/pg-nodeI.json, a key of its own and a genesis admin; with --base-port 0 and no --pg-port, on free ports); 0: off")
	return cmd
}

// createLocalnet generates a new localnet in dir: its nodes (serving
// metrics and health) and, when pgPort > 0, each node's PostgreSQL
// listener on 127.0.0.1:pgPort+i (free ports if pickFree) with the
// development user, which signs with a key of its own per node
// (localnetPGKeys), a genesis admin unless --admin named others.
func createLocalnet(f *netFlags, dir string, pgPort int, pickFree bool) ([]netctl.NodeInfo, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var pgKeys []ed25519.PrivateKey
	if pgPort > 0 {
		var err error
		if pgKeys, f.alsoAdmins, err = localnetPGKeys(f.validators); err != nil {
			return nil, err
		}
	}
	o, err := f.options(dir, nil)
	if err != nil {
		return nil, err
	}
	o.Prometheus = true // every node serves /metrics, /readyz, /livez on a port of its own
	nodes, err := netctl.Generate(o)
	if err != nil {
		return nil, err
	}
	if pgPort == 0 {
		return nodes, nil
	}
	ports, err := localnetPGPorts(len(nodes), pgPort, pickFree)
	if err != nil {
		return nil, err
	}
	keyFiles, err := saveLocalnetPGKeys(dir, pgKeys)
	if err != nil {
		return nil, err
	}
	return nodes, enableLocalnetPG(nodes, ports, keyFiles)
}

// localnetPGPorts numbers the nodes' PostgreSQL ports from base, or picks
// free ones (pickFree: --base-port 0 asked for free ports, and a fixed
// 5433+i would collide with a second localnet or anything else there).
func localnetPGPorts(n, base int, pickFree bool) ([]int, error) {
	if pickFree {
		ports, err := netctl.FreeLoopbackPorts(n)
		if err != nil {
			return nil, fmt.Errorf("localnet: PostgreSQL ports: %w", err)
		}
		return ports, nil
	}
	ports := make([]int, n)
	for i := range ports {
		ports[i] = base + i
	}
	return ports, nil
}

// printPostgresSetup prints the one-time SQL that prepares dsn's database
// and its least-privilege roles (package pgsetup).
func printPostgresSetup(dsn string) error {
	if dsn == "" {
		return errors.New("--print-pg-setup needs --dsn naming the node's database, e.g. postgres://HOST:5432/relchain_node0")
	}
	d, err := registry.Lookup("postgres")
	if err != nil {
		return err
	}
	sql, err := d.SetupSQL(dsn)
	if err != nil {
		return err
	}
	fmt.Print(sql)
	return nil
}

// exitedNodesCause names, for every node of net whose process exited, the
// last error line of its node.log: the cause a user needs (a database
// setting, a port in use) without opening the log.
func exitedNodesCause(net *netctl.Network) string {
	var b strings.Builder
	for i, n := range net.Nodes {
		if net.Running(i) {
			continue
		}
		if line := lastErrorLine(net.LogFile(i)); line != "" {
			fmt.Fprintf(&b, "\n%s: %s", n.Name, line)
		}
	}
	return b.String()
}

// lastErrorLine is the last line of the log file at path that reports an
// error: the "error: ..." line relchain node exits with, else the last
// line that mentions an error, else the last line.
func lastErrorLine(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	const tail = 256 << 10
	if st, err := f.Stat(); err == nil && st.Size() > tail {
		_, _ = f.Seek(st.Size()-tail, io.SeekStart)
	}
	b, _ := io.ReadAll(f)
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	mention := ""
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		if strings.HasPrefix(l, "error:") {
			return l
		}
		if mention == "" && strings.Contains(strings.ToLower(l), "err") {
			mention = l
		}
	}
	if mention == "" && len(lines) > 0 {
		mention = strings.TrimSpace(lines[len(lines)-1])
	}
	return mention
}
