package e2e

import (
	"context"
	"crypto/ed25519"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/client"
	"github.com/relchain/relchain/sqlcheck/sqlchecktest"
	"github.com/relchain/relchain/txn"
)

// corpusPaths are the dialects' gate corpora as their unit tests export
// them (kept in step with the Go tables by TestCorpusFileIsCurrent in each
// dialect's package).
var corpusPaths = map[string]string{
	"sqlite":   "../backend/sqlite/testdata/gate_corpus.json",
	"postgres": "../backend/postgres/pggate/testdata/corpus.json",
	"mysql":    "../backend/mysql/mysqlgate/testdata/corpus.json",
}

func loadCorpus(t *testing.T, dialect string) sqlchecktest.Corpus {
	t.Helper()
	c, err := sqlchecktest.Load(corpusPaths[dialect])
	if err != nil {
		t.Fatalf("the %s gate corpus: %v", dialect, err)
	}
	if c.Dialect != dialect || len(c.Entries) < 100 {
		t.Fatalf("%s: dialect %q with %d entries; want %q and a real corpus", corpusPaths[dialect], c.Dialect, len(c.Entries), dialect)
	}
	return c
}

func TestGateRefusesCorpusOverRPC(t *testing.T) { onBackends(t, nil, testGateRefusesCorpusOverRPC) }

// testGateRefusesCorpusOverRPC sends every statement the dialect's corpus
// refuses, each in its own signed tx, to the nodes of a 4-validator
// network in turn: each must be refused at CheckTx with the refusal's code
// and a log naming the construct, and the network must keep committing.
func testGateRefusesCorpusOverRPC(t *testing.T, backend string) {
	runBesideOtherNetworks(t)
	corpus := loadCorpus(t, backend)
	c := mustStartCluster(t, clusterOptions{backend: backend})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	for _, s := range corpus.Schema {
		c.mustExec(ctx, 0, stmt(s))
	}
	key := newKey(t)
	var nonce uint64
	refused := 0
	for i, e := range corpus.Entries {
		var want uint32
		switch e.Verdict {
		case sqlchecktest.Reject:
			want = api.CodeForbidden
		case sqlchecktest.Syntax:
			want = api.CodeSyntax
		default:
			continue
		}
		nonce++
		tx := &txn.Tx{ChainID: c.chainID, Nonce: nonce, Statements: []txn.Statement{stmt(e.SQL)}}
		tx.Sign(key)
		res, err := c.client(i%validators, nil).RPC().BroadcastTxSync(ctx, txn.Encode(tx))
		if err != nil {
			t.Fatalf("entry %d %q: broadcast_tx_sync: %v", i, e.SQL, err)
		}
		if res.Code != want || !strings.Contains(res.Log, e.Reason) {
			t.Errorf("entry %d %q: code %s log %q; want code %s naming %q", i, e.SQL, codeName(res.Code), res.Log, codeName(want), e.Reason)
		}
		refused++
	}
	t.Logf("%d refused statements of the %s corpus were refused over RPC", refused, backend)
	if refused < 50 {
		t.Fatalf("only %d refused entries in the corpus", refused)
	}
	// The network is unharmed: it still commits, and every node agrees.
	c.mustExec(ctx, 3, stmt("CREATE TABLE after_corpus (id INTEGER PRIMARY KEY)"))
	c.mustExec(ctx, 1, stmt("INSERT INTO after_corpus (id) VALUES (1)"))
	h, rows := c.consistentRead(ctx, "SELECT count(*) FROM after_corpus")
	c.requireSameRows(h, "after_corpus", rows[0])
}

func TestByzantineProposerBlockFailsAlike(t *testing.T) {
	onBackends(t, notOn{"mysql": "the refusals in a block are the application's, the same on every backend " +
		"(the gate's among them, whose MySQL corpus TestGateRefusesCorpusOverRPC/mysql sends); " +
		"a file and a server backend run it"}, testByzantineProposerBlockFailsAlike)
}

