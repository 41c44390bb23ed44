package app_test

import (
	"context"
	"crypto/ed25519"
	"encoding/json"

	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/cometbft/cometbft/libs/log"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/app"
	"github.com/relchain/relchain/backend/mysql"
	"github.com/relchain/relchain/backend/mysql/mysqltest"
	"github.com/relchain/relchain/txn"
)

// rehearse runs stmts as f's key in a rehearsal and fails the test unless
// every statement succeeded.
func (f *fixture) rehearse(stmts ...txn.Statement) api.RehearseResponse {
	f.t.Helper()
	r, err := f.ex.Rehearse(context.Background(), f.key.Public().(ed25519.PublicKey), stmts)
	if err != nil || r.Code != api.CodeOK {
		f.t.Fatalf("rehearse: %v, code %d %s", err, r.Code, r.Log)
	}
	return r
}

// interactive is the bc-transaction that commits stmts as observed in r.
func (f *fixture) interactive(r api.RehearseResponse, stmts ...txn.Statement) []byte {
	f.nonce++
	tx := &txn.Tx{ChainID: chainID, Nonce: f.nonce, Statements: stmts}
	for _, s := range r.Statements {
		tx.Expect = append(tx.Expect, txn.Observation(s.Observation))
	}
	tx.Sign(f.key)
	return txn.Encode(tx)
}

func (f *fixture) balance(id int) int64 {
	f.t.Helper()
	rows, _, err := f.be.Query(context.Background(), fmt.Sprintf("SELECT bal FROM acct WHERE id = %d", id), nil)
	if err != nil || len(rows.Rows) != 1 {
		f.t.Fatalf("balance of %d: %v %+v", id, err, rows)
	}
	return rows.Rows[0][0].(int64)
}

// An interactive transaction commits when the block reproduces what the
// client saw, and conflicts, leaving nothing behind, when a tx before it
// changed what it read. The rehearsal itself writes nothing.
func TestInteractiveTransactionCommitsOrConflicts(t *testing.T) {
	forEachBackend(t, func(t *testing.T, newStore func() store) {
		f := mustNewFixture(t, newStore(), app.DefaultParams())
		f.createAcct()
		f.block(f.insert(1), f.insert(2))
		stateBefore := f.ex.State()
		read := stmt("SELECT bal FROM acct WHERE id = 1")
		move := stmt("UPDATE acct SET bal = bal - 10 WHERE id = 1")
		credit := stmt("UPDATE acct SET bal = bal + 10 WHERE id = 2")
		r := f.rehearse(read, move, credit)
		if len(r.Statements) != 3 || r.Statements[0].Rows[0][0] != int64(100) || r.Statements[1].RowsAffected != 1 {
			t.Fatalf("rehearsal results: %+v", r)
		}
		if f.balance(1) != 100 || f.ex.State().Height != stateBefore.Height {
			t.Fatal("the rehearsal wrote to the database")
		}
		res, _ := f.block(f.interactive(r, read, move, credit))
		if res[0].Code != api.CodeOK || f.balance(1) != 90 || f.balance(2) != 110 {
			t.Fatalf("the reproduced transaction: code %d %s, balances %d %d", res[0].Code, res[0].Log, f.balance(1), f.balance(2))
		}

		// Observed at 90; another tx moves it first in the same block.
		r = f.rehearse(read, move)
		other := f.tx(stmt("UPDATE acct SET bal = 0 WHERE id = 1"))
		res, _ = f.block(other, f.interactive(r, read, move))
		if res[0].Code != api.CodeOK || res[1].Code != api.CodeConflict {
			t.Fatalf("codes %v, want ok then conflict", codes(res))
		}
		if f.balance(1) != 0 {
			t.Fatalf("the conflicting transaction left balance %d, want 0", f.balance(1))
		}
	})
}

// A rehearsal that fails reports the failure a block would give, naming
// the statement; one that reads the clock is observed by its counts.
func TestRehearsalFailuresAndClockReads(t *testing.T) {
	forEachBackend(t, func(t *testing.T, newStore func() store) {
		f := mustNewFixture(t, newStore(), app.DefaultParams())
		f.createAcct()
		f.block(f.insert(1))
		pub := f.key.Public().(ed25519.PublicKey)
		r, err := f.ex.Rehearse(context.Background(), pub, []txn.Statement{
			stmt("UPDATE acct SET bal = 1 WHERE id = 1"),
			stmt("INSERT INTO acct (id, bal) VALUES (1, 5)"),
		})
		if err != nil || r.Code != api.CodeExecFailed || r.Failure == nil || r.Failure.Statement != 2 || r.Failure.Class != "constraint" {
			t.Fatalf("rehearsal of a duplicate key: %v %+v", err, r)
		}
		now := "SELECT CURRENT_TIMESTAMP"
		r = f.rehearse(stmt(now))
		if mode := txn.ObserveMode(r.Statements[0].Observation[0]); mode != txn.ObserveCounts {
			t.Fatalf("a clock read is observed with mode %d, want counts", mode)
		}
		res, _ := f.block(f.interactive(r, stmt(now)))
		if res[0].Code != api.CodeOK {
			t.Fatalf("a clock read conflicts with itself: %d %s", res[0].Code, res[0].Log)
		}
	})
}

