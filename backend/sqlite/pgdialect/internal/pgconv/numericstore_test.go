package pgconv

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/apd/v3"
)

// encodeNumericReference and decodeNumericReference are the stored form's
// straightforward implementations (big-integer text and parse, one string
// per piece), kept to check the optimized ones against.
func encodeNumericReference(n Numeric) string {
	pad := strings.Repeat(" ", int(n.Scale))
	if n.D.IsZero() {
		return "2" + pad
	}
	all := new(apd.BigInt).Abs(&n.D.Coeff).String()
	digits := strings.TrimRight(all, "0")
	exp := int64(len(all)) + int64(n.D.Exponent)
	pad6 := func(v int64) string {
		s := strconv.FormatInt(v, 10)
		return strings.Repeat("0", max(6-len(s), 0)) + s
	}
	if !n.D.Negative {
		return "3" + pad6(numericExpBias+exp) + digits + pad
	}
	comp := []byte(digits)
	for i, c := range comp {
		comp[i] = '9' - c + '0'
	}
	return "1" + pad6(numericExpBias-exp) + string(comp) + "~" + pad
}

func decodeNumericReference(s string) (Numeric, bool) {
	key := strings.TrimRight(s, " ")
	scale := int32(len(s) - len(key))
	if key == "2" {
		return Numeric{Scale: scale}, true
	}
	if len(key) < 8 || (key[0] != '1' && key[0] != '3') {
		return Numeric{}, false
	}
	e, err := strconv.ParseInt(key[1:7], 10, 64)
	digits := key[7:]
	if err != nil {
		return Numeric{}, false
	}
	neg := key[0] == '1'
	if neg {
		e = numericExpBias - e
		comp := []byte(strings.TrimSuffix(digits, "~"))
		for i, c := range comp {
			comp[i] = '9' - c + '0'
		}
		digits = string(comp)
	} else {
		e -= numericExpBias
	}
	var n Numeric
	if _, ok := n.D.Coeff.SetString(digits, 10); !ok || !allDigits(digits) {
		return Numeric{}, false
	}
	n.D.Exponent = int32(e - int64(len(digits)))
	n.D.Negative = neg
	n.Scale = scale
	return n, true
}

// sameNumeric reports whether a and b are the same value in the same
// representation (coefficient, exponent, sign, display scale).
func sameNumeric(a, b Numeric) bool {
	return a.Scale == b.Scale && a.D.Negative == b.D.Negative && a.D.Exponent == b.D.Exponent && a.D.Coeff.Cmp(&b.D.Coeff) == 0 && a.D.Form == b.D.Form
}

// randomNumeric is a value with up to 40 digits, either sign, various
// exponents and display scales, sometimes with trailing zeros in its
// coefficient (as arithmetic leaves them).
func randomNumeric(r *rand.Rand) Numeric {
	var n Numeric
	var digits strings.Builder
	switch r.IntN(4) {
	case 0:
		digits.WriteString(strconv.FormatUint(r.Uint64(), 10))
	case 1:
		digits.WriteString(strconv.Itoa(r.IntN(1000)))
	default:
		for range 1 + r.IntN(40) {
			digits.WriteByte(byte('0' + r.IntN(10)))
		}
	}
	if r.IntN(3) == 0 {
		digits.WriteString(strings.Repeat("0", r.IntN(5)))
	}
	n.D.Coeff.SetString(digits.String(), 10)
	n.D.Exponent = int32(r.IntN(41) - 30)
	n.D.Negative = r.IntN(2) == 0 && !n.D.IsZero()
	n.Scale = int32(r.IntN(70))
	return n
}

