package e2e

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/backend/mysql/mysqltest"
	"github.com/relchain/relchain/backend/postgres/pgtest"
	"github.com/relchain/relchain/client"
	"github.com/relchain/relchain/netctl"
	"github.com/relchain/relchain/node"
	"github.com/relchain/relchain/txn"
)

// relchainBin is the relchain binary built by TestMain: a default build,
// as users run it.
var relchainBin string

// binDir is where TestMain builds binaries.
var binDir string

var (
	hooksOnce sync.Once
	hooksBin  string
	hooksErr  error
)

// testHooksBinary is relchain built with -tags testhooks (the byzantine
// proposer, corrupt snapshots, the gate off), built on first use.
func testHooksBinary(t *testing.T) string {
	t.Helper()
	hooksOnce.Do(func() {
		hooksBin = filepath.Join(binDir, "relchain-testhooks")
		hooksErr = buildBinary(hooksBin, "-tags", "testhooks")
	})
	if hooksErr != nil {
		t.Fatal(hooksErr)
	}
	return hooksBin
}

func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	dir, err := os.MkdirTemp("", "relchain-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	binDir = dir
	relchainBin = filepath.Join(dir, "relchain")
	if err := buildBinary(relchainBin); err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	// The benchmark lab, beside relchain, where `relchain bench` finds it.
	if err := buildPackage(filepath.Join(dir, "relchain-bench"), "./cmd/relchain-bench"); err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	code := m.Run()
	pgtest.Shutdown()
	mysqltest.Shutdown()
	return code
}

// buildBinary builds ./cmd/relchain from the module root into out, with
// extra go build flags.
func buildBinary(out string, flags ...string) error {
	return buildPackage(out, "./cmd/relchain", flags...)
}

// buildPackage builds the command pkg of the module into out, with extra
// go build flags.
func buildPackage(out, pkg string, flags ...string) error {
	gomod, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return fmt.Errorf("go env GOMOD: %w", err)
	}
	root := filepath.Dir(strings.TrimSpace(string(gomod)))
	args := append([]string{"build", "-o", out}, flags...)
	if os.Getenv("RELCHAIN_E2E_RACE_BIN") == "1" {
		args = append(args, "-race")
	}
	cmd := exec.Command("go", append(args, pkg)...)
	cmd.Dir = root
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("build %s in %s: %w\n%s", pkg, root, err, b)
	}
	return nil
}

const validators = 4

// cluster is a running 4-validator network on loopback.
type cluster struct {
	t       *testing.T
	backend string
	net     *netctl.Network
	nodes   []netctl.NodeInfo
	chainID string
	admin   ed25519.PrivateKey // signs schema changes
	pgDSN   string             // postgres: the nodes' DSN template ({node})
	// dsnTemplates[i], where not "", is validator i's template instead of
	// pgDSN (a network over several server engines).
	dsnTemplates []string
	// engines[i] is validator i's backend on a network over several
	// engines (clusterOptions.backends), else nil.
	engines []string
	dir     string // the network's directory (nodes.json)
}

type clusterOptions struct {
	backend string // "sqlite" (default), "postgres" or "mysql"
	// backends, instead of backend, is validator i's backend: a network
	// over several engines, speaking PostgreSQL's SQL at protocol
	// version 5 (docs/mixed-networks.md).
	backends []string
	// dialect is the genesis sql_dialect ("": the backend's native SQL;
	// "postgres" on SQLite: PostgreSQL's SQL translated, docs/dialects.md).
	dialect    string
	validators int // 0: the constant validators (4)
	maxTxBytes int // genesis max_tx_bytes; 0 keeps the default
	// permissioned names the cluster's admin key in the genesis (otherwise
	// the network is open).
	permissioned bool
	// protocolVersion is the genesis protocol version (0: the newest this
	// build runs, as relchain testnet records).
	protocolVersion uint64
	// nodeArgs and nodeEnv add command-line arguments and environment
	// variables for node i.
	nodeArgs [][]string
	nodeEnv  [][]string
	// testHooks runs the nodes on a test-hooks build (testHooksBinary),
	// for the --unsafe-* node flags.
	testHooks bool
	// checkpointEvery sets the nodes' checkpoint interval (0: default).
	checkpointEvery int64
	// snapshotChunkBytes sets the state-sync chunk size (0: default).
	snapshotChunkBytes int64
	// txTimeout bounds how long one tx of a proposal may run on the nodes
	// (0: default).
	txTimeout time.Duration
	// pg turns on every node's PostgreSQL listener (gateway_test.go).
	pg bool
	// prometheus turns on every node's metrics and health listener
	// (NodeInfo.Metrics); logFormat sets config.toml log_format.
	prometheus bool
	logFormat  string
	// consensusTimeouts writes node.DefaultTuning's timeout_propose (with
	// its delta) and timeout_precommit, as relchain init, testnet and
	// localnet do, instead of CometBFT's 3 s (500 ms) and 1 s.
	consensusTimeouts bool
	// retried: the network is a second try after a port collision.
	retried bool
	// prepare, if set, runs on the generated network before it starts
	// (a node home's disk, its configuration); cleanups it registers run
	// before the nodes are stopped.
	prepare func(c *cluster)
}

