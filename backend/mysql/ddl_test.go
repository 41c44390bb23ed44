package mysql_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/backend/mysql"
	"github.com/relchain/relchain/backend/mysql/mysqltest"
	"github.com/relchain/relchain/sqlcheck"
	"github.com/relchain/relchain/statedigest"
)

// outcome is what a block leaves: each tx's failure class ("" for
// success), the change digest, the state digest.
type outcome struct {
	results []backend.Class
	change  []byte
	state   []byte
}

// runBlock runs txs as one block at height h and commits it.
func runBlock(t *testing.T, b backend.Backend, h int64, txs [][]string) outcome {
	t.Helper()
	blk, err := b.Begin(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	var out outcome
	for i, stmts := range txs {
		out.results = append(out.results, runTx(t, blk, i, stmts))
	}
	c, err := blk.ChangeDigest(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	out.change = c.Block
	if out.state, err = blk.StateDigest(ctx(t)); err != nil {
		t.Fatal(err)
	}
	if err := blk.Commit(ctx(t), backend.State{Height: h, AppHash: []byte{byte(h)}}); err != nil {
		t.Fatal(err)
	}
	return out
}

// runTx runs one bc-transaction and returns its failure class.
func runTx(t *testing.T, blk backend.Block, i int, stmts []string) backend.Class {
	t.Helper()
	if err := blk.Savepoint(ctx(t), sqlcheck.Env{Tx: i}); err != nil {
		t.Fatal(err)
	}
	for _, s := range stmts {
		if _, err := blk.Exec(ctx(t), s, nil); err != nil {
			be := backend.AsError(err)
			if be == nil {
				t.Fatalf("Exec %q: node fault: %v", s, err)
			}
			if err := blk.RollbackTo(ctx(t)); err != nil {
				t.Fatal(err)
			}
			return be.Class
		}
	}
	if err := blk.Release(ctx(t)); err != nil {
		t.Fatal(err)
	}
	return ""
}

func sameOutcome(t *testing.T, what string, got, want outcome) {
	t.Helper()
	if len(got.results) != len(want.results) {
		t.Fatalf("%s: %d results, want %d", what, len(got.results), len(want.results))
	}
	for i := range got.results {
		if got.results[i] != want.results[i] {
			t.Errorf("%s: tx %d result %q, want %q", what, i, got.results[i], want.results[i])
		}
	}
	if !bytes.Equal(got.change, want.change) {
		t.Errorf("%s: change digest %x, want %x", what, got.change, want.change)
	}
	if !bytes.Equal(got.state, want.state) {
		t.Errorf("%s: state digest %x, want %x", what, got.state, want.state)
	}
}

var ddlBlocks = [][][]string{
	{{`CREATE TABLE t (id BIGINT PRIMARY KEY, v TEXT)`}},
	{{`INSERT INTO t (id, v) VALUES (1, 'a'), (2, 'b')`}},
	{{`ALTER TABLE t ADD COLUMN c BIGINT NOT NULL DEFAULT 5`}},
	{{`UPDATE t SET c = c + id`}, {`INSERT INTO t (id, v) VALUES (3, 'c')`}},
}

// A node that stops in the middle of a DDL block — after the recovery
// record was committed but before the DDL ran, or after the DDL took
// effect but before the block committed — replays the block on restart
// (as CometBFT's handshake does) and ends with the same results, change
// digests and state digest as a node that never stopped.
func TestDDLBlockReplaysAfterACrash(t *testing.T) {
	ref := mustOpen(t, mysqltest.DSN(t), mysql.WithoutGate())
	defer ref.Close()
	var want []outcome
	for h, txs := range ddlBlocks {
		want = append(want, runBlock(t, ref, int64(h+1), txs))
	}
	wantTables, _, err := ref.ScanState(ctx(t))
	if err != nil {
		t.Fatal(err)
	}

	for _, stage := range []string{"before", "after"} {
		t.Run("crash "+stage+" the DDL", func(t *testing.T) {
			dsn := mysqltest.DSN(t)
			crash := errors.New("simulated crash")
			armed := false
			a := mustOpen(t, dsn, mysql.WithoutGate(), mysql.WithDDLHook(func(s string) error {
				if armed && s == stage {
					return crash
				}
				return nil
			}))
			for h, txs := range ddlBlocks[:2] {
				sameOutcome(t, "block", runBlock(t, a, int64(h+1), txs), want[h])
			}
			armed = true
			blk, err := a.Begin(ctx(t))
			if err != nil {
				t.Fatal(err)
			}
			if err := blk.Savepoint(ctx(t), sqlcheck.Env{Tx: 0}); err != nil {
				t.Fatal(err)
			}
			_, err = blk.Exec(ctx(t), ddlBlocks[2][0][0], nil)
			if !errors.Is(err, crash) || backend.AsError(err) != nil {
				t.Fatalf("DDL with a crash hook: %v, want the simulated crash as a node fault", err)
			}
			if err := a.Close(); err != nil {
				t.Logf("close after the crash: %v", err)
			}

			b := mustOpen(t, dsn, mysql.WithoutGate())
			defer b.Close()
			s, err := b.LoadState(ctx(t))
			if err != nil || s.Height != 2 {
				t.Fatalf("state after the crash: %+v, %v; want height 2", s, err)
			}
			for h := 2; h < len(ddlBlocks); h++ {
				sameOutcome(t, "replayed block", runBlock(t, b, int64(h+1), ddlBlocks[h]), want[h])
			}
			got, height, err := b.ScanState(ctx(t))
			if err != nil || height != int64(len(ddlBlocks)) {
				t.Fatalf("ScanState: height %d, %v", height, err)
			}
			if d := statedigest.Diff(wantTables, got); len(d) > 0 {
				t.Fatalf("tables %v differ from the node that never crashed", d)
			}
			rows, _, err := b.Query(ctx(t), `SELECT id, v, c FROM t ORDER BY id`, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(rows.Rows) != 3 || rows.Rows[0][2] != int64(6) || rows.Rows[2][2] != int64(5) {
				t.Fatalf("rows after the replay: %v", rows.Rows)
			}
		})
	}
}

// DDL after another change of the same block fails deterministically
// (ClassNotImplemented): MySQL would commit the block's earlier writes
// with it. DDL after txs that changed nothing is fine, and the block goes
// on after the refusal.
func TestDDLMustComeFirstInItsBlock(t *testing.T) {
	b := mustOpen(t, mysqltest.DSN(t), mysql.WithoutGate())
	defer b.Close()
	runBlock(t, b, 1, [][]string{{`CREATE TABLE t (id BIGINT PRIMARY KEY)`}, {`INSERT INTO t (id) VALUES (1)`}})
	got := runBlock(t, b, 2, [][]string{
		{`INSERT INTO t (id) VALUES (1)`}, // fails: changes nothing
		{`SELECT id FROM t`},
		{`CREATE TABLE u (id BIGINT PRIMARY KEY)`},
		{`INSERT INTO u (id) VALUES (1)`},
		{`CREATE TABLE w (id BIGINT PRIMARY KEY)`}, // after a change: refused
		{`INSERT INTO t (id) VALUES (2)`},
	})
	want := []backend.Class{backend.ClassConstraint, "", "", "", backend.ClassNotImplemented, ""}
	for i := range want {
		if got.results[i] != want[i] {
			t.Errorf("tx %d: %q, want %q", i, got.results[i], want[i])
		}
	}
	rows, _, err := b.Query(ctx(t), `SELECT count(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'w'`, nil)
	if err != nil || rows.Rows[0][0] != int64(0) {
		t.Fatalf("table w: %v, %v; want it not created", rows, err)
	}

	// A bc-transaction with DDL is that one statement: a statement before
	// it, or after it, fails the tx (the DDL after a read is refused; a
	// statement after the DDL is refused, the DDL stays).
	got = runBlock(t, b, 3, [][]string{
		{`SELECT 1`, `CREATE TABLE y (id BIGINT PRIMARY KEY)`},
		{`CREATE TABLE z (id BIGINT PRIMARY KEY)`, `INSERT INTO z (id) VALUES (1)`},
	})
	want = []backend.Class{backend.ClassNotImplemented, backend.ClassNotImplemented}
	for i := range want {
		if got.results[i] != want[i] {
			t.Errorf("block 3 tx %d: %q, want %q", i, got.results[i], want[i])
		}
	}
}
