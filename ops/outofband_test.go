package ops

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/cometbft/cometbft/libs/log"
	sqlite3 "github.com/ncruces/go-sqlite3"

	"github.com/relchain/relchain/app"
	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/client"
	"github.com/relchain/relchain/node"
	"github.com/relchain/relchain/txn"
)

// On a one-validator network (no peer to disagree with), a row changed
// by another process (the sqlite3 shell) stops the node at its next
// block, which it never applies: nothing of the change is digested. The
// stop is recorded in the home, verify fails and names it, and recover
// restores a checkpoint whose change table is clean: the node then
// applies the block it stopped in and verifies.
func TestOutOfBandWriteStopsAOneValidatorNode(t *testing.T) {
	home, url := oneValidator(t)
	n := mustStartNode(t, home)
	_, key, _ := ed25519.GenerateKey(nil)
	c, err := client.New(url, key)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	exec := func(sql string) {
		t.Helper()
		res, err := c.Exec(ctx, client.ModeCommit, txn.Statement{SQL: sql})
		if err != nil || !res.OK() {
			t.Fatalf("%s: %v %+v", sql, err, res)
		}
	}
	exec("CREATE TABLE acct (id INTEGER PRIMARY KEY, bal INTEGER NOT NULL)")
	for i := 1; i <= 3; i++ {
		exec(fmt.Sprintf("INSERT INTO acct (id, bal) VALUES (%d, 100)", i))
	}
	_, rc, err := node.LoadConfig(home)
	if err != nil {
		t.Fatal(err)
	}
	lastApplied := outOfBandUpdate(t, rc.SQLitePath(home), "UPDATE acct SET bal = 1000000 WHERE id = 2")
	if _, err := c.Exec(ctx, client.ModeSync, txn.Statement{SQL: "INSERT INTO acct (id, bal) VALUES (9, 1)"}); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-n.Halted():
		if !errors.Is(err, backend.ErrOutOfBandChange) || !strings.Contains(err.Error(), "acct") || !strings.Contains(err.Error(), "relchain recover --home "+home) {
			t.Fatalf("the node stopped with %v, want the out-of-band change naming acct and the recover command", err)
		}
	case <-ctx.Done():
		t.Fatalf("the node did not stop after an out-of-band write (its block store is at height %d)", n.CometBFT().BlockStore().Height())
	}
	if err := n.Stop(); err != nil {
		t.Fatal(err)
	}
	if l, err := net.Listen("tcp", strings.TrimPrefix(url, "http://")); err != nil {
		t.Fatalf("the stopped node still serves RPC: %v", err)
	} else {
		l.Close()
	}

	r, err := Verify(ctx, home)
	if err != nil || r.OK() || r.Halt == nil || r.Halt.Kind != node.HaltOutOfBand || r.Halt.Height != lastApplied {
		t.Fatalf("verify after the stop: %+v, %v; want the recorded out-of-band stop at height %d", r, err, lastApplied)
	}
	if r.Height != lastApplied {
		t.Fatalf("the node applied block %d after the out-of-band write", r.Height)
	}
	if r.ChainAppHash == "" || r.ChainDiffers {
		t.Fatalf("verify did not compare with the chain's AppHash (or it differs: nothing was digested): %+v", r)
	}

	rep, err := Recover(ctx, home)
	if err != nil {
		t.Fatalf("recover after an out-of-band stop: %v", err)
	}
	t.Logf("recover: %+v", rep)
	if h, err := node.LoadHaltRecord(home); err != nil || h != nil {
		t.Fatalf("the halt record after recover: %+v, %v", h, err)
	}
	n = mustStartNode(t, home)
	// It replays the blocks after the checkpoint, the one it stopped in
	// included, from its block store.
	if _, err := c.Query(ctx, lastApplied+1, "SELECT 1"); err != nil {
		t.Fatalf("the recovered node: %v", err)
	}
	if err := n.Stop(); err != nil {
		t.Fatal(err)
	}
	if r, err := Verify(ctx, home); err != nil || !r.OK() || r.ChainNote == "" && r.ChainAppHash == "" {
		t.Fatalf("verify after recover and a block: %+v, %v", r, err)
	}
}

// oneValidator is the home of a one-validator SQLite network with a
// checkpoint after every block, and its RPC URL.
func oneValidator(t *testing.T) (home, url string) {
	t.Helper()
	home = t.TempDir()
	t.Cleanup(func() {
		for i := 0; i < 100 && os.RemoveAll(home) != nil; i++ {
			time.Sleep(20 * time.Millisecond)
		}
	})
	if _, err := node.Init(home, node.InitOptions{Params: app.DefaultParams(), Tuning: node.DefaultTuning()}); err != nil {
		t.Fatal(err)
	}
	cc, rc, err := node.LoadConfig(home)
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	cc.RPC.ListenAddress = "tcp://" + addr
	cc.P2P.ListenAddress = "tcp://127.0.0.1:0"
	rc.Checkpoint.Every, rc.Checkpoint.Keep = 1, 3
	if err := node.SaveConfig(home, cc, rc); err != nil {
		t.Fatal(err)
	}
	return home, "http://" + addr
}

func mustStartNode(t *testing.T, home string) *node.Node {
	t.Helper()
	n, err := node.New(context.Background(), home, testLogger())
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Start(); err != nil {
		t.Fatal(err)
	}
	return n
}

// outOfBandUpdate runs stmt on the node's database file as another
// process would, and returns the height of the last block the database
// held when it did: read in the same write transaction, so a block the
// node commits meanwhile cannot fall between the two.
func outOfBandUpdate(t *testing.T, path, stmt string) (height int64) {
	t.Helper()
	db, err := sqlite3.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// The node checkpoints after every block and may hold the write lock
	// for a moment: wait for it, as an operator's shell with .timeout would.
	if err := db.BusyTimeout(30 * time.Second); err != nil {
		t.Fatal(err)
	}
	if err := db.Exec("BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	st, _, err := db.Prepare("SELECT height FROM relchain_meta")
	if err != nil || !st.Step() {
		t.Fatalf("read the database's height: %v", err)
	}
	height = st.ColumnInt64(0)
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if err := db.Exec(stmt); err != nil {
		t.Fatal(err)
	}
	if err := db.Exec("COMMIT"); err != nil {
		t.Fatal(err)
	}
	return height
}

func testLogger() log.Logger {
	if os.Getenv("RELCHAIN_TEST_LOG") != "" {
		return log.NewTMLogger(log.NewSyncWriter(os.Stderr))
	}
	return log.NewNopLogger()
}
