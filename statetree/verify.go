package statetree

import (
	"bytes"
	"fmt"

	ics23 "github.com/cosmos/ics23/go"
)

// KV is a proven row: its key and its value (the row image).
type KV struct {
	Key, Value []byte
}

// VerifyExistence checks that proof proves key -> value under rootHash.
// It accepts a plain ExistenceProof only. It never panics.
func VerifyExistence(rootHash [32]byte, key, value []byte, proof *ics23.CommitmentProof) (err error) {
	defer recoverInvalid(&err)
	ex := proof.GetExist()
	if ex == nil {
		return invalid("not an existence proof")
	}
	if !bytes.Equal(ex.Key, key) || !bytes.Equal(ex.Value, value) {
		return invalid("the proof is for another key or value")
	}
	if err := verifyEntry(rootHash, ex); err != nil {
		return fmt.Errorf("verify existence of %x: %w", key, err)
	}
	return nil
}

// VerifyNonExistence checks that proof proves key absent under rootHash:
// an ics23 NonExistenceProof, plain or in a (compressed) batch of one. The
// empty tree's proof has neither neighbour. It never panics.
func VerifyNonExistence(rootHash [32]byte, key []byte, proof *ics23.CommitmentProof) (err error) {
	defer recoverInvalid(&err)
	if err := CheckKey(key); err != nil {
		return fmt.Errorf("verify non-existence of %x: %w", key, err)
	}
	ne := nonExistence(ics23.Decompress(proof))
	switch {
	case ne == nil:
		return invalid("not a non-existence proof")
	case !bytes.Equal(ne.Key, key):
		return invalid("the proof is for another key")
	case rootHash == EmptyRootHash:
		if ne.Left != nil || ne.Right != nil {
			return invalid("the empty tree has no neighbours")
		}
		return nil
	}
	for _, ex := range []*ics23.ExistenceProof{ne.Left, ne.Right} {
		if ex != nil {
			if err := checkShape(ex); err != nil {
				return fmt.Errorf("verify non-existence of %x: %w", key, err)
			}
		}
	}
	if err := ne.Verify(spec, rootHash[:], key); err != nil {
		return fmt.Errorf("verify non-existence of %x: %w: %w", key, ErrInvalidProof, err)
	}
	return nil
}

func nonExistence(p *ics23.CommitmentProof) *ics23.NonExistenceProof {
	if ne := p.GetNonexist(); ne != nil {
		return ne
	}
	if b := p.GetBatch(); b != nil && len(b.Entries) == 1 {
		return b.Entries[0].GetNonexist()
	}
	return nil
}

// VerifyRange checks that rows are exactly the rows with lo <= key <= hi
// under rootHash, in key order, by the rule of DESIGN.md ("Range
// completeness"). proof is a batch or compressed batch of existence
// proofs. It never panics.
func VerifyRange(rootHash [32]byte, lo, hi []byte, rows []KV, proof *ics23.CommitmentProof) (err error) {
	defer recoverInvalid(&err)
	if bytes.Compare(lo, hi) > 0 {
		return fmt.Errorf("verify range [%x, %x]: %w: lo above hi", lo, hi, ErrInvalidProof)
	}
	entries, err := batchExistences(ics23.Decompress(proof))
	if err == nil {
		err = checkRange(rootHash, lo, hi, rows, entries)
	}
	if err != nil {
		return fmt.Errorf("verify range [%x, %x]: %w", lo, hi, err)
	}
	return nil
}

func batchExistences(p *ics23.CommitmentProof) ([]*ics23.ExistenceProof, error) {
	b := p.GetBatch()
	if b == nil {
		return nil, invalid("not a batch proof")
	}
	entries := make([]*ics23.ExistenceProof, len(b.Entries))
	for i, e := range b.Entries {
		if entries[i] = e.GetExist(); entries[i] == nil {
			return nil, invalid("entry %d is not an existence proof", i)
		}
	}
	return entries, nil
}

