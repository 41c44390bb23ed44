package e2e

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/relchain/relchain/client"
	"github.com/relchain/relchain/keyring"
	"github.com/relchain/relchain/txn"
)

// The in-node listener's signer recovers when another process signs with
// its user's key (issue 33: after one `relchain exec` with the listener's
// key, every later write through the listener failed with "nonce … is too
// old: this key has executed nonce …" for as long as the node ran). Each
// write through the listener, autocommit and in a transaction, then
// succeeds exactly once.
func TestGatewaySignerRecoversFromAnotherProcessOfItsKey(t *testing.T) {
	runBesideOtherNetworks(t)
	c := mustStartCluster(t, clusterOptions{pg: true})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, c.pgURL(0, "alice"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	mustPgxExec(t, conn, `CREATE TABLE signed (id INTEGER PRIMARY KEY, who TEXT)`)

	// Another process of alice's key: its counter runs ahead of the
	// listener's, and the key executes its nonce.
	key, err := keyring.Dir(filepath.Join(c.dir, "pg-keys")).Load("alice")
	if err != nil {
		t.Fatal(err)
	}
	other, err := c.net.Client(1, key.Private)
	if err != nil {
		t.Fatal(err)
	}
	advance := func(id int) {
		t.Helper()
		floor := uint64(time.Now().UnixNano()) + 1_000_000_000
		other.AdvanceNonce(floor)
		res, err := other.Exec(ctx, client.ModeCommit, txn.Statement{SQL: fmt.Sprintf(`INSERT INTO signed (id, who) VALUES (%d, 'cli')`, id)})
		if err != nil || !res.OK() {
			t.Fatalf("write with alice's key from another client: %+v, %v", res, err)
		}
		// The node reports the key's executed nonce (what a fresh signer
		// starts above).
		if n, err := other.KeyExecutedNonce(ctx); err != nil || n <= floor {
			t.Fatalf("the key's executed nonce: %d, %v; want above %d", n, err, floor)
		}
	}

	advance(1)
	if tag := mustPgxExec(t, conn, `INSERT INTO signed (id, who) VALUES (2, 'listener')`); tag.String() != "INSERT 0 1" {
		t.Fatalf("autocommit insert through the listener: tag %q", tag)
	}
	advance(3)
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `INSERT INTO signed (id, who) VALUES (4, 'listener')`); err != nil {
		t.Fatalf("insert in a transaction: %v", err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatalf("commit through the listener after another process advanced the key: %v", err)
	}
	advance(5)
	if tag := mustPgxExec(t, conn, `UPDATE signed SET who = who || '+' WHERE id IN (2, 4)`); tag.String() != "UPDATE 2" {
		t.Fatalf("update through the listener: tag %q", tag)
	}

	// Exactly once: every write is there, each applied once.
	var n, plus int64
	if err := conn.QueryRow(ctx, `SELECT COUNT(*), SUM(LENGTH(who) - LENGTH(REPLACE(who, '+', ''))) FROM signed`).Scan(&n, &plus); err != nil {
		t.Fatal(err)
	}
	if n != 5 || plus != 2 {
		t.Fatalf("%d rows and %d updates applied, want 5 rows and the update applied once to each of 2", n, plus)
	}
}
