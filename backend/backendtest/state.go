package backendtest

import (
	"bytes"
	"testing"

	"github.com/relchain/relchain/backend"
	"github.com/relchain/relchain/statedigest"
)

// stateTests are the state-digest part of the suite (Run calls them).
var stateTests = []struct {
	name string
	fn   func(*testing.T, subject)
}{
	{"StateDigestFollowsEveryChange", testStateDigestFollowsEveryChange},
	{"StateDigestIsAFunctionOfContents", testStateDigestIsAFunctionOfContents},
}

// finish digests and commits blk as block h and returns its state digest,
// after checking that the stored table sums are exactly what a full scan
// of the committed database computes.
func (n *node) finish(blk backend.Block, h int64) []byte {
	n.t.Helper()
	n.digest(blk)
	state, err := blk.StateDigest(ctx(n.t))
	if err != nil {
		n.t.Fatalf("StateDigest of block %d: %v", h, err)
	}
	n.commitOnly(blk, h)
	n.requireStateMatchesScan(h, state)
	return state
}

// requireStateMatchesScan checks the committed sums against a full scan.
func (n *node) requireStateMatchesScan(h int64, state []byte) {
	n.t.Helper()
	stored, sh, err := n.StoredState(ctx(n.t))
	if err != nil {
		n.t.Fatalf("StoredState after block %d: %v", h, err)
	}
	scanned, ch, err := n.ScanState(ctx(n.t))
	if err != nil {
		n.t.Fatalf("ScanState after block %d: %v", h, err)
	}
	if sh != h || ch != h {
		n.t.Fatalf("after block %d: StoredState at height %d, ScanState at %d", h, sh, ch)
	}
	if d := statedigest.Diff(scanned, stored); len(d) > 0 {
		n.t.Fatalf("after block %d: stored sums differ from a full scan for tables %v", h, d)
	}
	if state != nil && !bytes.Equal(stored.Digest(), state) {
		n.t.Fatalf("after block %d: StateDigest %x, the stored sums digest to %x", h, state, stored.Digest())
	}
}

// Every kind of change keeps the incrementally maintained sums equal to a
// full scan: inserts, updates (also of the key), deletes, identical rows in
// a table without a key, a failed tx rolled back to its savepoint, ADD
// COLUMN (every row's image changes without a row trigger), DROP TABLE, a
// rolled-back block, and a reopen.
func testStateDigestFollowsEveryChange(t *testing.T, sub subject) {
	n := mustOpen(t, sub)
	var digests [][]byte
	blk := n.begin()
	n.exec(blk, `CREATE TABLE acct (id BIGINT PRIMARY KEY, bal BIGINT NOT NULL, note TEXT)`)
	n.exec(blk, `CREATE TABLE nokey (v BIGINT)`)
	for i := 1; i <= 20; i++ {
		n.exec(blk, `INSERT INTO acct (id, bal, note) VALUES ($1, $2, $3)`, int64(i), int64(i*100), "n"+string(rune('a'+i)))
	}
	n.exec(blk, `INSERT INTO nokey (v) VALUES (1)`)
	n.exec(blk, `INSERT INTO nokey (v) VALUES (1)`)
	digests = append(digests, n.finish(blk, 1))

	blk = n.begin()
	n.exec(blk, `UPDATE acct SET bal = bal + 1 WHERE id <= 5`)
	n.exec(blk, `UPDATE acct SET id = 100 WHERE id = 20`)
	n.exec(blk, `DELETE FROM acct WHERE id IN (6, 7)`)
	n.exec(blk, `INSERT INTO nokey (v) VALUES (1)`)
	n.exec(blk, `DELETE FROM nokey WHERE v = 1`)
	n.exec(blk, `INSERT INTO nokey (v) VALUES (2)`)
	if err := n.tx(blk, `UPDATE acct SET bal = 0 WHERE id = 1`, `INSERT INTO acct (id, bal) VALUES (2, 0)`); err == nil {
		t.Fatal("a duplicate key did not fail")
	}
	digests = append(digests, n.finish(blk, 2))

	blk = n.begin()
	n.exec(blk, `ALTER TABLE acct ADD COLUMN extra BIGINT DEFAULT 7`)
	digests = append(digests, n.finish(blk, 3))

	blk = n.begin()
	block4 := []string{`UPDATE acct SET extra = 8 WHERE id = 1`, `DROP TABLE nokey`}
	if !n.Capabilities().TransactionalDDL {
		// Without transactional DDL (MySQL), DDL comes before every other
		// change of its block (see backend.Block): same statements, same
		// final state.
		block4[0], block4[1] = block4[1], block4[0]
	}
	for _, s := range block4 {
		n.exec(blk, s)
	}
	digests = append(digests, n.finish(blk, 4))

	// A rolled-back block leaves nothing behind.
	blk = n.begin()
	n.exec(blk, `DELETE FROM acct`)
	n.digest(blk)
	if _, err := blk.StateDigest(ctx(t)); err != nil {
		t.Fatal(err)
	}
	if err := blk.Rollback(ctx(t)); err != nil {
		t.Fatal(err)
	}
	n.requireStateMatchesScan(4, digests[3])
	blk = n.begin()
	n.exec(blk, `UPDATE acct SET note = 'x' WHERE id = 3`)
	digests = append(digests, n.finish(blk, 5))

	for i := range digests {
		for j := range i {
			if bytes.Equal(digests[i], digests[j]) {
				t.Errorf("blocks %d and %d leave different states with the same digest", j+1, i+1)
			}
		}
	}
	// The sums are committed: a reopened database has them.
	n.close()
	n = mustOpen(t, sub)
	n.requireStateMatchesScan(5, digests[4])
	// A block without changes keeps the digest.
	blk = n.begin()
	if got := n.finish(blk, 6); !bytes.Equal(got, digests[4]) {
		t.Errorf("an empty block changed the state digest")
	}
}

// Two databases that reach the same contents by different histories have
// the same state digest (the change digests of their blocks differ).
func testStateDigestIsAFunctionOfContents(t *testing.T, sub subject) {
	a := mustOpen(t, sub)
	blk := a.begin()
	a.exec(blk, createT)
	a.exec(blk, `INSERT INTO t (id, v) VALUES (1, 'a')`)
	a.exec(blk, `INSERT INTO t (id, v) VALUES (2, 'b')`)
	a.finish(blk, 1)
	blk = a.begin()
	a.exec(blk, `UPDATE t SET v = 'c' WHERE id = 1`)
	a.exec(blk, `DELETE FROM t WHERE id = 2`)
	a.exec(blk, `INSERT INTO t (id, v) VALUES (3, 'd')`)
	da := a.finish(blk, 2)

	t.Run("other history", func(t *testing.T) {
		b := mustOpen(t, sub)
		blk := b.begin()
		b.exec(blk, createT)
		b.exec(blk, `INSERT INTO t (id, v) VALUES (3, 'd')`)
		b.exec(blk, `INSERT INTO t (id, v) VALUES (1, 'c')`)
		db := b.finish(blk, 1)
		if !bytes.Equal(da, db) {
			t.Errorf("the same contents by two histories: state digests %x and %x", da, db)
		}
	})
}