func TestEncodeDecodeNumericMatchReference(t *testing.T) {
	r := rand.New(rand.NewPCG(62, 35))
	var cases []Numeric
	for _, i := range []int64{0, 1, -1, 10, -10, 100, 1234500, math.MaxInt64, math.MinInt64, math.MaxInt64 - 1} {
		cases = append(cases, NumericFromInt(i))
	}
	var big Numeric
	big.D.Coeff.SetUint64(math.MaxUint64)
	cases = append(cases, big)
	for range 20000 {
		cases = append(cases, randomNumeric(r))
	}
	for _, n := range cases {
		want := encodeNumericReference(n)
		got := EncodeNumeric(n)
		if got != want {
			t.Fatalf("EncodeNumeric(%s, scale %d) = %q, want %q", n.D.String(), n.Scale, got, want)
		}
		back, err := DecodeNumeric(got)
		ref, ok := decodeNumericReference(got)
		if err != nil || !ok || !sameNumeric(back, ref) {
			t.Fatalf("DecodeNumeric(%q) = %s/%d (%v), reference %s/%d (%v)", got, back.D.String(), back.Scale, err, ref.D.String(), ref.Scale, ok)
		}
	}
	// Texts that are not stored forms, and stored forms with leading
	// zeros or 19 and 20 digits: the same verdict and value as the
	// reference.
	texts := []string{"", " ", "2", "2  ", "3", "3500001", "35000011", "3500001 ", "1500001~", "1500001~  ", "1500001", "15000018~",
		"3+00001123", "3-00001123", "3500001+12", "3500001-12", "35000010012", "3500001ab", "1500001a~", "1500001~~", "4500001123",
		"3500020" + strings.Repeat("9", 19), "3500020" + strings.Repeat("9", 20), "3500020" + strings.Repeat("1", 19) + "  ",
		"1499980" + strings.Repeat("0", 19) + "~", "1499980" + strings.Repeat("0", 20) + "~ ", "1499980" + strings.Repeat("5", 40) + "~",
		"3500001" + strings.Repeat("0", 19), "3500001" + "١٢", "1500001" + "\xff~"}
	for range 5000 {
		b := []byte(EncodeNumeric(randomNumeric(r)))
		b[r.IntN(len(b))] = "0123456789~ 123-+xé"[r.IntN(19)]
		texts = append(texts, string(b))
	}
	for _, s := range texts {
		got, err := DecodeNumeric(s)
		want, ok := decodeNumericReference(s)
		if (err == nil) != ok || (ok && !sameNumeric(got, want)) {
			t.Fatalf("DecodeNumeric(%q) = %s/%d (%v), reference %s/%d (%v)", s, got.D.String(), got.Scale, err, want.D.String(), want.Scale, ok)
		}
		if err != nil && !strings.Contains(err.Error(), "is not a stored numeric") {
			t.Fatalf("DecodeNumeric(%q): %v", s, err)
		}
	}
}

func BenchmarkEncodeDecodeNumeric(b *testing.B) {
	n := mustNumB(b, "1234.56")
	for b.Loop() {
		s := EncodeNumeric(n)
		if _, err := DecodeNumeric(s); err != nil {
			b.Fatal(err)
		}
	}
}

func mustNumB(b *testing.B, s string) Numeric {
	n, err := ParseNumeric(s)
	if err != nil {
		b.Fatal(err)
	}
	return n
}

func BenchmarkEncodeDecodeNumericReference(b *testing.B) {
	n := mustNumB(b, "1234.56")
	for b.Loop() {
		s := encodeNumericReference(n)
		if _, ok := decodeNumericReference(s); !ok {
			b.Fatal(s)
		}
	}
}

// convertNumericFull is convertNumeric's result without the stored-form
// shortcut: decode, ApplyTypmod, encode.
func convertNumericFull(x string, typmod int32) (any, error) {
	n, err := DecodeNumeric(x)
	if err != nil {
		return nil, err
	}
	n, err = n.ApplyTypmod(typmod)
	if err != nil {
		return nil, err
	}
	return EncodeNumeric(n), nil
}

func TestKeepsStoredFormMatchesConversion(t *testing.T) {
	r := rand.New(rand.NewPCG(62, 36))
	typmods := []int32{-1, 0, 3, NumericTypmod(12, 2), NumericTypmod(4, 4), NumericTypmod(1, 0), NumericTypmod(5, 0), NumericTypmod(1000, 0),
		NumericTypmod(38, 10), NumericTypmod(20, 19), NumericTypmod(3, 3), NumericTypmod(1000, 1000), NumericTypmod(1000, 500)}
	var texts []string
	for range 6000 {
		n := randomNumeric(r)
		if r.IntN(2) == 0 {
			n.Scale = int32(r.IntN(6))
		}
		k := EncodeNumeric(n)
		texts = append(texts, k)
		if r.IntN(4) == 0 && len(strings.TrimRight(k, " ")) >= 8 { // a non-canonical text DecodeNumeric accepts
			b := []byte(k)
			i := 7 + r.IntN(max(len(strings.TrimRight(k, " "))-7, 1))
			if i < len(b) {
				b[i] = "0123456789+-"[r.IntN(12)]
			}
			texts = append(texts, string(b), k[:1]+k[1:7]+"0"+k[7:], strings.Replace(k, " ", "0 ", 1))
		}
	}
	texts = append(texts, "2", "2  ", "3500001", "3+000011", "3-000011  ", "3500001001", "3500001100", "1499999899~", "1499999009~", "1499999~")
	for _, x := range texts {
		for _, tm := range typmods {
			got, gerr := convertNumeric(x, "numeric", "numeric", tm, Assignment)
			want, werr := convertNumericFull(x, tm)
			if got != want || (gerr == nil) != (werr == nil) || (gerr != nil && gerr.Error() != werr.Error()) {
				t.Fatalf("convertNumeric(%q, typmod %d) = %v (%v), want %v (%v)", x, tm, got, gerr, want, werr)
			}
		}
	}
}
