package e2e

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/client"
	"github.com/relchain/relchain/netctl"
	"github.com/relchain/relchain/protocol"
	"github.com/relchain/relchain/txn"
)

// TestProtocolUpgrade is an on-chain protocol upgrade of a running network
// under load (docs/upgrades.md): four validators run the previous release
// (a build that supports protocol version 1 only), an admin cancels an
// upgrade scheduled by mistake, then schedules
// version 2 at height H, every old binary applies block H-1 and stops at H
// naming the release it needs (and refuses to start again; status --net
// shows it STOPPED), each node restarted with the current build continues
// from H (and is no longer shown STOPPED). Every acknowledged
// write is there once, the nodes agree on every AppHash across H, and the
// headers carry app version 1 before H and 2 from H on.
func TestProtocolUpgrade(t *testing.T) {
	onBackends(t, notOn{"mysql": "the upgrade path is database-neutral (the app's system state); SQLite and PostgreSQL cover the file and the server database"},
		testProtocolUpgrade)
}

func testProtocolUpgrade(t *testing.T, backend string) {
	runAlone(t) // before building the old release
	oldBin := oldReleaseBinary(t)
	c := mustStartCluster(t, clusterOptions{backend: backend, permissioned: true, consensusTimeouts: true, protocolVersion: protocol.V1,
		prepare: func(c *cluster) { c.net.Bin = oldBin }})
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	keyFile := c.writeAdminKey()
	c.mustExec(ctx, 0, stmt("CREATE TABLE log (writer INTEGER NOT NULL, seq INTEGER NOT NULL)"))
	l := startGrantedLoad(ctx, c, []int{0, 1, 2, 3})
	defer l.stopAndWait()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%v (load: %s)", err, l.summary())
		}
	}
	must(l.waitAcked(ctx, 40))

	// An upgrade scheduled by mistake is cancelled: the chain keeps no
	// upgrade and its version.
	admin := []string{"--node", c.nodes[0].RPC, "--key", keyFile, "--home", t.TempDir()}
	wrong := fmt.Sprint(c.maxHeight(ctx, 0, 1, 2, 3) + 1000)
	cliOut(t, ctx, oldBin, append([]string{"admin", "upgrade", "--version", "2", "--height", wrong}, admin...)...)
	out := cliOut(t, ctx, oldBin, append([]string{"admin", "upgrade", "--version", "2", "--height", wrong, "--cancel"}, admin...)...)
	if !strings.Contains(out, "cancelled at height") {
		t.Fatalf("admin upgrade --cancel:\n%s", out)
	}
	if st := cliOut(t, ctx, oldBin, "status", "--node", c.nodes[1].RPC); !strings.Contains(st, "upgrade:         none scheduled") {
		t.Fatalf("relchain status after the cancel still shows an upgrade:\n%s", st)
	}

	// The admin schedules the upgrade with the release the network runs.
	h := c.maxHeight(ctx, 0, 1, 2, 3) + 25
	out = cliOut(t, ctx, oldBin, append([]string{"admin", "upgrade", "--version", "2", "--height", fmt.Sprint(h)}, admin...)...)
	t.Logf("%s", strings.TrimSpace(out))
	if at := committedAt(t, out); at+5 > h {
		t.Fatalf("the upgrade committed at height %d, too late for height %d: raise the margin", at, h)
	}
	if !strings.Contains(out, "supports protocol versions [1] only") {
		t.Fatalf("admin upgrade does not warn that the node's binary cannot run version 2:\n%s", out)
	}
	st := cliOut(t, ctx, oldBin, "status", "--node", c.nodes[1].RPC)
	if want := fmt.Sprintf("upgrade:         version 2 at height %d", h); !strings.Contains(st, want) {
		t.Fatalf("relchain status does not show the scheduled upgrade %q:\n%s", want, st)
	}

	// Every old binary stops at H with the message, but one that had not
	// received block H when the others decided it and stopped: its peers
	// are gone, so it stays below H, running (CI saw node2 stay at H-1,
	// 90 ms behind); the test stops it, and the current build brings it
	// on below.
	msg := regexp.MustCompile(fmt.Sprintf(`this chain runs protocol version 2 from height %d; this binary \(relchain [^,]+, protocol versions 1\) cannot apply it: install a relchain that supports version 2`, h))
	behind := stopOldBinaries(t, ctx, c, h, msg, l)
	r := slices.IndexFunc(c.nodes, func(n netctl.NodeInfo) bool { return !behind[n.Name] })
	if b, err := os.ReadFile(c.net.LogFile(r)); err == nil {
		lines := regexp.MustCompile(`[^\n]*`+msg.String()+`[^\n]*`).FindAll(b, -1)
		t.Logf("%s stopped with: %s", c.nodes[r].Name, lines[len(lines)-1])
	}
	t.Logf("all old binaries stopped at height %d (load: %s)", h, l.summary())
	acked := l.ackedCount()

	// Started again, the old binary refuses at once, with the message.
	before := countIn(t, c.net.LogFile(r), msg)
	must(c.net.Start(r))
	select {
	case <-c.net.Exited(r):
	case <-ctx.Done():
		t.Fatal("the old binary started on a chain of version 2")
	}
	if countIn(t, c.net.LogFile(r), msg) <= before {
		t.Fatalf("the restarted old binary stopped (exit %v) without the message", c.net.ExitError(r))
	}
	requireNetStatus(t, c, regexp.MustCompile(fmt.Sprintf(`STOPPED after height %d \(upgrade\): this chain runs protocol version 2 from height %d; .*install a relchain that supports version 2`, h-1, h)), behind)

	// The current build, node by node: the network continues from H.
	c.net.Bin = relchainBin
	for i := range c.nodes {
		must(c.net.Start(i))
	}
	for i := range c.nodes {
		must(c.net.WaitHeight(ctx, i, h+5))
	}
	must(l.waitAcked(ctx, acked+40))
	l.stopAndWait()
	if len(l.unexpected) > 0 {
		t.Fatalf("writes failed with a code: %v", l.unexpected)
	}

	top, rows := c.consistentRead(ctx, "SELECT writer, seq FROM log ORDER BY writer, seq")
	c.requireSameRows(top, "log", rows[0])
	l.requireAllOnce(t, rows[0][0])
	requireHeadersAgree(t, ctx, c, h-3, h+4, h)
	if st := cliOut(t, ctx, relchainBin, "status", "--node", c.nodes[2].RPC); !strings.Contains(st, fmt.Sprintf("protocol:        version 2 (since height %d)", h)) {
		t.Fatalf("relchain status after the upgrade:\n%s", st)
	}
	requireNetStatus(t, c, nil, nil)
	t.Logf("upgraded at height %d; all nodes identical at height %d (load: %s)", h, top, l.summary())
}

