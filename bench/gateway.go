package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/relchain/relchain/bench/workload"
	"github.com/relchain/relchain/client"
	"github.com/relchain/relchain/netctl"
)

// GatewayOptions describe one measurement of the PostgreSQL gateway
// (MeasureGateway): one network, three comparisons.
type GatewayOptions struct {
	// Network is started with PGListen on; Validators is normally 4.
	Network NetworkOptions
	// Accounts is the size of bench_acct, the uniform key set.
	Accounts int
	// Updates is the number of autocommit UPDATEs per path (gateway, Go
	// client), one client each, the two paths taking turns.
	Updates int
	// Reads is the number of point SELECTs of each read run, spread over
	// its clients; ReadClients the client counts to run (e.g. 1 and 8).
	Reads       int
	ReadClients []int
	// TxSessions concurrent sessions run explicit transfers for
	// TxDuration on each key set; the skewed set puts HotShare of the
	// transfers on HotAccounts accounts.
	TxSessions  int
	TxDuration  time.Duration
	HotAccounts int
	HotShare    float64
	Seed        uint64
	Log         io.Writer
	// RelayCommand, if set, starts the relay of the relay read path
	// (PostgreSQL) as a process of its own: the command plus "--target
	// HOST:PORT" must print the address it listens on as its first line
	// and relay until its standard input closes (`relchain-bench
	// tcprelay`). Empty: the relay runs in this process, where the
	// client-to-relay hop is one between goroutines and costs less than
	// any front end's.
	RelayCommand []string
}

// GatewayResult is what MeasureGateway prints.
type GatewayResult struct {
	Backend    string `json:"backend"`
	Validators int    `json:"validators"`
	Accounts   int    `json:"accounts"`
	// Update: autocommit single-row UPDATE through the gateway (pgx) and
	// through the Go client in commit mode (as `relchain bench` sync
	// sends it); Ratio is gateway p50 / client p50.
	UpdateGateway OpStats `json:"update_gateway"`
	UpdateClient  OpStats `json:"update_client"`
	UpdateRatio   float64 `json:"update_ratio_p50"`
	// Reads: point SELECT by primary key through the gateway and on the
	// raw backend (RawPath says how: in process for SQLite).
	Reads   []ReadComparison `json:"reads"`
	RawPath string           `json:"raw_path"`
	// Transactions: explicit transfers on the uniform and skewed key sets.
	Transactions []TxStats `json:"transactions"`
}

// ReadComparison is one read run: the same point SELECTs with Clients
// clients through the gateway and on the raw backend.
type ReadComparison struct {
	Clients int     `json:"clients"`
	Gateway OpStats `json:"gateway"`
	Raw     OpStats `json:"raw"`
	// Client is the node's own read path for reference: the Go client's
	// Query, abci_query over node 0's RPC (HTTP, JSON).
	Client OpStats `json:"client"`
	// Ratio is gateway p50 / raw p50.
	Ratio float64 `json:"ratio_p50"`
	// Relay (PostgreSQL only) is the raw backend through a byte-forwarding
	// TCP relay: the floor of any front end that is a hop of its own.
	// RelayProcess says it ran as a process of its own
	// (GatewayOptions.RelayCommand), as the node's listener does; else it
	// ran in the lab's process. RelayRatio is its p50 / raw p50.
	Relay        *OpStats `json:"relay,omitempty"`
	RelayRatio   float64  `json:"relay_ratio_p50,omitempty"`
	RelayProcess bool     `json:"relay_process,omitempty"`
}

// logTo is a printf-like logger writing lines to w (nil: nowhere).
func logTo(w io.Writer) func(format string, args ...any) {
	return func(format string, args ...any) {
		if w != nil {
			fmt.Fprintf(w, format+"\n", args...)
		}
	}
}

// startListeningNetwork starts a network with every node's PostgreSQL
// listener on and returns it with the listeners' addresses; the caller
// stops it.
func startListeningNetwork(ctx context.Context, nopts NetworkOptions, logf func(string, ...any)) (*netctl.Network, []string, error) {
	nopts.PGListen = true
	logf("starting %d-validator %s network with PostgreSQL listeners...", nopts.Validators, nopts.Backend)
	n, err := StartNetwork(ctx, nopts)
	if err != nil {
		return nil, nil, err
	}
	addrs, err := PGAddrs(ctx, n)
	if err != nil {
		n.StopAll()
		return nil, nil, err
	}
	return n, addrs, nil
}

