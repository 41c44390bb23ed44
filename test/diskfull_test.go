package e2e

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/relchain/relchain/node"
)

// Which validator's disk fills up, and where: each node has only one
// kind of writer on its small disk, so that the test knows which fails.
const (
	fullDataNode = 3 // CometBFT's data directory (stores, WAL, sign state; checkpoints); its SQLite database is elsewhere
	fullDBNode   = 2 // its SQLite database only
	tmpfsSize    = 64 << 20
)

// TestDiskFullStopsOnlyThatNode fills, under load, first the disk of one
// validator's CometBFT data directory, then that of another's SQLite
// database. Each stops at once,
// not after the grace a stopped consensus gives its peers, exits non-zero
// and says the disk is full, where, and what to do; the other three keep
// committing. With space freed, each restarts, catches up to the others'
// AppHash and holds every acknowledged write exactly once. It needs root
// (a size-limited tmpfs per disk) and is skipped otherwise.
func TestDiskFullStopsOnlyThatNode(t *testing.T) {
	const phase = 20 // acknowledged writes per phase of the load
	c := mustStartCluster(t, clusterOptions{prometheus: true, consensusTimeouts: true, prepare: func(c *cluster) {
		mountSmallDisk(c, filepath.Join(c.nodes[fullDataNode].Home, "data"))
		c.setSQLitePath(fullDataNode, filepath.Join(c.nodes[fullDataNode].Home, "appdb", "relchain.db"))
		dbDir := filepath.Join(c.nodes[fullDBNode].Home, "dbdisk")
		mountSmallDisk(c, dbDir)
		c.setSQLitePath(fullDBNode, filepath.Join(dbDir, "relchain.db"))
	}})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	c.mustExec(ctx, 0, stmt("CREATE TABLE log (writer INTEGER NOT NULL, seq INTEGER NOT NULL)"))
	c.mustExec(ctx, 0, stmt("CREATE TABLE counter (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)"))
	c.mustExec(ctx, 0, stmt("INSERT INTO counter (id, n) VALUES (1, 0)"))

	l := startLoad(t, c, []int{0, 1, fullDBNode, fullDataNode})
	must := func(err error) {
		t.Helper()
		if err != nil {
			l.stopAndWait()
			t.Fatalf("%v (load: %s)", err, l.summary())
		}
	}
	must(l.waitAcked(ctx, phase))
	home := c.nodes[fullDataNode].Home
	c.fillDiskAndRejoin(ctx, l, fullDataNode, filepath.Join(home, "data"), "consensus at "+filepath.Join(home, "data"), phase)
	dbFile := filepath.Join(c.nodes[fullDBNode].Home, "dbdisk", "relchain.db")
	c.fillDiskAndRejoin(ctx, l, fullDBNode, filepath.Dir(dbFile), "database at "+dbFile, phase)
	l.stopAndWait()
	if len(l.unexpected) > 0 {
		t.Fatalf("valid writes failed with a result code: %v", l.unexpected[:min(5, len(l.unexpected))])
	}
	c.requireAckedOnceEverywhere(ctx, l)
}

