package e2e

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/client"
	"github.com/relchain/relchain/txn"
)

// resent is one signed bc-transaction a test resubmits, with the outcome
// it must answer every time.
type resent struct {
	name string
	raw  []byte
	want *client.Result // committed: Height > 0; refused: Height 0
}

// TestResubmittedTxAnswersCommittedOutcome: resubmitting the same signed
// bytes of a committed tx answers its committed outcome (code, height,
// statement results; a tx that failed in its block, that failure) and
// never executes it again, while the mempool cache remembers it and after
// every node restarted, to every node, through the Go client (commit,
// sync and async modes, a Stream) and the CLI (exec --save-tx, tx send);
// a different tx reusing a committed nonce is still refused as a replay.
// On a single-validator and a 4-validator SQLite network (the behaviour
// is backend-neutral: app.TestCheckTxTellsCommittedFromReplayed runs
// CheckTx on each backend).
func TestResubmittedTxAnswersCommittedOutcome(t *testing.T) {
	runInHealthyJob(t)
	for _, n := range []int{1, validators} {
		t.Run(fmt.Sprintf("%d validators", n), func(t *testing.T) {
			testResubmission(t, n)
		})
	}
}

func testResubmission(t *testing.T, validators int) {
	c := mustStartCluster(t, clusterOptions{validators: validators})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	c.mustExec(ctx, 0, stmt("CREATE TABLE kv (k INTEGER PRIMARY KEY, v TEXT NOT NULL)"))
	user := newKey(t)
	cl := c.client(0, user)
	sign := func(stmts ...txn.Statement) []byte {
		t.Helper()
		raw, err := cl.Sign(ctx, stmts)
		if err != nil {
			t.Fatal(err)
		}
		return raw
	}
	// A write with results, a tx that fails in its block (duplicate
	// key), a batch (one wl-transaction fails), and one signed by the CLI.
	txs := []*resent{
		{name: "write", raw: sign(stmt("INSERT INTO kv VALUES (1, 'one')"), stmt("SELECT k, v FROM kv ORDER BY k"))},
		{name: "failed in its block", raw: sign(stmt("INSERT INTO kv VALUES (1, 'again')"))},
	}
	batch, err := cl.SignBatch(ctx, [][]txn.Statement{{stmt("INSERT INTO kv VALUES (2, 'two')")}, {stmt("INSERT INTO kv VALUES (1, 'dup')")}})
	if err != nil {
		t.Fatal(err)
	}
	txs = append(txs, &resent{name: "batch", raw: batch})
	for _, tx := range txs {
		res, err := cl.Broadcast(ctx, client.ModeCommit, tx.raw)
		if err != nil || res.Height == 0 {
			t.Fatalf("%s: first submission: %v %+v", tx.name, err, res)
		}
		tx.want = res
	}
	if txs[0].want.Code != api.CodeOK || txs[1].want.Code != api.CodeExecFailed || txs[2].want.Code != api.CodeOK || len(txs[2].want.Batch) != 2 {
		t.Fatalf("first outcomes: %+v %+v %+v; want ok, exec_failed, a batch of 2", txs[0].want, txs[1].want, txs[2].want)
	}
	saved := filepath.Join(t.TempDir(), "signed.tx")
	env := []string{"RELCHAIN_HOME=" + t.TempDir(), "RELCHAIN_NODE="}
	r := relchainCLI(t, env, "", "exec", "--node", c.nodes[0].RPC, "--save-tx", saved, "--output", "json", "INSERT INTO kv VALUES (3, 'cli')")
	cliTx := &resent{name: "signed by exec --save-tx", want: decodeCLIResult(t, r, 0)}
	hexed, err := os.ReadFile(saved)
	if err != nil {
		t.Fatal(err)
	}
	if cliTx.raw, err = hex.DecodeString(strings.TrimSpace(string(hexed))); err != nil {
		t.Fatalf("--save-tx wrote %q: %v", hexed, err)
	}
	txs = append(txs, cliTx)

	// Another tx of the user's key with the write's nonce: a replay.
	first, err := txn.Decode(txs[0].raw)
	if err != nil {
		t.Fatal(err)
	}
	reuse := &txn.Tx{ChainID: c.chainID, Nonce: first.Nonce, Statements: []txn.Statement{stmt("INSERT INTO kv VALUES (9, 'replay')")}}
	reuse.Sign(user)
	replay := &resent{name: "another tx reusing the nonce", raw: txn.Encode(reuse),
		want: &client.Result{Hash: strings.ToUpper(hex.EncodeToString(txn.Hash(txn.Encode(reuse)))), Code: api.CodeReplayed}}

	resubmitAll := func(when string) {
		for i := range c.nodes {
			for _, tx := range append(txs, replay) {
				checkResubmission(ctx, t, c, i, user, when, tx)
			}
		}
		// Commit mode without a websocket polls the tx RPC instead.
		polling, proxy := c.proxiedClient(0, user, "")
		proxy.refuseWS.Store(true)
		for _, tx := range append(txs, replay) {
			res, err := polling.Broadcast(ctx, client.ModeCommit, tx.raw)
			if err != nil {
				t.Fatalf("%s, commit mode polling: %s: %v", when, tx.name, err)
			}
			requireSame(t, fmt.Sprintf("%s, commit mode polling: %s", when, tx.name), res, tx.want)
		}
		_ = polling.Close()
		for _, tx := range []*resent{txs[0], txs[1], cliTx, replay} {
			for _, mode := range []string{"commit", "sync"} {
				f := filepath.Join(t.TempDir(), "tx")
				if err := os.WriteFile(f, []byte(hex.EncodeToString(tx.raw)), 0o600); err != nil {
					t.Fatal(err)
				}
				node := c.nodes[len(c.nodes)-1].RPC
				r := relchainCLI(t, env, "", "tx", "send", f, "--node", node, "--mode", mode, "--output", "json")
				wantExit := 0
				if tx.want.Code != api.CodeOK {
					wantExit = 1
				}
				requireSame(t, fmt.Sprintf("%s: relchain tx send --mode %s: %s", when, mode, tx.name), decodeCLIResult(t, r, wantExit), tx.want)
			}
		}
	}
	resubmitAll("before the restart")

	// After a restart of every node the mempool caches are empty: CheckTx
	// itself answers, code 15 for the committed bytes.
	c.net.StopAll()
	if err := c.net.StartAll(); err != nil {
		t.Fatalf("restart: %v", err)
	}
	if err := c.net.WaitReady(ctx); err != nil {
		t.Fatalf("after restart: %v", err)
	}
	for i := range c.nodes {
		for _, tx := range append(txs, replay) {
			r, err := c.client(i, nil).RPC().BroadcastTxSync(ctx, tx.raw)
			want := api.CodeCommitted
			if tx == replay {
				want = api.CodeReplayed
			}
			if err != nil || r.Code != want {
				t.Fatalf("after restart, CheckTx on %s of %s: %+v %v; want code %d", c.nodes[i].Name, tx.name, r, err, want)
			}
		}
	}
	resubmitAll("after restarting every node")

	// Every write applied exactly once, on every node.
	h, rows := c.consistentRead(ctx, "SELECT k, v FROM kv ORDER BY k")
	c.requireSameRows(h, "kv", rows[0])
	if got := fmt.Sprint(rows[0][0]); got != "[[1 one] [2 two] [3 cli]]" {
		t.Fatalf("rows at height %d: %s, want [[1 one] [2 two] [3 cli]]", h, got)
	}
}

