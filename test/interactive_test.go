package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/client"
	"github.com/relchain/relchain/txn"
)

// Issue 16: two sessions on different validators move money from their
// own account into one shared account in interactive transactions
// (rehearse, then commit what was observed), writing the balances they
// computed from what they read: without the chain's check, their
// concurrent writes to the shared account would lose money. Every commit is applied or conflicts; a conflict
// leaves nothing behind and is retried; the total is conserved and every
// validator ends identical.
func TestInteractiveTransfersConserveTheTotal(t *testing.T) {
	runBesideOtherNetworks(t)
	c := mustStartCluster(t, clusterOptions{})
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	c.mustExecEverywhere(ctx, 0, stmt(`CREATE TABLE acct (id INTEGER PRIMARY KEY, bal INTEGER NOT NULL)`),
		stmt(`INSERT INTO acct (id, bal) VALUES (1, 1000), (2, 1000), (3, 0)`))
	const transfers = 6
	var wg sync.WaitGroup
	conflicts := make([]int, 2)
	errs := make(chan error, 2)
	for s := 0; s < 2; s++ {
		wg.Add(1)
		go func(s int) {
			defer wg.Done()
			cl := c.client(s, c.admin)
			from, to := 1+s, 3
			for i := 0; i < transfers; i++ {
				n, err := transferInteractively(ctx, cl, from, to, 10+i)
				conflicts[s] += n
				if err != nil {
					errs <- fmt.Errorf("session %d transfer %d: %w", s, i, err)
					return
				}
			}
		}(s)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	t.Logf("conflicts retried: %v", conflicts)
	_, rows := c.consistentRead(ctx, `SELECT sum(bal) FROM acct`)
	for i, r := range rows[0] {
		if fmt.Sprint(r[0][0]) != "2000" {
			t.Fatalf("node %d: the total is %v, want 2000", i, r[0][0])
		}
	}
}

// transferInteractively moves amount from one account to the other as an
// interactive client does: it reads both balances, then writes the new
// balances it computed from what it read (a lost update, unless the chain
// refuses a commit whose reads changed), retrying on conflict; it returns
// how many conflicts it retried.
func transferInteractively(ctx context.Context, cl *client.Client, from, to, amount int) (int, error) {
	reads := []txn.Statement{
		stmt(fmt.Sprintf(`SELECT bal FROM acct WHERE id = %d`, from)),
		stmt(fmt.Sprintf(`SELECT bal FROM acct WHERE id = %d`, to)),
	}
	for conflicts := 0; conflicts < 50; conflicts++ {
		r, err := rehearse(ctx, cl, reads)
		if err != nil {
			return conflicts, err
		}
		bf, bt := r.Statements[0].Rows[0][0], r.Statements[1].Rows[0][0]
		stmts := append(append([]txn.Statement{}, reads...),
			stmt(fmt.Sprintf(`UPDATE acct SET bal = %v - %d WHERE id = %d`, bf, amount, from)),
			stmt(fmt.Sprintf(`UPDATE acct SET bal = %v + %d WHERE id = %d`, bt, amount, to)))
		r2, err := rehearse(ctx, cl, stmts)
		if err != nil {
			return conflicts, err
		}
		// What the client saw is the first run of each statement: the
		// replay must reproduce it, or the transaction has already
		// conflicted (a block changed what it read).
		seen := []txn.Observation{r.Statements[0].Observation, r.Statements[1].Observation, r2.Statements[2].Observation, r2.Statements[3].Observation}
		if !bytes.Equal(seen[0], r2.Statements[0].Observation) || !bytes.Equal(seen[1], r2.Statements[1].Observation) {
			continue
		}
		res, err := cl.ExecInteractive(ctx, stmts, seen)
		if err != nil {
			return conflicts, err
		}
		switch res.Code {
		case api.CodeOK:
			return conflicts, nil
		case api.CodeConflict:
			continue
		default:
			return conflicts, res.Err()
		}
	}
	return 50, errors.New("50 conflicts in a row")
}

// rehearse is Client.Rehearse, retried while the node is busy with a block.
func rehearse(ctx context.Context, cl *client.Client, stmts []txn.Statement) (*api.RehearseResponse, error) {
	for {
		r, err := cl.Rehearse(ctx, stmts)
		var qe *client.QueryError
		if errors.As(err, &qe) && qe.Code == api.CodeQueryBusy {
			continue
		}
		if err != nil || r.Code != api.CodeOK {
			return nil, fmt.Errorf("rehearse: %v %s", err, mustJSON(r))
		}
		return r, nil
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
