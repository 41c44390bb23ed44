// Package rangeproof verifies a primary-key range [lo, hi] with
// completeness from a standard ICS23 batch (or compressed batch) proof of
// existence proofs: the rows in the range, in key order, plus the nearest
// row outside each end (or that end is the tree's edge). Completeness comes
// from ics23's exported neighbour checks: IsLeftNeighbor between every pair
// of consecutive proofs, IsLeftMost / IsRightMost at an edge.
package rangeproof

import (
	"bytes"

	ics23 "github.com/cosmos/ics23/go"
)

// Row is one proven row.
type Row struct{ Key, Value []byte }

func neighbours(spec *ics23.InnerSpec, l, r []*ics23.InnerOp) (ok bool) {
	defer func() {
		if recover() != nil { // ics23 indexes past a malformed path
			ok = false
		}
	}()
	if len(l) == 0 || len(r) == 0 {
		return false
	}
	return ics23.IsLeftNeighbor(spec, l, r)
}

// Verify returns the rows with lo <= key <= hi and true if proof proves
// them to be exactly the rows of that range under root.
func Verify(spec *ics23.ProofSpec, root []byte, proof *ics23.CommitmentProof, lo, hi []byte) ([]Row, bool) {
	if ics23.IsCompressed(proof) {
		proof = ics23.Decompress(proof)
	}
	var ex []*ics23.ExistenceProof
	if e := proof.GetExist(); e != nil {
		ex = []*ics23.ExistenceProof{e}
	} else if b := proof.GetBatch(); b != nil {
		for _, e := range b.Entries {
			x := e.GetExist()
			if x == nil {
				return nil, false
			}
			ex = append(ex, x)
		}
	} else {
		return nil, false
	}
	if len(ex) == 0 || bytes.Compare(lo, hi) > 0 {
		return nil, false
	}
	for i, e := range ex {
		if e.Verify(spec, root, e.Key, e.Value) != nil {
			return nil, false
		}
		if i > 0 {
			if bytes.Compare(ex[i-1].Key, e.Key) >= 0 || !neighbours(spec.InnerSpec, ex[i-1].Path, e.Path) {
				return nil, false
			}
		}
	}
	first, last := ex[0], ex[len(ex)-1]
	in := ex
	if bytes.Compare(first.Key, lo) < 0 {
		in = in[1:] // the left neighbour
	} else if !ics23.IsLeftMost(spec.InnerSpec, first.Path) {
		return nil, false
	}
	if bytes.Compare(last.Key, hi) > 0 {
		if len(in) == 0 {
			return nil, false
		}
		in = in[:len(in)-1]
	} else if !ics23.IsRightMost(spec.InnerSpec, last.Path) {
		return nil, false
	}
	rows := make([]Row, 0, len(in))
	for _, e := range in {
		if bytes.Compare(e.Key, lo) < 0 || bytes.Compare(e.Key, hi) > 0 {
			return nil, false
		}
		rows = append(rows, Row{e.Key, e.Value})
	}
	return rows, true
}