// checkResubmission resubmits tx to node i through the Go client in every
// mode and through a Stream, and requires its committed outcome (or, for
// a replay, the refusal).
func checkResubmission(ctx context.Context, t *testing.T, c *cluster, i int, key ed25519.PrivateKey, when string, tx *resent) {
	t.Helper()
	cl := c.client(i, key)
	what := func(mode string) string {
		return fmt.Sprintf("%s, %s mode to %s: %s", when, mode, c.nodes[i].Name, tx.name)
	}
	for _, mode := range []client.Mode{client.ModeCommit, client.ModeSync} {
		res, err := cl.Broadcast(ctx, mode, tx.raw)
		if err != nil {
			t.Fatalf("%s: %v", what(string(mode)), err)
		}
		requireSame(t, what(string(mode)), res, tx.want)
	}
	// Async answers the hash, or the committed result when the node
	// remembers the tx; its outcome is then the tx index's.
	res, err := cl.Broadcast(ctx, client.ModeAsync, tx.raw)
	if err != nil || res.Hash != tx.want.Hash {
		t.Fatalf("%s: %+v %v", what("async"), res, err)
	}
	if res.Height > 0 {
		requireSame(t, what("async"), res, tx.want)
	}
	if tx.want.Height > 0 {
		got, err := cl.Tx(ctx, res.Hash)
		if err != nil {
			t.Fatalf("%s: look up: %v", what("async"), err)
		}
		requireSame(t, what("async, looked up"), got, tx.want)
	}
	s, err := cl.Stream(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SubmitRaw(ctx, nil, tx.raw); err != nil {
		t.Fatalf("%s: %v", what("stream"), err)
	}
	if err := s.Flush(ctx); err != nil {
		t.Fatalf("%s: %v", what("stream"), err)
	}
	_ = s.Close()
	o, ok := <-s.Results()
	if !ok {
		t.Fatalf("%s: no outcome", what("stream"))
	}
	if tx.want.Height > 0 && (o.Err != nil || o.Height != tx.want.Height) {
		t.Fatalf("%s: outcome height %d err %v, want the committed one at height %d", what("stream"), o.Height, o.Err, tx.want.Height)
	}
	if tx.want.Height == 0 && (o.Err == nil || o.Included()) {
		t.Fatalf("%s: outcome %+v, want a refusal", what("stream"), o)
	}
	requireSame(t, what("stream"), o.Result, tx.want)
	for range s.Results() {
	}
}

// requireSame fails unless got is the outcome want: the same hash, code,
// height, statement results, batch outcomes and failure class.
func requireSame(t *testing.T, what string, got, want *client.Result) {
	t.Helper()
	same := got.Hash == want.Hash && got.Code == want.Code && got.Height == want.Height &&
		jsonEqual(got.Results, want.Results) && jsonEqual(got.Batch, want.Batch) && reflect.DeepEqual(got.Failure, want.Failure)
	if !same {
		t.Fatalf("%s: answered %s, want %s", what, jsonString(got), jsonString(want))
	}
	if want.Code == api.CodeReplayed && !strings.Contains(got.Error, "already executed") {
		t.Fatalf("%s: log %q does not say the nonce was already executed", what, got.Error)
	}
}

func jsonEqual(a, b any) bool { return jsonString(a) == jsonString(b) }

func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// decodeCLIResult parses exec's or tx send's JSON result and checks the
// exit status.
func decodeCLIResult(t *testing.T, r cliRun, wantExit int) *client.Result {
	t.Helper()
	var res client.Result
	if r.code != wantExit || json.Unmarshal([]byte(r.stdout), &res) != nil {
		t.Fatalf("relchain: exit %d, want %d\nstdout: %s\nstderr: %s", r.code, wantExit, r.stdout, r.stderr)
	}
	return &res
}
