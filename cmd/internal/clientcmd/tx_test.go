package clientcmd

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/cometbft/cometbft/libs/log"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/app"
	"github.com/relchain/relchain/client"
	"github.com/relchain/relchain/node"
	"github.com/relchain/relchain/txn"
)

// startOneNode starts a one-validator SQLite network in this process and
// returns its RPC URL; it stops when the test ends.
func startOneNode(t *testing.T) string {
	t.Helper()
	return startOneNodeWith(t, app.DefaultParams())
}

// startOneNodeWith is startOneNode with the network's parameters p.
func startOneNodeWith(t *testing.T, p app.Params) string {
	t.Helper()
	home := t.TempDir()
	t.Cleanup(func() {
		for i := 0; i < 100 && os.RemoveAll(home) != nil; i++ {
			time.Sleep(20 * time.Millisecond)
		}
	})
	if _, err := node.Init(home, node.InitOptions{Params: p, Tuning: node.DefaultTuning()}); err != nil {
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
	if err := node.SaveConfig(home, cc, rc); err != nil {
		t.Fatal(err)
	}
	n, err := node.New(context.Background(), home, log.NewNopLogger())
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = n.Stop() })
	return "http://" + addr
}

// `relchain tx` prints a committed tx's result (exit 0), a committed
// failure (exit 1) and says an unknown hash is not committed yet (exit 3).
func TestTxLooksUpCommittedFailedAndUnknownHashes(t *testing.T) {
	url := startOneNode(t)
	_, key, _ := ed25519.GenerateKey(nil)
	c, err := client.New(url, key)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	exec := func(sql string) *client.Result {
		t.Helper()
		res, err := c.Exec(ctx, client.ModeCommit, txn.Statement{SQL: sql})
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		return res
	}
	exec("CREATE TABLE t (id INTEGER PRIMARY KEY)")
	ok := exec("INSERT INTO t (id) VALUES (1)")
	failed := exec("INSERT INTO t (id) VALUES (1)")
	if ok.Code != api.CodeOK || failed.Code != api.CodeExecFailed {
		t.Fatalf("codes %d and %d, want 0 and %d", ok.Code, failed.Code, api.CodeExecFailed)
	}
	reader, err := client.New(url, nil)
	if err != nil {
		t.Fatal(err)
	}
	// CometBFT indexes a block's txs just after committing it.
	for _, h := range []string{ok.Hash, failed.Hash} {
		for {
			if _, err := reader.Tx(ctx, h); !errors.Is(err, client.ErrTxNotFound) {
				break
			}
			select {
			case <-ctx.Done():
				t.Fatalf("tx %s committed but never indexed", h)
			case <-time.After(20 * time.Millisecond):
			}
		}
	}

	out, err := captureStdout(t, func() error { return lookupTx(ctx, reader, strings.ToLower(ok.Hash), "json") })
	var got client.Result
	if err != nil || json.Unmarshal(out, &got) != nil || got.Hash != ok.Hash || got.Height != ok.Height || got.Code != api.CodeOK || len(got.Results) != 1 || got.Results[0].RowsAffected != 1 {
		t.Fatalf("tx of a committed insert: %v\n%s", err, out)
	}
	out, err = captureStdout(t, func() error { return lookupTx(ctx, reader, failed.Hash, "text") })
	if err == nil || ExitStatus(err) != 1 || !strings.Contains(string(out), fmt.Sprintf("height: %d", failed.Height)) || !strings.Contains(string(out), fmt.Sprintf("code:   %d", api.CodeExecFailed)) {
		t.Fatalf("tx of a committed failure: exit %d (%v)\n%s", ExitStatus(err), err, out)
	}
	unknown := strings.Repeat("AB", 32)
	out, err = captureStdout(t, func() error { return lookupTx(ctx, reader, unknown, "json") })
	if err == nil || ExitStatus(err) != exitNotCommitted || !strings.Contains(err.Error(), "not committed yet") || !strings.Contains(string(out), `"not_committed"`) {
		t.Fatalf("tx of an unknown hash: exit %d (%v)\n%s", ExitStatus(err), err, out)
	}
	if _, err := reader.Tx(ctx, "xyz"); err == nil || errors.Is(err, client.ErrTxNotFound) || !strings.Contains(err.Error(), "64 hex digits") {
		t.Fatalf("a malformed hash: %v", err)
	}
}

// An exec whose outcome does not arrive in time says the tx may still
// commit and how to look it up, with exit status 3 and the hash in its
// JSON output: never a bare "context deadline exceeded".
func TestExecTimeoutSaysTheTxMayStillCommit(t *testing.T) {
	hang := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select { // a node that accepted the tx but commits nothing (quorum lost)
		case <-hang:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(hang)
	_, key, _ := ed25519.GenerateKey(nil)
	c, err := client.New(srv.URL, key)
	if err != nil {
		t.Fatal(err)
	}
	c.SetChainID("c")
	for _, mode := range []client.Mode{client.ModeCommit, client.ModeSync, client.ModeAsync} {
		for _, output := range []string{"text", "json"} {
			ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
			out, err := captureStdout(t, func() error {
				_, err := submit(ctx, c, mode, output, srv.URL, txn.Statement{SQL: "INSERT INTO t (id) VALUES (1)"})
				return err
			})
			cancel()
			if err == nil || ExitStatus(err) != exitNotCommitted || !strings.Contains(err.Error(), "not confirmed yet; it may still commit: relchain tx ") || !strings.Contains(err.Error(), "--node "+srv.URL) {
				t.Fatalf("%s/%s: exit %d, %v", mode, output, ExitStatus(err), err)
			}
			hash := strings.Fields(strings.TrimPrefix(err.Error(), "tx "))[0]
			var u unconfirmed
			if output == "json" && (json.Unmarshal(out, &u) != nil || u.Hash != hash || u.Status != "not_confirmed") {
				t.Fatalf("%s/json: the output does not carry the hash %s:\n%s", mode, hash, out)
			}
		}
	}
}

// captureStdout runs fn with os.Stdout redirected and returns what it wrote.
func captureStdout(t *testing.T, fn func() error) ([]byte, error) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	saved := os.Stdout
	os.Stdout = w
	done := make(chan []byte)
	go func() {
		var b bytes.Buffer
		_, _ = b.ReadFrom(r)
		done <- b.Bytes()
	}()
	ferr := fn()
	os.Stdout = saved
	w.Close()
	return <-done, ferr
}