// fillDiskAndRejoin fills the disk mounted at dir under node i while the
// load runs, requires the node to stop with the disk-full report naming
// where (and /readyz to have said not ready, if it answered in between),
// the others to keep committing, and, once the filler is removed, the
// restarted node to catch up.
func (c *cluster) fillDiskAndRejoin(ctx context.Context, l *load, i int, dir, where string, phase int) {
	t := c.t
	t.Helper()
	name := c.nodes[i].Name
	ready := c.watchReadiness(i)
	filler := fillDisk(t, dir)
	full := time.Now()
	select {
	case <-c.net.Exited(i):
	case <-time.After(time.Minute):
		l.stopAndWait()
		t.Fatalf("%s still runs a minute after its disk filled up (load: %s)", name, l.summary())
	}
	t.Logf("%s exited %s after its disk filled up; /readyz said: %s", name, time.Since(full).Round(10*time.Millisecond), ready())
	if c.net.ExitError(i) == nil {
		t.Errorf("%s exited with status 0 on a full disk, want a failure status", name)
	}
	logText, _ := os.ReadFile(c.net.LogFile(i))
	for _, want := range []string{"error: disk full: no space left on device for this node's " + where, "free space on that file system and start the node again"} {
		if !strings.Contains(string(logText), want) {
			t.Errorf("%s's log does not say %q; it ends:\n%s", name, want, tail(logText, 30))
		}
	}
	if j := strings.Index(string(logText), "error: disk full"); j >= 0 {
		t.Logf("%s: %s", name, strings.SplitN(string(logText[j:]), "\n", 2)[0])
	}
	// The stop must not wait for the peers to show a divergence.
	for _, unwanted := range []string{"asking the peers whether this node's state diverged", node.ErrConsensusStopped.Error() + " at height"} {
		if strings.Contains(string(logText), unwanted) {
			t.Errorf("%s's log says %q: it did not know its disk was full", name, unwanted)
		}
	}
	if got := ready(); got != "" && !strings.Contains(got, "503") {
		t.Errorf("%s's /readyz answered %s after its disk filled up, want 503", name, got)
	}
	if err := l.waitAcked(ctx, l.ackedCount()+phase); err != nil {
		l.stopAndWait()
		t.Fatalf("the other validators did not go on without %s: %v (load: %s)", name, err, l.summary())
	}
	if err := os.Remove(filler); err != nil {
		t.Fatalf("free space on %s: %v", dir, err)
	}
	if err := c.net.Start(i); err != nil {
		t.Fatalf("restart %s: %v", name, err)
	}
	others := make([]int, 0, len(c.nodes)-1)
	for j := range c.nodes {
		if j != i {
			others = append(others, j)
		}
	}
	if err := c.net.WaitHeight(ctx, i, c.maxHeight(ctx, others...)); err != nil {
		l.stopAndWait()
		t.Fatalf("%s did not catch up after space was freed: %v (load: %s)", name, err, l.summary())
	}
	t.Logf("%s is back and caught up", name)
}

// watchReadiness polls node i's /readyz until it stops answering and
// returns what it saw last before that: "" if never anything but ready,
// else the status and body of the first not-ready answer.
func (c *cluster) watchReadiness(i int) func() string {
	seen := make(chan string, 1)
	seen <- ""
	stop := c.net.Exited(i)
	go func() {
		hc := &http.Client{Timeout: time.Second}
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
			resp, err := hc.Get(c.nodes[i].Metrics + "/readyz")
			if err != nil {
				continue
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				s := <-seen
				if s == "" {
					s = fmt.Sprintf("%d %s", resp.StatusCode, strings.TrimSpace(string(body)))
				}
				seen <- s
			}
		}
	}()
	return func() string { s := <-seen; seen <- s; return s }
}

// mountSmallDisk mounts a size-limited tmpfs at dir, keeping what dir
// held, and unmounts it when the test ends (the nodes stopped first). The
// test is skipped where that is not possible (not root, no tmpfs).
func mountSmallDisk(c *cluster, dir string) {
	t := c.t
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("filling a disk needs a size-limited tmpfs, which only root may mount (the CI runs as root)")
	}
	keep := dir + ".before-mount"
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(dir, keep); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", fmt.Sprintf("size=%d,mode=0755", tmpfsSize), "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs at %s: %v %s", dir, err, out)
	}
	t.Cleanup(func() {
		c.net.StopAll()
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("unmount %s: %v %s", dir, err, out)
		}
	})
	if out, err := exec.Command("cp", "-a", keep+"/.", dir+"/").CombinedOutput(); err != nil {
		t.Fatalf("copy %s onto its tmpfs: %v %s", keep, err, out)
	}
}

// fillDisk writes a file into dir until the file system has no space left
// and returns its path.
func fillDisk(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "filler")
	f, err := os.Create(path)
	if err != nil {
		t.Fatalf("create %s: %v", path, err)
	}
	defer f.Close()
	buf := make([]byte, 1<<20)
	for {
		if _, err := f.Write(buf); err != nil {
			if errors.Is(err, syscall.ENOSPC) {
				return path
			}
			t.Fatalf("fill %s: %v", dir, err)
		}
	}
}

// setSQLitePath points node i's SQLite database (relchain.toml backend.dsn)
// at path; the node must not have started yet.
func (c *cluster) setSQLitePath(i int, path string) {
	c.t.Helper()
	cc, rc, err := node.LoadConfig(c.nodes[i].Home)
	if err != nil {
		c.t.Fatal(err)
	}
	rc.Backend.DSN = path
	if err := node.SaveConfig(c.nodes[i].Home, cc, rc); err != nil {
		c.t.Fatal(err)
	}
}
