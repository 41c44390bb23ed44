// The envelope cache: each tx's envelope decoded (with its canonical-form
// check) and its signature verified once per node, from CheckTx to the
// block that includes it.

package app

import (
	"container/list"
	"sync"
	"unsafe"

	"github.com/relchain/relchain/txn"
)

// Bounds of the envelope cache. The entries cover a full mempool of small
// txs (node/init.go sets 50,000); the bytes bound what a mempool of large
// txs can pin. A tx the cache does not hold is decoded and verified again:
// slower, never different.
const (
	envelopeCacheEntries = 1 << 16
	envelopeCacheBytes   = 64 << 20
)

// envelopeCache holds, by tx hash (SHA-256 of the bytes, txn.Hash), the
// decoded envelopes of txs this node admitted in CheckTx. An entry means
// two facts that are pure functions of the bytes: they decode canonically
// to this Tx, and its signature verifies (with crypto/ed25519's semantics,
// verifySignature). Nothing that depends on state or on this node's
// parameters is cached (size limit, chain id, statement count, replay
// window, grants, the gate's verdicts): those are checked on every use.
// So a hit gives exactly the verdict the work would, and a miss does the
// work: no outcome depends on what the cache holds, which is why its
// eviction (the oldest entry first, when either bound is exceeded) need
// not be the same on every node.
//
// The cached Tx is shared by CheckTx's and the block's goroutines and must
// not be modified (nothing in the executor writes a decoded Tx). Safe for
// concurrent use; a nil cache holds nothing.
type envelopeCache struct {
	mu         sync.Mutex
	maxEntries int
	maxBytes   int
	bytes      int
	order      *list.List // of *cachedEnvelope, oldest first
	byHash     map[[32]byte]*list.Element
	hits       uint64
	misses     uint64
}

type cachedEnvelope struct {
	hash [32]byte
	tx   *txn.Tx
	size int
}

func newEnvelopeCache(maxEntries, maxBytes int) *envelopeCache {
	return &envelopeCache{maxEntries: maxEntries, maxBytes: maxBytes, order: list.New(), byHash: make(map[[32]byte]*list.Element)}
}

// get returns the envelope cached under h.
func (c *envelopeCache) get(h [32]byte) (*txn.Tx, bool) {
	if c == nil {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byHash[h]
	if !ok {
		c.misses++
		return nil, false
	}
	c.hits++
	return el.Value.(*cachedEnvelope).tx, true
}

// has reports whether h is cached, without counting a hit or a miss (the
// pool's look ahead: the block's own lookup counts).
func (c *envelopeCache) has(h [32]byte) bool {
	if c == nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.byHash[h]
	return ok
}

// add caches tx, decoded from rawLen bytes whose hash is h and whose
// signature verified, evicting the oldest entries beyond the bounds. An
// envelope larger than the whole byte bound is not cached.
func (c *envelopeCache) add(h [32]byte, tx *txn.Tx, rawLen int) {
	if c == nil {
		return
	}
	size := envelopeSize(tx, rawLen)
	if size > c.maxBytes {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.byHash[h]; ok {
		return
	}
	c.byHash[h] = c.order.PushBack(&cachedEnvelope{hash: h, tx: tx, size: size})
	c.bytes += size
	for c.order.Len() > c.maxEntries || c.bytes > c.maxBytes {
		c.remove(c.order.Front())
	}
}

// forget drops the entries of hashes: txs a committed block consumed,
// whose nonces no later block accepts.
func (c *envelopeCache) forget(hashes [][32]byte) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, h := range hashes {
		if el, ok := c.byHash[h]; ok {
			c.remove(el)
		}
	}
}

// EnvelopeCacheStats is what the envelope cache holds and how often it
// answered: lookups that found a decoded, verified envelope (hits: a
// decoding and a signature verification saved) and lookups that did not.
type EnvelopeCacheStats struct {
	Entries, Bytes int
	Hits, Misses   uint64
}

// stats reads the cache's counters.
func (c *envelopeCache) stats() EnvelopeCacheStats {
	if c == nil {
		return EnvelopeCacheStats{}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return EnvelopeCacheStats{Entries: c.order.Len(), Bytes: c.bytes, Hits: c.hits, Misses: c.misses}
}

// remove drops el; c.mu is held.
func (c *envelopeCache) remove(el *list.Element) {
	e := c.order.Remove(el).(*cachedEnvelope)
	delete(c.byHash, e.hash)
	c.bytes -= e.size
}

// envelopeSize estimates the memory an entry pins: the encoded bytes (the
// decoded key, signature, byte arguments and observations share them),
// the decoded copies of the strings, the structs, and the cache's own
// bookkeeping.
func envelopeSize(tx *txn.Tx, rawLen int) int {
	const bookkeeping = 160 // list element, map slot, cachedEnvelope
	n := bookkeeping + rawLen + int(unsafe.Sizeof(*tx)) + len(tx.ChainID)
	n += len(tx.Groups)*int(unsafe.Sizeof(0)) + len(tx.Expect)*int(unsafe.Sizeof(txn.Observation(nil)))
	for _, st := range tx.Statements {
		n += int(unsafe.Sizeof(st)) + len(st.SQL) + len(st.Args)*int(unsafe.Sizeof(txn.Arg{}))
		for _, a := range st.Args {
			n += len(a.Text)
		}
	}
	return n
}
