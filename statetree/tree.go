package statetree

import (
	"bytes"
	"fmt"
)

// Tree is the writable head of a trie. It is not safe for concurrent use;
// the Roots it commits are (see Root).
type Tree struct {
	a        arena
	root     ref
	gen      uint32
	len      int
	keyBytes int // live key bytes
}

// New returns an empty tree.
func New() *Tree { return &Tree{a: newArena(), gen: 1} }

// Len is the number of keys in the head, committed or not.
func (t *Tree) Len() int { return t.len }

// bitAt is bit i of key, most significant bit of each byte first; bits past
// the key's end read 0.
func bitAt(key []byte, i uint32) int {
	if int(i>>3) >= len(key) {
		return 0
	}
	return int(key[i>>3]>>(7-i&7)) & 1
}

// bestMatch is the leaf reached from r by following key's bits; nilRef
// when r is.
func (a *arena) bestMatch(r ref, key []byte) ref {
	if r == nilRef {
		return nilRef
	}
	for !r.isLeaf() {
		n := a.inner(r)
		r = n.child[bitAt(key, n.bit)]
	}
	return r
}

// own returns inner node r made writable in this generation: r itself if
// it is new, else a copy (path copying).
func (t *Tree) own(r ref) (ref, *inner) {
	n := t.a.inner(r)
	if n.gen == t.gen {
		return r, n
	}
	cr, c := t.a.newInner()
	*c = *n
	c.gen = t.gen
	return cr, c
}

// Set inserts key with valueHash (SHA-256 of the row image), or updates it.
// The key is copied. It fails on an empty or too long key and on a key that
// is a prefix of a key in the tree or has one as a prefix.
func (t *Tree) Set(key []byte, valueHash [32]byte) error {
	_, _, err := t.Put(key, valueHash)
	return err
}

// Put is Set that also returns the value hash key had before and whether
// it had one, found on Set's own way down.
func (t *Tree) Put(key []byte, valueHash [32]byte) (old [32]byte, had bool, err error) {
	if err := CheckKey(key); err != nil {
		return old, false, fmt.Errorf("set %x: %w", key, err)
	}
	crit, exists := uint32(0), false
	lf := leaf{value: valueHash}
	if best := t.a.bestMatch(t.root, key); best != nilRef {
		b := t.a.leaf(best)
		var err error
		if crit, exists, err = critBit(key, t.a.key(b)); err != nil {
			return old, false, fmt.Errorf("set %x (tree holds %x): %w", key, t.a.key(b), err)
		}
		if exists {
			old = b.value
		}
		if exists && b.value == valueHash {
			return old, true, nil
		}
		lf.koff, lf.klen = b.koff, b.klen // shared if exists
	}
	lf.hash = LeafHash(key, valueHash)
	t.insert(key, lf, crit, exists)
	return old, exists, nil
}

// insert places leaf lf of key: in place of key's leaf if it exists,
// else at its critical bit crit.
func (t *Tree) insert(key []byte, lf leaf, crit uint32, exists bool) {
	if !exists {
		lf.koff, lf.klen = t.a.addKey(key), uint32(len(key))
	}
	lr := t.a.newLeaf(lf)
	slot := &t.root
	for r := *slot; r != nilRef && !r.isLeaf(); r = *slot {
		if !exists && t.a.inner(r).bit >= crit {
			break
		}
		cr, c := t.own(r)
		*slot = cr
		slot = &c.child[bitAt(key, c.bit)]
	}
	if exists {
		*slot = lr
		return
	}
	if *slot != nilRef {
		ir, in := t.a.newInner()
		*in = inner{bit: crit, gen: t.gen}
		side := bitAt(key, crit)
		in.child[side], in.child[1-side] = lr, *slot
		lr = ir
	}
	*slot = lr
	t.len++
	t.keyBytes += len(key)
}

// critBit is the first bit where a and b differ; equal reports a == b. A
// key that is a proper prefix of the other is an error (ErrKeyPrefix).
func critBit(a, b []byte) (bit uint32, equal bool, err error) {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if x := a[i] ^ b[i]; x != 0 {
			j := uint32(0)
			for x&0x80 == 0 {
				x <<= 1
				j++
			}
			return uint32(i)*8 + j, false, nil
		}
	}
	if len(a) != len(b) {
		return 0, false, ErrKeyPrefix
	}
	return 0, true, nil
}

// Delete removes key and reports whether it was there.
func (t *Tree) Delete(key []byte) (bool, error) {
	_, had, err := t.Remove(key)
	return had, err
}

// Remove is Delete that also returns the value hash key had.
func (t *Tree) Remove(key []byte) (old [32]byte, had bool, err error) {
	if err := CheckKey(key); err != nil {
		return old, false, fmt.Errorf("delete %x: %w", key, err)
	}
	best := t.a.bestMatch(t.root, key)
	if best == nilRef || !bytes.Equal(t.a.key(t.a.leaf(best)), key) {
		return old, false, nil
	}
	old = t.a.leaf(best).value
	t.unlink(key)
	return old, true, nil
}

// unlink takes key's leaf, which the tree holds, out of the trie.
func (t *Tree) unlink(key []byte) {
	slot := &t.root
	for {
		r := *slot
		if r.isLeaf() { // the only key
			*slot = nilRef
			break
		}
		n := t.a.inner(r)
		side := bitAt(key, n.bit)
		if n.child[side].isLeaf() { // the parent of key: its sibling takes its place
			*slot = n.child[1-side]
			break
		}
		cr, c := t.own(r)
		*slot = cr
		slot = &c.child[side]
	}
	t.len--
	t.keyBytes -= len(key)
}

// Commit hashes what changed since the last Commit and returns the
// snapshot. The Root stays valid and unchanged whatever the tree does next.
func (t *Tree) Commit() Root {
	r := Root{len: t.len, hash: EmptyRootHash}
	if t.root != nilRef {
		t.rehash(t.root)
		t.compactIfSparse()
		r.hash = *t.a.hash(t.root)
	}
	if t.root == nilRef && t.a.nIn+t.a.nLeaf > 1 {
		t.a = newArena() // all garbage
	}
	view := t.a
	r.a, r.n = &view, t.root
	t.gen++
	return r
}

// rehash recomputes the hashes of r's subtree nodes of this generation.
func (t *Tree) rehash(r ref) {
	if r.isLeaf() {
		return
	}
	n := t.a.inner(r)
	if n.gen != t.gen {
		return
	}
	t.rehash(n.child[0])
	t.rehash(n.child[1])
	n.hash = innerHash(t.a.hash(n.child[0]), t.a.hash(n.child[1]))
}

// compactIfSparse copies the live trie into a new arena once the garbage
// (nodes and keys replaced since the last compaction, kept for the Roots
// that may still read them) outweighs it, so the arena stays under about
// twice the live size. The old arena is left to the Roots that hold it.
func (t *Tree) compactIfSparse() {
	live := 2 * t.len // leaves and inner nodes, about
	used := int(t.a.nIn) + int(t.a.nLeaf)
	if used < 2*live+2*chunkLen && len(t.a.keys) < 2*t.keyBytes+chunkLen {
		return
	}
	a := newArena()
	a.keys = make([]byte, 0, t.keyBytes)
	t.root = a.copyFrom(&t.a, t.root)
	t.a = a
}
