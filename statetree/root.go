package statetree

import (
	"bytes"
	"math"
)

// Root is a committed, immutable snapshot of a tree. Its methods are safe
// for concurrent use, also while the Tree that committed it goes on
// changing. The zero Root is the empty tree.
type Root struct {
	a    *arena // a read-only view; nil for the zero Root
	n    ref
	len  int
	hash [32]byte
}

// Hash is the root hash (EmptyRootHash for an empty tree).
func (r Root) Hash() [32]byte {
	if r.n == nilRef {
		return EmptyRootHash
	}
	return r.hash
}

// Len is the number of keys.
func (r Root) Len() int { return r.len }

// Get returns key's value hash.
func (r Root) Get(key []byte) (valueHash [32]byte, ok bool) {
	if l := r.a.bestMatch(r.n, key); l != nilRef && bytes.Equal(r.key(l), key) {
		return r.a.leaf(l).value, true
	}
	return [32]byte{}, false
}

// Ascend calls fn for each key in [lo, hi] in increasing byte order, until
// fn returns false. lo and hi are any byte strings (not only keys).
func (r Root) Ascend(lo, hi []byte, fn func(key []byte, valueHash [32]byte) bool) {
	_, l, next := r.locate(lo)
	if l == nilRef {
		l = next
	}
	for l != nilRef && bytes.Compare(r.key(l), hi) <= 0 {
		if !fn(r.key(l), r.a.leaf(l).value) {
			return
		}
		_, _, l = r.locate(r.key(l))
	}
}

// Neighbours returns the greatest key below lo and the least key above
// hi (nil where there is none): the keys a non-existence or range proof
// of [lo, hi] shows besides those inside, whose values a ValueFunc must
// give. lo and hi are any byte strings.
func (r Root) Neighbours(lo, hi []byte) (below, above []byte) {
	if pred, _, _ := r.locate(lo); pred != nilRef {
		below = r.key(pred)
	}
	if _, _, succ := r.locate(hi); succ != nilRef {
		above = r.key(succ)
	}
	return below, above
}

// key is leaf l's key.
func (r Root) key(l ref) []byte { return r.a.key(r.a.leaf(l)) }

// locate finds q among the keys: pred is the leaf of the greatest key < q,
// exact the leaf of q, succ the leaf of the least key > q (each nil if
// there is none). q is any byte string.
func (r Root) locate(q []byte) (pred, exact, succ ref) {
	best := r.a.bestMatch(r.n, q)
	if best == nilRef {
		return nilRef, nilRef, nilRef
	}
	crit, cmp := paddedDiff(q, r.key(best))
	// The keys sharing q's first crit bits form the subtree met on q's path
	// before the first node testing a bit >= crit (no node tests crit
	// itself, or best would agree with q there). Outside it, the nearest
	// subtrees left and right of the path hold pred and succ.
	var left, right ref
	n := r.n
	for !n.isLeaf() && uint64(r.a.inner(n).bit) < crit {
		in := r.a.inner(n)
		side := bitAt(q, in.bit)
		if side == 0 {
			right = in.child[1]
		} else {
			left = in.child[0]
		}
		n = in.child[side]
	}
	switch {
	case cmp == 0: // n is best
		return r.a.edge(left, 1), n, r.a.edge(right, 0)
	case cmp < 0: // q is below the whole subtree
		return r.a.edge(left, 1), nilRef, r.a.edge(n, 0)
	default:
		return r.a.edge(n, 1), nilRef, r.a.edge(right, 0)
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

// edge is the leaf reached from n by always taking child side: its
// leftmost leaf (0) or rightmost leaf (1); nilRef if n is.
func (a *arena) edge(n ref, side int) ref {
	for n != nilRef && !n.isLeaf() {
		n = a.inner(n).child[side]
	}
	return n
}
