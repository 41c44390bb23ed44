package e2e

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/client"
	"github.com/relchain/relchain/netctl"
	"github.com/relchain/relchain/txn"
)

// The server variant (relchain node --abci socket) and the builtin one
// reach the same state: a network of two of each replicates writes sent
// through all four nodes, and every node serves the same rows and AppHash.
func TestSocketAndBuiltinNodesAgree(t *testing.T) {
	socket := []string{"--abci", "socket"}
	c := mustStartCluster(t, clusterOptions{nodeArgs: [][]string{nil, nil, socket, socket}})
	for i := 2; i < validators; i++ {
		b, err := os.ReadFile(c.net.LogFile(i))
		if err != nil || !strings.Contains(string(b), "over ABCI's socket protocol") {
			t.Fatalf("%s does not say it runs the socket variant (log read: %v)", c.nodes[i].Name, err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	replicateThrough(ctx, t, c, 200)
}

// replicateThrough creates table kv and writes n rows in commit mode, one
// client per node, then requires every node to hold exactly those rows at
// one height with one AppHash, and a read with min_height through each
// node to see its own write.
func replicateThrough(ctx context.Context, t *testing.T, c *cluster, n int) {
	t.Helper()
	c.mustExec(ctx, 0, stmt(`CREATE TABLE kv (k INTEGER PRIMARY KEY, node INTEGER NOT NULL, v TEXT NOT NULL)`))
	insert := fmt.Sprintf("INSERT INTO kv (k, node, v) VALUES (%s, %s, %s)", c.ph(1), c.ph(2), c.ph(3))
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for node := range c.nodes {
		cl := c.client(node, newKey(t))
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := node; k < n; k += len(c.nodes) {
				res, err := cl.Exec(ctx, client.ModeCommit, stmt(insert, txn.Int(int64(k)), txn.Int(int64(node)), txn.Text(fmt.Sprintf("v%d", k))))
				if err == nil {
					err = res.Err()
				}
				if err == nil {
					// Read-your-write through the same node.
					var q *api.QueryResponse
					q, err = cl.Query(ctx, res.Height, fmt.Sprintf("SELECT v FROM kv WHERE k = %d", k))
					if err == nil && (len(q.Rows) != 1 || q.Rows[0][0] != fmt.Sprintf("v%d", k)) {
						err = fmt.Errorf("read after write of k=%d at height %d: %v", k, res.Height, q.Rows)
					}
				}
				if err != nil {
					errs <- fmt.Errorf("k=%d via %s: %w", k, c.nodes[node].Name, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	const q = "SELECT k, node, v FROM kv ORDER BY k"
	h, rows := c.consistentRead(ctx, q)
	c.requireSameRows(h, q, rows[0])
	if got := len(rows[0][0]); got != n {
		t.Fatalf("at height %d the nodes hold %d rows, want %d", h, got, n)
	}
	for k, r := range rows[0][0] {
		if asInt(t, r[0]) != int64(k) || r[2] != fmt.Sprintf("v%d", k) {
			t.Fatalf("row %d is %v", k, r)
		}
	}
	t.Logf("%d writes through %d nodes; all agree at height %d", n, len(c.nodes), h)
}

// A stock CometBFT binary of the pinned version drives relchain's
// application over the socket protocol: each of 4 validators is a
// `relchain abci-server` process plus a `cometbft node --proxy_app`
// process on the same home.
func TestStockCometBFTDrivesTheABCIServer(t *testing.T) {
	runAlone(t)
	cometbft := filepath.Join(t.TempDir(), "cometbft")
	build := exec.Command("go", "build", "-o", cometbft, "github.com/cometbft/cometbft/cmd/cometbft")
	if b, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build the stock cometbft binary: %v\n%s", err, b)
	}
	if out, err := exec.Command(cometbft, "version").Output(); err != nil {
		t.Fatalf("cometbft version: %v", err)
	} else {
		t.Logf("stock cometbft %s", strings.TrimSpace(string(out)))
	}

	dir := filepath.Join(t.TempDir(), "net")
	opts := netctl.Options{Validators: validators, Dir: dir, Backend: "sqlite"}
	opts.Tuning.FastGossip = true
	nodes, err := netctl.Generate(opts)
	if err != nil {
		t.Fatalf("generate network: %v", err)
	}
	var procs []*exec.Cmd
	var logs []string
	start := func(name, log string, bin string, args ...string) {
		f, err := os.Create(log)
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(bin, args...)
		cmd.Stdout, cmd.Stderr = f, f
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
		if err := cmd.Start(); err != nil {
			t.Fatalf("start %s: %v", name, err)
		}
		procs = append(procs, cmd)
		logs = append(logs, log)
	}
	t.Cleanup(func() {
		for _, p := range procs {
			_ = p.Process.Signal(syscall.SIGTERM)
		}
		for _, p := range procs {
			done := make(chan struct{})
			go func() { _ = p.Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(20 * time.Second):
				_ = p.Process.Kill()
			}
		}
		if t.Failed() {
			for _, l := range logs {
				b, _ := os.ReadFile(l)
				t.Logf("--- %s (tail)\n%s", l, tail(b, 3000))
			}
		}
	})
	for _, nd := range nodes {
		addr := "tcp://" + freeLoopbackAddr(t)
		start(nd.Name+" abci-server", filepath.Join(nd.Home, "abci-server.log"), relchainBin, "abci-server", "--home", nd.Home, "--addr", addr)
		waitListening(t, strings.TrimPrefix(addr, "tcp://"))
		start(nd.Name+" cometbft", filepath.Join(nd.Home, "cometbft.log"), cometbft, "node", "--home", nd.Home, "--proxy_app", addr)
	}
	c := &cluster{t: t, backend: "sqlite", nodes: nodes, net: netctl.NewNetwork(relchainBin, nodes), admin: newKey(t), dir: dir}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	for i := range nodes {
		cl := c.client(i, nil)
		err := waitFor(ctx, nodes[i].Name+" at height 1", func() bool {
			info, err := cl.RPC().ABCIInfo(ctx)
			return err == nil && info.Response.LastBlockHeight >= 1
		})
		if err != nil {
			t.Fatalf("network of stock cometbft nodes did not become ready: %v", err)
		}
	}
	st, err := c.client(0, nil).Status(ctx)
	if err != nil {
		t.Fatalf("status: %v", err)
	}
	if st.Backend != "sqlite" {
		t.Fatalf("status says backend %q", st.Backend)
	}
	c.chainID = st.ChainID
	replicateThrough(ctx, t, c, 100)
}

// freeLoopbackAddr returns a loopback TCP address that was free a moment ago.
func freeLoopbackAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// waitListening waits until something accepts connections on addr.
func waitListening(t *testing.T, addr string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			_ = c.Close()
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("nothing listens on %s after a minute", addr)
}
