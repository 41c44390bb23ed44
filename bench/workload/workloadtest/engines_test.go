package workloadtest_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/relchain/relchain/api"
	"github.com/relchain/relchain/app"
	appwt "github.com/relchain/relchain/app/workloadtest"
	"github.com/relchain/relchain/bench/smallbank"
	"github.com/relchain/relchain/bench/tpcc"
	"github.com/relchain/relchain/bench/workload"
	"github.com/relchain/relchain/bench/workload/workloadtest"
	"github.com/relchain/relchain/bench/ycsb"
	"github.com/relchain/relchain/internal/racetest"
	"github.com/relchain/relchain/protocol"
	"github.com/relchain/relchain/txn"
)

// One network over different engines (issue 37): the same workload, block
// for block, on PostgreSQL storage and on SQLite storage speaking
// PostgreSQL's SQL, at protocol version 5, gives at every height the same
// tx outcomes byte for byte (codes and result data: rows, effect digests,
// failures) and the same AppHash, with every workload table in the
// authenticated state. Under version 4 the AppHash held each engine's own
// digests (change, state, effects) and the rows of a statement without
// ORDER BY came in each engine's order (PostgreSQL's by text, 10 before 2;
// SQLite's by value: TPC-C NewOrder's RETURNING), so no block agreed.
func TestEnginesAgreeBlockByBlock(t *testing.T) {
	racetest.Heavy(t) // in-process chains one block at a time: 88 s under -race, 40 s without
	smallbankW, err := smallbank.New(smallbank.Options{Accounts: 1000})
	if err != nil {
		t.Fatal(err)
	}
	ycsbW, err := ycsb.New(ycsb.Options{Records: 500, Workload: "a", Distribution: ycsb.Zipfian})
	if err != nil {
		t.Fatal(err)
	}
	tpccW, err := tpcc.New(tpcc.Options{Warehouses: 2, Districts: 3, Customers: 60, Items: 200, Orders: 30,
		Mix: map[string]int{tpcc.NewOrder: 1, tpcc.Payment: 1}, Statements: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, engines := range [][]string{{workload.Postgres, workload.SQLite}, {workload.Postgres, workload.MySQL, workload.SQLite}} {
		for _, w := range []workload.Workload{smallbankW, ycsbW, tpccW} {
			t.Run(strings.Join(engines, "+")+"/"+w.Name(), func(t *testing.T) {
				agreeBlockByBlock(t, w, chainsOn(t, engines...))
			})
		}
	}
}

// agreeBlockByBlock runs w's setup and 300 of its transactions on chains,
// in blocks of 25, requiring every block to agree (sameBlock). A
// network with MySQL runs each DDL statement alone (workload.DDLAlone).
func agreeBlockByBlock(t *testing.T, w workload.Workload, chains []*workloadtest.Chain) {
	bcs, err := w.Setup(workload.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range chains {
		if c.Storage == workload.MySQL {
			bcs = workload.DDLAlone(workload.MySQL, bcs)
			break
		}
	}
	for _, stmts := range bcs {
		sameBlock(t, chains, stmts)
	}
	gens := make([]workload.Generator, 4)
	for i := range gens {
		gens[i] = w.Generator(workload.Postgres, 37, i)
	}
	var block [][]txn.Statement
	for i := 0; i < 300; i++ {
		if wl := gens[i%len(gens)].Next(); !wl.ReadOnly {
			block = append(block, wl.Statements)
		}
		if len(block) == 25 {
			sameBlock(t, chains, block...)
			block = block[:0]
		}
	}
	if len(block) > 0 {
		sameBlock(t, chains, block...)
	}
	for _, c := range chains {
		inTheMap(t, c, w.Tables())
	}
}

// TestEnginesAgreeOnSequencesAndSchema: serial columns (each engine keeps
// a sequence's state its own way: relchain.sequences, a state table per
// sequence), nextval undone with a failed tx, RETURNING without ORDER BY,
// and version 5's refusal of a table that would be left out of the
// authenticated state, with the same result data on both engines.
func TestEnginesAgreeOnSequencesAndSchema(t *testing.T) {
	chains := mixedChains(t)
	st := func(sql string, args ...txn.Arg) txn.Statement { return txn.Statement{SQL: sql, Args: args} }
	outs := sameBlock(t, chains, []txn.Statement{st("CREATE TABLE item (id serial PRIMARY KEY, name text NOT NULL UNIQUE, qty bigint NOT NULL)")})
	mustCode(t, outs[0], api.CodeOK)
	var block [][]txn.Statement
	for i := 0; i < 12; i++ {
		block = append(block, []txn.Statement{st("INSERT INTO item (name, qty) VALUES ($1, $2), ($3, $4) RETURNING id, name",
			txn.Text(fmt.Sprintf("n%d", i)), txn.Int(int64(i)), txn.Text(fmt.Sprintf("m%d", i)), txn.Int(int64(20-i)))})
	}
	// A duplicate name fails its tx: its nextval is undone with it.
	block = append(block, []txn.Statement{st("INSERT INTO item (name, qty) VALUES ('n1', 0)")})
	outs = sameBlock(t, chains, block...)
	mustCode(t, outs[len(outs)-1], api.CodeExecFailed)
	outs = sameBlock(t, chains,
		[]txn.Statement{st("UPDATE item SET qty = qty + 1 WHERE qty > 5 RETURNING id, qty")},
		[]txn.Statement{st("DELETE FROM item WHERE id % 3 = 0 RETURNING name")},
		[]txn.Statement{st("INSERT INTO item (name, qty) VALUES ('late', 1) RETURNING id")})
	for _, o := range outs {
		mustCode(t, o, api.CodeOK)
	}
	if got := outs[2].Results[0].Rows[0][0]; fmt.Sprint(got) != "25" {
		t.Fatalf("the row after 24 numbered ones and one failed insert got id %v, want 25 (the failed tx's nextval undone)", got)
	}
	outs = sameBlock(t, chains,
		[]txn.Statement{st("CREATE TABLE loose (a integer, b text)")},
		[]txn.Statement{st("CREATE TABLE keyed (a integer PRIMARY KEY, b text)"), st("CREATE TABLE loose2 (a integer)")})
	for _, o := range outs {
		mustCode(t, o, api.CodeExecFailed)
		if !strings.Contains(o.Log, "has no primary key;") || !strings.Contains(o.Log, "protocol version 5") {
			t.Fatalf("a table without a primary key at version 5: %s", o.Log)
		}
	}
	// What SQLite's translation refuses fails on PostgreSQL storage too
	// (its shadow gate), with the same result data: DDL and DML.
	outs = sameBlock(t, chains,
		[]txn.Statement{st("CREATE VIEW item_names AS SELECT name FROM item")},
		[]txn.Statement{st("CREATE SEQUENCE tickets")},
		[]txn.Statement{st("INSERT INTO item (name, qty) VALUES ('x', 1) RETURNING (SELECT count(*) FROM item)")},
		[]txn.Statement{st("TRUNCATE ONLY item")},
		// SQLite's translation takes a rename beyond PostgreSQL's gate:
		// refused on both, as the PostgreSQL validators cannot run it.
		[]txn.Statement{st("ALTER TABLE item RENAME TO items")},
		[]txn.Statement{st("UPDATE item SET qty = qty + 1 WHERE name = 'late'"), st("CREATE TABLE t2 (id integer PRIMARY KEY)"), st("SELECT FROM tickets")})
	for i, o := range outs {
		if o.Code == api.CodeOK {
			t.Fatalf("tx %d: the translation's refusal did not fail the tx on either engine", i)
		}
	}
	for _, c := range chains {
		if _, err := c.Query(context.Background(), "SELECT 1 FROM t2"); err == nil {
			t.Fatalf("%s: the failed tx's CREATE TABLE t2 is there", c)
		}
	}
	var seqs [][32]byte
	for _, c := range chains {
		ctx := context.Background()
		d, err := app.SequencesOf(ctx, c.Executor().Backend())
		if err != nil {
			t.Fatal(err)
		}
		seqs = append(seqs, d)
		// The database alone gives the AppHash again (relchain verify,
		// a restored snapshot): version 5's inputs, sequences included.
		if _, err := app.VerifyState(ctx, c.Executor().Backend()); err != nil {
			t.Fatalf("%s: %v", c, err)
		}
		inTheMap(t, c, []workload.Table{{Name: "item"}})
		if _, err := c.Query(context.Background(), "SELECT 1 FROM keyed"); err == nil {
			t.Fatalf("%s: the failed tx's CREATE TABLE keyed is there", c)
		}
	}
	if seqs[0] != seqs[1] || seqs[0] == app.SequencesDigest(nil) {
		t.Fatalf("sequences' digests %x and %x: want equal, and not the digest of none", seqs[0], seqs[1])
	}
}

// mixedChains are two validators of one network over two engines, in
// process, at protocol version 5: PostgreSQL storage (with its shadow
// gate), and SQLite storage speaking PostgreSQL's SQL.
func mixedChains(t *testing.T) []*workloadtest.Chain {
	return chainsOn(t, workload.Postgres, workload.SQLite)
}

// chainsOn are validators of one network over engines (one each), in
// process, at protocol version 5, speaking PostgreSQL's SQL.
func chainsOn(t *testing.T, engines ...string) []*workloadtest.Chain {
	var out []*workloadtest.Chain
	for _, c := range appwt.NewMixedChains(t, protocol.V5, engines...) {
		out = append(out, workloadtest.Wrap(t, c))
	}
	return out
}

func mustCode(t *testing.T, tx appwt.Tx, code uint32) {
	t.Helper()
	if tx.Code != code {
		t.Fatalf("code %d (%s), want %d", tx.Code, tx.Log, code)
	}
}

// sameBlock runs one block of bcs on every chain and fails unless they
// agree on each tx's code and result data, byte for byte, and on the
// AppHash; it returns the first chain's outcomes.
func sameBlock(t *testing.T, chains []*workloadtest.Chain, bcs ...[]txn.Statement) []appwt.Tx {
	t.Helper()
	return sameBlockEach(t, chains, bcs...)[0]
}

// sameBlockEach is sameBlock returning every chain's outcomes.
func sameBlockEach(t *testing.T, chains []*workloadtest.Chain, bcs ...[]txn.Statement) [][]appwt.Tx {
	t.Helper()
	outs := make([][]appwt.Tx, len(chains))
	for i, c := range chains {
		outs[i] = c.Block(bcs...)
	}
	want := chains[0].Executor().State()
	for i, c := range chains[1:] {
		for j := range bcs {
			a, b := outs[0][j], outs[i+1][j]
			if a.Code != b.Code || !bytes.Equal(a.Data, b.Data) {
				t.Fatalf("block at height %d, tx %d (%q…): %s gives code %d data %s (%s), %s gives code %d data %s (%s)",
					want.Height, j, bcs[j][0].SQL, chains[0], a.Code, a.Data, a.Log, c, b.Code, b.Data, b.Log)
			}
		}
		if got := c.Executor().State(); got.Height != want.Height || !bytes.Equal(got.AppHash, want.AppHash) {
			t.Fatalf("AppHash at height %d: %s has %X, %s has %X (height %d)", want.Height, chains[0], want.AppHash, c, got.AppHash, got.Height)
		}
	}
	return outs
}

// inTheMap fails unless every table of tables is in c's authenticated
// state: roots that agree because both maps left the tables out prove
// nothing.
func inTheMap(t *testing.T, c *workloadtest.Chain, tables []workload.Table) {
	t.Helper()
	for _, tb := range tables {
		resp, err := c.Executor().Prove(context.Background(), api.ProofRequest{Table: tb.Name, Key: []byte{0}})
		if err != nil {
			t.Fatalf("%s: prove a key of %s: %v", c, tb.Name, err)
		}
		if resp.TableAbsence != nil {
			t.Fatalf("%s: table %s is not in the authenticated state", c, tb.Name)
		}
	}
}
