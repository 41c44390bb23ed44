package statetree

import (
	"bytes"
	"math"
)

// Root is a committed, immutable snapshot of a tree. Its methods are safe
// for concurrent use, also while the Tree that committed it goes on
// changing. The zero Root is the empty tree.
type Root struct {
	n    *node
	len  int
	hash [32]byte
}

// Hash is the root hash (EmptyRootHash for an empty tree).
func (r Root) Hash() [32]byte {
	if r.n == nil {
		return EmptyRootHash
	}
	return r.hash
}

// Len is the number of keys.
func (r Root) Len() int { return r.len }

// Get returns key's value hash.
func (r Root) Get(key []byte) (valueHash [32]byte, ok bool) {
	if leaf := bestMatch(r.n, key); leaf != nil && bytes.Equal(leaf.key, key) {
		return leaf.value, true
	}
	return [32]byte{}, false
}

// Ascend calls fn for each key in [lo, hi] in increasing byte order, until
// fn returns false. lo and hi are any byte strings (not only keys).
func (r Root) Ascend(lo, hi []byte, fn func(key []byte, valueHash [32]byte) bool) {
	_, leaf, next := r.locate(lo)
	if leaf == nil {
		leaf = next
	}
	for leaf != nil && bytes.Compare(leaf.key, hi) <= 0 {
		if !fn(leaf.key, leaf.value) {
			return
		}
		_, _, leaf = r.locate(leaf.key)
	}
}

// locate finds q among the keys: pred is the leaf of the greatest key < q,
// exact the leaf of q, succ the leaf of the least key > q (each nil if
// there is none). q is any byte string.
func (r Root) locate(q []byte) (pred, exact, succ *node) {
	best := bestMatch(r.n, q)
	if best == nil {
		return nil, nil, nil
	}
	crit, cmp := paddedDiff(q, best.key)
	// The keys sharing q's first crit bits form the subtree met on q's path
	// before the first node testing a bit >= crit (no node tests crit
	// itself, or best would agree with q there). Outside it, the nearest
	// subtrees left and right of the path hold pred and succ.
	var left, right *node
	n := r.n
	for !n.isLeaf() && uint64(n.bit) < crit {
		side := bitAt(q, n.bit)
		if side == 0 {
			right = n.child[1]
		} else {
			left = n.child[0]
		}
		n = n.child[side]
	}
	switch {
	case cmp == 0: // n is best
		return rightmost(left), n, leftmost(right)
	case cmp < 0: // q is below the whole subtree
		return rightmost(left), nil, leftmost(n)
	default:
		return rightmost(n), nil, leftmost(right)
	}
}

// paddedDiff compares q and k as bit strings padded with zeros: crit is the
// first differing bit and cmp the byte order of q and k. When one is the
// other padded with zero bytes, crit is MaxUint64 and the shorter is less.
func paddedDiff(q, k []byte) (crit uint64, cmp int) {
	for i := 0; i < max(len(q), len(k)); i++ {
		var a, b byte
		if i < len(q) {
			a = q[i]
		}
		if i < len(k) {
			b = k[i]
		}
		if x := a ^ b; x != 0 {
			j := uint64(0)
			for x&0x80 == 0 {
				x <<= 1
				j++
			}
			if a < b {
				return uint64(i)*8 + j, -1
			}
			return uint64(i)*8 + j, 1
		}
	}
	switch {
	case len(q) < len(k):
		return math.MaxUint64, -1
	case len(q) > len(k):
		return math.MaxUint64, 1
	}
	return math.MaxUint64, 0
}

func leftmost(n *node) *node {
	for n != nil && !n.isLeaf() {
		n = n.child[0]
	}
	return n
}

func rightmost(n *node) *node {
	for n != nil && !n.isLeaf() {
		n = n.child[1]
	}
	return n
}
