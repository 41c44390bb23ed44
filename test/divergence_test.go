package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/relchain/relchain/client"
	"github.com/relchain/relchain/node"
)

// A tx of the chain reads the row changed outside the chain on node 3 and
// returns it (RETURNING): node 3's result differs from the network's, and
// its report names that tx (index in the block and hash) with both
// results.
func TestDivergenceNamesTheTx(t *testing.T) {
	onBackends(t, notOn{"mysql": divergenceNotOnMySQL}, func(t *testing.T, backend string) {
		testDivergenceNamesTheTx(t, clusterOptions{backend: backend})
	})
}

// On a network over PostgreSQL, SQLite and MariaDB (protocol version 5:
// one AppHash for every engine), the MariaDB validator (node 3) whose row
// was changed outside the chain names the first tx whose result differs,
// with both results, as on a network of one engine (issue 37).
func TestDivergenceNamesTheTxOnAMixedNetwork(t *testing.T) {
	testDivergenceNamesTheTx(t, clusterOptions{backends: []string{"postgres", "postgres", "sqlite", "mysql"}})
}

// divergenceNotOnMySQL is why the divergence tests leave MySQL out.
const divergenceNotOnMySQL = "the report, block sync's check and the automatic recovery are the node's, " +
	"the same on every backend; a file and a server backend run them, and MySQL's tampered node is caught " +
	"and recovered by TestTamperedNodeIsCaught/mysql and TestRecoverRestoresACheckpointAndRejoins/mysql"

func testDivergenceNamesTheTx(t *testing.T, o clusterOptions) {
	o.consensusTimeouts = true
	c := mustStartCluster(t, o)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	c.mustExec(ctx, 0, stmt("CREATE TABLE acct (id INTEGER PRIMARY KEY, bal INTEGER NOT NULL)"))
	for i := 1; i <= 10; i++ {
		c.mustExec(ctx, i%validators, stmt(fmt.Sprintf("INSERT INTO acct (id, bal) VALUES (%d, %d)", i, 100*i)))
	}
	// The first block node 3 executes after the change must be the one
	// with the UPDATE: let it commit the empty block that follows the
	// last insert (which carries that insert's AppHash) before it stops.
	c.mustSettle(ctx)
	if err := c.net.Stop(victim); err != nil {
		t.Fatal(err)
	}
	c.tamperUntraced(victim, `UPDATE acct SET bal = bal + 1 WHERE id = 7`)
	if err := c.net.Start(victim); err != nil {
		t.Fatal(err)
	}
	if err := c.net.WaitHeight(ctx, victim, c.maxHeight(ctx, 0, 1, 2)); err != nil {
		t.Fatal(err)
	}
	res := c.mustExec(ctx, 0, stmt("UPDATE acct SET bal = bal + 10 WHERE id = 7 RETURNING bal"))
	rep := c.mustReportDivergence(ctx, victim)
	if rep.height != res.Height {
		t.Errorf("the report names height %d, the tx committed at %d", rep.height, res.Height)
	}
	// The node knows it diverged: verify says so, although its database
	// is consistent with the AppHash it computed.
	c.mustVerifyStopped(victim, "its AppHash diverged from the network's")
	blk, err := c.client(0, nil).RPC().Block(ctx, &res.Height)
	if err != nil {
		t.Fatal(err)
	}
	index := -1
	for i, tx := range blk.Block.Txs {
		if fmt.Sprintf("%X", tx.Hash()) == res.Hash {
			index = i
		}
	}
	want := fmt.Sprintf("first differing tx: #%d (hash %s): network code 0 data ", index, res.Hash)
	i := strings.Index(rep.line, want)
	if index < 0 || i < 0 {
		t.Fatalf("the report does not name tx #%d %s:\n%s", index, res.Hash, rep.line)
	}
	rest := rep.line[i+len(want):]
	network, local, ok := strings.Cut(rest, ", local code 0 data ")
	if !ok || !strings.Contains(network, "710") || !strings.Contains(local, "711") {
		t.Errorf("the report does not show the network's result (bal 710) and node 3's (711):\n%s", rep.line)
	}
}

// Node 3 is stopped and its database changed offline while the others go
// on; restarted, it catches up by block sync, which refuses the block after
// the first one it applies (its AppHash is not node 3's) and would retry
// forever: node 3's height stands still, so it verifies the next header
// from a peer against its own validator set, and stops with the report.
func TestBlockSyncDivergence(t *testing.T) {
	onBackends(t, notOn{"mysql": divergenceNotOnMySQL}, testBlockSyncDivergence)
}