// MeasureGateway starts a network with every node's PostgreSQL listener
// on, creates bench_acct through consensus, and measures node 0's
// listener against the Go client and the raw backend.
func MeasureGateway(ctx context.Context, o GatewayOptions) (*GatewayResult, error) {
	if o.Accounts < 2 || o.HotAccounts < 2 || o.HotAccounts > o.Accounts || o.TxSessions < 1 {
		return nil, fmt.Errorf("gateway benchmark: need at least 2 accounts, 2 to %d hot accounts and 1 session", o.Accounts)
	}
	logf := logTo(o.Log)
	nopts := o.Network
	n, addrs, err := startListeningNetwork(ctx, nopts, logf)
	if err != nil {
		return nil, err
	}
	defer n.StopAll()
	cfg := Config{Workload: "update", Mode: "commit", Clients: 1, Txs: o.Updates, Rows: o.Accounts,
		Dialect: nopts.Backend, Nodes: RPCs(n)[:1], Seed: o.Seed}
	logf("creating bench_acct (%d accounts) through consensus...", o.Accounts)
	if err := SetupMicro(ctx, cfg); err != nil {
		return nil, err
	}
	res := &GatewayResult{Backend: nopts.Backend, Validators: len(n.Nodes), Accounts: o.Accounts}
	if err := measureUpdates(ctx, o, cfg, addrs[0], res, logf); err != nil {
		return nil, err
	}
	if err := measureReads(ctx, o, n, addrs[0], res, logf); err != nil {
		return nil, err
	}
	if err := measureTransfers(ctx, o, addrs[0], RPCs(n)[0], res, logf); err != nil {
		return nil, err
	}
	return res, nil
}

// connectGateway opens n pgx connections to the listener at addr.
func connectGateway(ctx context.Context, addr string, n int) ([]*pgx.Conn, error) {
	conns := make([]*pgx.Conn, 0, n)
	for range n {
		c, err := pgx.Connect(ctx, GatewayURL(addr))
		if err != nil {
			closeConns(conns)
			return nil, fmt.Errorf("connect to the gateway at %s: %w", addr, err)
		}
		conns = append(conns, c)
	}
	return conns, nil
}

func closeConns(conns []*pgx.Conn) {
	for _, c := range conns {
		c.Close(context.Background())
	}
}

// Ratio is a/b, 0 when b is not positive.
func Ratio(a, b float64) float64 {
	if b <= 0 {
		return 0
	}
	return a / b
}

// measureUpdates runs the autocommit UPDATEs through the gateway and
// through the Go client in commit mode, one of each in turn, so that the
// machine's noise falls on both alike.
func measureUpdates(ctx context.Context, o GatewayOptions, cfg Config, addr string, res *GatewayResult, logf func(string, ...any)) error {
	conns, err := connectGateway(ctx, addr, 1)
	if err != nil {
		return err
	}
	defer closeConns(conns)
	c, err := newClient(cfg.Nodes[0])
	if err != nil {
		return err
	}
	if _, err := c.ChainID(ctx); err != nil {
		return fmt.Errorf("the Go client: %w", err)
	}
	logf("autocommit UPDATE: %d through the gateway and %d through the Go client (commit mode), in turn...", o.Updates, o.Updates)
	r := rand.New(rand.NewPCG(o.Seed, 1))
	var gwLat, clLat []float64
	var gwTime, clTime time.Duration
	for range o.Updates {
		id := int64(r.IntN(o.Accounts)) + 1
		d, err := gatewayUpdate(ctx, conns[0], id)
		if err != nil {
			return err
		}
		gwLat, gwTime = append(gwLat, ms(d)), gwTime+d
		if d, err = clientUpdate(ctx, c, cfg.Dialect, id); err != nil {
			return err
		}
		clLat, clTime = append(clLat, ms(d)), clTime+d
	}
	res.UpdateGateway = opStats(gwLat, gwTime.Seconds())
	res.UpdateClient = opStats(clLat, clTime.Seconds())
	res.UpdateRatio = Ratio(res.UpdateGateway.P50, res.UpdateClient.P50)
	return nil
}

// readRounds is how many turns the read paths take: each path runs
// Reads/readRounds SELECTs per turn, so that a change in the machine's load
// falls on every path alike.
const readRounds = 10

// readPath is one way of running the point SELECTs.
type readPath struct {
	name    string
	readers []pointReader
	lat     []float64
	seconds float64
	stats   *OpStats
}

// measureReads runs the point SELECTs with each client count through the
// gateway, on the raw backend of node 0, through a relay to it
// (PostgreSQL) and through the Go client's RPC query path, the paths
// taking turns (readRounds).
func measureReads(ctx context.Context, o GatewayOptions, n *netctl.Network, addr string, res *GatewayResult, logf func(string, ...any)) error {
	for _, clients := range o.ReadClients {
		rc := ReadComparison{Clients: clients}
		paths, cleanup, err := openReadPaths(ctx, o, res, n, addr, clients, &rc)
		if err != nil {
			return err
		}
		logf("point SELECT: %d with %d clients on each of %d paths, in %d turns...", o.Reads, clients, len(paths), readRounds)
		err = runReadRounds(ctx, o, paths)
		cleanup()
		if err != nil {
			return err
		}
		rc.Ratio = Ratio(rc.Gateway.P50, rc.Raw.P50)
		if rc.Relay != nil {
			rc.RelayRatio = Ratio(rc.Relay.P50, rc.Raw.P50)
		}
		res.Reads = append(res.Reads, rc)
	}
	return nil
}

