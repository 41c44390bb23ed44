package e2e

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/client/proof"
	"github.com/relchain/relchain/rowcanon"
)

// TestKillDuringAuthenticatedStateUpdateHeals kills (as kill -9) a
// validator while a block updates its authenticated state (issue 36): once
// after the trees were updated in memory and before anything of the block
// committed, once after the block committed in the database and before
// the executor's memory (the trees) adopted it. Started again as it was,
// the node must rebuild its trees from the rows, find them matching the
// AppHash its database records (no start-check failure), follow the chain
// with the others' AppHash, serve a proof that verifies against the
// header, and pass relchain verify. On SQLite (PostgreSQL's SQL) and on
// PostgreSQL.
func TestKillDuringAuthenticatedStateUpdateHeals(t *testing.T) {
	for _, o := range []clusterOptions{{dialect: "postgres"}, {backend: "postgres"}} {
		name := o.backend
		if name == "" {
			name = "sqlite"
		}
		t.Run(name, func(t *testing.T) {
			o.testHooks = true
			c := mustStartCluster(t, o)
			ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
			defer cancel()
			c.mustExecEverywhere(ctx, 0, stmt("CREATE TABLE acct (id INTEGER PRIMARY KEY, bal INTEGER NOT NULL)"),
				stmt("INSERT INTO acct SELECT i, i FROM generate_series(1, 200) AS s(i)"))
			for _, point := range []string{"authstate-sealed", "block-committed"} {
				c.killAtAndRestart(ctx, 3, point, "UPDATE acct SET bal = bal + 1 WHERE id = 7")
			}
			c.mustExecEverywhere(ctx, 0, stmt("UPDATE acct SET bal = bal * 2 WHERE id <= 50"))
			c.mustSettle(ctx)
			for i := range c.nodes {
				c.mustProve(ctx, i, "acct", 7)
			}
			if err := c.net.Stop(3); err != nil {
				t.Fatal(err)
			}
			c.mustVerify(3, true, "")
		})
	}
}

// killAtAndRestart restarts node i so that it dies at crash point point,
// writes (on another node) until it has, and starts it again as it was: it
// must catch up with the others, and its log must not report a database
// that fails to reproduce its AppHash.
func (c *cluster) killAtAndRestart(ctx context.Context, i int, point, sql string) {
	c.t.Helper()
	if err := c.net.Stop(i); err != nil {
		c.t.Fatal(err)
	}
	for len(c.net.NodeEnv) <= i {
		c.net.NodeEnv = append(c.net.NodeEnv, nil)
	}
	c.net.NodeEnv[i] = []string{"RELCHAIN_UNSAFE_CRASH_AT=" + point}
	if err := c.net.Start(i); err != nil {
		c.t.Fatal(err)
	}
	stop := keepWriting(ctx, c.t, c, sql)
	err := waitFor(ctx, c.nodes[i].Name+" to die at "+point, func() bool { return !c.net.Running(i) })
	stop()
	if err != nil {
		c.t.Fatal(err)
	}
	c.net.NodeEnv[i] = nil
	if err := c.net.Start(i); err != nil {
		c.t.Fatal(err)
	}
	c.mustExecEverywhere(ctx, 0, stmt(sql))
	log, err := os.ReadFile(c.net.LogFile(i))
	if err != nil {
		c.t.Fatal(err)
	}
	if strings.Contains(string(log), "does not reproduce its AppHash") {
		c.t.Fatalf("%s killed at %s restarted with trees that do not match its AppHash:\n%s", c.nodes[i].Name, point, tail(log, 3000))
	}
}

// mustProve asks node i for a proof of table's row with integer key id at
// its latest height and verifies it against the AppHash in the headers.
func (c *cluster) mustProve(ctx context.Context, i int, table string, id int64) {
	c.t.Helper()
	key, err := rowcanon.EncodeKey([]rowcanon.Value{rowcanon.Int(id)})
	if err != nil {
		c.t.Fatal(err)
	}
	req := api.ProofRequest{Table: table, Key: key}
	data, err := json.Marshal(req)
	if err != nil {
		c.t.Fatal(err)
	}
	rpc := c.client(i, nil).RPC()
	q, err := rpc.ABCIQuery(ctx, api.ProofPath, data)
	if err != nil || q.Response.Code != 0 {
		c.t.Fatalf("proof from %s: %v %s", c.nodes[i].Name, err, q.Response.Log)
	}
	var resp api.ProofResponse
	if err := json.Unmarshal(q.Response.Value, &resp); err != nil {
		c.t.Fatal(err)
	}
	// Block H's AppHash is in header H+1, which CometBFT makes soon after
	// a block that changed it; after one that did not, header H (which
	// carries H-1's AppHash) holds it too.
	hdr, err := rpc.Header(ctx, &resp.Height)
	for next, deadline := resp.Height+1, time.Now().Add(5*time.Second); err == nil && time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if h1, err1 := rpc.Header(ctx, &next); err1 == nil {
			hdr = h1
			break
		}
	}
	if err != nil {
		c.t.Fatalf("header %d: %v", resp.Height, err)
	}
	res, err := proof.Verify(req, resp, hdr.Header.AppHash)
	if err != nil || len(res.Rows) != 1 {
		c.t.Fatalf("%s's proof of %s %d at height %d: %v (%d rows)", c.nodes[i].Name, table, id, resp.Height, err, len(res.Rows))
	}
}