func testBlockSyncDivergence(t *testing.T, backend string) {
	c := mustStartCluster(t, clusterOptions{backend: backend, consensusTimeouts: true})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	c.mustExec(ctx, 0, stmt("CREATE TABLE acct (id INTEGER PRIMARY KEY, bal INTEGER NOT NULL)"))
	for i := 1; i <= 10; i++ {
		c.mustExec(ctx, i%validators, stmt(fmt.Sprintf("INSERT INTO acct (id, bal) VALUES (%d, %d)", i, 100*i)))
	}
	c.mustExecEverywhere(ctx, 0, stmt("INSERT INTO acct (id, bal) VALUES (11, 1100)")) // the victim holds row 7 before it stops
	if err := c.net.Stop(victim); err != nil {
		t.Fatal(err)
	}
	stopped, _ := c.storedState(ctx, victim)
	c.tamperUntraced(victim, `UPDATE acct SET bal = bal + 1 WHERE id = 7`)
	// The untraced change enters no digest until a block rescans the
	// tables: one with DDL does, and its results are the network's.
	ddl := c.mustExec(ctx, 0, stmt("CREATE TABLE more (id INTEGER PRIMARY KEY)"))
	for i := 0; i < 3; i++ {
		c.mustExec(ctx, i%3, stmt(fmt.Sprintf("INSERT INTO acct (id, bal) VALUES (%d, 1)", 100+i)))
	}
	network := c.maxHeight(ctx, 0, 1, 2)
	start := time.Now()
	if err := c.net.Start(victim); err != nil {
		t.Fatal(err)
	}
	rep := c.mustReportDivergence(ctx, victim)
	t.Logf("node 3 stopped at height %d, the network was at %d; restarted, node 3 stopped with the report after %s", stopped, network, time.Since(start).Round(time.Second))
	// The first block whose AppHash the change reaches: at the latest the
	// DDL block, which rescans the tables into the state digest; from
	// protocol version 4 on, the first block after the restart that
	// changes anything, since the node rebuilt its authenticated state
	// from the changed rows when it started.
	if rep.height <= stopped || rep.height > ddl.Height {
		t.Errorf("the report names height %d; node 3 (tampered at %d) applied at the latest %d, the first block that rescans its tables, and could not go on", rep.height, stopped, ddl.Height)
	}
	// Usually a peer's verified header: block sync keeps retrying. (Block
	// sync may also hand over to consensus when it has dropped every peer,
	// and consensus then fails on the next block.)
	t.Logf("node 3 learnt the network's AppHash from %s", rep.source)
	if !strings.Contains(rep.line, fmt.Sprintf("every tx of block %d had the network's results", rep.height)) {
		t.Errorf("the report does not say the database differed before the block:\n%s", rep.line)
	}
}

// With [recover] on_mismatch = "recover", node 3 recovers by itself: it
// stops, restores its newest checkpoint the chain confirms, starts again
// in the same process, replays and rejoins with the network's state.
func TestDivergenceAutoRecover(t *testing.T) {
	onBackends(t, notOn{"mysql": divergenceNotOnMySQL}, testDivergenceAutoRecover)
}

