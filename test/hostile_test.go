package e2e

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/client"
	"github.com/relchain/relchain/txn"
)

// genesisMaxTxBytes is lowered below CometBFT's own limits (RPC body and
// mempool max_tx_bytes, about 1 MB each) so that the application's check
// (code too_large) can be reached at all.
const genesisMaxTxBytes = 256 << 10

// TestHostileInputIsRejected submits malformed, forged, oversized and
// invalid transactions over RPC and through the CLI. Each must be rejected
// with its own code and a message naming the problem, and the network must
// keep running and committing afterwards.
func TestHostileInputIsRejected(t *testing.T) {
	runBesideOtherNetworks(t)
	c := mustStartCluster(t, clusterOptions{maxTxBytes: genesisMaxTxBytes})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	c.mustExec(ctx, 0, stmt("CREATE TABLE t (a INTEGER NOT NULL, b TEXT)"))
	rpc := c.client(1, nil).RPC()
	key := newKey(t)

	// sign builds a signed envelope for chainID with the key's next nonce.
	var nonce uint64
	sign := func(chainID string, stmts ...txn.Statement) []byte {
		nonce++
		tx := &txn.Tx{ChainID: chainID, Nonce: nonce, Statements: stmts}
		tx.Sign(key)
		return txn.Encode(tx)
	}
	valid := func() []byte {
		return sign(c.chainID, stmt("INSERT INTO t (a, b) VALUES (?1, ?2)", txn.Int(1), txn.Text("x")))
	}

	randomBytes := make([]byte, 300)
	_, _ = rand.Read(randomBytes)
	randomBytes[0] = 0xFF // never the envelope's magic
	flipped := valid()
	flipped[len(flipped)-1] ^= 0x01 // the signature is the last field
	truncated := valid()
	truncated = truncated[:len(truncated)-20]
	big := sign(c.chainID, stmt("INSERT INTO t (a, b) VALUES (?1, ?2)", txn.Int(1), txn.Text(strings.Repeat("x", genesisMaxTxBytes+1000))))

	// Rejected by CheckTx: never enter a block.
	for _, tc := range []struct {
		name string
		raw  []byte
		code uint32
		want []string // each must appear in the log
	}{
		{"random bytes", randomBytes, api.CodeMalformed, []string{"malformed", "not a relchain transaction"}},
		{"truncated envelope", truncated, api.CodeMalformed, []string{"malformed"}},
		{"flipped signature byte", flipped, api.CodeBadSignature, []string{"signature does not match"}},
		{"wrong chain id", sign("not-"+c.chainID, stmt("SELECT 1")), api.CodeWrongChain, []string{"not-" + c.chainID, c.chainID}},
		{"over genesis max_tx_bytes", big, api.CodeTooLarge, []string{"max_tx_bytes", fmt.Sprint(genesisMaxTxBytes)}},
		{"no statements", sign(c.chainID), api.CodeNoStatements, []string{"no statements"}},
		{"invalid SQL", sign(c.chainID, stmt("SELEC 1")), api.CodeSyntax, []string{"statement 1", "syntax error"}},
		{"two statements in one entry", sign(c.chainID, stmt("SELECT 1; SELECT 2")), api.CodeSyntax, []string{"statement 1", "more than one statement"}},
		{"second statement invalid", sign(c.chainID, stmt("SELECT 1"), stmt("INSERT INTO t VALUES (")), api.CodeSyntax, []string{"statement 2"}},
		{"too few arguments", sign(c.chainID, stmt("INSERT INTO t (a, b) VALUES (?1, ?2)", txn.Int(1))), api.CodeSyntax, []string{"statement 1 has 2 placeholders but 1 argument was given"}},
		{"too many arguments", sign(c.chainID, stmt("SELECT 1"), stmt("INSERT INTO t (a) VALUES (?1)", txn.Int(1), txn.Int(2))), api.CodeSyntax, []string{"statement 2 has 1 placeholder but 2 arguments were given"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := rpc.BroadcastTxSync(ctx, tc.raw)
			if err != nil {
				t.Fatalf("broadcast_tx_sync: %v", err)
			}
			if res.Code != tc.code {
				t.Fatalf("code %s, want %s; log: %s", codeName(res.Code), codeName(tc.code), res.Log)
			}
			for _, w := range tc.want {
				if !strings.Contains(res.Log, w) {
					t.Errorf("log %q does not mention %q", res.Log, w)
				}
			}
			t.Logf("code %s: %s", codeName(res.Code), res.Log)
		})
	}

	// Larger than CometBFT accepts at all (RPC request body and mempool
	// max_tx_bytes): a clear RPC error, or a relchain code if it gets through.
	t.Run("over the RPC and mempool limits", func(t *testing.T) {
		huge := sign(c.chainID, stmt("INSERT INTO t (a, b) VALUES (?1, ?2)", txn.Int(1), txn.Text(strings.Repeat("x", 2<<20))))
		res, err := rpc.BroadcastTxSync(ctx, huge)
		switch {
		case err != nil:
			msg := strings.ToLower(err.Error())
			if !strings.Contains(msg, "too large") {
				t.Fatalf("a %d-byte tx was rejected with %q, which does not say it is too large", len(huge), err)
			}
			t.Logf("rejected: %v", err)
		case res.Code == api.CodeTooLarge:
			t.Logf("code %s: %s", codeName(res.Code), res.Log)
		default:
			t.Fatalf("a %d-byte tx got code %s (%s), want a rejection as too large", len(huge), codeName(res.Code), res.Log)
		}
	})

	// Pass CheckTx, fail in the block: the tx is rolled back alone.
	for _, tc := range []struct {
		name  string
		raw   []byte
		class string
		want  []string
	}{
		{"missing table", sign(c.chainID, stmt("INSERT INTO missing_table (a) VALUES (1)")), "undefined", []string{"statement 1", "no such table", "missing_table"}},
		{"second statement fails", sign(c.chainID, stmt("INSERT INTO t (a) VALUES (7)"), stmt("INSERT INTO t (a) VALUES (NULL)")), "constraint", []string{"statement 2", "NOT NULL"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := rpc.BroadcastTxCommit(ctx, tc.raw)
			if err != nil {
				t.Fatalf("broadcast_tx_commit: %v", err)
			}
			if r.CheckTx.Code != api.CodeOK {
				t.Fatalf("CheckTx rejected it with code %s (%s); it should only fail in the block", codeName(r.CheckTx.Code), r.CheckTx.Log)
			}
			res := client.ExecResult("", r.Height, &r.TxResult)
			if res.Code != api.CodeExecFailed {
				t.Fatalf("code %s, want %s; log: %s", codeName(res.Code), codeName(api.CodeExecFailed), res.Error)
			}
			if res.Failure == nil || res.Failure.Class != tc.class {
				t.Errorf("failure %+v, want class %q", res.Failure, tc.class)
			}
			for _, w := range tc.want {
				if !strings.Contains(res.Error, w) {
					t.Errorf("log %q does not mention %q", res.Error, w)
				}
			}
			t.Logf("height %d code %s %+v: %s", res.Height, codeName(res.Code), res.Failure, res.Error)
		})
	}

	// Nothing of the failed txs was applied.
	_, rows := c.consistentRead(ctx, "SELECT count(*) FROM t")
	if n := asInt(t, rows[0][0][0][0]); n != 0 {
		t.Fatalf("table t has %d rows after only failed writes, want 0", n)
	}

	testHostileInputThroughCLI(t, c)

	// Every node still runs, and the chain still commits through each.
	for i := range c.nodes {
		if !c.net.Running(i) {
			t.Fatalf("%s is no longer running", c.nodes[i].Name)
		}
	}
	for i := range c.nodes {
		res, err := c.client(i, newKey(t)).Exec(ctx, client.ModeCommit, stmt("INSERT INTO t (a, b) VALUES (?1, ?2)", txn.Int(int64(i)), txn.Text("after")))
		if err == nil {
			err = res.Err()
		}
		if err != nil {
			t.Fatalf("a normal write through %s failed after the hostile input: %v", c.nodes[i].Name, err)
		}
	}
	const q = "SELECT a, b FROM t ORDER BY a"
	h, rows := c.consistentRead(ctx, q)
	c.requireSameRows(h, q, rows[0])
	if len(rows[0][0]) != validators {
		t.Fatalf("at height %d t has rows %v, want one per node", h, rows[0][0])
	}
}

