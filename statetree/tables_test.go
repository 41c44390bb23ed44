package statetree

import (
	"errors"
	"strings"
	"testing"
)

// TestChainedProofsVerifyAgainstTheMapRoot builds two tables and the map
// over their roots, then checks row, absence and range claims chained to
// the map root, and that a wrong table, table root or map root fails.
func TestChainedProofsVerifyAgainstTheMapRoot(t *testing.T) {
	accounts := model{"\x00\x00\x00\x01": []byte("alice"), "\x00\x00\x00\x02": []byte("bob")}
	a, b := New(), New()
	for k, v := range accounts {
		mustSet(t, a, []byte(k), v)
	}
	ar, br := a.Commit(), b.Commit() // "savings" is empty
	tables := NewTables()
	for name, r := range map[string]Root{"accounts": ar, "savings": br} {
		if err := tables.Set(name, r.Hash()); err != nil {
			t.Fatal(err)
		}
	}
	mr := tables.Commit()
	tp, err := mr.ProveTable("accounts", ar.Hash())
	if err != nil {
		t.Fatal(err)
	}
	key, alice := []byte("\x00\x00\x00\x01"), []byte("alice")
	row, err := ar.ProveExistence(key, alice)
	if err != nil {
		t.Fatal(err)
	}
	p := ChainedProof{Table: tp, Rows: row}
	if err := VerifyChainedExistence(mr.Hash(), "accounts", key, alice, p); err != nil {
		t.Fatalf("chained existence: %v", err)
	}
	if err := VerifyChainedExistence(mr.Hash(), "savings", key, alice, p); !errors.Is(err, ErrInvalidProof) {
		t.Errorf("the accounts proof claimed for savings: %v", err)
	}
	if err := VerifyChainedExistence(ar.Hash(), "accounts", key, alice, p); !errors.Is(err, ErrInvalidProof) {
		t.Errorf("verified against the table root instead of the map root: %v", err)
	}
	forged := p
	forged.Table.TableRoot = br.Hash()
	if err := VerifyChainedExistence(mr.Hash(), "accounts", key, alice, forged); !errors.Is(err, ErrInvalidProof) {
		t.Errorf("a swapped table root: %v", err)
	}
	rng, err := ar.ProveRange([]byte{0}, []byte{1}, accounts.values)
	if err != nil {
		t.Fatal(err)
	}
	if err := VerifyChainedRange(mr.Hash(), "accounts", []byte{0}, []byte{1}, accounts.rows([]byte{0}, []byte{1}), ChainedProof{tp, rng}); err != nil {
		t.Errorf("chained range: %v", err)
	}
	stp, err := mr.ProveTable("savings", br.Hash())
	if err != nil {
		t.Fatal(err)
	}
	absent, err := br.ProveNonExistence(key, model{}.values)
	if err != nil {
		t.Fatal(err)
	}
	if err := VerifyChainedNonExistence(mr.Hash(), "savings", key, ChainedProof{stp, absent}); err != nil {
		t.Errorf("chained absence in the empty table: %v", err)
	}
}

func TestTableNamesWithNULAreRefused(t *testing.T) {
	if err := NewTables().Set("a\x00b", EmptyRootHash); !errors.Is(err, ErrKeyPrefix) {
		t.Fatalf("a name with NUL: %v, want ErrKeyPrefix", err)
	}
	if _, err := TableKey(strings.Repeat("x", MaxKeyLen)); err == nil {
		t.Fatal("a name of MaxKeyLen bytes (plus the terminator) was accepted")
	}
}
