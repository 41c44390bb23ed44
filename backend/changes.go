package backend

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"hash"
	"slices"
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

// ChangeRecord is one captured row change as the PostgreSQL and MySQL
// backends hash it: the table, the operation, the row image, and the tx
// (index in the block, NoTx for none) that made it.
type ChangeRecord struct {
	Table, Op, Image []byte
	Tx               int
}

// DigestChanges hashes a block's change records into Changes: the
// block's digest over all of them and each tx's over its own, in
// canonical order (sorted by table, operation and image; recs is sorted
// in place), not in the order the triggers wrote them: a statement
// touching many rows visits them in physical order, which differs
// between nodes, while the multiset of row images does not. Each record
// is length-prefixed: uvarint(len(table)) table op uvarint(len(image))
// image. A tx's records are a subsequence of the block's sorted records,
// so one sort serves both.
func DigestChanges(recs []ChangeRecord) Changes {
	slices.SortFunc(recs, compareRecords)
	h := sha256.New()
	effects := make(EffectDigests)
	var buf []byte
	for _, r := range recs {
		buf = binary.AppendUvarint(buf[:0], uint64(len(r.Table)))
		buf = append(buf, r.Table...)
		buf = append(buf, r.Op...)
		buf = binary.AppendUvarint(buf, uint64(len(r.Image)))
		buf = append(buf, r.Image...)
		h.Write(buf)
		effects.Write(r.Tx, buf)
	}
	return Changes{Block: h.Sum(nil), Effects: effects.Sums()}
}

// compareRecords orders change records by table, operation and image. Records
// equal in all three may end in any order: their encodings are the same
// bytes, so the block's digest and each tx's come out the same.
func compareRecords(a, b ChangeRecord) int {
	if c := bytes.Compare(a.Table, b.Table); c != 0 {
		return c
	}
	if c := bytes.Compare(a.Op, b.Op); c != 0 {
		return c
	}
	return bytes.Compare(a.Image, b.Image)
}
