package rowcanon

import (
	"bytes"
	"cmp"
	"errors"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// compareSQL is the reference order of key tuples, from PostgreSQL's
// rules: booleans false < true; integers, dates and timestamps by value;
// numerics by value (1.5 = 1.50); floats by value with -0 = 0 and NaN
// equal to itself and above everything; text (C collation), bytea and
// uuid by bytes. Values of different kinds, which SQL never compares,
// go by kind in tag order; a tuple sorts before its extensions.
func compareSQL(t *testing.T, a, b []Value) int {
	for i := range min(len(a), len(b)) {
		if c := compareValue(t, a[i], b[i]); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(a), len(b))
}

var kindRank = map[Kind]int{KindBool: 1, KindInt: 2, KindNumeric: 3, KindFloat: 4, KindText: 5, KindBytes: 6, KindDate: 7, KindTimestamp: 8, KindUUID: 9}

func compareValue(t *testing.T, a, b Value) int {
	if a.kind != b.kind {
		return cmp.Compare(kindRank[a.kind], kindRank[b.kind])
	}
	switch a.kind {
	case KindBool, KindInt, KindDate, KindTimestamp:
		return cmp.Compare(a.i, b.i)
	case KindNumeric:
		return ratOf(t, a.s).Cmp(ratOf(t, b.s))
	case KindFloat:
		return compareFloat8(a.f, b.f)
	case KindText, KindBytes, KindUUID:
		return bytes.Compare([]byte(a.s), []byte(b.s))
	}
	t.Fatalf("no order for kind %v", a.kind)
	return 0
}

// compareFloat8 is PostgreSQL's float8_cmp_internal.
func compareFloat8(a, b float64) int {
	switch {
	case math.IsNaN(a) && math.IsNaN(b):
		return 0
	case math.IsNaN(a):
		return 1
	case math.IsNaN(b):
		return -1
	}
	return cmp.Compare(a, b) // -0 == 0 for cmp.Compare on non-NaN floats
}

func ratOf(t *testing.T, s string) *big.Rat {
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		t.Fatalf("big.Rat cannot read %q", s)
	}
	return r
}

// randTuple is 1..3 values; with mixed set, each position's kind is
// random, otherwise kinds[i] gives it.
func randTuple(t *testing.T, r *rand.Rand, kinds []Kind) []Value {
	vals := make([]Value, len(kinds))
	for i, k := range kinds {
		vals[i] = randValue(t, r, k)
	}
	return vals
}

func randKinds(r *rand.Rand) []Kind {
	kinds := make([]Kind, 1+r.IntN(3))
	for i := range kinds {
		kinds[i] = pick(r, keyKinds)
	}
	return kinds
}

func mustKey(t *testing.T, vals []Value) []byte {
	t.Helper()
	k, err := EncodeKey(vals)
	if err != nil {
		t.Fatalf("EncodeKey(%v): %v", vals, err)
	}
	return k
}

func TestKeyOrderIsSQLOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := 0; n < 100_000; n++ {
		kinds := randKinds(r)
		a := randTuple(t, r, kinds)
		if r.IntN(8) == 0 { // now and then, tuples of other kinds and lengths
			kinds = randKinds(r)
		}
		b := randTuple(t, r, kinds)
		ka, kb := mustKey(t, a), mustKey(t, b)
		want := compareSQL(t, a, b)
		if got := bytes.Compare(ka, kb); got != want {
			t.Fatalf("%v vs %v: bytes.Compare = %d, SQL order %d\n%x\n%x", a, b, got, want, ka, kb)
		}
		if want == 0 && !bytes.Equal(ka, kb) {
			t.Fatalf("equal tuples %v and %v have keys %x and %x", a, b, ka, kb)
		}
		if !bytes.Equal(ka, kb) && (bytes.HasPrefix(ka, kb) || bytes.HasPrefix(kb, ka)) {
			t.Fatalf("key %x of %v and key %x of %v: one is a prefix of the other", ka, a, kb, b)
		}
	}
}