// checkRange applies the range rule to verified-to-be-parsed entries.
func checkRange(rootHash [32]byte, lo, hi []byte, rows []KV, entries []*ics23.ExistenceProof) error {
	if rootHash == EmptyRootHash || len(entries) == 0 {
		if rootHash != EmptyRootHash || len(entries) != 0 || len(rows) != 0 {
			return invalid("only the empty tree has a range proof without entries, and no rows")
		}
		return nil
	}
	for i, ex := range entries {
		if err := verifyEntry(rootHash, ex); err != nil {
			return fmt.Errorf("entry %d: %w", i, err)
		}
		if i > 0 && !adjacent(entries[i-1], ex) {
			return invalid("entries %d and %d are not neighbours", i-1, i)
		}
	}
	inside := entries
	if first := entries[0]; bytes.Compare(first.Key, lo) < 0 {
		inside = inside[1:] // the left neighbour
	} else if !ics23.IsLeftMost(spec.InnerSpec, first.Path) {
		return invalid("no left neighbour, and the first entry is not the leftmost key")
	}
	if last := entries[len(entries)-1]; bytes.Compare(last.Key, hi) > 0 {
		if len(inside) == 0 {
			return invalid("an entry is both neighbours")
		}
		inside = inside[:len(inside)-1] // the right neighbour
	} else if !ics23.IsRightMost(spec.InnerSpec, last.Path) {
		return invalid("no right neighbour, and the last entry is not the rightmost key")
	}
	return sameRows(lo, hi, rows, inside)
}

// adjacent: l's key is below r's and no key lies between them.
func adjacent(l, r *ics23.ExistenceProof) bool {
	if bytes.Compare(l.Key, r.Key) >= 0 || len(l.Path) == 0 || len(r.Path) == 0 {
		return false
	}
	return ics23.IsLeftNeighbor(spec.InnerSpec, l.Path, r.Path)
}

func sameRows(lo, hi []byte, rows []KV, inside []*ics23.ExistenceProof) error {
	if len(rows) != len(inside) {
		return invalid("%d rows claimed, the proof has %d", len(rows), len(inside))
	}
	for i, ex := range inside {
		if bytes.Compare(ex.Key, lo) < 0 || bytes.Compare(ex.Key, hi) > 0 {
			return invalid("entry %x is outside the range", ex.Key)
		}
		if !bytes.Equal(rows[i].Key, ex.Key) || !bytes.Equal(rows[i].Value, ex.Value) {
			return invalid("row %d differs from the proof's", i)
		}
	}
	return nil
}

// verifyEntry checks ex's shape, then that it hashes to rootHash.
func verifyEntry(rootHash [32]byte, ex *ics23.ExistenceProof) error {
	if err := checkShape(ex); err != nil {
		return err
	}
	if err := ex.Verify(spec, rootHash[:], ex.Key, ex.Value); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidProof, err)
	}
	return nil
}

// checkShape holds ex to the exact ops this trie produces, which ics23's
// spec check does not: it accepts any leaf prefix that starts with 0x00,
// and with a longer one a proof can move a key boundary (DESIGN.md,
// "Verifying a proof").
func checkShape(ex *ics23.ExistenceProof) error {
	if err := CheckKey(ex.GetKey()); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidProof, err)
	}
	l := ex.GetLeaf()
	if l == nil || l.Hash != ics23.HashOp_SHA256 || l.PrehashKey != ics23.HashOp_NO_HASH ||
		l.PrehashValue != ics23.HashOp_SHA256 || l.Length != ics23.LengthOp_VAR_PROTO || !bytes.Equal(l.Prefix, []byte{0}) {
		return invalid("leaf op is not the trie's")
	}
	if len(ex.Path) > MaxDepth {
		return invalid("path of %d steps, at most %d", len(ex.Path), MaxDepth)
	}
	for i, op := range ex.Path {
		left := len(op.GetPrefix()) == 1 && len(op.GetSuffix()) == 32
		right := len(op.GetPrefix()) == 33 && len(op.GetSuffix()) == 0
		if op.GetHash() != ics23.HashOp_SHA256 || !(left || right) || op.Prefix[0] != 1 {
			return invalid("inner op %d is not the trie's", i)
		}
	}
	return nil
}

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalidProof}, args...)...)
}

// recoverInvalid turns a panic inside ics23 on a malformed proof (it
// indexes paths and lookup tables it has not checked) into an error.
func recoverInvalid(err *error) {
	if r := recover(); r != nil {
		*err = invalid("malformed proof: %v", r)
	}
}
