package statetree

import (
	"bytes"
	"fmt"
)

// node is a leaf (child[0] == nil: key, value, hash) or an inner node
// (child, bit, hash). A node whose gen is the tree's current generation was
// created since the last Commit and may be changed in place; older nodes
// belong to committed snapshots and are never written again.
type node struct {
	hash  [32]byte // leaf: LeafHash(key, value); inner: valid unless dirty
	value [32]byte // leaf: the value hash
	child [2]*node // inner: the subtrees whose keys have bit 0 / 1
	key   []byte   // leaf: owned by the node
	bit   uint32   // inner: the critical bit (0 is the top bit of byte 0)
	gen   uint64
	dirty bool // inner: hash is stale
}

func (n *node) isLeaf() bool { return n.child[0] == nil }

// Tree is the writable head of a trie. It is not safe for concurrent use;
// the Roots it commits are (see Root).
type Tree struct {
	root *node
	gen  uint64
	len  int
}

// New returns an empty tree.
func New() *Tree { return &Tree{gen: 1} }

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

// bestMatch is the leaf reached by following key's bits; nil when empty.
func bestMatch(n *node, key []byte) *node {
	if n == nil {
		return nil
	}
	for !n.isLeaf() {
		n = n.child[bitAt(key, n.bit)]
	}
	return n
}

// own returns n made writable in this generation: n itself if it is new,
// else a copy (path copying), marked dirty either way.
func (t *Tree) own(n *node) *node {
	if n.gen != t.gen {
		c := *n
		c.gen = t.gen
		n = &c
	}
	n.dirty = true
	return n
}

// Set inserts key with valueHash (SHA-256 of the row image), or updates it.
// The key is copied. It fails on an empty or too long key and on a key that
// is a prefix of a key in the tree or has one as a prefix.
func (t *Tree) Set(key []byte, valueHash [32]byte) error {
	if err := CheckKey(key); err != nil {
		return fmt.Errorf("set %x: %w", key, err)
	}
	best := bestMatch(t.root, key)
	crit, exists := uint32(0), false
	if best != nil {
		var err error
		if crit, exists, err = critBit(key, best.key); err != nil {
			return fmt.Errorf("set %x (tree holds %x): %w", key, best.key, err)
		}
		if exists && best.value == valueHash {
			return nil
		}
	}
	leaf := &node{key: bytes.Clone(key), value: valueHash, hash: LeafHash(key, valueHash), gen: t.gen}
	slot := &t.root
	for n := *slot; n != nil && !n.isLeaf() && (exists || n.bit < crit); n = *slot {
		c := t.own(n)
		*slot = c
		slot = &c.child[bitAt(key, c.bit)]
	}
	if exists {
		*slot = leaf
		return nil
	}
	if *slot != nil {
		in := &node{bit: crit, gen: t.gen, dirty: true}
		side := bitAt(key, crit)
		in.child[side], in.child[1-side] = leaf, *slot
		leaf = in
	}
	*slot = leaf
	t.len++
	return nil
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
	if err := CheckKey(key); err != nil {
		return false, fmt.Errorf("delete %x: %w", key, err)
	}
	best := bestMatch(t.root, key)
	if best == nil || !bytes.Equal(best.key, key) {
		return false, nil
	}
	slot := &t.root
	for {
		n := *slot
		if n.isLeaf() { // the only key
			*slot = nil
			break
		}
		side := bitAt(key, n.bit)
		if n.child[side].isLeaf() { // the parent of key: its sibling takes its place
			*slot = n.child[1-side]
			break
		}
		c := t.own(n)
		*slot = c
		slot = &c.child[side]
	}
	t.len--
	return true, nil
}

// Commit hashes what changed since the last Commit and returns the
// snapshot. The Root stays valid and unchanged whatever the tree does next.
func (t *Tree) Commit() Root {
	r := Root{n: t.root, len: t.len, hash: EmptyRootHash}
	if t.root != nil {
		rehash(t.root)
		r.hash = t.root.hash
	}
	t.gen++
	return r
}

// rehash recomputes the hashes of n's dirty subtree.
func rehash(n *node) {
	if n.isLeaf() || !n.dirty {
		return
	}
	rehash(n.child[0])
	rehash(n.child[1])
	n.hash = innerHash(&n.child[0].hash, &n.child[1].hash)
	n.dirty = false
}
