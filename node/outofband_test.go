package node

import (
	"context"
	"net"
	"os"
	"testing"
	"time"

	"github.com/cometbft/cometbft/libs/log"
	sqlite3 "github.com/ncruces/go-sqlite3"

	"github.com/relchain/relchain/app"
)

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
	if _, err := Init(home, InitOptions{Params: app.DefaultParams(), Tuning: DefaultTuning()}); err != nil {
		t.Fatal(err)
	}
	cc, rc, err := LoadConfig(home)
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
	if err := SaveConfig(home, cc, rc); err != nil {
		t.Fatal(err)
	}
	return home, "http://" + addr
}

func mustStartNode(t *testing.T, home string) *Node {
	t.Helper()
	n, err := New(context.Background(), home, testLogger())
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
