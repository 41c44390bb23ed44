package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/relchain/relchain/netctl"
)

// TestLocalnetCommand runs `relchain localnet` as a user would: it waits
// for the "ready" line, writes and reads through the CLI against two of
// the nodes listed in nodes.json, and stops the network with SIGTERM.
func TestLocalnetCommand(tt *testing.T) {
	runAlone(tt)
	t := recordFailures(tt)
	// --base-port 0 asks for free ports, the PostgreSQL gateways' too:
	// with the default 5433+i taken (a second localnet, a PostgreSQL
	// there), the network still starts.
	holdPorts(t, 5433, 5434, 5435, 5436)
	dir := filepath.Join(t.TempDir(), "localnet")
	// The CLI's home: localnet makes its default key the genesis admin, and
	// exec signs with the same key.
	home := t.TempDir()
	cmd := exec.Command(relchainBin, "localnet", "--validators", "4", "--home", dir, "--base-port", "0")
	cmd.Env = append(os.Environ(), "RELCHAIN_HOME="+home)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start relchain localnet: %v", err)
	}
	done := make(chan error, 1)
	var out lockedBuffer
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stdout)
		signalled := false
		for sc.Scan() {
			out.WriteString(sc.Text() + "\n")
			if !signalled && strings.Contains(sc.Text(), "ready") {
				close(ready)
				signalled = true
			}
		}
		_, _ = io.Copy(io.Discard, stdout)
		done <- cmd.Wait()
	}()
	exited := false
	t.Cleanup(func() {
		if !exited {
			_ = cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-done:
			case <-time.After(45 * time.Second):
				_ = cmd.Process.Kill()
				<-done
			}
		}
		killStrayNodes(t, dir)
		if t.Failed() {
			t.Logf("localnet stdout:\n%s\nstderr:\n%s", out.String(), stderr.String())
			for i := 0; i < 4; i++ {
				if b, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("node%d", i), "node.log")); err == nil {
					t.Logf("---- tail of node%d ----\n%s", i, tail(b, 30))
				}
			}
			t.Logf("the failures above, again:\n%s", t.failures())
		}
	})

	select {
	case <-ready:
	case err := <-done:
		exited = true
		t.Fatalf("relchain localnet exited before it was ready: %v", err)
	case <-time.After(3 * time.Minute):
		t.Fatal("relchain localnet printed no ready line within 3 minutes")
	}

	nodes, err := netctl.LoadNodes(dir)
	if err != nil {
		t.Fatalf("read nodes.json: %v", err)
	}
	if len(nodes) != 4 {
		t.Fatalf("nodes.json lists %d nodes, want 4", len(nodes))
	}
	for _, n := range nodes {
		if n.Name == "" || n.Home == "" || n.RPC == "" || n.Metrics == "" {
			t.Fatalf("nodes.json entry %+v lacks name, home, rpc or metrics", n)
		}
		if !strings.Contains(out.String(), n.Name+" rpc="+n.RPC+" metrics="+n.Metrics) {
			t.Errorf("localnet did not print %s's metrics address %s", n.Name, n.Metrics)
		}
		if code, body := httpGet(t, n.Metrics+"/readyz"); code != 200 {
			t.Errorf("%s /readyz: %d %s", n.Name, code, body)
		}
		if _, err := os.Stat(n.Home); err != nil {
			t.Fatalf("home of %s: %v", n.Name, err)
		}
	}

	// Without --sql-dialect a new localnet on SQLite speaks PostgreSQL's
	// SQL (issue 35): its genesis names the dialect and the translator's
	// version.
	for _, n := range nodes {
		if sql, version := genesisSQLDialect(t, n.Home); sql != "postgres" || version <= 0 {
			t.Errorf("%s's genesis fixes sql_dialect %q version %d, want postgres and the translator's version", n.Name, sql, version)
		}
	}

	try := func(args ...string) (string, string, error) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		c := exec.CommandContext(ctx, relchainBin, args...)
		c.Env = append(os.Environ(), "RELCHAIN_HOME="+home)
		var so, se bytes.Buffer
		c.Stdout, c.Stderr = &so, &se
		err := c.Run()
		return so.String(), se.String(), err
	}
	run := func(args ...string) string {
		t.Helper()
		so, se, err := try(args...)
		if err != nil {
			t.Fatalf("relchain %s: %v\nstdout: %s\nstderr: %s", strings.Join(args, " "), err, so, se)
		}
		return so
	}
	// A new localnet speaks PostgreSQL's SQL (issue 35): $n placeholders.
	run("exec", "--node", nodes[0].RPC, "CREATE TABLE greeting (id BIGINT PRIMARY KEY, msg TEXT NOT NULL)")
	run("exec", "--node", nodes[1].RPC, "INSERT INTO greeting (id, msg) VALUES ($1, $2)", "1", "hello")
	committed := run("exec", "--node", nodes[0].RPC, "--output", "json", "INSERT INTO greeting (id, msg) VALUES ($1, $2)", "2", "text:42")
	var res struct {
		Code   uint32 `json:"code"`
		Height int64  `json:"height"`
	}
	if err := json.Unmarshal([]byte(committed), &res); err != nil || res.Code != 0 || res.Height <= 0 {
		t.Fatalf("exec --output json printed %q (decode error %v), want code 0 and a height", committed, err)
	}

	for _, n := range []netctl.NodeInfo{nodes[0], nodes[3]} {
		raw := run("query", "--node", n.RPC, "--output", "json", "--min-height", strconv.FormatInt(res.Height, 10),
			"SELECT id, msg FROM greeting ORDER BY id")
		var q map[string]json.RawMessage
		if err := json.Unmarshal([]byte(raw), &q); err != nil {
			t.Fatalf("query on %s printed %q: %v", n.Name, raw, err)
		}
		for _, field := range []string{"height", "columns", "rows"} {
			if _, ok := q[field]; !ok {
				t.Fatalf("query JSON from %s has no %q: %s", n.Name, field, raw)
			}
		}
		var got struct {
			Height  int64    `json:"height"`
			Columns []string `json:"columns"`
			Rows    [][]any  `json:"rows"`
		}
		if err := json.Unmarshal([]byte(raw), &got); err != nil {
			t.Fatalf("query JSON from %s: %v", n.Name, err)
		}
		if got.Height < res.Height {
			t.Errorf("%s answered at height %d, below the requested min height %d", n.Name, got.Height, res.Height)
		}
		if want := []string{"id", "msg"}; fmt.Sprint(got.Columns) != fmt.Sprint(want) {
			t.Errorf("%s: columns %v, want %v", n.Name, got.Columns, want)
		}
		if want := "[[1 hello] [2 42]]"; fmt.Sprint(got.Rows) != want {
			t.Errorf("%s: rows %v, want %s", n.Name, got.Rows, want)
		}
	}

	// Permissions: another key may write nothing until the admin (the
	// default key) grants it a table.
	run("keys", "add", "bob")
	bobKey := filepath.Join(home, "keys", "bob.json")
	insertAsBob := []string{"exec", "--node", nodes[2].RPC, "--key", bobKey, "INSERT INTO greeting (id, msg) VALUES (3, 'from bob')"}
	if so, se, err := try(insertAsBob...); err == nil || !strings.Contains(so+se, "unauthorized") {
		t.Fatalf("bob's insert before any grant: err %v, output %q %q; want an unauthorized failure", err, so, se)
	}
	// Through the node bob then writes to: CheckTx judges against that
	// node's committed grants.
	run("admin", "grant", "--node", nodes[2].RPC, "bob", "greeting")
	run(insertAsBob...)
	if so, se, err := try("exec", "--node", nodes[2].RPC, "--key", bobKey, "DROP TABLE greeting"); err == nil || !strings.Contains(so+se, "only an admin") {
		t.Fatalf("bob's DROP TABLE: err %v, output %q %q; want refused (only an admin)", err, so, se)
	}
	if shown := run("admin", "show", "--node", nodes[2].RPC, "bob"); !strings.Contains(shown, "greeting") {
		t.Errorf("admin show bob = %q, want the grant on greeting", shown)
	}
	run("admin", "revoke", "--node", nodes[0].RPC, "bob", "greeting")
	insertAsBob[len(insertAsBob)-1] = "INSERT INTO greeting (id, msg) VALUES (4, 'from bob again')"
	if so, se, err := try(insertAsBob...); err == nil || !strings.Contains(so+se, "unauthorized") {
		t.Fatalf("bob's insert after the revoke: err %v, output %q %q; want an unauthorized failure", err, so, se)
	}

	for _, n := range nodes {
		if _, ok := nodePID(n.Home); !ok {
			t.Fatalf("found no process of %s (relchain node --home %s)", n.Name, n.Home)
		}
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatalf("SIGTERM: %v", err)
	}
	select {
	case err := <-done:
		exited = true
		if err != nil {
			t.Fatalf("relchain localnet exited with %v after SIGTERM, want status 0\nstderr: %s", err, stderr.String())
		}
	case <-time.After(60 * time.Second):
		t.Fatal("relchain localnet did not exit within 60 s of SIGTERM")
	}
	if !strings.Contains(out.String(), "stopping") {
		t.Errorf("localnet did not say it was stopping; stdout:\n%s", out.String())
	}
	// Its nodes are gone too.
	for _, n := range nodes {
		if pid, ok := nodePID(n.Home); ok {
			t.Errorf("%s (pid %d) still runs after localnet exited", n.Name, pid)
		}
	}
	// A normal session leaves no error line in any node's log.
	for _, n := range nodes {
		checkLogWithoutErrors(t, n.Name, filepath.Join(n.Home, "node.log"), false)
	}
}