// requireNetStatus checks every node's line in `relchain status --net`:
// STOPPED as stopped matches, or not STOPPED if stopped is nil; the nodes
// named in down are down without a STOPPED record (stopped by the test).
// The exit status does not matter: with every node down, status fails
// after listing the network.
func requireNetStatus(t *testing.T, c *cluster, stopped *regexp.Regexp, down map[string]bool) {
	t.Helper()
	all := relchainCLI(t, nil, "", "status", "--net", c.dir).stdout
	_, out, ok := strings.Cut(all, "network:\n")
	if !ok {
		t.Fatalf("relchain status --net lists no network:\n%s", all)
	}
	for _, n := range c.nodes {
		line := regexp.MustCompile(`(?m)^  ` + regexp.QuoteMeta(n.Name) + ` .*$`).FindString(out)
		if line == "" {
			t.Fatalf("relchain status --net lists no %s:\n%s", n.Name, out)
		}
		if down[n.Name] {
			if strings.Contains(line, "STOPPED") || !strings.Contains(line, "down") {
				t.Fatalf("relchain status --net shows %s as %q, want down (stopped by the test)", n.Name, line)
			}
			continue
		}
		if stopped == nil && strings.Contains(line, "STOPPED") || stopped != nil && !stopped.MatchString(line) {
			t.Fatalf("relchain status --net shows %s as %q, want STOPPED matching %v", n.Name, line, stopped)
		}
	}
}

