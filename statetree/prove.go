package statetree

import (
	"bytes"
	"crypto/sha256"
	"fmt"

	ics23 "github.com/cosmos/ics23/go"
)

// ValueFunc returns the value (the row image) stored under key in the
// version the snapshot was committed at. A prover calls it for the keys a
// proof names and checks each answer against the snapshot's value hash.
type ValueFunc func(key []byte) ([]byte, error)

// ProveExistence proves key -> value, value being the row image whose
// SHA-256 the tree holds: an ics23 ExistenceProof.
func (r Root) ProveExistence(key, value []byte) (*ics23.CommitmentProof, error) {
	ex, err := r.existence(key, value)
	if err != nil {
		return nil, fmt.Errorf("prove existence of %x: %w", key, err)
	}
	return &ics23.CommitmentProof{Proof: &ics23.CommitmentProof_Exist{Exist: ex}}, nil
}

// ProveNonExistence proves key absent: an ics23 NonExistenceProof of its
// neighbours, in a compressed batch of one (smaller, and accepted as is by
// ics23.VerifyNonMembership). For the empty tree it is a NonExistenceProof
// with neither neighbour, which only VerifyNonExistence accepts (against
// EmptyRootHash).
func (r Root) ProveNonExistence(key []byte, values ValueFunc) (*ics23.CommitmentProof, error) {
	if err := CheckKey(key); err != nil {
		return nil, fmt.Errorf("prove non-existence of %x: %w", key, err)
	}
	pred, exact, succ := r.locate(key)
	if exact != nilRef {
		return nil, fmt.Errorf("prove non-existence of %x: the key is present", key)
	}
	ne := &ics23.NonExistenceProof{Key: bytes.Clone(key)}
	var err error
	if pred != nilRef {
		if ne.Left, err = r.neighbour(pred, values); err != nil {
			return nil, fmt.Errorf("prove non-existence of %x: left neighbour: %w", key, err)
		}
	}
	if succ != nilRef {
		if ne.Right, err = r.neighbour(succ, values); err != nil {
			return nil, fmt.Errorf("prove non-existence of %x: right neighbour: %w", key, err)
		}
	}
	if r.n == nilRef {
		return &ics23.CommitmentProof{Proof: &ics23.CommitmentProof_Nonexist{Nonexist: ne}}, nil
	}
	batch := &ics23.BatchProof{Entries: []*ics23.BatchEntry{{Proof: &ics23.BatchEntry_Nonexist{Nonexist: ne}}}}
	return ics23.Compress(&ics23.CommitmentProof{Proof: &ics23.CommitmentProof_Batch{Batch: batch}}), nil
}

// ProveRange proves that the keys in [lo, hi] (lo <= hi, any byte strings)
// are exactly the ones it names: a compressed ics23 batch of existence
// proofs, in key order, of the keys in the range and of the nearest key
// outside each end, if any (DESIGN.md, "Range completeness").
func (r Root) ProveRange(lo, hi []byte, values ValueFunc) (*ics23.CommitmentProof, error) {
	if bytes.Compare(lo, hi) > 0 {
		return nil, fmt.Errorf("prove range [%x, %x]: lo above hi", lo, hi)
	}
	pred, l, succ := r.locate(lo)
	if l == nilRef {
		l = succ
	}
	var nodes []ref
	if pred != nilRef {
		nodes = append(nodes, pred)
	}
	for ; l != nilRef; _, _, l = r.locate(r.key(l)) {
		nodes = append(nodes, l)
		if bytes.Compare(r.key(l), hi) > 0 {
			break
		}
	}
	batch := &ics23.BatchProof{Entries: make([]*ics23.BatchEntry, 0, len(nodes))}
	for _, n := range nodes {
		ex, err := r.neighbour(n, values)
		if err != nil {
			return nil, fmt.Errorf("prove range [%x, %x]: %w", lo, hi, err)
		}
		batch.Entries = append(batch.Entries, &ics23.BatchEntry{Proof: &ics23.BatchEntry_Exist{Exist: ex}})
	}
	return ics23.Compress(&ics23.CommitmentProof{Proof: &ics23.CommitmentProof_Batch{Batch: batch}}), nil
}

// neighbour is the existence proof of leaf, its value fetched by values.
func (r Root) neighbour(l ref, values ValueFunc) (*ics23.ExistenceProof, error) {
	key := r.key(l)
	v, err := values(key)
	if err != nil {
		return nil, fmt.Errorf("value of %x: %w", key, err)
	}
	ex, err := r.existence(key, v)
	if err != nil {
		return nil, fmt.Errorf("key %x: %w", key, err)
	}
	return ex, nil
}

// existence builds key's ExistenceProof after checking value against the
// snapshot.
func (r Root) existence(key, value []byte) (*ics23.ExistenceProof, error) {
	if err := CheckKey(key); err != nil {
		return nil, err
	}
	l := r.a.bestMatch(r.n, key)
	if l == nilRef || !bytes.Equal(r.key(l), key) {
		return nil, ErrNotFound
	}
	if len(value) == 0 || sha256.Sum256(value) != r.a.leaf(l).value {
		return nil, ErrValueMismatch
	}
	return &ics23.ExistenceProof{
		Key:   bytes.Clone(key),
		Value: bytes.Clone(value),
		Leaf:  leafOp(),
		Path:  r.path(key),
	}, nil
}

func leafOp() *ics23.LeafOp {
	return &ics23.LeafOp{
		Hash:         ics23.HashOp_SHA256,
		PrehashKey:   ics23.HashOp_NO_HASH,
		PrehashValue: ics23.HashOp_SHA256,
		Length:       ics23.LengthOp_VAR_PROTO,
		Prefix:       []byte{0},
	}
}

// path is the inner ops from key's leaf up to the root. Prefixes and
// suffixes are allocated at their exact size: ics23 appends to the prefix.
func (r Root) path(key []byte) []*ics23.InnerOp {
	var ops []*ics23.InnerOp
	for n := r.n; !n.isLeaf(); {
		in := r.a.inner(n)
		op := &ics23.InnerOp{Hash: ics23.HashOp_SHA256}
		side := bitAt(key, in.bit)
		if side == 0 {
			op.Prefix = []byte{1}
			op.Suffix = bytes.Clone(r.a.hash(in.child[1])[:])
		} else {
			op.Prefix = make([]byte, 33)
			op.Prefix[0] = 1
			copy(op.Prefix[1:], r.a.hash(in.child[0])[:])
		}
		ops = append(ops, op)
		n = in.child[side]
	}
	for i, j := 0, len(ops)-1; i < j; i, j = i+1, j-1 {
		ops[i], ops[j] = ops[j], ops[i]
	}
	return ops
}