// genesisSQLDialect is the SQL dialect and translator version the genesis
// of the node at home fixes (app_state sql_dialect, sql_dialect_version).
func genesisSQLDialect(t testing.TB, home string) (string, int) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(home, "config", "genesis.json"))
	if err != nil {
		t.Fatalf("read genesis: %v", err)
	}
	var g struct {
		AppState struct {
			SQLDialect        string `json:"sql_dialect"`
			SQLDialectVersion int    `json:"sql_dialect_version"`
		} `json:"app_state"`
	}
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatalf("%s/config/genesis.json: %v", home, err)
	}
	return g.AppState.SQLDialect, g.AppState.SQLDialectVersion
}

// failureRecorder is a *testing.T that keeps its failure messages, for a
// test whose cleanup logs much (node logs) after a failure: the cleanup
// repeats them last, where an excerpt of a long output ends.
type failureRecorder struct {
	*testing.T
	mu   sync.Mutex
	msgs []string
}

func recordFailures(t *testing.T) *failureRecorder { return &failureRecorder{T: t} }

func (r *failureRecorder) note(msg string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.msgs = append(r.msgs, msg)
}

// failures is every message recorded, one per line.
func (r *failureRecorder) failures() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.msgs, "\n")
}

func (r *failureRecorder) Error(args ...any) {
	r.T.Helper()
	r.note(fmt.Sprint(args...))
	r.T.Error(args...)
}

