package rowcanon

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// keyKinds are the kinds a key may hold.
var keyKinds = []Kind{KindBool, KindInt, KindNumeric, KindFloat, KindText, KindBytes, KindDate, KindTimestamp, KindUUID}

// randValue is a random value of kind k, drawn from small pools so that
// equal and adjacent values are common.
func randValue(t testing.TB, r *rand.Rand, k Kind) Value {
	switch k {
	case KindBool:
		return Bool(r.IntN(2) == 1)
	case KindInt:
		return Int(pick(r, []int64{math.MinInt64, -65, -64, -1, 0, 1, 63, 64, 255, 256, math.MaxInt64, r.Int64(), -r.Int64()}))
	case KindNumeric:
		return mustValue(t)(Numeric(randDecimal(r)))
	case KindFloat:
		return Float(pick(r, []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1), 1, -1, 1.5, -1.5,
			math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64, math.MaxFloat64, -math.MaxFloat64, r.NormFloat64() * 1e6}))
	case KindText:
		return mustValue(t)(Text(randString(r, []string{"a", "b", "é", "ÿ", "\u0100", "中", "\U0010FFFF", "\x01", "\x7f"})))
	case KindBytes:
		return Bytes([]byte(randString(r, []string{"\x00", "\x01", "\xfe", "\xff", "a", "\x00\xff"})))
	case KindDate:
		return mustValue(t)(Date(pick(r, []int64{MinDate, MaxDate, -1, 0, 1, r.Int64N(MaxDate-MinDate) + MinDate})))
	case KindTimestamp:
		return mustValue(t)(Timestamp(pick(r, []int64{MinTimestamp, MaxTimestamp, -1, 0, 1, r.Int64N(MaxTimestamp-MinTimestamp) + MinTimestamp})))
	case KindUUID:
		var u [16]byte
		for i := range u {
			u[i] = pick(r, []byte{0, 1, 0x7f, 0x80, 0xff})
		}
		return UUID(u)
	case KindJSON:
		return mustValue(t)(JSON(pick(r, []string{`{}`, `[1, 2]`, `{"a": "\u0000"}`, `"x"`, `null`, ` 1.50 `})))
	case KindNull:
		return Null()
	}
	t.Fatalf("no generator for kind %v", k)
	return Value{}
}

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

// randString is up to four pieces from pieces.
func randString(r *rand.Rand, pieces []string) string {
	var b strings.Builder
	for range r.IntN(5) {
		b.WriteString(pick(r, pieces))
	}
	return b.String()
}

// randDecimal is a decimal text with a random sign, leading and trailing
// zeros, point and exponent.
func randDecimal(r *rand.Rand) string {
	var b strings.Builder
	b.WriteString(pick(r, []string{"", "+", "-"}))
	b.WriteString(strings.Repeat("0", r.IntN(3)))
	b.WriteString(randString(r, []string{"0", "1", "5", "9", "10"}))
	if r.IntN(2) == 0 {
		b.WriteString(".")
		b.WriteString(randString(r, []string{"0", "1", "9", "00"}))
	}
	if b.Len() == 0 || strings.Trim(b.String(), "+-.") == "" {
		b.WriteString("0")
	}
	if r.IntN(4) == 0 {
		b.WriteString(pick(r, []string{"e3", "E-2", "e+0", "e-20", "e40"}))
	}
	return b.String()
}

func mustValue(t testing.TB) func(Value, error) Value {
	return func(v Value, err error) Value {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

// sameValue is v == w with NaN equal to itself.
func sameValue(v, w Value) bool {
	if v.kind == KindFloat && w.kind == KindFloat && math.IsNaN(v.f) && math.IsNaN(w.f) {
		return true
	}
	return v == w
}

func sameValues(a, b []Value) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !sameValue(a[i], b[i]) {
			return false
		}
	}
	return true
}