func testDivergenceAutoRecover(t *testing.T, backend string) {
	c := mustStartCluster(t, clusterOptions{backend: backend, checkpointEvery: 5, consensusTimeouts: true})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	c.mustExec(ctx, 0, stmt("CREATE TABLE acct (id INTEGER PRIMARY KEY, bal INTEGER NOT NULL)"))
	for i := 1; i < 15; i++ {
		c.mustExec(ctx, i%validators, stmt(fmt.Sprintf("INSERT INTO acct (id, bal) VALUES (%d, %d)", i, 100*i)))
	}
	c.mustExecEverywhere(ctx, 0, stmt("INSERT INTO acct (id, bal) VALUES (15, 1500)")) // the victim holds row 7 before it stops
	if err := c.net.Stop(victim); err != nil {
		t.Fatal(err)
	}
	c.setOnMismatch(victim, node.OnMismatchRecover)
	c.tamperUntraced(victim, `UPDATE acct SET bal = bal + 1 WHERE id = 7`)
	if err := c.net.Start(victim); err != nil {
		t.Fatal(err)
	}
	if err := c.net.WaitHeight(ctx, victim, c.maxHeight(ctx, 0, 1, 2)); err != nil {
		t.Fatal(err)
	}
	c.mustExec(ctx, 0, stmt("UPDATE acct SET bal = bal + 10 WHERE id = 7 RETURNING bal"))
	c.mustExec(ctx, 1, stmt("INSERT INTO acct (id, bal) VALUES (100, 1)"))
	var logText string
	if err := waitFor(ctx, "node 3 to recover by itself", func() bool {
		if !c.net.Running(victim) {
			t.Fatalf("node 3 exited (%v) instead of recovering", c.net.ExitError(victim))
		}
		b, _ := os.ReadFile(c.net.LogFile(victim))
		logText = string(b)
		return strings.Contains(logText, "recovered: restored the checkpoint at height")
	}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"relchain: AppHash mismatch at height", `on_mismatch = "recover": the node stopped`} {
		if !strings.Contains(logText, want) {
			t.Errorf("node 3's log lacks %q", want)
		}
	}
	for _, line := range strings.Split(logText, "\n") {
		if strings.Contains(line, "recovered: restored the checkpoint") || strings.Contains(line, "recover: skipped checkpoint") {
			t.Logf("node 3: %s", line)
		}
	}
	c.mustExec(ctx, 2, stmt("INSERT INTO acct (id, bal) VALUES (101, 2)"))
	if err := c.net.WaitHeight(ctx, victim, c.maxHeight(ctx, 0, 1, 2)); err != nil {
		t.Fatalf("the recovered node 3: %v", err)
	}
	h, rows := c.consistentRead(ctx, "SELECT id, bal FROM acct ORDER BY id")
	c.requireSameRows(h, "acct", rows[0])
	if !c.net.Running(victim) {
		t.Fatalf("node 3 exited: %v", c.net.ExitError(victim))
	}
	// A tx through node 3 itself: it is a full member again.
	res, err := c.client(victim, c.admin).Exec(ctx, client.ModeCommit, stmt("UPDATE acct SET bal = bal - 1 WHERE id = 100"))
	if err != nil || !res.OK() {
		t.Fatalf("a tx through the recovered node 3: %v %v", err, res)
	}
	t.Logf("node 3 recovered by itself and holds the network's rows at height %d", h)
	if err := c.net.Stop(victim); err != nil {
		t.Fatal(err)
	}
	c.mustVerify(victim, true, "")
}

// mustSettle waits until the chain is idle: every node has committed the
// last block, and that block left the AppHash unchanged (CometBFT makes
// one more block after each block that changes it).
func (c *cluster) mustSettle(ctx context.Context) {
	c.t.Helper()
	if err := waitFor(ctx, "the chain to settle", func() bool {
		h, err := c.settle(ctx)
		if err != nil || h < 1 {
			return false
		}
		hdr, err := c.client(0, nil).RPC().Header(ctx, &h)
		st, err2 := c.client(0, nil).Status(ctx)
		return err == nil && err2 == nil && st.Height == h && hdr.Header.AppHash.String() == st.AppHash
	}); err != nil {
		c.t.Fatal(err)
	}
}

// With on_mismatch = "recover" but no checkpoint to restore, node 3 stops
// with the report and the reason the recovery failed. On SQLite only: a
// missing checkpoint is the same on every backend.
func TestDivergenceAutoRecoverFails(t *testing.T) {
	c := mustStartCluster(t, clusterOptions{checkpointEvery: 1000, consensusTimeouts: true})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	c.mustExec(ctx, 0, stmt("CREATE TABLE acct (id INTEGER PRIMARY KEY, bal INTEGER NOT NULL)"))
	// Every node, the victim too, holds the row before it stops.
	c.mustExecEverywhere(ctx, 1, stmt("INSERT INTO acct (id, bal) VALUES (7, 700)"))
	if err := c.net.Stop(victim); err != nil {
		t.Fatal(err)
	}
	c.setOnMismatch(victim, node.OnMismatchRecover)
	c.tamperUntraced(victim, `UPDATE acct SET bal = bal + 1 WHERE id = 7`)
	if err := c.net.Start(victim); err != nil {
		t.Fatal(err)
	}
	c.mustExec(ctx, 0, stmt("UPDATE acct SET bal = bal + 10 WHERE id = 7"))
	rep := c.mustReportDivergence(ctx, victim)
	if !strings.Contains(rep.line, "; automatic recovery failed: recover: no checkpoint in ") {
		t.Errorf("the report does not say why the recovery failed:\n%s", rep.line)
	}
}

// setOnMismatch sets relchain.toml [recover] on_mismatch on node i (which
// must be stopped).
func (c *cluster) setOnMismatch(i int, v string) {
	c.t.Helper()
	path := filepath.Join(c.nodes[i].Home, node.RelchainConfigFile)
	b, err := os.ReadFile(path)
	if err != nil {
		c.t.Fatal(err)
	}
	old := fmt.Sprintf("on_mismatch = %q", node.OnMismatchStop)
	if !strings.Contains(string(b), old) {
		c.t.Fatalf("%s lacks %s:\n%s", path, old, b)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(string(b), old, fmt.Sprintf("on_mismatch = %q", v), 1)), 0o644); err != nil {
		c.t.Fatal(err)
	}
}
