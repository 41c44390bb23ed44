package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/relchain/relchain/netctl"
	"github.com/relchain/relchain/node"
)

// A PostgreSQL node joins a network over several engines by state sync
// while only its SQLite validators offer snapshots (the PostgreSQL
// validators take no checkpoints): it reads the SQLite snapshot's
// canonical rows, checks them against the AppHash its light client
// trusts (protocol version 5's AppHash is the same on every engine),
// writes them into a new PostgreSQL database, which must reproduce that
// AppHash too, and follows the chain under load. Every acknowledged
// write is then on every node, the joiner's sequences included, and
// relchain verify passes on it. Then a backup of a SQLite validator is
// restored into a new PostgreSQL node home, which follows the chain.
func TestStateSyncAcrossEngines(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	c, l, must := mixedUnderLoad(ctx, t, 2, []int{0, 1}, []int{0, 2})
	info, err := netctl.AddNode(ctx, netctl.JoinOptions{Dir: c.dir, Name: "node4", Backend: "postgres",
		DSN: strings.ReplaceAll(c.pgDSN, "{node}", "node4"), StateSync: true})
	must(err)
	joiner := c.net.Add(info)
	c.nodes = c.net.Nodes
	must(c.net.Start(joiner))
	restored := c.waitRestored(ctx, t, joiner, l)
	if !strings.Contains(restored, "engine=sqlite") {
		t.Fatalf("node 4 restored a snapshot of another engine than SQLite: %s", restored)
	}
	t.Logf("node 4 (postgres): %s", restored)
	followsUnderLoad(ctx, t, c, l, must, joiner)
	testRestoreAcrossEngines(ctx, t, c, 2, "postgres")
}

// A SQLite node joins a network over several engines by state sync while
// only its PostgreSQL validators take checkpoints: they serve them, for
// nodes of other engines, as SQLite databases speaking PostgreSQL's SQL
// (snapshot format 2, exported through the canonical rows and verified),
// and the joiner restores one as a snapshot of its own engine, then
// follows the chain under load and holds every acknowledged write.
func TestStateSyncASQLiteNodeFromPostgreSQLValidators(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	c, l, must := mixedUnderLoad(ctx, t, 0, []int{2, 3}, []int{1, 3})
	c.sqliteJoinsFromAnExport(ctx, t, l, must, "a PostgreSQL validator")
	testRestoreAcrossEngines(ctx, t, c, 0, "sqlite")
}

// A SQLite node joins a network of PostgreSQL, MariaDB and SQLite
// validators by state sync while only the MariaDB validator takes
// checkpoints: it serves them, for nodes of other engines, as SQLite
// databases speaking PostgreSQL's SQL (its dump read back as PostgreSQL's
// SQL, exported and verified), and the joiner restores one and follows
// the chain under load. Then a SQLite validator's backup is restored into
// a new MariaDB node (MariaDB takes another engine's checkpoint through
// its translation, the AppHash checked), which follows the chain.
func TestStateSyncFromAndIntoMariaDB(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	c, l, must := mixedUnderLoadOn(ctx, t, []string{"postgres", "mysql", "sqlite", "sqlite"}, 1, []int{0, 2, 3}, []int{0, 2})
	c.sqliteJoinsFromAnExport(ctx, t, l, must, "the MariaDB validator")
	testRestoreAcrossEngines(ctx, t, c, 2, "mysql")
}

// sqliteJoinsFromAnExport adds a SQLite node4 by state sync, requires it
// to restore a server validator's export (snapshot format 2: from, the
// only validator taking checkpoints), and to follow the chain under load
// (followsUnderLoad).
func (c *cluster) sqliteJoinsFromAnExport(ctx context.Context, t *testing.T, l *load, must func(error), from string) {
	t.Helper()
	info, err := netctl.AddNode(ctx, netctl.JoinOptions{Dir: c.dir, Name: "node4", Backend: "sqlite", StateSync: true})
	must(err)
	joiner := c.net.Add(info)
	c.nodes = c.net.Nodes
	must(c.net.Start(joiner))
	restored := c.waitRestored(ctx, t, joiner, l)
	if !strings.Contains(restored, "engine=sqlite") || !strings.Contains(restored, "format=2") {
		t.Fatalf("node 4 did not restore %s's export (format 2): %s", from, restored)
	}
	t.Logf("node 4 (sqlite): %s", restored)
	followsUnderLoad(ctx, t, c, l, must, joiner)
}