// adminDSN is the administrator's DSN of node i's database on a server
// (its template's).
func (c *cluster) adminDSN(i int) string {
	tmpl := c.pgDSN
	if i < len(c.dsnTemplates) && c.dsnTemplates[i] != "" {
		tmpl = c.dsnTemplates[i]
	}
	return strings.ReplaceAll(tmpl, "{node}", c.nodes[i].Name)
}

// nodeBackend is node i's backend.
func (o clusterOptions) nodeBackend(i int) string {
	if i < len(o.backends) {
		return o.backends[i]
	}
	return o.backend
}

// otherServerTemplates are the DSN templates of the validators of a
// network over several engines (backends) on a database server other than
// main's (whose template is netctl.Options.DSNTemplate): one template per
// server engine, "" for the others.
func otherServerTemplates(t *testing.T, backends []string, main string) []string {
	var out []string
	made := make(map[string]string)
	for i, name := range backends {
		b := backendNamed(t, name)
		if name == main || b.dsnTemplate == nil {
			continue
		}
		if _, ok := made[name]; !ok {
			made[name] = b.dsnTemplate(t)
		}
		out = append(out, make([]string, i+1-len(out))...)
		out[i] = made[name]
	}
	return out
}

// mustStartCluster generates and starts a network and waits until every
// node has committed a block. The network is stopped when the test ends;
// if the test failed, the tail of every node's log is printed first.
func mustStartCluster(t *testing.T, o clusterOptions) *cluster {
	t.Helper()
	runAlone(t)
	if o.backend == "" {
		o.backend = "sqlite"
	}
	dir := filepath.Join(t.TempDir(), "net")
	if o.validators == 0 {
		o.validators = validators
	}
	opts := netctl.Options{Validators: o.validators, Dir: dir, Backend: o.backend, Backends: o.backends}
	if len(o.backends) > 0 {
		o.backend = "postgres" // the SQL every node speaks: its placeholders
	}
	opts.Tuning.FastGossip = true
	if o.consensusTimeouts {
		d := node.DefaultTuning()
		opts.Tuning.TimeoutPropose, opts.Tuning.TimeoutProposeDelta = d.TimeoutPropose, d.TimeoutProposeDelta
		opts.Tuning.TimeoutPrecommit = d.TimeoutPrecommit
	}
	opts.Params.MaxTxBytes = o.maxTxBytes
	opts.Params.SQLDialect = o.dialect
	opts.CheckpointEvery = o.checkpointEvery
	opts.SnapshotChunkBytes = o.snapshotChunkBytes
	opts.TxTimeout = o.txTimeout
	opts.Prometheus, opts.LogFormat = o.prometheus, o.logFormat
	admin := newKey(t)
	opts.Params.ProtocolVersion = o.protocolVersion
	if o.permissioned {
		opts.Params.Admins = []string{hex.EncodeToString(admin.Public().(ed25519.PublicKey))}
	}
	if b := backendNamed(t, o.backend); b.dsnTemplate != nil && (len(o.backends) == 0 || slices.Contains(o.backends, o.backend)) {
		opts.DSNTemplate = b.dsnTemplate(t)
	}
	opts.DSNTemplates = otherServerTemplates(t, o.backends, o.backend)
	nodes, err := netctl.Generate(opts)
	if err != nil {
		t.Fatalf("generate network: %v", err)
	}
	bin := relchainBin
	if o.testHooks {
		bin = testHooksBinary(t)
	}
	c := &cluster{t: t, backend: o.backend, nodes: nodes, net: netctl.NewNetwork(bin, nodes), admin: admin, pgDSN: opts.DSNTemplate, dsnTemplates: opts.DSNTemplates, engines: o.backends, dir: dir}
	c.net.NodeArgs, c.net.NodeEnv = o.nodeArgs, o.nodeEnv
	if o.pg {
		c.enablePG()
	}
	// Cleanups run last-registered first: stop the nodes, then show logs.
	t.Cleanup(func() {
		c.checkRaces()
		if t.Failed() {
			c.dumpLogs()
		}
	})
	t.Cleanup(c.net.StopAll)
	if o.prepare != nil {
		o.prepare(c)
	}
	if err := c.net.StartAll(); err != nil {
		t.Fatalf("start network: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := c.net.WaitReady(ctx); err != nil {
		if !o.retried && c.portTaken() {
			// Ports are picked by probing: another process (a test
			// package running beside this one, a bench network) bound
			// one of this network's between the pick and the node's
			// start. Once more, on fresh ports.
			t.Logf("a node's port was taken (%v): the network starts again on fresh ports", err)
			c.net.StopAll()
			o.retried = true
			return mustStartCluster(t, o)
		}
		t.Fatalf("network did not become ready: %v", err)
	}
	for i := range nodes {
		st, err := c.client(i, nil).Status(ctx)
		if err != nil {
			t.Fatalf("status of %s: %v", nodes[i].Name, err)
		}
		if want := o.nodeBackend(i); st.Backend != want {
			t.Fatalf("%s runs backend %q, want %q", nodes[i].Name, st.Backend, want)
		}
		c.chainID = st.ChainID
	}
	return c
}

// pgDSNTemplate returns a DSN template with {node} on the test server; the
// nodes' backends create the databases, which are dropped when the test
// ends.
func pgDSNTemplate(t *testing.T) string {
	t.Helper()
	base := pgtest.ServerDSN(t)
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("pgtest server DSN %q: %v", base, err)
	}
	if p := u.Port(); p == "" || p == "5432" {
		t.Fatalf("pgtest server DSN %q uses the default port: the e2e tests must not touch the system PostgreSQL", base)
	}
	var rnd [4]byte
	_, _ = rand.Read(rnd[:])
	prefix := "relchain_e2e_" + hex.EncodeToString(rnd[:])
	u.Path = "/" + prefix + "_NODENAME"
	tmpl := strings.Replace(u.String(), "NODENAME", "{node}", 1)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, base)
		if err != nil {
			t.Logf("drop test databases: %v", err)
			return
		}
		defer conn.Close(ctx)
		// The nodes' databases, and those recover staged or set aside.
		rows, err := conn.Query(ctx, "SELECT datname FROM pg_database WHERE starts_with(datname, $1)", prefix+"_")
		if err != nil {
			t.Logf("list test databases: %v", err)
			return
		}
		names, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Logf("list test databases: %v", err)
			return
		}
		for _, name := range names {
			if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)"); err != nil {
				t.Logf("drop %s: %v", name, err)
			}
		}
	})
	return tmpl
}