// testByzantineProposerBlockFailsAlike makes node0 a byzantine proposer:
// its proposals carry txs that CheckTx refuses (malformed, forged, wrong
// chain, replayed, refused by the gate, unauthorized, an argument
// missing). Every node must
// execute that block, fail exactly those txs with the same codes, apply
// the valid one, agree on the AppHash and keep running.
func testByzantineProposerBlockFailsAlike(t *testing.T, backend string) {
	corpus := loadCorpus(t, backend)
	injectDir := t.TempDir()
	c := mustStartCluster(t, clusterOptions{backend: backend, permissioned: true, testHooks: true,
		nodeArgs: [][]string{{"--unsafe-inject-dir", injectDir}}})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	for _, s := range corpus.Schema {
		c.mustExec(ctx, 0, stmt(s))
	}
	c.mustExec(ctx, 0, stmt("CREATE TABLE byz (id INTEGER PRIMARY KEY, v TEXT)"))
	user := newKey(t)
	c.mustExecEverywhere(ctx, 1, stmt(api.SystemGrant, txn.Bytes(user.Public().(ed25519.PublicKey)), txn.Text("byz")))

	var nonce uint64
	sign := func(chainID string, stmts ...txn.Statement) []byte {
		nonce++
		tx := &txn.Tx{ChainID: chainID, Nonce: nonce, Statements: stmts}
		tx.Sign(user)
		return txn.Encode(tx)
	}
	committed := sign(c.chainID, stmt("INSERT INTO byz (id, v) VALUES (1, 'committed')"))
	first, err := c.client(2, nil).Broadcast(ctx, client.ModeCommit, committed)
	if err != nil || !first.OK() {
		t.Fatalf("the user's first insert: %v %+v", err, first)
	}
	forged := sign(c.chainID, stmt("INSERT INTO byz (id, v) VALUES (2, 'forged')"))
	forged[len(forged)-1] ^= 1
	type injected struct {
		name string
		raw  []byte
		code uint32
	}
	txs := []injected{
		{"malformed", []byte("not an envelope"), api.CodeMalformed},
		{"forged signature", forged, api.CodeBadSignature},
		{"wrong chain", sign("other-chain", stmt("INSERT INTO byz (id, v) VALUES (3, 'x')")), api.CodeWrongChain},
		{"replayed", committed, api.CodeReplayed},
		{"not granted", sign(c.chainID, stmt("CREATE TABLE mine (id INTEGER PRIMARY KEY)")), api.CodeUnauthorized},
		{"valid", sign(c.chainID, stmt("INSERT INTO byz (id, v) VALUES (4, 'valid')")), api.CodeOK},
		{"argument missing", sign(c.chainID, stmt("INSERT INTO byz (id, v) VALUES (5, "+c.ph(1)+")")), api.CodeSyntax},
	}
	gated := 0
	for _, e := range corpus.Entries {
		if e.Verdict == sqlchecktest.Reject && gated < 5 {
			// The gate judges a statement before its target tables are
			// authorized: these fail with the gate's code.
			txs = append(txs, injected{"gate: " + e.SQL, sign(c.chainID, stmt(e.SQL)), api.CodeForbidden})
			gated++
		}
	}
	for i, tx := range txs {
		tmp := filepath.Join(injectDir, fmt.Sprintf("%03d.tmp", i))
		if err := os.WriteFile(tmp, tx.raw, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, strings.TrimSuffix(tmp, ".tmp")+".tx"); err != nil {
			t.Fatal(err)
		}
	}
	// Blocks are only made when there are txs: keep the chain moving with
	// valid writes until node0 has proposed the injected txs.
	filler := newKey(t)
	c.mustExecEverywhere(ctx, 0, stmt(api.SystemGrant, txn.Bytes(filler.Public().(ed25519.PublicKey)), txn.Text("byz")))
	for n := 100; ; n++ {
		left, _ := filepath.Glob(filepath.Join(injectDir, "*.tx"))
		if len(left) == 0 {
			break
		}
		if _, err := c.client(n%validators, filler).Exec(ctx, client.ModeCommit, stmt(fmt.Sprintf("INSERT INTO byz (id, v) VALUES (%d, 'filler')", n))); err != nil {
			t.Fatalf("filler tx: %v", err)
		}
		if ctx.Err() != nil {
			t.Fatal("node0 never proposed the injected txs")
		}
	}
	// Every node recorded the same outcome for every injected tx, in the
	// same block. (node0 usually proposes them all in one block, but it may
	// propose while the test is still writing the files.)
	injectedIn := make(map[int64]bool)
	for _, tx := range txs {
		var height int64
		for i := range c.nodes {
			var r *struct {
				Height int64
				Code   uint32
				Log    string
			}
			if err := waitFor(ctx, "injected tx indexed", func() bool {
				res, err := c.client(i, nil).RPC().Tx(ctx, txn.Hash(tx.raw), false)
				if err != nil {
					return false
				}
				r = &struct {
					Height int64
					Code   uint32
					Log    string
				}{res.Height, res.TxResult.Code, res.TxResult.Log}
				return true
			}); err != nil {
				// The replayed tx has the same hash as the committed one:
				// the index holds the first; it is checked below by height.
				t.Fatalf("%s on %s: %v", tx.name, c.nodes[i].Name, err)
			}
			if tx.name == "replayed" {
				continue
			}
			if r.Code != tx.code {
				t.Errorf("%s on %s: code %s (%s), want %s", tx.name, c.nodes[i].Name, codeName(r.Code), r.Log, codeName(tx.code))
			}
			if height == 0 {
				height = r.Height
				injectedIn[height] = true
			}
			if r.Height != height {
				t.Errorf("%s on %s: in block %d, on %s in %d", tx.name, c.nodes[i].Name, r.Height, c.nodes[0].Name, height)
			}
		}
	}
	// The injected blocks' results, as every node recorded them.
	foundReplay := false
	for height := range injectedIn {
		var want []uint32
		for i := range c.nodes {
			br, err := c.client(i, nil).RPC().BlockResults(ctx, &height)
			if err != nil {
				t.Fatalf("block_results %d on %s: %v", height, c.nodes[i].Name, err)
			}
			var got []uint32
			for _, r := range br.TxsResults {
				got = append(got, r.Code)
			}
			if want == nil {
				want = got
			} else if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("block %d results on %s: %v, on %s: %v", height, c.nodes[i].Name, got, c.nodes[0].Name, want)
			}
		}
		t.Logf("block %d from the byzantine proposer: result codes %v", height, want)
		for _, code := range want {
			if code == api.CodeReplayed {
				foundReplay = true
			}
		}
	}
	if !foundReplay {
		t.Errorf("the replayed tx is in none of the injected blocks %v as a replay", injectedIn)
	}
	// Every node keeps running, commits further blocks and agrees.
	c.mustExec(ctx, 2, stmt("INSERT INTO byz (id, v) VALUES (99, 'after')"))
	h, rows := c.consistentRead(ctx, "SELECT id, v FROM byz WHERE v <> 'filler' ORDER BY id")
	c.requireSameRows(h, "byz", rows[0])
	if got := fmt.Sprint(rows[0][0]); got != "[[1 committed] [4 valid] [99 after]]" {
		t.Errorf("rows = %s, want the committed, valid and later inserts only", got)
	}
	for i := range c.nodes {
		if !c.net.Running(i) {
			t.Errorf("%s stopped", c.nodes[i].Name)
		}
	}
	// The replayed inclusion hides nothing: a resubmission of the
	// committed tx answers its first, committed outcome on every node.
	for i := range c.nodes {
		res, err := c.client(i, nil).Broadcast(ctx, client.ModeSync, committed)
		if err != nil || res.Code != api.CodeOK || res.Height != first.Height {
			t.Errorf("resubmitting the committed tx to %s after its replay in a block: %+v %v; want code 0 at height %d", c.nodes[i].Name, res, err, first.Height)
		}
	}
}
