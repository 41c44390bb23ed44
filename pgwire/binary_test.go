package pgwire

import (
	"bytes"
	"math"
	"testing"

	"github.com/jackc/pgx/v5/pgtype"
)

// Vectors are PostgreSQL 15's binary output (test/gateway_types_test.go
// compares every type with the server itself).
func TestBinaryFromText(t *testing.T) {
	for _, c := range []struct {
		oid  uint32
		text string
		want []byte
	}{
		{1700, "0.000", []byte{0, 0, 0, 0, 0, 0, 0, 3}},
		{1700, "-0.00001", []byte{0, 1, 0xff, 0xfe, 0x40, 0, 0, 5, 0x03, 0xe8}},
		{1700, "-Infinity", []byte{0, 0, 0, 0, 0xf0, 0, 0, 0x20}},
		{1700, "NaN", []byte{0, 0, 0, 0, 0xc0, 0, 0, 0}},
		{1114, "infinity", []byte{0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}},
		{1082, "2000-01-02", []byte{0, 0, 0, 1}},
		{1007, "{}", []byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 23}},
		{1007, "{1,NULL}", []byte{0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 23, 0, 0, 0, 2, 0, 0, 0, 1,
			0, 0, 0, 4, 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff}},
		{oidTimetz, "00:00:01+01", []byte{0, 0, 0, 0, 0, 0x0f, 0x42, 0x40, 0xff, 0xff, 0xf1, 0xf0}},
		{1186, "-1 days +00:00:01", []byte{0, 0, 0, 0, 0, 0x0f, 0x42, 0x40, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0}},
	} {
		got, ok, err := binaryFromText(c.oid, c.text)
		if !ok || err != nil || !bytes.Equal(got, c.want) {
			t.Errorf("binaryFromText(%d, %q) = %x, %v, %v; want %x", c.oid, c.text, got, ok, err, c.want)
		}
	}
	for _, bad := range []struct {
		oid  uint32
		text string
	}{{1700, "1e5"}, {1007, "{1,2"}, {1082, "soon"}, {1186, "1 fortnight"}, {oidTimetz, "25:00"}} {
		if got, _, err := binaryFromText(bad.oid, bad.text); err == nil {
			t.Errorf("binaryFromText(%d, %q) = %x, want an error", bad.oid, bad.text, got)
		}
	}
}

// A binary array parameter becomes the array literal the database reads.
func TestArrayTextFromBinary(t *testing.T) {
	m := pgtype.NewMap()
	for _, c := range []struct {
		oid  uint32
		v    any
		want string
	}{
		{1007, []int32{1, 2}, `{"1","2"}`},
		{1009, []*string{ptr("a,b"), nil, ptr(`c"d\`)}, `{"a,b",NULL,"c\"d\\"}`},
		{1007, [][]int32{{1, 2}, {3, 4}}, `{{"1","2"},{"3","4"}}`},
		{1022, []float64{0.1, math.Inf(-1)}, `{"0.1","-Infinity"}`},
		{1000, []bool{true}, `{"t"}`},
		{1007, []int32{}, `{}`},
	} {
		bin, err := m.Encode(c.oid, formatBinary, c.v, nil)
		if err != nil {
			t.Fatal(err)
		}
		got, err := decodeParam(m, c.oid, formatBinary, bin)
		if err != nil || got != c.want {
			t.Errorf("decode %v = %v, %v; want %s", c.v, got, err, c.want)
		}
	}
}

func ptr(s string) *string { return &s }

// A binary array whose dimensions multiply to more elements than its bytes
// could hold is refused before anything is allocated for them: six
// dimensions of 1,000 in a few kilobytes would otherwise ask for 10^18
// element slots.
func TestArrayTextFromBinaryRefusesImpossibleDimensions(t *testing.T) {
	src := make([]byte, 12+8*6+4000)
	put := func(off int, v uint32) {
		src[off], src[off+1], src[off+2], src[off+3] = byte(v>>24), byte(v>>16), byte(v>>8), byte(v)
	}
	put(0, 6)  // dimensions
	put(8, 23) // int4 elements
	for d := 0; d < 6; d++ {
		put(12+8*d, 1000) // size
		put(16+8*d, 1)    // lower bound
	}
	if _, err := arrayTextFromBinary(pgtype.NewMap(), src); err == nil {
		t.Fatal("a 1000^6-element array in 4 KB was accepted")
	}
}