// mysqlDSNTemplate returns a DSN template with {node} on the MySQL test
// server (never the system server on 3306); the nodes' backends create the
// databases, which are dropped when the test ends.
func mysqlDSNTemplate(t *testing.T) string {
	t.Helper()
	base := mysqltest.ServerDSN(t)
	if strings.Contains(base, ":3306)") {
		t.Fatalf("mysqltest server DSN %q uses the default port: the e2e tests must not touch the system MariaDB", base)
	}
	var rnd [4]byte
	_, _ = rand.Read(rnd[:])
	prefix := "relchain_e2e_" + hex.EncodeToString(rnd[:])
	tmpl := strings.TrimSuffix(base, "/") + "/" + prefix + "_{node}"
	if i := strings.Index(base, "/"); i >= 0 && strings.Contains(base[i:], "?") {
		t.Fatalf("mysqltest server DSN %q: parameters are not supported here", base)
	}
	t.Cleanup(func() { dropMySQLDatabases(t, base, prefix) })
	return tmpl
}

// dropMySQLDatabases drops every database on the server of base whose
// name starts with prefix_: the nodes' (however many validators the test
// ran, and those that joined) and those recover set aside.
func dropMySQLDatabases(t *testing.T, base, prefix string) {
	db, err := sql.Open("mysql", base)
	if err != nil {
		t.Logf("drop test databases: %v", err)
		return
	}
	defer db.Close()
	rows, err := db.Query("SELECT schema_name FROM information_schema.schemata WHERE schema_name LIKE ?", prefix+"\\_%")
	if err != nil {
		t.Logf("list test databases: %v", err)
		return
	}
	var names []string
	for rows.Next() {
		var n string
		if rows.Scan(&n) == nil {
			names = append(names, n)
		}
	}
	rows.Close()
	for _, n := range names {
		if _, err := db.Exec("DROP DATABASE IF EXISTS `" + n + "`"); err != nil {
			t.Logf("drop %s: %v", n, err)
		}
	}
}