// Consensus never waits for a rehearsal: a block that arrives while a
// long rehearsal runs cancels it and executes; the rehearsal runs again
// afterwards until its deadline. (SQLite: its recursive CTEs run long
// within the work bound; PostgreSQL's gate admits no statement that runs
// this long, and its Exec honours cancellation the same way, see
// backend/postgres's bounds tests.)
func TestBlocksPreemptRehearsals(t *testing.T) {
	f := mustNewFixture(t, stores(t)[0], app.DefaultParams())
	f.createAcct()
	slow := "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 2000000000) SELECT count(*) FROM c"
	running := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
		defer cancel()
		close(running)
		r, err := f.ex.Rehearse(ctx, f.key.Public().(ed25519.PublicKey), []txn.Statement{stmt(slow)})
		if err == nil {
			err = fmt.Errorf("not interrupted: code %d %s", r.Code, r.Log)
		}
		done <- err
	}()
	<-running
	// Blocks keep coming while the rehearsal runs: each one takes the slot
	// (a preemption), and the rehearsal, which needs longer than the gap
	// between blocks to reach the work bound, never finishes before its
	// deadline, however fast the machine.
	deadline := time.After(time.Minute)
	for {
		res, _ := f.block(f.insert(f.ex.State().Height + 100))
		if res[0].Code != api.CodeOK {
			t.Fatalf("a block beside a rehearsal: code %d %s", res[0].Code, res[0].Log)
		}
		select {
		case err := <-done:
			if f.ex.RehearsalsPreempted() == 0 {
				t.Fatalf("the rehearsal ended before any block preempted it: %v", err)
			}
			if !errors.Is(err, app.ErrRehearsalBusy) {
				t.Fatalf("the preempted rehearsal: %v, want ErrRehearsalBusy at its deadline", err)
			}
			return
		case <-deadline:
			t.Fatal("the preempted rehearsal did not return")
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// On MySQL, DDL commits at once: a rehearsal refuses it before running.
func TestMySQLRehearsalRefusesDDL(t *testing.T) {
	ctx := context.Background()
	be, err := mysql.Open(ctx, mysqltest.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	p := app.DefaultParams()
	p.Backend = "mysql"
	ex, err := app.NewExecutor(ctx, be, chainID, p)
	if err != nil {
		t.Fatal(err)
	}
	_, key, _ := ed25519.GenerateKey(nil)
	r, err := ex.Rehearse(ctx, key.Public().(ed25519.PublicKey), []txn.Statement{stmt("CREATE TABLE t_rehearsed (id INT PRIMARY KEY)")})
	if err != nil || r.Code == api.CodeOK || r.Failure == nil {
		t.Fatalf("rehearsal of DDL on MySQL: %v %+v", err, r)
	}
	if _, _, err := be.Query(ctx, "SELECT count(*) FROM t_rehearsed", nil); err == nil || !strings.Contains(err.Error(), "t_rehearsed") {
		t.Fatalf("the refused DDL created the table (or the check failed otherwise): %v", err)
	}
}

// The rehearsal is served on its query path; hostile bytes get a clear
// bad-input answer, never a panic.
func TestRehearsePath(t *testing.T) {
	f := mustNewFixture(t, stores(t)[0], app.DefaultParams())
	f.createAcct()
	a := app.New(f.ex, log.NewNopLogger())
	pub := f.key.Public().(ed25519.PublicKey)
	resp, err := a.Query(context.Background(), &abci.RequestQuery{Path: api.RehearsePath, Data: txn.SignRehearsal(f.key, chainID, f.ex.State().Height, []txn.Statement{stmt("INSERT INTO acct (id, bal) VALUES (5, 1)")})})
	if err != nil || resp.Code != api.CodeOK {
		t.Fatalf("rehearse path: %v %+v", err, resp)
	}
	var r api.RehearseResponse
	if err := json.Unmarshal(resp.Value, &r); err != nil || len(r.Statements) != 1 || r.Statements[0].RowsAffected != 1 || len(r.Statements[0].Observation) != txn.ObservationSize {
		t.Fatalf("rehearse response: %v %s", err, resp.Value)
	}
	for name, data := range map[string][]byte{
		"empty":             nil,
		"short key":         {3, 1, 2, 3},
		"no statements":     txn.EncodeRehearsal(&txn.Rehearsal{ChainID: chainID, Sender: pub}),
		"trailing":          append(txn.SignRehearsal(f.key, chainID, 0, []txn.Statement{stmt("SELECT 1")}), 0),
		"over max_tx_bytes": txn.SignRehearsal(f.key, chainID, 0, []txn.Statement{stmt("SELECT '" + strings.Repeat("x", app.DefaultParams().MaxTxBytes) + "'")}),
	} {
		resp, err := a.Query(context.Background(), &abci.RequestQuery{Path: api.RehearsePath, Data: data})
		if err != nil || resp.Code != api.CodeQueryBadInput || !(strings.Contains(resp.Log, "malformed") || strings.Contains(resp.Log, "max_tx_bytes")) {
			t.Errorf("%s: %v code %d %q, want a bad-input answer", name, err, resp.Code, resp.Log)
		}
	}
}
