package backend

import (
	"crypto/sha256"
	"hash"
)

// NoTx is the tx index of a change record written outside every
// bc-transaction's savepoint (by a write outside the chain, typically):
// such a record enters Changes.Block but no tx's effect digest.
const NoTx = -1

// EffectDigests accumulates Changes.Effects while a backend walks the
// block's change records once, in its canonical order: each record, in
// the encoding it also feeds the block's digest, is written to the digest
// of the tx that made it.
type EffectDigests map[int]hash.Hash

// Write appends one encoded record of tx; records of NoTx (any negative
// index) are dropped.
func (e EffectDigests) Write(tx int, record []byte) {
	if tx < 0 {
		return
	}
	h, ok := e[tx]
	if !ok {
		h = sha256.New()
		e[tx] = h
	}
	h.Write(record)
}

// Sums returns each tx's digest.
func (e EffectDigests) Sums() map[int][]byte {
	out := make(map[int][]byte, len(e))
	for tx, h := range e {
		out[tx] = h.Sum(nil)
	}
	return out
}
