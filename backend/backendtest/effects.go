package backendtest

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/sqlcheck"
)

// effectTests are the per-transaction effect digest part of the suite
// (Run calls them): Changes.Effects.
var effectTests = []struct {
	name string
	fn   func(*testing.T, subject)
}{
	{"EffectsIgnorePhysicalOrder", testEffectsIgnorePhysicalOrder},
	{"EffectsDependOnlyOnTheTxsOwnRecords", testEffectsOwnRecords},
	{"EffectsOfRolledBackTxsVanish", testEffectsRollback},
	{"EffectsExcludeRecordsOutsideSavepoints", testEffectsOutsideSavepoints},
	{"EffectsOfATxSpanItsWlTransactions", testEffectsAcrossWlTransactions},
}

// changes consumes blk's change records.
func (n *node) changes(blk backend.Block) backend.Changes {
	n.t.Helper()
	c, err := blk.ChangeDigest(ctx(n.t))
	if err != nil {
		n.t.Fatalf("ChangeDigest: %v", err)
	}
	if len(c.Block) == 0 {
		n.t.Fatal("ChangeDigest returned an empty block digest")
	}
	for tx, d := range c.Effects {
		if len(d) != 32 {
			n.t.Fatalf("effect digest of tx %d is %d bytes, want 32 (SHA-256)", tx, len(d))
		}
	}
	return c
}

// finishChanges is finish returning the block's Changes.
func (n *node) finishChanges(blk backend.Block, h int64) backend.Changes {
	n.t.Helper()
	c := n.changes(blk)
	state, err := blk.StateDigest(ctx(n.t))
	if err != nil {
		n.t.Fatalf("StateDigest of block %d: %v", h, err)
	}
	n.commitOnly(blk, h)
	n.requireStateMatchesScan(h, state)
	return c
}

// effectsRun runs blocks on a fresh backend, in a subtest called name, tx i
// of each block as bc-transaction i (a tx whose last statement ends in
// "-- fails" must fail), and returns each block's Changes.
func effectsRun(t *testing.T, sub subject, name string, blocks [][][]string) []backend.Changes {
	t.Helper()
	var out []backend.Changes
	t.Run(name, func(t *testing.T) {
		n := mustOpen(t, sub)
		for h, txs := range blocks {
			blk := n.begin()
			for i, stmts := range txs {
				err := n.txAt(blk, i, stmts...)
				if err != nil && !expectFail(stmts) {
					t.Fatalf("block %d tx %d %v: %v", h+1, i, stmts, err)
				}
				if err == nil && expectFail(stmts) {
					t.Fatalf("block %d tx %d %v succeeded, want a failure", h+1, i, stmts)
				}
			}
			out = append(out, n.finishChanges(blk, int64(h+1)))
		}
	})
	if len(out) != len(blocks) {
		t.FailNow()
	}
	return out
}

// openAfter opens a fresh backend and commits setup as block 1, tx i of it
// as bc-transaction i.
func openAfter(t *testing.T, sub subject, setup [][]string) *node {
	t.Helper()
	n := mustOpen(t, sub)
	blk := n.begin()
	for i, stmts := range setup {
		if err := n.txAt(blk, i, stmts...); err != nil {
			t.Fatal(err)
		}
	}
	n.finish(blk, 1)
	return n
}

func txEnv(i int) sqlcheck.Env { return sqlcheck.Env{Tx: i} }

func txIndexes(c backend.Changes) []int {
	return slices.Sorted(maps.Keys(c.Effects))
}

func wantTxs(t *testing.T, what string, c backend.Changes, want ...int) {
	t.Helper()
	if got := txIndexes(c); !slices.Equal(got, want) {
		t.Fatalf("%s: effect digests for txs %v, want %v", what, got, want)
	}
}

func sameEffect(t *testing.T, what string, a, b []byte) {
	t.Helper()
	if len(a) == 0 || !bytes.Equal(a, b) {
		t.Fatalf("%s: effect digests %x and %x, want equal", what, a, b)
	}
}