// testHostileInputThroughCLI runs bad requests through `relchain exec` and
// `relchain query`: each must exit non-zero with a helpful message.
func testHostileInputThroughCLI(t *testing.T, c *cluster) {
	home := t.TempDir()
	node := c.nodes[2].RPC
	for _, tc := range []struct {
		name string
		args []string
		want []string // each must appear in stderr
	}{
		{"invalid SQL", []string{"exec", "--node", node, "SELEC 1"}, []string{"syntax", "SELEC"}},
		{"two statements", []string{"exec", "--node", node, "SELECT 1; SELECT 2"}, []string{"more than one statement"}},
		{"missing table", []string{"exec", "--node", node, "INSERT INTO missing_table (a) VALUES (1)"}, []string{"exec_failed", "no such table: missing_table"}},
		{"wrong number of arguments", []string{"exec", "--node", node, "INSERT INTO t (a, b) VALUES (?1, ?2)", "1"}, []string{"has 2 placeholders but 1 argument was given", "nothing was sent"}},
		{"bad typed argument", []string{"exec", "--node", node, "INSERT INTO t (a) VALUES (?1)", "int:twelve"}, []string{"int:twelve", "not a 64-bit integer"}},
		{"unknown mode", []string{"exec", "--node", node, "--mode", "fast", "SELECT 1"}, []string{"unknown mode", "commit, sync or async"}},
		{"query of a missing table", []string{"query", "--node", node, "SELECT * FROM missing_table"}, []string{"query_failed", "no such table"}},
		{"node not running", []string{"exec", "--node", "http://127.0.0.1:1", "--timeout", "5s", "SELECT 1"}, []string{"127.0.0.1:1", "is the node running?"}},
	} {
		t.Run("cli "+tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			args := tc.args
			if args[0] == "exec" {
				args = append(args, "--home", home) // the signing key
			}
			cmd := exec.CommandContext(ctx, relchainBin, args...)
			cmd.Env = append(os.Environ(), "RELCHAIN_HOME="+filepath.Join(home, "unused"))
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			var exitErr *exec.ExitError
			if !errors.As(err, &exitErr) || exitErr.ExitCode() == 0 {
				t.Fatalf("relchain %s: got %v, want a non-zero exit status\nstdout: %s\nstderr: %s", strings.Join(tc.args, " "), err, &stdout, &stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr.String(), w) {
					t.Errorf("stderr %q does not mention %q", stderr.String(), w)
				}
			}
			t.Logf("exit %d: %s", exitErr.ExitCode(), strings.TrimSpace(stderr.String()))
		})
	}
}