func TestEqualValuesHaveOneKey(t *testing.T) {
	negZero := math.Copysign(0, -1)
	pairs := [][2]Value{
		{mustValue(t)(Numeric("1.5")), mustValue(t)(Numeric("1.50"))},
		{mustValue(t)(Numeric("-0")), mustValue(t)(Numeric("0.000"))},
		{mustValue(t)(Numeric("-0.0e5")), mustValue(t)(Numeric("+0"))},
		{mustValue(t)(Numeric("15e-1")), mustValue(t)(Numeric("001.500"))},
		{mustValue(t)(Numeric("1e3")), mustValue(t)(Numeric("1000.0"))},
		{Float(negZero), Float(0)},
		{Float(math.NaN()), Float(math.Float64frombits(0xFFF8000000000001))},
	}
	for _, p := range pairs {
		ka, kb := mustKey(t, p[:1]), mustKey(t, p[1:])
		if !bytes.Equal(ka, kb) {
			t.Errorf("%v and %v: keys %x and %x", p[0], p[1], ka, kb)
		}
	}
}

func TestKeyRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for n := 0; n < 50_000; n++ {
		vals := randTuple(t, r, randKinds(r))
		k := mustKey(t, vals)
		got, err := DecodeKey(k)
		if err != nil {
			t.Fatalf("DecodeKey(%x) of %v: %v", k, vals, err)
		}
		want := vals
		for i, v := range want {
			if v.kind == KindFloat && v.f == 0 {
				want[i] = Float(0) // a key holds 0 for -0
			}
		}
		if !sameValues(got, want) {
			t.Fatalf("DecodeKey(EncodeKey(%v)) = %v", want, got)
		}
	}
}

func TestKeyRefusesNullJSONAndEmpty(t *testing.T) {
	js := mustValue(t)(JSON(`{}`))
	for _, vals := range [][]Value{nil, {Null()}, {Int(1), Null()}, {js}} {
		if _, err := EncodeKey(vals); !errors.Is(err, ErrInvalid) {
			t.Errorf("EncodeKey(%v) = %v, want ErrInvalid", vals, err)
		}
	}
}

func TestDecodeKeyRefusesNonCanonical(t *testing.T) {
	for name, b := range map[string][]byte{
		"empty":           {},
		"only end":        {keyEnd},
		"no end":          {tagBool, 1},
		"after end":       {tagBool, 1, keyEnd, 0},
		"null":            {tagNull, keyEnd},
		"json":            {tagJSON, 'n', 'u', 'l', 'l', 0, 1, keyEnd},
		"bool 2":          {tagBool, 2, keyEnd},
		"float -0":        {tagFloat, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, keyEnd},
		"other NaN":       {tagFloat, 0xff, 0xf8, 0, 0, 0, 0, 0, 1, keyEnd},
		"numeric lead 0":  {tagNumeric, numPositive, 0x80, 0, 0, 1, '0', '1', numTerm, keyEnd},
		"numeric trail 0": {tagNumeric, numPositive, 0x80, 0, 0, 1, '1', '0', numTerm, keyEnd},
		"numeric empty":   {tagNumeric, numPositive, 0x80, 0, 0, 1, numTerm, keyEnd},
		"numeric range":   {tagNumeric, numPositive, 0x80, 0x10, 0, 0, '1', numTerm, keyEnd},
		"text bad utf8":   {tagText, 0xc3, 0, 1, keyEnd},
		"text NUL":        {tagText, 0, 0xff, 0, 1, keyEnd},
		"string escape":   {tagBytes, 0, 2, keyEnd},
		"date range":      {tagDate, 0x80, 0, 0, 0, 0, 0x40, 0, 0, keyEnd},
		"unknown tag":     {0x99, keyEnd},
	} {
		if vals, err := DecodeKey(b); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: DecodeKey(%x) = %v, %v; want ErrInvalid", name, b, vals, err)
		}
	}
}