// The same statements on the same rows give the same effect digests,
// whatever order the database visits the rows in: PostgreSQL visits a
// heap in physical order, which here is ascending on one node and
// descending on the other.
func testEffectsIgnorePhysicalOrder(t *testing.T, sub subject) {
	rows := func(desc bool) []string {
		var out []string
		for i := 1; i <= 30; i++ {
			id := i
			if desc {
				id = 31 - i
			}
			out = append(out, fmt.Sprintf(`INSERT INTO t (id, v) VALUES (%d, 'v%d')`, id, id%7))
		}
		return out
	}
	block2 := [][]string{
		{`UPDATE t SET v = concat(v, 'x')`}, // || is OR in MySQL
		{`DELETE FROM t WHERE id % 3 = 0`},
		{`SELECT count(*) FROM t`}, // changes nothing: no effect digest
		{`INSERT INTO t (id, v) VALUES (100, 'new')`},
		{`UPDATE t SET v = 'y' WHERE id > 20`, `DELETE FROM t WHERE id < 5`},
	}
	asc := effectsRun(t, sub, "ascending", [][][]string{{{createT}, rows(false)}, block2})
	desc := effectsRun(t, sub, "descending", [][][]string{{{createT}, rows(true)}, block2})
	wantTxs(t, "ascending", asc[1], 0, 1, 3, 4)
	wantTxs(t, "descending", desc[1], 0, 1, 3, 4)
	for i, d := range asc[1].Effects {
		sameEffect(t, fmt.Sprintf("tx %d on both physical orders", i), d, desc[1].Effects[i])
	}
	if !bytes.Equal(asc[1].Block, desc[1].Block) {
		t.Fatal("block digests differ on the two physical orders")
	}
	seen := make(map[string]int)
	for i, d := range asc[1].Effects {
		if j, ok := seen[string(d)]; ok {
			t.Fatalf("txs %d and %d changed different rows but have the same effect digest", j, i)
		}
		seen[string(d)] = i
	}
}

// A tx's effect digest is a function of its own change records: neither
// the other txs of the block nor its index in the block change it. When it
// is the only tx that changed anything, it equals the block's digest (same
// records, same order, same encoding).
func testEffectsOwnRecords(t *testing.T, sub subject) {
	setup := [][]string{{createT}, {`INSERT INTO t (id, v) VALUES (1, 'a')`, `INSERT INTO t (id, v) VALUES (2, 'b')`}}
	x := []string{`UPDATE t SET v = 'p' WHERE id = 1`}
	y := []string{`UPDATE t SET v = 'q' WHERE id = 2`}
	y2 := []string{`UPDATE t SET v = 'Q' WHERE id = 2`}
	z := []string{`INSERT INTO t (id, v) VALUES (3, 'r')`}
	a := effectsRun(t, sub, "xyz", [][][]string{setup, {x, y, z}})[1]
	b := effectsRun(t, sub, "xYz", [][][]string{setup, {x, y2, z}})[1]
	c := effectsRun(t, sub, "x at 3", [][][]string{setup, {
		{`INSERT INTO t (id, v) VALUES (50, 'o')`},
		{`INSERT INTO t (id, v) VALUES (51, 'o')`, `INSERT INTO t (id, v) VALUES (50, 'dup') -- fails`},
		{`DELETE FROM t WHERE id = 50`},
		x,
	}})[1]
	d := effectsRun(t, sub, "x alone", [][][]string{setup, {{`SELECT v FROM t WHERE id = 1`}, x}})[1]

	wantTxs(t, "xyz", a, 0, 1, 2)
	wantTxs(t, "xYz", b, 0, 1, 2)
	sameEffect(t, "x before another y", a.Effects[0], b.Effects[0])
	sameEffect(t, "z after another y", a.Effects[2], b.Effects[2])
	if bytes.Equal(a.Effects[1], b.Effects[1]) {
		t.Fatal("updates writing 'q' and 'Q' have the same effect digest")
	}
	wantTxs(t, "x at index 3", c, 0, 2, 3)
	sameEffect(t, "x at index 0 and at index 3", a.Effects[0], c.Effects[3])
	wantTxs(t, "x alone", d, 1)
	sameEffect(t, "x alone in its block vs the block's digest", d.Effects[1], d.Block)
	sameEffect(t, "x alone vs x in another block", d.Effects[1], a.Effects[0])
}