// oldReleaseBinary builds relchain as the previous release: protocol
// version 1 only (docs/upgrades.md).
func oldReleaseBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(binDir, "relchain-protocol1")
	if err := buildBinary(bin, "-ldflags", "-X github.com/relchain/relchain/protocol.maxVersionOverride=1"); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "version").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "protocol: versions [1]\n") {
		t.Fatalf("the old build does not report protocol versions [1]: %v\n%s", err, out)
	}
	return bin
}

// cliOut runs the relchain binary bin and returns its combined output,
// failing the test if it fails.
func cliOut(t *testing.T, ctx context.Context, bin string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("relchain %s: %v\n%s", strings.Join(args, " "), err, out.String())
	}
	return out.String()
}

// countIn is how many times re matches in the file at path.
func countIn(t *testing.T, path string, re *regexp.Regexp) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return len(re.FindAll(b, -1))
}

// requireHeadersAgree checks blocks from..to on every node: the same
// block hash and AppHash everywhere, app version 1 before h and 2 from h.
func requireHeadersAgree(t *testing.T, ctx context.Context, c *cluster, from, to, h int64) {
	t.Helper()
	for height := from; height <= to; height++ {
		var first string
		for i := range c.nodes {
			hd, err := c.client(i, nil).RPC().Header(ctx, &height)
			if err != nil {
				t.Fatalf("header %d on %s: %v", height, c.nodes[i].Name, err)
			}
			want := uint64(1)
			if height >= h {
				want = 2
			}
			if hd.Header.Version.App != want {
				t.Fatalf("header %d on %s carries app version %d, want %d", height, c.nodes[i].Name, hd.Header.Version.App, want)
			}
			got := fmt.Sprintf("block %X app hash %X", hd.Header.Hash(), hd.Header.AppHash)
			if i == 0 {
				first = got
			} else if got != first {
				t.Fatalf("height %d: %s has %s, %s has %s", height, c.nodes[0].Name, first, c.nodes[i].Name, got)
			}
		}
	}
}

// grantedLoad writes (writer, seq) rows continuously, one writer per node,
// each with a key of its own that the admin granted the table: a
// permissioned network's load.
type grantedLoad struct {
	c          *cluster
	stop       chan struct{}
	wg         sync.WaitGroup
	mu         sync.Mutex
	acked      map[[2]int64]bool
	unexpected []string
	errs       int
	lastErr    string
}

func startGrantedLoad(ctx context.Context, c *cluster, nodes []int) *grantedLoad {
	l := &grantedLoad{c: c, stop: make(chan struct{}), acked: map[[2]int64]bool{}}
	keys := make([]ed25519.PrivateKey, len(nodes))
	var grants []txn.Statement
	for w := range nodes {
		keys[w] = newKey(c.t)
		grants = append(grants, stmt(api.SystemGrant, txn.Bytes(keys[w].Public().(ed25519.PublicKey)), txn.Text("log")))
	}
	c.mustExecEverywhere(ctx, 0, grants...)
	insert := fmt.Sprintf("INSERT INTO log (writer, seq) VALUES (%s, %s)", c.ph(1), c.ph(2))
	for w, node := range nodes {
		cl := c.client(node, keys[w])
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			for seq := int64(1); ; seq++ {
				select {
				case <-l.stop:
					return
				default:
				}
				wctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				res, err := cl.Exec(wctx, client.ModeCommit, stmt(insert, txn.Int(int64(w)), txn.Int(seq)))
				cancel()
				l.record(w, seq, res, err)
				if err != nil {
					// The node is down (stopped at the upgrade): back off.
					select {
					case <-l.stop:
						return
					case <-time.After(200 * time.Millisecond):
					}
				}
			}
		}()
	}
	return l
}

func (l *grantedLoad) record(w int, seq int64, res *client.Result, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case err != nil:
		l.errs++
		l.lastErr = err.Error()
	case !res.OK():
		l.unexpected = append(l.unexpected, fmt.Sprintf("writer %d seq %d: %v", w, seq, res.Err()))
	default:
		l.acked[[2]int64{int64(w), seq}] = true
	}
}

