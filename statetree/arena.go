package statetree

import "math"

// The trie lives in an arena the garbage collector never scans: inner
// nodes and leaves in fixed-size chunks addressed by a ref (an index), keys
// in one byte slab. Chunks are never moved and a committed node is never
// written again, so a Root keeps a copy of the arena's chunk lists and
// reads its nodes while the writer appends new ones (path copying into
// fresh slots). Replaced nodes stay in the arena as garbage until the Tree
// compacts: it copies the live trie into a new arena and drops the old one
// for the garbage collector once no Root holds it.

// ref names a node: 0 is none, an inner node is its index (slot 0 is never
// used), a leaf is its index with leafRef set.
type ref uint32

const (
	nilRef  ref = 0
	leafRef ref = 1 << 31

	chunkBits = 10
	chunkLen  = 1 << chunkBits
)

func (r ref) isLeaf() bool { return r&leafRef != 0 }

// inner is an inner node. A node whose gen is the tree's current
// generation was created since the last Commit: its hash is stale and it
// may be changed in place. Older nodes belong to committed snapshots.
type inner struct {
	hash  [32]byte
	child [2]ref // the subtrees whose keys have bit 0 / 1
	bit   uint32 // the critical bit (0 is the top bit of byte 0)
	gen   uint32
}

// leaf is a key (in the key slab), its value hash and its leaf hash.
// Leaves are never changed: an update makes a new one sharing the key.
type leaf struct {
	hash       [32]byte // LeafHash(key, value)
	value      [32]byte
	koff, klen uint32
}

type (
	innerChunk [chunkLen]inner
	leafChunk  [chunkLen]leaf
)

// arena holds the nodes. A copy of it (the slice headers and counts) is a
// consistent read-only view of every node allocated before the copy.
type arena struct {
	inners []*innerChunk
	leaves []*leafChunk
	keys   []byte
	nIn    uint32 // inner slots used, slot 0 included
	nLeaf  uint32
}

func newArena() arena { return arena{nIn: 1} }

func (a *arena) inner(r ref) *inner { return &a.inners[r>>chunkBits][r&(chunkLen-1)] }

func (a *arena) leaf(r ref) *leaf {
	i := r &^ leafRef
	return &a.leaves[i>>chunkBits][i&(chunkLen-1)]
}

func (a *arena) key(l *leaf) []byte { return a.keys[l.koff : l.koff+l.klen : l.koff+l.klen] }

// hash is the hash of node r (not nilRef).
func (a *arena) hash(r ref) *[32]byte {
	if r.isLeaf() {
		return &a.leaf(r).hash
	}
	return &a.inner(r).hash
}

func (a *arena) newInner() (ref, *inner) {
	i := a.nIn
	if int(i>>chunkBits) == len(a.inners) {
		a.inners = append(a.inners, new(innerChunk))
	}
	a.nIn++
	return ref(i), a.inner(ref(i))
}

func (a *arena) newLeaf(l leaf) ref {
	i := a.nLeaf
	if int(i>>chunkBits) == len(a.leaves) {
		a.leaves = append(a.leaves, new(leafChunk))
	}
	a.nLeaf++
	r := ref(i) | leafRef
	*a.leaf(r) = l
	return r
}

// addKey appends key to the slab and returns its offset. Offsets are 32
// bits: the slab (live keys plus garbage, under twice the live keys after
// a compaction) must stay under 4 GiB.
func (a *arena) addKey(key []byte) uint32 {
	if uint64(len(a.keys))+uint64(len(key)) > math.MaxUint32 {
		panic("statetree: key slab over 4 GiB")
	}
	off := uint32(len(a.keys))
	a.keys = append(a.keys, key...)
	return off
}

// copyFrom copies the subtree r of src into a, hashes and generations
// included, and returns its new ref.
func (a *arena) copyFrom(src *arena, r ref) ref {
	if r.isLeaf() {
		l := *src.leaf(r)
		l.koff = a.addKey(src.key(&l))
		return a.newLeaf(l)
	}
	n := *src.inner(r)
	nr, _ := a.newInner()
	n.child[0] = a.copyFrom(src, n.child[0])
	n.child[1] = a.copyFrom(src, n.child[1])
	*a.inner(nr) = n
	return nr
}