// A tx rolled back to its savepoint leaves no effect digest, and the txs
// after it get exactly the digests they get without it.
func testEffectsRollback(t *testing.T, sub subject) {
	setup := [][]string{{createT}, {`INSERT INTO t (id, v) VALUES (1, 'a')`}}
	failing := effectsRun(t, sub, "with failures", [][][]string{setup, {
		{`INSERT INTO t (id, v) VALUES (3, 'c')`},
		{`INSERT INTO t (id, v) VALUES (4, 'd')`, `UPDATE t SET v = 'x'`, `INSERT INTO t (id, v) VALUES (1, 'dup') -- fails`},
		{`INSERT INTO t (id, v) VALUES (5, 'e')`, `UPDATE t SET v = 'f' WHERE id = 1`},
		{`INSERT INTO t (id, v) VALUES (1, 'dup') -- fails`},
	}})[1]
	ref := effectsRun(t, sub, "without", [][][]string{setup, {
		{`INSERT INTO t (id, v) VALUES (3, 'c')`},
		{`SELECT count(*) FROM t`},
		{`INSERT INTO t (id, v) VALUES (5, 'e')`, `UPDATE t SET v = 'f' WHERE id = 1`},
	}})[1]
	wantTxs(t, "with failures", failing, 0, 2)
	wantTxs(t, "without", ref, 0, 2)
	sameEffect(t, "tx 0", failing.Effects[0], ref.Effects[0])
	sameEffect(t, "tx 2, after a rolled-back tx", failing.Effects[2], ref.Effects[2])
	if !bytes.Equal(failing.Block, ref.Block) {
		t.Fatal("rolled-back txs changed the block digest")
	}
}

// Change records written in the block before the first savepoint, between
// savepoints, or after a rollback enter the block's digest but no tx's
// effect digest. Records left in the change table by an earlier block (as
// a write outside the chain leaves them) stop the next Begin
// (backend.ErrOutOfBandChange).
// ChangeDigest in the middle of a block (even inside a savepoint) consumes
// what came before and attributes the rest correctly.
func testEffectsOutsideSavepoints(t *testing.T, sub subject) {
	setup := [][]string{{createT}, {`INSERT INTO t (id, v) VALUES (1, 'a')`, `INSERT INTO t (id, v) VALUES (2, 'b')`}}
	ins := func(id int) []string { return []string{fmt.Sprintf(`INSERT INTO t (id, v) VALUES (%d, 'r')`, id)} }
	ref := effectsRun(t, sub, "reference", [][][]string{setup, {ins(12), ins(14)}})[1]

	var got backend.Changes
	t.Run("outside", func(t *testing.T) {
		n := openAfter(t, sub, setup)
		blk := n.begin()
		n.exec(blk, `INSERT INTO t (id, v) VALUES (11, 'r')`)
		if err := n.txAt(blk, 0, ins(12)...); err != nil {
			t.Fatal(err)
		}
		n.exec(blk, `INSERT INTO t (id, v) VALUES (13, 'r')`)
		if err := n.txAt(blk, 1, ins(14)...); err != nil {
			t.Fatal(err)
		}
		if err := n.txAt(blk, 2, `UPDATE t SET v = 'z' WHERE id = 1`, `INSERT INTO t (id, v) VALUES (1, 'dup') -- fails`); err == nil {
			t.Fatal("duplicate key did not fail")
		}
		n.exec(blk, `INSERT INTO t (id, v) VALUES (15, 'r')`)
		got = n.finishChanges(blk, 2)

		// Nothing of the above leaks into the next block's digests.
		blk = n.begin()
		if err := n.txAt(blk, 0, ins(20)...); err != nil {
			t.Fatal(err)
		}
		c := n.changes(blk)
		wantTxs(t, "tx 0 of block 4", c, 0)
		sameEffect(t, "the only writer of block 4", c.Effects[0], c.Block)
		if err := n.txAt(blk, 1, ins(21)...); err != nil {
			t.Fatal(err)
		}
		c = n.changes(blk)
		wantTxs(t, "tx 1 of block 4, after a ChangeDigest", c, 1)
		sameEffect(t, "the only writer since the last ChangeDigest", c.Effects[1], c.Block)
		// ChangeDigest inside a tx's savepoint: the tx's later records
		// are still its own.
		c0 := ctx(t)
		if err := blk.Savepoint(c0, txEnv(2)); err != nil {
			t.Fatal(err)
		}
		n.exec(blk, `INSERT INTO t (id, v) VALUES (22, 'r')`)
		first := n.changes(blk)
		n.exec(blk, `INSERT INTO t (id, v) VALUES (23, 'r')`)
		if err := blk.Release(c0); err != nil {
			t.Fatal(err)
		}
		second := n.finishChanges(blk, 3)
		wantTxs(t, "tx 2 before ChangeDigest", first, 2)
		wantTxs(t, "tx 2 after ChangeDigest", second, 2)
		sameEffect(t, "tx 2's records before ChangeDigest", first.Effects[2], first.Block)
		sameEffect(t, "tx 2's records after ChangeDigest", second.Effects[2], second.Block)

		// Block 4 commits change records it never consumed, one written
		// outside a savepoint and one by its tx 0: to the next block they
		// look like writes made outside the chain, and it refuses to
		// start (the executor always consumes them).
		blk = n.begin()
		n.exec(blk, `INSERT INTO t (id, v) VALUES (30, 'r')`)
		if err := n.txAt(blk, 0, ins(31)...); err != nil {
			t.Fatal(err)
		}
		n.commitOnly(blk, 4)
		if _, err := n.Begin(ctx(t)); !errors.Is(err, backend.ErrOutOfBandChange) {
			t.Fatalf("Begin after a block left change records: %v, want ErrOutOfBandChange", err)
		}
	})
	if got.Block == nil {
		t.FailNow()
	}
	wantTxs(t, "block with records outside savepoints", got, 0, 1)
	sameEffect(t, "tx 0", got.Effects[0], ref.Effects[0])
	sameEffect(t, "tx 1", got.Effects[1], ref.Effects[1])
	if bytes.Equal(got.Block, ref.Block) {
		t.Fatal("records written outside savepoints did not enter the block's digest")
	}
}

