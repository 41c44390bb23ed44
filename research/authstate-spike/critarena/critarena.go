// Package critarena is the pointer-free layout of package critbit's trie
// (same hashing, same roots): nodes live in one slice addressed by int32,
// keys in one byte slab, so the garbage collector never scans them. It
// mutates in place (no path copying): a reader needs the block lock or a
// root kept aside. Measures what critbit costs without GC pressure. Deletes
// are not implemented (a free list would recycle slots).
package critarena

import (
	"crypto/sha256"
	"encoding/binary"

	ics23 "github.com/cosmos/ics23/go"
)

const leaf = 1 << 31 // flag in bit: the node is a leaf

type node struct {
	hash  [32]byte
	l, r  int32  // inner: children; leaf: key offset, key length
	bit   uint32 // inner: critical bit; leaf: the flag
	dirty bool
}

// Tree is the trie; root -1 when empty.
type Tree struct {
	nodes []node
	keys  []byte
	root  int32
	Dirty int
}

func New(capacity int) *Tree {
	return &Tree{nodes: make([]node, 0, 2*capacity), keys: make([]byte, 0, 9*capacity), root: -1}
}

func (t *Tree) key(n *node) []byte { return t.keys[n.l : n.l+n.r] }

func bitAt(k []byte, i uint32) int {
	if int(i>>3) >= len(k) {
		return 0
	}
	return int(k[i>>3]>>(7-i&7)) & 1
}

func leafHash(key []byte, vh *[32]byte) [32]byte {
	var buf [64 + 48]byte
	b := append(buf[:0], 0)
	b = binary.AppendUvarint(b, uint64(len(key)))
	b = append(b, key...)
	b = append(b, 32)
	b = append(b, vh[:]...)
	return sha256.Sum256(b)
}

// Set inserts or updates key with SHA256(value) = vh.
func (t *Tree) Set(key []byte, vh [32]byte) {
	h := leafHash(key, &vh)
	if t.root < 0 {
		t.root = t.newLeaf(key, h)
		return
	}
	i := t.root
	for t.nodes[i].bit&leaf == 0 {
		n := &t.nodes[i]
		if bitAt(key, n.bit) == 0 {
			i = n.l
		} else {
			i = n.r
		}
	}
	best := t.key(&t.nodes[i])
	cb, differ := uint32(0), false
	for j := 0; j < len(key) && j < len(best); j++ {
		if x := key[j] ^ best[j]; x != 0 {
			k := uint32(0)
			for x&0x80 == 0 {
				x <<= 1
				k++
			}
			cb, differ = uint32(j)*8+k, true
			break
		}
	}
	if !differ { // update: walk again marking the path dirty
		i := t.root
		for t.nodes[i].bit&leaf == 0 {
			n := &t.nodes[i]
			n.dirty = true
			if bitAt(key, n.bit) == 0 {
				i = n.l
			} else {
				i = n.r
			}
		}
		t.nodes[i].hash = h
		return
	}
	lf := t.newLeaf(key, h)
	// insert above the first node whose bit > cb
	parent := int32(-1)
	side := 0
	i = t.root
	for t.nodes[i].bit&leaf == 0 && t.nodes[i].bit < cb {
		n := &t.nodes[i]
		n.dirty = true
		parent = i
		side = bitAt(key, n.bit)
		if side == 0 {
			i = n.l
		} else {
			i = n.r
		}
	}
	in := node{bit: cb, dirty: true}
	if bitAt(key, cb) == 0 {
		in.l, in.r = lf, i
	} else {
		in.l, in.r = i, lf
	}
	t.nodes = append(t.nodes, in)
	ni := int32(len(t.nodes) - 1)
	if parent < 0 {
		t.root = ni
	} else if side == 0 {
		t.nodes[parent].l = ni
	} else {
		t.nodes[parent].r = ni
	}
}

func (t *Tree) newLeaf(key []byte, h [32]byte) int32 {
	off := len(t.keys)
	t.keys = append(t.keys, key...)
	t.nodes = append(t.nodes, node{hash: h, l: int32(off), r: int32(len(key)), bit: leaf})
	return int32(len(t.nodes) - 1)
}

// Commit rehashes dirty inner nodes and returns the root.
func (t *Tree) Commit() []byte {
	t.Dirty = 0
	if t.root < 0 {
		return nil
	}
	t.rehash(t.root)
	h := t.nodes[t.root].hash
	return h[:]
}

func (t *Tree) rehash(i int32) {
	n := &t.nodes[i]
	if n.bit&leaf != 0 || !n.dirty {
		return
	}
	t.rehash(n.l)
	t.rehash(n.r)
	n = &t.nodes[i]
	var b [65]byte
	b[0] = 1
	copy(b[1:], t.nodes[n.l].hash[:])
	copy(b[33:], t.nodes[n.r].hash[:])
	n.hash = sha256.Sum256(b[:])
	n.dirty = false
	t.Dirty++
}

// Exist is the ICS23 existence proof of key (value supplied by the caller).
func (t *Tree) Exist(key, value []byte) *ics23.ExistenceProof {
	var ops []*ics23.InnerOp
	i := t.root
	for t.nodes[i].bit&leaf == 0 {
		n := &t.nodes[i]
		if bitAt(key, n.bit) == 0 {
			ops = append(ops, &ics23.InnerOp{Hash: ics23.HashOp_SHA256, Prefix: []byte{1}, Suffix: append([]byte(nil), t.nodes[n.r].hash[:]...)})
			i = n.l
		} else {
			ops = append(ops, &ics23.InnerOp{Hash: ics23.HashOp_SHA256, Prefix: append([]byte{1}, t.nodes[n.l].hash[:]...)})
			i = n.r
		}
	}
	for a, b := 0, len(ops)-1; a < b; a, b = a+1, b-1 {
		ops[a], ops[b] = ops[b], ops[a]
	}
	return &ics23.ExistenceProof{Key: key, Value: value, Path: ops,
		Leaf: &ics23.LeafOp{Hash: ics23.HashOp_SHA256, PrehashValue: ics23.HashOp_SHA256, Length: ics23.LengthOp_VAR_PROTO, Prefix: []byte{0}}}
}
