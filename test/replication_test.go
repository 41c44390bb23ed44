package e2e

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/relchain/relchain/client"
	"github.com/relchain/relchain/txn"
)

// TestNetworkReplicatesWrites runs testNetworkReplicatesWrites on every
// backend, the networks beside each other (runBesideOtherNetworks). On
// MySQL the CREATE TABLE is alone in its block (committed before the
// writers start), as the MySQL backend requires of DDL.
func TestNetworkReplicatesWrites(t *testing.T) {
	onBackends(t, nil, testNetworkReplicatesWrites)
}

// testNetworkReplicatesWrites sends 400 single-row writes in commit mode
// from 8 clients spread over all 4 nodes; every write must be applied, and
// afterwards every node must hold the same rows and AppHash at the same
// height.
func testNetworkReplicatesWrites(t *testing.T, backend string) {
	runBesideOtherNetworks(t)
	const (
		writers = 8
		writes  = 400
	)
	c := mustStartCluster(t, clusterOptions{backend: backend})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()

	c.mustExec(ctx, 0, stmt(`CREATE TABLE kv (
		writer INTEGER NOT NULL,
		seq    INTEGER NOT NULL,
		node   INTEGER NOT NULL,
		val    TEXT NOT NULL,
		PRIMARY KEY (writer, seq))`))
	insert := fmt.Sprintf("INSERT INTO kv (writer, seq, node, val) VALUES (%s, %s, %s, %s)", c.ph(1), c.ph(2), c.ph(3), c.ph(4))

	var (
		next     atomic.Int64 // writes handed out so far
		mu       sync.Mutex
		failures []string
		written  = make([][]int64, writers) // seqs each writer wrote
		wg       sync.WaitGroup
	)
	for w := 0; w < writers; w++ {
		node := w % validators
		cl := c.client(node, newKey(t))
		wg.Add(1)
		go func() {
			defer wg.Done()
			for seq := int64(1); next.Add(1) <= writes; seq++ {
				res, err := cl.Exec(ctx, client.ModeCommit, stmt(insert,
					txn.Int(int64(w)), txn.Int(seq), txn.Int(int64(node)), txn.Text(value(w, seq))))
				if err == nil {
					err = res.Err()
				}
				mu.Lock()
				if err != nil {
					failures = append(failures, fmt.Sprintf("writer %d seq %d via %s: %v", w, seq, c.nodes[node].Name, err))
				} else {
					written[w] = append(written[w], seq)
				}
				mu.Unlock()
				if ctx.Err() != nil {
					return
				}
			}
		}()
	}
	wg.Wait()
	if len(failures) > 0 {
		t.Fatalf("%d of %d writes were not applied; first: %v", len(failures), writes, failures[:min(5, len(failures))])
	}

	const q = "SELECT writer, seq, node, val FROM kv ORDER BY writer, seq"
	h, rows := c.consistentRead(ctx, q)
	c.requireSameRows(h, q, rows[0])
	got := rows[0][0]
	if len(got) != writes {
		t.Fatalf("at height %d the nodes hold %d rows, want %d", h, len(got), writes)
	}
	// The rows are exactly the acknowledged writes, in (writer, seq) order.
	k := 0
	for w, seqs := range written {
		for _, seq := range seqs {
			r := got[k]
			if asInt(t, r[0]) != int64(w) || asInt(t, r[1]) != seq || asInt(t, r[2]) != int64(w%validators) || r[3] != value(w, seq) {
				t.Fatalf("row %d is %v, want writer %d seq %d node %d val %q", k, r, w, seq, w%validators, value(w, seq))
			}
			k++
		}
	}
	t.Logf("%d writes from %d clients; all %d nodes agree at height %d", writes, writers, validators, h)
}

func value(writer int, seq int64) string { return fmt.Sprintf("w%d-s%d-ünïcødé", writer, seq) }
