package backend

import (
	"bytes"
	"testing"
)

// The digest is a function of the multiset of records, and a tx's digest
// covers its records only.
func TestDigestChangesIsCanonical(t *testing.T) {
	recs := func() []ChangeRecord {
		return []ChangeRecord{
			{Table: []byte("t"), Op: []byte("I"), Image: []byte("2"), Tx: 0},
			{Table: []byte("s"), Op: []byte("D"), Image: []byte("1"), Tx: 1},
			{Table: []byte("t"), Op: []byte("I"), Image: []byte("1"), Tx: NoTx},
		}
	}
	a := DigestChanges(recs())
	r := recs()
	r[0], r[2] = r[2], r[0]
	b := DigestChanges(r)
	if !bytes.Equal(a.Block, b.Block) || len(a.Effects) != 2 || !bytes.Equal(a.Effects[0], b.Effects[0]) {
		t.Fatalf("digests depend on record order: %x %x", a.Block, b.Block)
	}
	only := DigestChanges(recs()[:1])
	if bytes.Equal(a.Block, only.Block) || !bytes.Equal(a.Effects[0], only.Effects[0]) {
		t.Fatal("tx 0's effect digest depends on other txs' records")
	}
}
