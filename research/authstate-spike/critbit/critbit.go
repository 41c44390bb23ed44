// Package critbit is a prototype of option B: a binary Merkle crit-bit
// (Patricia) trie keyed by an order-preserving, prefix-free primary-key
// encoding. Its shape is a function of the key set alone (history
// independent), so it can be rebuilt from a table scan on any engine and
// must reproduce the committed root. Hashing follows ICS23's TendermintSpec
// exactly: leaf = SHA256(0x00 | varint(len k) | k | varint(32) | SHA256(v)),
// inner = SHA256(0x01 | left | right), so proofs are standard
// ics23.CommitmentProofs verified with ics23.TendermintSpec.
//
// Nodes are immutable once committed (path copying), so every committed
// root stays a consistent snapshot for readers; nodes created in the
// current block are mutated in place and hashed once, at Commit.
package critbit

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"sort"

	ics23 "github.com/cosmos/ics23/go"
)

type node struct {
	hash        [32]byte
	left, right *node  // nil for a leaf
	key         []byte // leaf only
	bit         uint32 // inner: index of the critical bit
	gen         uint32 // block that created it; dirty while gen == tree.gen
	dirty       bool
}

// Tree is a versioned trie; Root() is the committed root.
type Tree struct {
	root  *node
	gen   uint32
	Dirty int // nodes hashed by the last Commit (what a persisted variant writes)
	Size  int
}

func bitAt(k []byte, i uint32) int {
	if int(i>>3) >= len(k) {
		return 0
	}
	return int(k[i>>3]>>(7-i&7)) & 1
}

func critBit(a, b []byte) (uint32, bool) {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if x := a[i] ^ b[i]; x != 0 {
			j := uint32(0)
			for x&0x80 == 0 {
				x <<= 1
				j++
			}
			return uint32(i)*8 + j, true
		}
	}
	if len(a) != len(b) {
		panic("keys must be prefix-free")
	}
	return 0, false
}

// LeafHash is the ICS23 TendermintSpec leaf of (key, value).
func LeafHash(key, value []byte) [32]byte {
	vh := sha256.Sum256(value)
	return LeafHashOfValueHash(key, vh)
}

// LeafHashOfValueHash takes SHA256(value): what a persisted variant can keep.
func LeafHashOfValueHash(key []byte, vh [32]byte) [32]byte {
	b := make([]byte, 0, 1+binary.MaxVarintLen64+len(key)+1+32)
	b = append(b, 0)
	b = binary.AppendUvarint(b, uint64(len(key)))
	b = append(b, key...)
	b = append(b, 32)
	b = append(b, vh[:]...)
	return sha256.Sum256(b)
}

func (t *Tree) own(n *node) *node {
	if n.gen == t.gen {
		n.dirty = true
		return n
	}
	c := *n
	c.gen, c.dirty = t.gen, true
	return &c
}

// Set inserts or updates key with SHA256(value) = vh.
func (t *Tree) Set(key []byte, vh [32]byte) {
	leaf := &node{key: key, gen: t.gen}
	leaf.hash = LeafHashOfValueHash(key, vh)
	if t.root == nil {
		t.root = leaf
		t.Size++
		return
	}
	// best match
	n := t.root
	for n.left != nil {
		if bitAt(key, n.bit) == 0 {
			n = n.left
		} else {
			n = n.right
		}
	}
	cb, differ := critBit(key, n.key)
	if !differ {
		t.root = t.replace(t.root, key, leaf)
		return
	}
	t.Size++
	t.root = t.insert(t.root, key, cb, leaf)
}

func (t *Tree) replace(n *node, key []byte, leaf *node) *node {
	if n.left == nil {
		return leaf
	}
	c := t.own(n)
	if bitAt(key, n.bit) == 0 {
		c.left = t.replace(n.left, key, leaf)
	} else {
		c.right = t.replace(n.right, key, leaf)
	}
	return c
}

