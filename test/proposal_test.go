package e2e

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/client"
	"github.com/relchain/relchain/txn"
)

// slowTxTimeout is the tx timeout the test gives its nodes: long enough
// that its ordinary txs (a CREATE TABLE, single-row INSERTs) fit on a
// loaded machine (at 150 ms a CI run quarantined the CREATE TABLE),
// shorter than slowStatements.
const slowTxTimeout = 500 * time.Millisecond

// slowStatements admit the gate but need about a second of work on an
// idle machine: twice slowTxTimeout, more on a loaded one. To make one
// slower, give it more work per row, not more rows: PostgreSQL's gate
// refuses a generate_series of more than 1,000,000 rows at CheckTx (code
// 7), and a tx refused there never runs, so it is never quarantined.
var slowStatements = map[string]string{
	"sqlite":   "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 2000000) SELECT count(*) FROM c",
	"postgres": "SELECT count(DISTINCT md5(md5(a::text))) FROM generate_series(1, 1000000) a",
}

func TestTxBeyondTheTxTimeoutIsLeftOutAndTheNetworkGoesOn(t *testing.T) {
	onBackends(t, notOn{"mysql": "slowStatements has no statement MySQL's gate admits that runs about a second " +
		"(it refuses WITH RECURSIVE, SLEEP and BENCHMARK); the quarantine is the node's, the same on every backend"},
		testSlowTxLeftOut)
}

// testSlowTxLeftOut is issue 14's halting statement in general form: a tx
// the gate admits whose execution exceeds a node-local limit used to stop
// every validator at its block, for good (a restart replays the block).
// Now every validator votes against the proposal that holds it and
// quarantines it; the next proposer leaves it out and the network keeps
// committing, every node equal.
func testSlowTxLeftOut(t *testing.T, backend string) {
	c := mustStartCluster(t, clusterOptions{backend: backend, txTimeout: slowTxTimeout})
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	c.mustExec(ctx, 0, stmt("CREATE TABLE kv (k BIGINT PRIMARY KEY, v BIGINT NOT NULL)"))
	slowClient := c.client(1, c.admin)
	raw, err := slowClient.Sign(ctx, []txn.Statement{stmt(slowStatements[backend])})
	if err != nil {
		t.Fatal(err)
	}
	// Its sender waits in commit mode: the wait ends with ErrQuarantined
	// once the node has quarantined the tx, instead of running into the
	// context's deadline (a benchmark's setup hung for minutes on a tx
	// its MariaDB validators could not run within tx_timeout).
	waited := make(chan error, 1)
	go func() {
		wctx, wcancel := context.WithTimeout(ctx, 90*time.Second)
		defer wcancel()
		res, err := slowClient.Broadcast(wctx, client.ModeCommit, raw)
		if err == nil {
			err = fmt.Errorf("commit-mode wait returned a result: %+v", res)
		}
		waited <- err
	}()
	// A Stream on another node learns it too, instead of after
	// MaxBlocks blocks.
	sctx, scancel := context.WithTimeout(ctx, 90*time.Second)
	defer scancel()
	stream, err := c.client(2, nil).Stream(sctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := stream.SubmitRaw(sctx, "slow", raw); err != nil {
		t.Fatal(err)
	}
	for i := int64(1); i <= 5; i++ {
		c.mustExec(ctx, int(i)%validators, stmt(fmt.Sprintf("INSERT INTO kv (k, v) VALUES (%d, %d)", i, i)))
	}
	var never error
	if err := waitFor(ctx, "every validator to quarantine the slow tx", func() bool {
		var done bool
		done, never = c.quarantinedEverywhere(ctx, raw)
		return done || never != nil
	}); err != nil {
		t.Fatal(err)
	}
	if never != nil {
		t.Fatal(never)
	}
	if _, err := c.client(0, nil).RPC().Tx(ctx, txn.Hash(raw), false); err == nil {
		t.Errorf("the slow tx %X was committed; every node should have left it out", txn.Hash(raw))
	}
	if err := <-waited; !errors.Is(err, client.ErrQuarantined) {
		t.Errorf("the sender's commit-mode wait ended with %v; want an error wrapping client.ErrQuarantined", err)
	}
	if o := <-stream.Results(); !errors.Is(o.Err, client.ErrQuarantined) {
		t.Errorf("the stream's outcome for the slow tx: %+v, err %v; want an error wrapping client.ErrQuarantined", o, o.Err)
	}
	stream.Close()
	// Still committing after every node quarantined it.
	c.mustExec(ctx, 2, stmt("INSERT INTO kv (k, v) VALUES (6, 6)"))
	h, rows := c.consistentRead(ctx, "SELECT k, v FROM kv ORDER BY k")
	c.requireSameRows(h, "kv", rows[0])
	if n := len(rows[0][0]); n != 6 {
		t.Errorf("kv holds %d rows at height %d; want the 6 written", n, h)
	}
}

// quarantinedEverywhere reports whether every node refuses raw at CheckTx
// as quarantined. A node that still holds raw in its mempool answers that
// it has it (code 0): not yet. Any other answer means raw will never be
// quarantined (the gate refused it at CheckTx, so it never ran; or it was
// committed) and is returned as an error: waiting for it would only run
// into the test's deadline, in a network that has nothing to commit
// (create_empty_blocks is off) and so looks stalled.
func (c *cluster) quarantinedEverywhere(ctx context.Context, raw []byte) (bool, error) {
	for i := range c.nodes {
		res, err := c.client(i, nil).Broadcast(ctx, client.ModeSync, raw)
		switch {
		case err != nil || res.Code == api.CodeOK && res.Height == 0:
			return false, nil
		case res.Code != api.CodeQuarantined:
			return false, fmt.Errorf("node %d answers the slow tx %X with code %s at height %d (%s), so it will never be quarantined: the slow statement must pass the gate and must not commit",
				i, txn.Hash(raw), codeName(res.Code), res.Height, res.Error)
		}
	}
	return true, nil
}