// checkRaces fails the test if a node built with the race detector
// (RELCHAIN_E2E_RACE_BIN=1) reported a data race in its log.
func (c *cluster) checkRaces() {
	for i := range c.nodes {
		b, err := os.ReadFile(c.net.LogFile(i))
		if err != nil {
			continue
		}
		if j := bytes.Index(b, []byte("WARNING: DATA RACE")); j >= 0 {
			c.t.Errorf("%s reported a data race:\n%s", c.nodes[i].Name, b[j:min(len(b), j+6000)])
		}
	}
}

func (c *cluster) dumpLogs() {
	for i := range c.nodes {
		b, err := os.ReadFile(c.net.LogFile(i))
		if err != nil {
			c.t.Logf("%s: no log: %v", c.nodes[i].Name, err)
			continue
		}
		c.t.Logf("---- tail of %s (%s) ----\n%s", c.nodes[i].Name, c.net.LogFile(i), tail(b, 40))
	}
}

// tail returns the last n lines of b.
func tail(b []byte, n int) string {
	lines := bytes.Split(bytes.TrimRight(b, "\n"), []byte("\n"))
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return string(bytes.Join(lines, []byte("\n")))
}

func newKey(t *testing.T) ed25519.PrivateKey {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	return priv
}

// client returns a client of node i signing with key (nil: read-only).
func (c *cluster) client(i int, key ed25519.PrivateKey) *client.Client {
	c.t.Helper()
	cl, err := c.net.Client(i, key)
	if err != nil {
		c.t.Fatalf("client of %s: %v", c.nodes[i].Name, err)
	}
	if c.chainID != "" {
		cl.SetChainID(c.chainID)
	}
	return cl
}

// ph returns the i-th (1-based) positional placeholder of the backend's dialect.
func (c *cluster) ph(i int) string { return backendNamed(c.t, c.backend).ph(i) }

// mustExec submits one bc-transaction through node i in commit mode,
// signed by the admin key, and fails the test unless it is applied.
func (c *cluster) mustExec(ctx context.Context, i int, stmts ...txn.Statement) *client.Result {
	c.t.Helper()
	res, err := c.client(i, c.admin).Exec(ctx, client.ModeCommit, stmts...)
	if err != nil {
		c.t.Fatalf("exec %v on %s: %v", stmts, c.nodes[i].Name, err)
	}
	if !res.OK() {
		c.t.Fatalf("exec %v on %s: %v", stmts, c.nodes[i].Name, res.Err())
	}
	return res
}

// mustExecEverywhere is mustExec, then waits until every node has
// committed the tx's block: CheckTx on a node judges against that node's
// committed state (a grant, say, counts there only once it committed it).
func (c *cluster) mustExecEverywhere(ctx context.Context, i int, stmts ...txn.Statement) *client.Result {
	c.t.Helper()
	res := c.mustExec(ctx, i, stmts...)
	for j := range c.nodes {
		if err := c.net.WaitHeight(ctx, j, res.Height); err != nil {
			c.t.Fatalf("%s did not commit block %d: %v", c.nodes[j].Name, res.Height, err)
		}
	}
	return res
}

func stmt(sql string, args ...txn.Arg) txn.Statement { return txn.Statement{SQL: sql, Args: args} }

// nodeState is one node's committed height and AppHash.
type nodeState struct {
	Height  int64
	AppHash string
}

// states returns every node's application height and AppHash (abci_info).
func (c *cluster) states(ctx context.Context) ([]nodeState, error) {
	out := make([]nodeState, len(c.nodes))
	for i := range c.nodes {
		st, err := c.client(i, nil).Status(ctx)
		if err != nil {
			return nil, err
		}
		out[i] = nodeState{st.Height, st.AppHash}
	}
	return out, nil
}

// maxHeight is the highest height any reachable node has committed.
func (c *cluster) maxHeight(ctx context.Context, nodes ...int) int64 {
	var h int64
	for _, i := range nodes {
		if info, err := c.client(i, nil).RPC().ABCIInfo(ctx); err == nil && info.Response.LastBlockHeight > h {
			h = info.Response.LastBlockHeight
		}
	}
	return h
}