// A bc-transaction's wl-transactions each run in a savepoint of their own
// with the same tx index; the tx's effect digest covers the records of
// those that succeeded, as if they had run in one savepoint. Rolled-back
// wl-transactions (the first of a tx among them, which PostgreSQL's tag
// of the tx index in a transaction-local setting must survive) and a
// statement outside every savepoint between two of them change nothing
// of that.
func testEffectsAcrossWlTransactions(t *testing.T, sub subject) {
	setup := [][]string{{createT}, {`INSERT INTO t (id, v) VALUES (1, 'a')`}}
	ins := func(id int) string { return fmt.Sprintf(`INSERT INTO t (id, v) VALUES (%d, 'r')`, id) }
	const dup = `INSERT INTO t (id, v) VALUES (1, 'dup') -- fails`
	ref := effectsRun(t, sub, "one savepoint per tx", [][][]string{setup, {
		{ins(11), ins(12), ins(13), ins(15)},
		{ins(16)},
	}})[1]

	t.Run("one per wl-transaction", func(t *testing.T) {
		n := openAfter(t, sub, setup)
		blk := n.begin()
		for _, wl := range []struct {
			tx    int
			stmts []string
		}{
			{0, []string{ins(11)}}, {0, []string{ins(12)}}, {0, []string{ins(17), dup}}, {0, []string{ins(13)}},
			{-1, []string{`INSERT INTO t (id, v) VALUES (14, 'r')`}}, // outside every savepoint
			{0, []string{ins(15)}}, {1, []string{ins(18), dup}}, {1, []string{ins(16)}},
		} {
			if wl.tx < 0 {
				n.exec(blk, wl.stmts[0])
				continue
			}
			if err := n.txAt(blk, wl.tx, wl.stmts...); (err != nil) != expectFail(wl.stmts) {
				t.Fatalf("tx %d %v: %v", wl.tx, wl.stmts, err)
			}
		}
		got := n.finishChanges(blk, 2)
		wantTxs(t, "one savepoint per wl-transaction", got, 0, 1)
		sameEffect(t, "tx 0", got.Effects[0], ref.Effects[0])
		sameEffect(t, "tx 1, whose first wl-transaction failed", got.Effects[1], ref.Effects[1])
		if bytes.Equal(got.Block, ref.Block) {
			t.Fatal("the record written outside every savepoint is missing from the block digest")
		}
	})
}
