package backend

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
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

// The bytes of the digests are consensus: every node of one backend kind
// must compute these from these records, whatever order they arrive in and
// however the sort treats records equal in table, operation and image (here
// two, made by different txs). A change to the encoding or the order must
// fail this test, and is an AppHash version of its own.
func TestDigestChangesPinned(t *testing.T) {
	recs := []ChangeRecord{
		{Table: []byte("public.t"), Op: []byte("U"), Image: []byte(`{"id":1,"v":"b"}`), Tx: 0},
		{Table: []byte("public.t"), Op: []byte("B"), Image: []byte(`{"id":1,"v":"a"}`), Tx: 0},
		{Table: []byte("public.s"), Op: []byte("I"), Image: []byte(`{"k":7}`), Tx: 1},
		{Table: []byte("public.s"), Op: []byte("I"), Image: []byte(`{"k":7}`), Tx: 2},
		{Table: []byte("public.t"), Op: []byte("D"), Image: []byte(`{"id":2,"v":"z"}`), Tx: 2},
		{Table: []byte("public.s"), Op: []byte("I"), Image: []byte(`{"k":3}`), Tx: NoTx},
		{Table: []byte(""), Op: []byte("S"), Image: []byte("CREATE TABLE s (k int)"), Tx: 1},
	}
	want := map[string]string{
		"block": "7074bed54069ba6a26a4bb744aa59a2a9c324dca9f1cbfd155438656da442eb2",
		"0":     "f02435388d1438b3836a03ec7798a42bfc528236113fb40f51db5007713fb328",
		"1":     "c2c9b4c96c3e54e3a6144db726f3d37ac2298a1092862a8d10842c37d2c9f627",
		"2":     "cd2edc1c269ad3670f6113fb0a38b4e1465b1cf95f81ffa1037757ae0745b7e3",
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 50 {
		r := slices.Clone(recs)
		rng.Shuffle(len(r), func(i, j int) { r[i], r[j] = r[j], r[i] })
		c := DigestChanges(r)
		got := map[string]string{"block": hex.EncodeToString(c.Block)}
		for tx, d := range c.Effects {
			got[strconv.Itoa(tx)] = hex.EncodeToString(d)
		}
		if !maps.Equal(got, want) {
			t.Fatalf("digests:\n got  %v\n want %v", got, want)
		}
	}
}

// BenchmarkDigestChanges digests a TPC-C NewOrder block's worth of records:
// 200 txs of 23 rows each, images of ~300 bytes, in the order a trigger
// would write them.
func BenchmarkDigestChanges(b *testing.B) {
	tables := [][]byte{[]byte("public.stock"), []byte("public.order_line"), []byte("public.district"), []byte("public.oorder"), []byte("public.new_order")}
	var recs []ChangeRecord
	for tx := range 200 {
		for row := range 23 {
			img := fmt.Appendf(nil, `{"w":1,"id":%d,"pad":"%s"}`, tx*23+row, strings.Repeat("x", 280))
			recs = append(recs, ChangeRecord{Table: tables[row%len(tables)], Op: []byte("U"), Image: img, Tx: tx})
		}
	}
	work := make([]ChangeRecord, len(recs))
	b.ReportAllocs()
	for b.Loop() {
		copy(work, recs)
		DigestChanges(work)
	}
}