// followsUnderLoad checks that node joiner follows the chain while the
// load goes on, stops the load, checks that every node holds every
// acknowledged write once, and that relchain verify passes on the joiner
// (stopped for it, then started again).
func followsUnderLoad(ctx context.Context, t *testing.T, c *cluster, l *load, must func(error), joiner int) {
	t.Helper()
	must(l.waitAcked(ctx, l.ackedCount()+30))
	must(c.net.WaitHeight(ctx, joiner, c.maxHeight(ctx, 0, 1, 2, 3)))
	l.stopAndWait()
	if len(l.unexpected) > 0 {
		t.Fatalf("valid writes failed with a result code: %v", l.unexpected[:min(5, len(l.unexpected))])
	}
	requireLoadApplied(ctx, t, c, l)
	must(c.net.Stop(joiner))
	c.mustVerify(joiner, true, "")
	must(c.net.Start(joiner))
}

// mixedUnderLoad starts a network of two PostgreSQL and two SQLite
// validators whose nodes without take no checkpoints, and the catch-up
// tests' write load through writers; it returns when the load has 30
// acknowledged writes and validator with has a checkpoint holding them
// (and those without none). must fails the test, stopping the load first.
func mixedUnderLoad(ctx context.Context, t *testing.T, with int, without, writers []int) (*cluster, *load, func(error)) {
	t.Helper()
	return mixedUnderLoadOn(ctx, t, []string{"postgres", "postgres", "sqlite", "sqlite"}, with, without, writers)
}

// mixedUnderLoadOn is mixedUnderLoad on a network of backends. (MariaDB's
// translation has no serial columns: the log is keyed by writer and
// sequence number.)
func mixedUnderLoadOn(ctx context.Context, t *testing.T, backends []string, with int, without, writers []int) (*cluster, *load, func(error)) {
	t.Helper()
	c := mustStartCluster(t, clusterOptions{backends: backends, checkpointEvery: 20, consensusTimeouts: true,
		prepare: func(c *cluster) { c.withoutCheckpoints(without...) }})
	logTable := "CREATE TABLE log (id BIGSERIAL PRIMARY KEY, writer INTEGER NOT NULL, seq INTEGER NOT NULL)"
	if slices.Contains(backends, "mysql") {
		logTable = "CREATE TABLE log (writer INTEGER NOT NULL, seq INTEGER NOT NULL, PRIMARY KEY (writer, seq))"
	}
	c.mustExec(ctx, 0, stmt(logTable))
	c.mustExec(ctx, 0, stmt("CREATE TABLE counter (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)"))
	c.mustExec(ctx, 0, stmt("INSERT INTO counter (id, n) VALUES (1, 0)"))
	l := startLoad(t, c, writers)
	must := func(err error) {
		t.Helper()
		if err != nil {
			l.stopAndWait()
			t.Fatalf("%v (load: %s)", err, l.summary())
		}
	}
	must(l.waitAcked(ctx, 30))
	loaded := c.maxHeight(ctx, 0)
	must(waitFor(ctx, c.nodes[with].Name+"'s checkpoint with the load", func() bool { return c.newestCheckpoint(t, with) >= loaded }))
	for _, i := range without {
		if h := c.newestCheckpoint(t, i); h != 0 {
			l.stopAndWait()
			t.Fatalf("%s took a checkpoint at height %d: the joiner could restore a snapshot of its own engine", c.nodes[i].Name, h)
		}
	}
	return c, l, must
}