// consistentRead waits until every node has committed the same height H
// (the highest any of them has), checks that all report the same AppHash
// at H, and runs each query on every node at exactly H. It returns H and
// the rows, indexed [query][node]. A node that reports a different AppHash
// at the same height fails the test.
func (c *cluster) consistentRead(ctx context.Context, queries ...string) (int64, [][][][]any) {
	c.t.Helper()
	var lastErr error
	for {
		h, err := c.settle(ctx)
		if err == nil {
			rows, moved, qerr := c.readAt(ctx, h, queries)
			if qerr == nil && !moved {
				return h, rows
			}
			err = qerr
		}
		if err != nil {
			lastErr = err
		}
		select {
		case <-ctx.Done():
			c.t.Fatalf("nodes did not settle on one height: %v (last error: %v)", ctx.Err(), lastErr)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// settle returns the height every node has committed, or an error if the
// nodes are not (yet) at the same height.
func (c *cluster) settle(ctx context.Context) (int64, error) {
	c.t.Helper()
	sts, err := c.states(ctx)
	if err != nil {
		return 0, err
	}
	for _, s := range sts[1:] {
		if s.Height != sts[0].Height {
			return 0, fmt.Errorf("heights differ: %v", sts)
		}
	}
	for i, s := range sts[1:] {
		if s.AppHash != sts[0].AppHash {
			c.t.Fatalf("AppHash differs at height %d: %s has %s, %s has %s",
				s.Height, c.nodes[0].Name, sts[0].AppHash, c.nodes[i+1].Name, s.AppHash)
		}
	}
	return sts[0].Height, nil
}

// readAt runs the queries on every node with min_height h; moved reports
// that some node answered at another height (the chain moved on).
func (c *cluster) readAt(ctx context.Context, h int64, queries []string) ([][][][]any, bool, error) {
	out := make([][][][]any, len(queries))
	for q, sql := range queries {
		out[q] = make([][][]any, len(c.nodes))
		for i := range c.nodes {
			res, err := c.client(i, nil).Query(ctx, h, sql)
			if err != nil {
				return nil, false, fmt.Errorf("%s: %s: %w", c.nodes[i].Name, sql, err)
			}
			if res.Height != h {
				return nil, true, nil
			}
			out[q][i] = res.Rows
		}
	}
	return out, false, nil
}

// requireSameRows fails unless every node returned identical rows.
func (c *cluster) requireSameRows(h int64, sql string, perNode [][][]any) {
	c.t.Helper()
	for i := 1; i < len(perNode); i++ {
		if !reflect.DeepEqual(perNode[0], perNode[i]) {
			c.t.Fatalf("at height %d %s and %s disagree on %q:\n%s: %s\n%s: %s", h,
				c.nodes[0].Name, c.nodes[i].Name, sql,
				c.nodes[0].Name, abbrev(perNode[0]), c.nodes[i].Name, abbrev(perNode[i]))
		}
	}
}

func abbrev(rows [][]any) string {
	s := fmt.Sprint(rows)
	if len(s) > 2000 {
		s = s[:2000] + "..."
	}
	return fmt.Sprintf("%d rows %s", len(rows), s)
}

// asInt converts a JSON number cell to int64.
func asInt(t *testing.T, v any) int64 {
	t.Helper()
	switch x := v.(type) {
	case interface{ Int64() (int64, error) }:
		n, err := x.Int64()
		if err != nil {
			t.Fatalf("cell %v is not an integer: %v", v, err)
		}
		return n
	case float64:
		return int64(x)
	case int64:
		return x
	}
	t.Fatalf("cell %v (%T) is not an integer", v, v)
	return 0
}

// waitFor polls cond every 100 ms until it holds or ctx ends.
func waitFor(ctx context.Context, what string, cond func() bool) error {
	for !cond() {
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s: %w", what, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
	return nil
}

// codeName names a result code for messages.
func codeName(code uint32) string { return fmt.Sprintf("%d (%s)", code, api.CodeName(code)) }

// portTaken reports whether a node of the cluster logged that its address
// was in use.
func (c *cluster) portTaken() bool {
	for i := range c.net.Nodes {
		if b, err := os.ReadFile(c.net.LogFile(i)); err == nil && bytes.Contains(b, []byte("address already in use")) {
			return true
		}
	}
	return false
}