func (t *Tree) insert(n *node, key []byte, cb uint32, leaf *node) *node {
	if n.left == nil || n.bit > cb {
		in := &node{bit: cb, gen: t.gen, dirty: true}
		if bitAt(key, cb) == 0 {
			in.left, in.right = leaf, n
		} else {
			in.left, in.right = n, leaf
		}
		return in
	}
	c := t.own(n)
	if bitAt(key, n.bit) == 0 {
		c.left = t.insert(n.left, key, cb, leaf)
	} else {
		c.right = t.insert(n.right, key, cb, leaf)
	}
	return c
}

// Delete removes key; it reports whether it was present.
func (t *Tree) Delete(key []byte) bool {
	var found bool
	t.root, found = t.del(t.root, key)
	if found {
		t.Size--
	}
	return found
}

func (t *Tree) del(n *node, key []byte) (*node, bool) {
	if n == nil {
		return nil, false
	}
	if n.left == nil {
		if bytes.Equal(n.key, key) {
			return nil, true
		}
		return n, false
	}
	var child, other *node
	var found bool
	dir := bitAt(key, n.bit)
	if dir == 0 {
		child, found = t.del(n.left, key)
		other = n.right
	} else {
		child, found = t.del(n.right, key)
		other = n.left
	}
	if !found {
		return n, false
	}
	if child == nil {
		return other, true
	}
	c := t.own(n)
	if dir == 0 {
		c.left = child
	} else {
		c.right = child
	}
	return c, true
}

// Commit hashes the block's dirty nodes and returns the root hash.
func (t *Tree) Commit() []byte {
	t.Dirty = 0
	if t.root != nil {
		t.rehash(t.root)
	}
	t.gen++
	return t.Root()
}

func (t *Tree) rehash(n *node) {
	if !n.dirty || n.left == nil {
		if n.gen == t.gen && n.left == nil {
			t.Dirty++
		}
		return
	}
	t.rehash(n.left)
	t.rehash(n.right)
	var b [65]byte
	b[0] = 1
	copy(b[1:], n.left.hash[:])
	copy(b[33:], n.right.hash[:])
	n.hash = sha256.Sum256(b[:])
	n.dirty = false
	t.Dirty++
}

// Root is the committed root hash (nil when empty).
func (t *Tree) Root() []byte {
	if t.root == nil {
		return nil
	}
	h := t.root.hash
	return h[:]
}

// Snapshot is a committed, immutable version for readers.
type Snapshot struct{ root *node }

func (t *Tree) Snapshot() Snapshot { return Snapshot{t.root} }

// Depth returns the maximum and mean leaf depth.
func (s Snapshot) Depth() (max int, mean float64) {
	var sum, cnt int
	var walk func(n *node, d int)
	walk = func(n *node, d int) {
		if n.left == nil {
			sum += d
			cnt++
			if d > max {
				max = d
			}
			return
		}
		walk(n.left, d+1)
		walk(n.right, d+1)
	}
	if s.root != nil {
		walk(s.root, 0)
	}
	return max, float64(sum) / float64(cnt)
}

// path returns the leaf reached by key's bits and the ICS23 inner ops from
// that leaf up to the root.
func (s Snapshot) path(key []byte) (*node, []*ics23.InnerOp) {
	var stack []*ics23.InnerOp
	n := s.root
	for n.left != nil {
		var op *ics23.InnerOp
		if bitAt(key, n.bit) == 0 {
			op = &ics23.InnerOp{Hash: ics23.HashOp_SHA256, Prefix: []byte{1}, Suffix: bytes.Clone(n.right.hash[:])}
			n = n.left
		} else {
			op = &ics23.InnerOp{Hash: ics23.HashOp_SHA256, Prefix: append([]byte{1}, n.left.hash[:]...)}
			n = n.right
		}
		stack = append(stack, op)
	}
	for i, j := 0, len(stack)-1; i < j; i, j = i+1, j-1 {
		stack[i], stack[j] = stack[j], stack[i]
	}
	return n, stack
}