// waitRestored waits until node i logs the snapshot it restored and
// returns that line; it fails the test if the node exits first.
func (c *cluster) waitRestored(ctx context.Context, t *testing.T, i int, l *load) string {
	t.Helper()
	restored := ""
	err := waitFor(ctx, c.nodes[i].Name+" to restore a snapshot", func() bool {
		b, _ := os.ReadFile(c.net.LogFile(i))
		if k := strings.Index(string(b), "restored and verified the snapshot"); k >= 0 {
			restored = strings.SplitN(string(b[k:]), "\n", 2)[0]
			return true
		}
		return !c.net.Running(i)
	})
	if err != nil || restored == "" {
		l.stopAndWait()
		b, _ := os.ReadFile(c.net.LogFile(i))
		t.Fatalf("%s restored no snapshot: %v (exit: %v)\n%s", c.nodes[i].Name, err, c.net.ExitError(i), tail(b, 4000))
	}
	return restored
}

// testRestoreAcrossEngines restores a backup of validator from into a
// new node home on the engine to (relchain restore --node: the chain
// confirms the backup's AppHash), which then follows the network;
// relchain verify passes on it. A PostgreSQL validator's backup is
// written --portable (SQLite speaking PostgreSQL's SQL), which a SQLite
// node restores; without it the SQLite node refuses it.
func testRestoreAcrossEngines(ctx context.Context, t *testing.T, c *cluster, from int, to string) {
	backup := filepath.Join(t.TempDir(), "node.backup")
	args := []string{"backup", "--home", c.nodes[from].Home, "--output", backup}
	native := ""
	if to == "sqlite" {
		native = filepath.Join(t.TempDir(), "native.backup")
		mustRun(t, append(args[:3:3], "--output", native)...)
		args = append(args, "--portable")
	}
	mustRun(t, args...)
	for range 3 { // the chain confirms the backup's AppHash, the light client needs two headers more
		c.mustExec(ctx, 1, stmt("UPDATE counter SET n = n WHERE id = 1"))
	}
	addNode := []string{"add-node", "--net", c.dir, "--name", "node5", "--backend", to}
	switch to {
	case "postgres":
		addNode = append(addNode, "--dsn", strings.ReplaceAll(c.pgDSN, "{node}", "node5"))
	case "mysql":
		addNode = append(addNode, "--dsn", strings.ReplaceAll(c.dsnTemplates[slices.Index(c.engines, "mysql")], "{node}", "node5"))
	}
	mustRun(t, addNode...)
	info := loadNode(t, c.dir, "node5")
	if native != "" {
		out, err := exec.Command(relchainBin, "restore", "--backup", native, "--home", info.Home, "--node", c.nodes[0].RPC).CombinedOutput()
		if err == nil || !strings.Contains(string(out), "refused backup") {
			t.Fatalf("a SQLite node restored a PostgreSQL checkpoint: %v\n%s", err, out)
		}
	}
	out := mustRun(t, "restore", "--backup", backup, "--home", info.Home, "--node", c.nodes[0].RPC)
	t.Logf("restore of %s's backup on %s: %s", c.nodes[from].Name, to, strings.TrimSpace(out))
	restored := c.net.Add(info)
	c.nodes = c.net.Nodes
	if err := c.net.Start(restored); err != nil {
		t.Fatal(err)
	}
	c.mustExec(ctx, 2, stmt("INSERT INTO counter (id, n) VALUES (2, 0)"))
	if err := c.net.WaitHeight(ctx, restored, c.maxHeight(ctx, 0, 1, 2, 3)); err != nil {
		t.Fatalf("node 5 after the restore: %v", err)
	}
	h, got := c.consistentRead(ctx, "SELECT id, n FROM counter ORDER BY id", "SELECT count(*), max(seq) FROM log")
	c.requireSameRows(h, "counter", got[0])
	c.requireSameRows(h, "log", got[1])
	if err := c.net.Stop(restored); err != nil {
		t.Fatal(err)
	}
	c.mustVerify(restored, true, "")
}

// withoutCheckpoints turns the checkpoints of nodes off (relchain.toml
// checkpoint.every = 0); they must not have started yet (clusterOptions
// prepare).
func (c *cluster) withoutCheckpoints(nodes ...int) {
	c.t.Helper()
	for _, i := range nodes {
		cc, rc, err := node.LoadConfig(c.nodes[i].Home)
		if err != nil {
			c.t.Fatal(err)
		}
		rc.Checkpoint.Every = 0
		if err := node.SaveConfig(c.nodes[i].Home, cc, rc); err != nil {
			c.t.Fatal(err)
		}
	}
}