func (l *grantedLoad) ackedCount() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.acked)
}

func (l *grantedLoad) waitAcked(ctx context.Context, n int) error {
	return waitFor(ctx, fmt.Sprintf("%d acknowledged writes", n), func() bool { return l.ackedCount() >= n })
}

func (l *grantedLoad) stopAndWait() {
	select {
	case <-l.stop:
	default:
		close(l.stop)
	}
	l.wg.Wait()
}

func (l *grantedLoad) summary() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return fmt.Sprintf("%d acknowledged, %d failed with a code, %d RPC errors (last: %s)", len(l.acked), len(l.unexpected), l.errs, l.lastErr)
}

// requireAllOnce checks the committed rows: every acknowledged write is
// there, and no write is there twice.
func (l *grantedLoad) requireAllOnce(t *testing.T, rows [][]any) {
	t.Helper()
	seen := map[[2]int64]bool{}
	for _, r := range rows {
		k := [2]int64{asInt(t, r[0]), asInt(t, r[1])}
		if seen[k] {
			t.Fatalf("write %v is there twice", k)
		}
		seen[k] = true
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for k := range l.acked {
		if !seen[k] {
			t.Fatalf("acknowledged write %v is lost (%d rows, %d acknowledged)", k, len(rows), len(l.acked))
		}
	}
}

// stopOldBinaries waits until every node of c, all running a binary
// without protocol version 2, has stopped at height h saying msg, and
// returns the nodes (by name) that had not received block h when the
// others stopped: still running below h a minute after the first stop,
// they are stopped here. At least one node must have stopped by itself.
func stopOldBinaries(t *testing.T, ctx context.Context, c *cluster, h int64, msg *regexp.Regexp, l *grantedLoad) map[string]bool {
	t.Helper()
	exited := make(chan int, len(c.nodes))
	for i := range c.nodes {
		go func() {
			select {
			case <-c.net.Exited(i):
				exited <- i
			case <-ctx.Done():
			}
		}()
	}
	select {
	case <-exited:
	case <-ctx.Done():
		t.Fatalf("no old binary stopped at height %d (load: %s)", h, l.summary())
	}
	behind := map[string]bool{}
	deadline := time.Now().Add(time.Minute)
	for i, n := range c.nodes {
		waitExitOrStuck(ctx, c, i, deadline)
		select {
		case <-c.net.Exited(i):
			if countIn(t, c.net.LogFile(i), msg) == 0 || c.net.ExitError(i) == nil {
				t.Fatalf("%s stopped (exit %v) without saying which version it needs", n.Name, c.net.ExitError(i))
			}
			continue
		default:
		}
		if at := c.maxHeight(ctx, i); at >= h || at == 0 {
			t.Fatalf("%s (old binary) still runs at height %d: it should stop at height %d (load: %s)", n.Name, at, h, l.summary())
		}
		t.Logf("%s had not received block %d when the others stopped: the test stops it", n.Name, h)
		if err := c.net.Stop(i); err != nil {
			t.Fatal(err)
		}
		behind[n.Name] = true
	}
	if len(behind) == len(c.nodes) {
		t.Fatalf("every old binary was stopped by the test")
	}
	return behind
}

// waitExitOrStuck returns when node i has exited, when its height has not
// moved for oldBinaryStuck (the nodes that had block h stopped, so none
// serves it any more), or at deadline.
func waitExitOrStuck(ctx context.Context, c *cluster, i int, deadline time.Time) {
	const oldBinaryStuck = 8 * time.Second
	last, since := c.maxHeight(ctx, i), time.Now()
	for time.Now().Before(deadline) && time.Since(since) < oldBinaryStuck {
		select {
		case <-c.net.Exited(i):
			return
		case <-time.After(250 * time.Millisecond):
		}
		if at := c.maxHeight(ctx, i); at != last {
			last, since = at, time.Now()
		}
	}
}
