package e2e

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	rpchttp "github.com/cometbft/cometbft/rpc/client/http"

	"github.com/relchain/relchain/client"
	"github.com/relchain/relchain/netctl"
)

// A fifth node joins a running network by CometBFT state sync: it restores
// a peer's checkpoint as a snapshot, verifies it against the AppHash its
// light client trusts, and then follows the chain; it ends with the
// network's exact state while the validators keep committing.
//
// RELCHAIN_STATESYNC_ROWS sets the table's size (default 20,000); the
// join time is logged (BENCHMARKS.md quotes it for 1,000,000 rows).
func TestStateSyncJoin(t *testing.T) {
	covered := notOn{"sqlite": "TestStateSyncRefusesTamperedChunks joins a SQLite node by state sync"}
	onBackendsSampledBut(t, covered, func(t *testing.T, backend string) { testStateSyncJoin(t, backend, false) })
}

// Three of the four validators serve every chunk with a byte flipped but
// advertise the true manifest: the joining node refuses those chunks,
// rejects their senders, fetches the chunks from the honest validator and
// still joins with the network's state.
func TestStateSyncRefusesTamperedChunks(t *testing.T) { testStateSyncJoin(t, "sqlite", true) }

func testStateSyncJoin(t *testing.T, backend string, tampered bool) {
	o := clusterOptions{backend: backend, checkpointEvery: 50}
	if tampered {
		// Many small chunks, so that the joining node surely asks a
		// byzantine validator for some.
		o.snapshotChunkBytes = 64 << 10
		o.nodeArgs = [][]string{nil, {"--unsafe-corrupt-snapshots"}, {"--unsafe-corrupt-snapshots"}, {"--unsafe-corrupt-snapshots"}}
		o.testHooks = true
	}
	c := mustStartCluster(t, o)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()

	rows := 20000
	if s := os.Getenv("RELCHAIN_STATESYNC_ROWS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("RELCHAIN_STATESYNC_ROWS=%q: want a positive number", s)
		}
		rows = n
	}
	c.mustExec(ctx, 0, stmt("CREATE TABLE acct (id INTEGER PRIMARY KEY, bal INTEGER NOT NULL, note TEXT NOT NULL)"))
	start := time.Now()
	batch := 50000
	if backend == "mysql" {
		// The MySQL gate refuses WITH RECURSIVE: rows as VALUES, 5,000 a
		// statement (about 230 KB; 1,000 took 20 blocks, 31 s in a CI run).
		batch = 5000
	}
	for lo := 1; lo <= rows; lo += batch {
		hi := min(lo+batch-1, rows)
		fill := fmt.Sprintf("WITH RECURSIVE s(i) AS (SELECT %d UNION ALL SELECT i + 1 FROM s WHERE i < %d) INSERT INTO acct (id, bal, note) SELECT i, i %% 1000, 'customer account number ' || i FROM s", lo, hi)
		switch backend {
		case "postgres":
			fill = fmt.Sprintf("INSERT INTO acct (id, bal, note) SELECT i, i %% 1000, 'customer account number ' || i FROM generate_series(%d, %d) AS s(i)", lo, hi)
		case "mysql":
			var vals []string
			for i := lo; i <= hi; i++ {
				vals = append(vals, fmt.Sprintf("(%d, %d, 'customer account number %d')", i, i%1000, i))
			}
			fill = "INSERT INTO acct (id, bal, note) VALUES " + strings.Join(vals, ", ")
		}
		c.mustExec(ctx, 0, stmt(fill))
	}
	t.Logf("loaded %d rows in %v", rows, time.Since(start).Round(time.Millisecond))

	// Load that goes on while the fifth node joins. Holding loadMu holds
	// it between two writes.
	var stop atomic.Bool
	var wg sync.WaitGroup
	var loadMu sync.Mutex
	var loadErr error
	var writes atomic.Int64
	wg.Add(1)
	go func() {
		defer wg.Done()
		cl := c.client(1, newKey(t))
		for i := 0; !stop.Load(); i++ {
			loadMu.Lock()
			res, err := cl.Exec(ctx, client.ModeCommit, stmt(fmt.Sprintf("UPDATE acct SET bal = bal + 1 WHERE id = %d", 1+i%rows)))
			loadMu.Unlock()
			if err == nil {
				err = res.Err()
			}
			if err != nil {
				loadErr = err
				return
			}
			writes.Add(1)
		}
	}()
	// A checkpoint with the loaded rows.
	loaded := c.maxHeight(ctx, 0)
	if err := waitFor(ctx, "a checkpoint with the loaded rows", func() bool {
		return c.newestCheckpoint(t, 0) >= loaded
	}); err != nil {
		t.Fatal(err)
	}

	releaseLoad := func() {}
	if tampered {
		// The joining node restores the highest snapshot its peers offer,
		// fetching chunks only from the peers that offered it. Under load
		// a checkpoint appears every few seconds, and the honest node 0
		// may offer one the others have not written yet: then every chunk
		// comes from node 0 and nothing is refused. So the load is held
		// (no block, no new checkpoint) until all four validators offer
		// the same latest snapshot, and resumes once node 4 restored it.
		loadMu.Lock()
		releaseLoad = sync.OnceFunc(loadMu.Unlock)
		defer releaseLoad() // a failing test must not leave the load blocked
		c.holdAtCommonCheckpoint(ctx, t)
	}
	dsn := ""
	if backend == "postgres" || backend == "mysql" {
		dsn = strings.ReplaceAll(c.pgDSN, "{node}", "node4")
	}
	info, err := netctl.AddNode(ctx, netctl.JoinOptions{Dir: c.dir, Name: "node4", DSN: dsn, StateSync: true})
	if err != nil {
		t.Fatal(err)
	}
	joiner := c.net.Add(info)
	c.nodes = c.net.Nodes
	joinStart := time.Now()
	if err := c.net.Start(joiner); err != nil {
		t.Fatal(err)
	}
	restored := ""
	if err := waitFor(ctx, "node 4 to restore a snapshot", func() bool {
		b, _ := os.ReadFile(c.net.LogFile(joiner))
		if i := strings.Index(string(b), "restored and verified the snapshot"); i >= 0 {
			restored = strings.SplitN(string(b[i:]), "\n", 2)[0]
			return true
		}
		return !c.net.Running(joiner)
	}); err != nil {
		t.Fatal(err)
	}
	if restored == "" {
		t.Fatalf("node 4 exited: %v", c.net.ExitError(joiner))
	}
	restoreTime := time.Since(joinStart)
	releaseLoad()
	target := c.maxHeight(ctx, 0, 1, 2, 3)
	if err := c.net.WaitHeight(ctx, joiner, target); err != nil {
		t.Fatalf("node 4 after state sync: %v", err)
	}
	t.Logf("node 4 joined by state sync with %d rows: snapshot restored and verified after %v, caught up with height %d after %v (%s)",
		rows, restoreTime.Round(time.Millisecond), target, time.Since(joinStart).Round(time.Millisecond), restored)
	stop.Store(true)
	wg.Wait()
	if loadErr != nil {
		t.Fatalf("load during the join: %v", loadErr)
	}
	if writes.Load() == 0 {
		t.Fatal("no write went on during the join")
	}

	log, _ := os.ReadFile(c.net.LogFile(joiner))
	if tampered && !strings.Contains(string(log), "refused a chunk") {
		t.Fatalf("node 4 never refused a corrupt chunk:\n%s", tail(log, 4000))
	}
	rpc, err := rpchttp.New(info.RPC, "/websocket")
	if err != nil {
		t.Fatal(err)
	}
	st, err := rpc.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.SyncInfo.EarliestBlockHeight <= 1 {
		t.Fatalf("node 4's block store starts at height %d: it replayed from genesis instead of state sync", st.SyncInfo.EarliestBlockHeight)
	}
	h, got := c.consistentRead(ctx, "SELECT count(*), sum(bal) FROM acct", "SELECT id, bal FROM acct WHERE id <= 50 ORDER BY id")
	for q := range got {
		c.requireSameRows(h, "acct", got[q])
	}
	if err := c.net.Stop(joiner); err != nil {
		t.Fatal(err)
	}
	c.mustVerify(joiner, true, "")
}

// holdAtCommonCheckpoint waits, while nothing else writes, until the four
// validators' latest checkpoints are at the same height C and the chain
// is at least two blocks past C (a snapshot at C is verified with the
// headers of C+1 and C+2). With no write, CometBFT makes no block (after
// each tx block comes one empty block for its AppHash), so no later
// checkpoint can appear until writes resume.
func (c *cluster) holdAtCommonCheckpoint(ctx context.Context, t *testing.T) {
	t.Helper()
	validators := []int{0, 1, 2, 3}
	var common int64
	if err := waitFor(ctx, "the validators' latest checkpoints to agree", func() bool {
		common = c.newestCheckpoint(t, validators[0])
		for _, i := range validators[1:] {
			if c.newestCheckpoint(t, i) != common {
				return false
			}
		}
		if common == 0 {
			return false
		}
		if h := c.maxHeight(ctx, validators...); h < common+2 {
			c.mustExec(ctx, 0, stmt("UPDATE acct SET bal = bal WHERE id = 1"))
			return false
		}
		return true
	}); err != nil {
		t.Fatal(err)
	}
	t.Logf("load held: every validator offers its checkpoint at height %d", common)
}