// openReadPaths connects every read path's clients; the stats of each
// path land in rc. cleanup closes them all.
func openReadPaths(ctx context.Context, o GatewayOptions, res *GatewayResult, n *netctl.Network, addr string, clients int, rc *ReadComparison) ([]*readPath, func(), error) {
	var paths []*readPath
	var relayStop func()
	cleanup := func() {
		for _, p := range paths {
			closeReaders(p.readers)
		}
		if relayStop != nil {
			relayStop()
		}
	}
	conns, err := connectGateway(ctx, addr, clients)
	if err != nil {
		return nil, nil, err
	}
	gw := make([]pointReader, len(conns))
	for i, c := range conns {
		gw[i] = gatewayReader{c}
	}
	paths = append(paths, &readPath{name: "gateway", readers: gw, stats: &rc.Gateway})
	raw, rawPath, err := rawReaders(ctx, res.Backend, n.Nodes[0].Home, clients)
	if err != nil {
		cleanup()
		return nil, nil, err
	}
	res.RawPath = rawPath
	paths = append(paths, &readPath{name: "raw", readers: raw, stats: &rc.Raw})
	if workload.DB(res.Backend).PGWire { // the relay passes PostgreSQL's wire protocol on
		dsn, err := nodeReaderDSN(n.Nodes[0].Home)
		if err != nil {
			cleanup()
			return nil, nil, err
		}
		relayed, stop, err := relayReaders(ctx, dsn, clients, o.RelayCommand)
		if err != nil {
			cleanup()
			return nil, nil, err
		}
		relayStop = stop
		rc.Relay, rc.RelayProcess = &OpStats{}, len(o.RelayCommand) > 0
		paths = append(paths, &readPath{name: "relay", readers: relayed, stats: rc.Relay})
	}
	paths = append(paths, &readPath{name: "Go client", readers: rpcReaders(n.Nodes[0].RPC, res.Backend, clients), stats: &rc.Client})
	return paths, cleanup, nil
}

// runReadRounds lets the paths take readRounds turns and fills their
// stats from all their turns' latencies.
func runReadRounds(ctx context.Context, o GatewayOptions, paths []*readPath) error {
	per := max(o.Reads/readRounds, 1)
	for round := range readRounds {
		for _, p := range paths {
			lat, secs, err := pointReads(ctx, p.readers, per, o.Accounts, o.Seed+uint64(round))
			if err != nil {
				return fmt.Errorf("%s reads: %w", p.name, err)
			}
			p.lat = append(p.lat, lat...)
			p.seconds += secs
		}
	}
	for _, p := range paths {
		*p.stats = opStats(p.lat, p.seconds)
	}
	return nil
}

// measureTransfers runs the explicit transfers on the uniform and the
// skewed key set, checking after each that the total is unchanged.
func measureTransfers(ctx context.Context, o GatewayOptions, addr, rpc string, res *GatewayResult, logf func(string, ...any)) error {
	conns, err := connectGateway(ctx, addr, o.TxSessions)
	if err != nil {
		return err
	}
	obs, err := client.New(rpc, nil)
	if err != nil {
		return err
	}
	defer closeConns(conns)
	sets := []struct {
		name string
		pick keyPicker
	}{
		{fmt.Sprintf("uniform over %d", o.Accounts), uniformKeys(o.Accounts)},
		{fmt.Sprintf("%.0f%% on %d hot", 100*o.HotShare, o.HotAccounts), skewedKeys(o.Accounts, o.HotAccounts, o.HotShare)},
	}
	for _, set := range sets {
		before, err := totalOf(ctx, conns[0])
		if err != nil {
			return err
		}
		from, err := latestHeight(ctx, obs)
		if err != nil {
			return err
		}
		logf("explicit transfers, %s: %d sessions for %s...", set.name, o.TxSessions, o.TxDuration)
		s := runTransfers(ctx, conns, set.pick, o.TxDuration, o.Seed)
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("explicit transfers: %w", err)
		}
		s.Keys = set.name
		to, err := latestHeight(ctx, obs)
		if err != nil {
			return err
		}
		if err := blockPhases(ctx, obs, from+1, to, &s); err != nil {
			return err
		}
		// A fresh connection: read-your-writes of its own, and none of
		// the sessions' state.
		check, err := connectGateway(ctx, addr, 1)
		if err != nil {
			return err
		}
		after, err := totalOf(ctx, check[0])
		closeConns(check)
		if err != nil {
			return err
		}
		s.TotalBefore, s.TotalAfter, s.Conserved = before, after, before == after
		res.Transactions = append(res.Transactions, s)
		if !s.Conserved {
			return errors.Join(fmt.Errorf("explicit transfers, %s: total balance %d before, %d after", set.name, before, after), resultError(res))
		}
	}
	return nil
}

// resultError carries the partial result into an error message.
func resultError(res *GatewayResult) error {
	return fmt.Errorf("partial result: %+v", res.Transactions)
}