var leafOp = &ics23.LeafOp{Hash: ics23.HashOp_SHA256, PrehashValue: ics23.HashOp_SHA256, Length: ics23.LengthOp_VAR_PROTO, Prefix: []byte{0}}

// Exist proves key -> value; the caller passes the row image (value), which
// the tree does not hold.
func (s Snapshot) Exist(key, value []byte) (*ics23.ExistenceProof, error) {
	if s.root == nil {
		return nil, errors.New("empty tree")
	}
	leaf, ops := s.path(key)
	if !bytes.Equal(leaf.key, key) {
		return nil, errors.New("key absent")
	}
	return &ics23.ExistenceProof{Key: key, Value: value, Leaf: leafOp, Path: ops}, nil
}

// Neighbours returns the greatest key < key and the least key > key (nil
// when none); key itself must be absent.
func (s Snapshot) Neighbours(key []byte) (pred, succ []byte) {
	if s.root == nil {
		return nil, nil
	}
	b := s.root
	for b.left != nil {
		if bitAt(key, b.bit) == 0 {
			b = b.left
		} else {
			b = b.right
		}
	}
	c, differ := critBit(key, b.key)
	if !differ {
		panic("key present")
	}
	var leftOfPath, rightOfPath *node
	n := s.root
	for n.left != nil && n.bit < c {
		if bitAt(key, n.bit) == 0 {
			rightOfPath, n = n.right, n.left
		} else {
			leftOfPath, n = n.left, n.right
		}
	}
	if bitAt(key, c) == 0 {
		succ = leftmost(n)
		if leftOfPath != nil {
			pred = rightmost(leftOfPath)
		}
	} else {
		pred = rightmost(n)
		if rightOfPath != nil {
			succ = leftmost(rightOfPath)
		}
	}
	return
}

func leftmost(n *node) []byte {
	for n.left != nil {
		n = n.left
	}
	return n.key
}

func rightmost(n *node) []byte {
	for n.left != nil {
		n = n.right
	}
	return n.key
}

// NonExist proves key absent; value fetches a neighbour's row image.
func (s Snapshot) NonExist(key []byte, value func([]byte) []byte) *ics23.CommitmentProof {
	pred, succ := s.Neighbours(key)
	ne := &ics23.NonExistenceProof{Key: key}
	if pred != nil {
		ne.Left, _ = s.Exist(pred, value(pred))
	}
	if succ != nil {
		ne.Right, _ = s.Exist(succ, value(succ))
	}
	return &ics23.CommitmentProof{Proof: &ics23.CommitmentProof_Nonexist{Nonexist: ne}}
}

// Range proves [lo, hi]: existence proofs of the keys in it (sorted, from
// the caller's scan: sortedKeys is every key, in a test) and of the nearest
// key outside each end. Returned uncompressed (a batch).
func (s Snapshot) Range(lo, hi []byte, sortedKeys []string, value func([]byte) []byte) *ics23.CommitmentProof {
	var keys [][]byte
	i := sort.SearchStrings(sortedKeys, string(lo))
	if i > 0 {
		keys = append(keys, []byte(sortedKeys[i-1]))
	}
	for ; i < len(sortedKeys) && sortedKeys[i] <= string(hi); i++ {
		keys = append(keys, []byte(sortedKeys[i]))
	}
	if i < len(sortedKeys) {
		keys = append(keys, []byte(sortedKeys[i]))
	}
	return s.Batch(keys, value)
}

// Batch is a batch of existence proofs of keys, in order.
func (s Snapshot) Batch(keys [][]byte, value func([]byte) []byte) *ics23.CommitmentProof {
	b := &ics23.BatchProof{}
	for _, k := range keys {
		e, err := s.Exist(k, value(k))
		if err != nil {
			panic(err)
		}
		b.Entries = append(b.Entries, &ics23.BatchEntry{Proof: &ics23.BatchEntry_Exist{Exist: e}})
	}
	return &ics23.CommitmentProof{Proof: &ics23.CommitmentProof_Batch{Batch: b}}
}
