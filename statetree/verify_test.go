package statetree

import (
	"bytes"
	"errors"
	"testing"

	ics23 "github.com/cosmos/ics23/go"
)

// TestLongerLeafPrefixForgeryIsRefused: ics23 accepts any leaf prefix that
// starts with 0x00, so in a tree holding only "a\x01b" it accepts a proof
// that key "b" exists (leaf prefix 00 03 61, then uvarint(1) = 01, "b": the
// same preimage). The trie's verifiers insist on the exact leaf op.
func TestLongerLeafPrefixForgeryIsRefused(t *testing.T) {
	tr := New()
	mustSet(t, tr, []byte("a\x01b"), []byte("row"))
	r := tr.Commit()
	p, err := r.ProveExistence([]byte("a\x01b"), []byte("row"))
	if err != nil {
		t.Fatal(err)
	}
	forged := p.GetExist()
	forged.Key = []byte("b")
	forged.Leaf.Prefix = []byte{0, 3, 'a'}
	root := r.Hash()
	if !ics23.VerifyMembership(ProofSpec(), root[:], p, []byte("b"), []byte("row")) {
		t.Fatal("ics23 refuses the forgery: the premise of this test is gone")
	}
	if err := VerifyExistence(root, []byte("b"), []byte("row"), p); !errors.Is(err, ErrInvalidProof) {
		t.Fatalf("forged existence of b: %v, want ErrInvalidProof", err)
	}
}

// TestInnerOpsOfOtherShapesAreRefused: an inner op must be 0x01|L with a
// 32-byte suffix or 0x01|L|(33 bytes) with none, hashed with SHA-256.
func TestInnerOpsOfOtherShapesAreRefused(t *testing.T) {
	tr := New()
	mustSet(t, tr, []byte("a\x00"), []byte("1"))
	mustSet(t, tr, []byte("b\x00"), []byte("2"))
	r := tr.Commit()
	for name, mutate := range map[string]func(op *ics23.InnerOp){
		"prefix 0x02":     func(op *ics23.InnerOp) { op.Prefix[0] = 2 },
		"longer prefix":   func(op *ics23.InnerOp) { op.Prefix = append(op.Prefix, 0) },
		"hash SHA-512":    func(op *ics23.InnerOp) { op.Hash = ics23.HashOp_SHA512 },
		"nil op":          nil,
		"suffix 64 bytes": func(op *ics23.InnerOp) { op.Suffix = make([]byte, 64) },
	} {
		p, err := r.ProveExistence([]byte("a\x00"), []byte("1"))
		if err != nil {
			t.Fatal(err)
		}
		if mutate == nil {
			p.GetExist().Path[0] = nil
		} else {
			mutate(p.GetExist().Path[0])
		}
		if err := VerifyExistence(r.Hash(), []byte("a\x00"), []byte("1"), p); !errors.Is(err, ErrInvalidProof) {
			t.Errorf("%s: %v, want ErrInvalidProof", name, err)
		}
	}
}

// TestVerifiersRefuseEmptyAndForeignProofs covers the proofs with no
// content, of another kind, and the empty tree's special cases.
func TestVerifiersRefuseEmptyAndForeignProofs(t *testing.T) {
	empty := New().Commit()
	ne, err := empty.ProveNonExistence([]byte("k"), model{}.values)
	if err != nil {
		t.Fatal(err)
	}
	if err := VerifyNonExistence(EmptyRootHash, []byte("k"), ne); err != nil {
		t.Fatalf("absence in the empty tree: %v", err)
	}
	rp, err := empty.ProveRange([]byte("a"), []byte("z"), model{}.values)
	if err != nil {
		t.Fatal(err)
	}
	if err := VerifyRange(EmptyRootHash, []byte("a"), []byte("z"), nil, rp); err != nil {
		t.Fatalf("empty range of the empty tree: %v", err)
	}
	tr := New()
	mustSet(t, tr, []byte("k"), []byte("v"))
	root := tr.Commit().Hash()
	for name, p := range map[string]*ics23.CommitmentProof{
		"nil": nil, "empty": {}, "empty batch": rp, "empty-tree absence": ne,
		"empty exist": {Proof: &ics23.CommitmentProof_Exist{Exist: &ics23.ExistenceProof{}}},
	} {
		if err := VerifyExistence(root, []byte("k"), []byte("v"), p); !errors.Is(err, ErrInvalidProof) {
			t.Errorf("%s as existence: %v", name, err)
		}
		if err := VerifyNonExistence(root, []byte("j"), p); !errors.Is(err, ErrInvalidProof) {
			t.Errorf("%s as absence: %v", name, err)
		}
		if err := VerifyRange(root, []byte("a"), []byte("z"), []KV{{[]byte("k"), []byte("v")}}, p); !errors.Is(err, ErrInvalidProof) {
			t.Errorf("%s as range: %v", name, err)
		}
	}
	if err := VerifyRange(root, []byte("z"), []byte("a"), nil, rp); !errors.Is(err, ErrInvalidProof) {
		t.Errorf("lo above hi: %v", err)
	}
	if err := VerifyNonExistence(root, bytes.Repeat([]byte{1}, MaxKeyLen+1), ne); !errors.Is(err, ErrKeyTooLong) {
		t.Errorf("absence of a too long key: %v", err)
	}
}

// TestAbsenceProofOfOneKeyDoesNotCoverAnother rewrites the key of a valid
// absence proof to a present key and to an absent key outside its gap.
func TestAbsenceProofOfOneKeyDoesNotCoverAnother(t *testing.T) {
	m := model{"b\x00": []byte("1"), "d\x00": []byte("2"), "f\x00": []byte("3")}
	tr := New()
	for k, v := range m {
		mustSet(t, tr, []byte(k), v)
	}
	r := tr.Commit()
	p, err := r.ProveNonExistence([]byte("c\x00"), m.values)
	if err != nil {
		t.Fatal(err)
	}
	if err := VerifyNonExistence(r.Hash(), []byte("c\x00"), p); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"b\x00", "d\x00", "e\x00", "a\x00"} {
		q := ics23.Decompress(p)
		nonExistence(q).Key = []byte(k)
		if err := VerifyNonExistence(r.Hash(), []byte(k), q); !errors.Is(err, ErrInvalidProof) {
			t.Errorf("c's gap proves %q absent: %v", k, err)
		}
	}
}

// TestMalformedCompressedProofsAreErrors: ics23.Decompress indexes its
// lookup table with the proof's numbers and panics on a bad one; the
// verifiers turn that into ErrInvalidProof.
func TestMalformedCompressedProofsAreErrors(t *testing.T) {
	bad := &ics23.CommitmentProof{Proof: &ics23.CommitmentProof_Compressed{Compressed: &ics23.CompressedBatchProof{
		Entries: []*ics23.CompressedBatchEntry{{Proof: &ics23.CompressedBatchEntry_Exist{Exist: &ics23.CompressedExistenceProof{
			Key: []byte("k"), Value: []byte("v"), Leaf: leafOp(), Path: []int32{99},
		}}}},
	}}}
	root := LeafHash([]byte("k"), hashOf([]byte("v")))
	if err := VerifyRange(root, []byte("a"), []byte("z"), []KV{{[]byte("k"), []byte("v")}}, bad); !errors.Is(err, ErrInvalidProof) {
		t.Errorf("range: %v, want ErrInvalidProof", err)
	}
	if err := VerifyNonExistence(root, []byte("j"), bad); !errors.Is(err, ErrInvalidProof) {
		t.Errorf("absence: %v, want ErrInvalidProof", err)
	}
}