func (r *failureRecorder) Errorf(format string, args ...any) {
	r.T.Helper()
	r.note(fmt.Sprintf(format, args...))
	r.T.Errorf(format, args...)
}

func (r *failureRecorder) Fatal(args ...any) {
	r.T.Helper()
	r.note(fmt.Sprint(args...))
	r.T.Fatal(args...)
}

func (r *failureRecorder) Fatalf(format string, args ...any) {
	r.T.Helper()
	r.note(fmt.Sprintf(format, args...))
	r.T.Fatalf(format, args...)
}

// holdPorts listens on those of the loopback ports that are free until
// the test ends.
func holdPorts(t testing.TB, ports ...int) {
	for _, p := range ports {
		l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p))
		if err != nil {
			continue // taken already, which serves as well
		}
		t.Cleanup(func() { l.Close() })
	}
}

// lockedBuffer is a bytes.Buffer safe for one writer and other readers.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) WriteString(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.b.WriteString(s)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// nodePID finds a running `relchain node --home HOME` process: the nodes
// localnet started are not our children, so this is how the test checks
// they stopped, and how it cleans up after a failure.
func nodePID(home string) (int, bool) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return 0, false
	}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		args := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
		if len(args) >= 4 && args[0] == relchainBin && args[1] == "node" && args[2] == "--home" && args[3] == home {
			if st, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); err == nil && isZombie(st) {
				continue
			}
			return pid, true
		}
	}
	return 0, false
}

func isZombie(stat []byte) bool {
	// pid (comm) state ...: the state follows the last ')'.
	i := bytes.LastIndexByte(stat, ')')
	return i >= 0 && i+2 < len(stat) && stat[i+2] == 'Z'
}

// killStrayNodes kills (by pid) node processes localnet left behind.
func killStrayNodes(t testing.TB, dir string) {
	nodes, err := netctl.LoadNodes(dir)
	if err != nil {
		return
	}
	for _, n := range nodes {
		if pid, ok := nodePID(n.Home); ok {
			t.Logf("killing %s (pid %d) left behind by localnet", n.Name, pid)
			if err := syscall.Kill(pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
				t.Logf("kill %d: %v", pid, err)
			}
		}
	}
}
