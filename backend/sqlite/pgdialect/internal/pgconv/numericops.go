package pgconv

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/cockroachdb/apd/v3"
)

// NumericOp is PostgreSQL's numeric operator op (+ - * / %) with its
// result scales: + and - the larger scale, * the sum of the scales, /
// select_div_scale's (rounded half away from zero), % the larger scale
// of a truncated division's remainder. Division by zero is 22012.
func NumericOp(op byte, a, b Numeric) (Numeric, error) {
	var r Numeric
	var err error
	switch op {
	case '+':
		_, err = numCtx.Add(&r.D, &a.D, &b.D)
		r.Scale = max(a.Scale, b.Scale)
	case '-':
		_, err = numCtx.Sub(&r.D, &a.D, &b.D)
		r.Scale = max(a.Scale, b.Scale)
	case '*':
		_, err = numCtx.Mul(&r.D, &a.D, &b.D)
		r.Scale = min(a.Scale+b.Scale, numericMaxScale)
	case '/', '%':
		if b.D.IsZero() {
			return Numeric{}, errDivZero
		}
		if op == '%' {
			return numericMod(a, b)
		}
		r.Scale = divScale(a, b)
		r.D = quotient(a.D, b.D, r.Scale)
	default:
		return Numeric{}, Unsupported("the numeric operator " + string(op))
	}
	if err != nil {
		return Numeric{}, numericOverflow()
	}
	return r.checked()
}

// divScale is PostgreSQL's select_div_scale: at least 16 significant
// digits, at least either operand's scale, at most 1000.
func divScale(a, b Numeric) int32 {
	w1, f1 := nbaseLead(a.D)
	w2, f2 := nbaseLead(b.D)
	qweight := w1 - w2
	if f1 <= f2 {
		qweight--
	}
	rscale := int64(numericMinSig) - qweight*4
	rscale = max(rscale, int64(a.Scale), int64(b.Scale), 0)
	return int32(min(rscale, numericMaxPrecision))
}

// nbaseLead is the weight and value of d's first non-zero base-10000
// digit as PostgreSQL stores numeric (groups of 4 decimal digits aligned
// on the point); 0, 0 for zero.
func nbaseLead(d apd.Decimal) (weight, first int64) {
	if d.IsZero() {
		return 0, 0
	}
	lead := d.NumDigits() - 1 + int64(d.Exponent) // 10^lead is d's leading digit
	weight = floorDiv(lead, 4)
	shift := int64(d.Exponent) - 4*weight
	c := new(apd.BigInt).Abs(&d.Coeff)
	ten := apd.NewBigInt(10)
	if shift >= 0 {
		c.Mul(c, new(apd.BigInt).Exp(ten, apd.NewBigInt(shift), nil))
	} else {
		c.Quo(c, new(apd.BigInt).Exp(ten, apd.NewBigInt(-shift), nil))
	}
	return weight, c.Int64()
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// quotient is a/b rounded half away from zero to scale digits, computed
// exactly.
func quotient(a, b apd.Decimal, scale int32) apd.Decimal {
	num, den := new(apd.BigInt).Set(&a.Coeff), new(apd.BigInt).Set(&b.Coeff)
	ten := apd.NewBigInt(10)
	if k := int64(a.Exponent) - int64(b.Exponent) + int64(scale); k >= 0 {
		num.Mul(num, new(apd.BigInt).Exp(ten, apd.NewBigInt(k), nil))
	} else {
		den.Mul(den, new(apd.BigInt).Exp(ten, apd.NewBigInt(-k), nil))
	}
	q, r := new(apd.BigInt).QuoRem(num, den, new(apd.BigInt))
	r.Mul(r.Abs(r), apd.NewBigInt(2))
	if r.Cmp(den) >= 0 {
		q.Add(q, apd.NewBigInt(1))
	}
	var out apd.Decimal
	out.Coeff.Set(q)
	out.Exponent = -scale
	out.Negative = a.Negative != b.Negative && q.Sign() != 0
	return out
}

// numericMod is numeric %: the remainder of the division truncated to an
// integer, with the dividend's sign and the larger scale.
func numericMod(a, b Numeric) (Numeric, error) {
	s := max(a.Scale, b.Scale)
	x, y := scaled(a.D, s), scaled(b.D, s)
	_, rem := new(apd.BigInt).QuoRem(x, y, new(apd.BigInt))
	var r Numeric
	r.D.Coeff.Abs(rem)
	r.D.Negative = rem.Sign() < 0
	r.D.Exponent = -s
	r.Scale = s
	return r.checked()
}

// scaled is d × 10^s as a signed integer (d has at most s decimals).
func scaled(d apd.Decimal, s int32) *apd.BigInt {
	c := new(apd.BigInt).Set(&d.Coeff)
	if k := int64(d.Exponent) + int64(s); k > 0 {
		c.Mul(c, new(apd.BigInt).Exp(apd.NewBigInt(10), apd.NewBigInt(k), nil))
	} else if k < 0 {
		c.Quo(c, new(apd.BigInt).Exp(apd.NewBigInt(10), apd.NewBigInt(-k), nil))
	}
	if d.Negative {
		c.Neg(c)
	}
	return c
}

// NumericRound is round(x, places) (trunc(x, places) when trunc): to
// places digits after the point (before it when negative), scale
// max(places, 0).
func NumericRound(n Numeric, places int64, trunc bool) (Numeric, error) {
	places = max(min(places, 2000), -2000) // NUMERIC_MAX_RESULT_SCALE
	ctx := numCtx
	if trunc {
		ctx.Rounding = apd.RoundDown
	}
	var r Numeric
	if _, err := ctx.Quantize(&r.D, &n.D, int32(-places)); err != nil {
		return Numeric{}, numericOverflow()
	}
	r.Scale = int32(max(places, 0))
	return r.checked()
}

// NumericCeilFloor is ceil (floor when !up): an integral numeric. It
// truncates and steps away from zero itself: apd's ceiling and floor
// roundings lose a value whose digits all lie beyond the rounding
// position (ceil(9e-19) must be 1).
func NumericCeilFloor(n Numeric, up bool) (Numeric, error) {
	t, err := NumericRound(n, 0, true)
	if err != nil {
		return Numeric{}, err
	}
	if t.D.Cmp(&n.D) == 0 || up == n.D.Negative {
		return t, nil
	}
	step := int64(1)
	if !up {
		step = -1
	}
	return NumericOp('+', t, NumericFromInt(step))
}

// NumericAbs is abs; NumericNeg unary minus. Both keep the scale.
func NumericAbs(n Numeric) Numeric { n.D.Negative = false; return n }

// NumericNeg is unary minus (zero stays unsigned).
func NumericNeg(n Numeric) Numeric { n.D.Negative = !n.D.Negative && !n.D.IsZero(); return n }

// CompareNumeric compares two numerics by value (1.0 = 1.00).
func CompareNumeric(a, b Numeric) int { return a.D.Cmp(&b.D) }

// The stored form of a numeric is a text whose byte order is the
// numeric order of the values and whose trailing spaces, one per digit of
// display scale, SQLite's RTRIM collation ignores: so SQLite's own
// comparisons, sorting, grouping, DISTINCT and UNIQUE under COLLATE RTRIM
// treat 1.0 and 1.00 as equal, as PostgreSQL does, while the value keeps
// its display scale. The key before the spaces: '2' for zero; '3', the
// decimal exponent of 0.ddd × 10^e plus 500000 in six digits, and the
// significant digits for a positive value; '1', 500000 minus the exponent
// in six digits, the nines' complements of the digits and '~' for a
// negative one (the terminator sorts a shorter complement after a longer
// one: -0.12 > -0.123).
const numericExpBias = 500000

// EncodeNumeric is n's stored form. It builds the text in one buffer and
// formats a coefficient that fits in 64 bits without big-integer
// arithmetic (TestEncodeDecodeNumericMatchReference holds it to the
// straightforward form): it runs for every numeric result.
func EncodeNumeric(n Numeric) string {
	pad := spaces(int(n.Scale))
	if n.D.IsZero() {
		return "2" + pad
	}
	var buf [24]byte
	var all []byte
	if n.D.Coeff.Sign() >= 0 && n.D.Coeff.IsUint64() {
		all = strconv.AppendUint(buf[:0], n.D.Coeff.Uint64(), 10)
	} else {
		all = []byte(new(apd.BigInt).Abs(&n.D.Coeff).String())
	}
	digits := bytes.TrimRight(all, "0")
	exp := int64(len(all)) + int64(n.D.Exponent)
	var b strings.Builder
	b.Grow(1 + 6 + len(digits) + 1 + len(pad))
	if !n.D.Negative {
		b.WriteByte('3')
		writePad6(&b, numericExpBias+exp)
		b.Write(digits)
	} else {
		b.WriteByte('1')
		writePad6(&b, numericExpBias-exp)
		for _, c := range digits {
			b.WriteByte('9' - c + '0')
		}
		b.WriteByte('~')
	}
	b.WriteString(pad)
	return b.String()
}

// spaces is n spaces, without an allocation for the usual display
// scales (strings.Repeat's panic for a negative n, as before).
func spaces(n int) string {
	const s = "                                                                " // 64
	if n >= 0 && n <= len(s) {
		return s[:n]
	}
	return strings.Repeat(" ", n)
}

// writePad6 writes v in decimal, zero-padded on the left to six
// characters.
func writePad6(b *strings.Builder, v int64) {
	var buf [24]byte
	s := strconv.AppendInt(buf[:0], v, 10)
	for range max(6-len(s), 0) {
		b.WriteByte('0')
	}
	b.Write(s)
}

// DecodeNumeric reads a stored form back.
func DecodeNumeric(s string) (Numeric, error) {
	key := strings.TrimRight(s, " ")
	scale := int32(len(s) - len(key))
	// The error is made on the error path only: formatting it cost more
	// than decoding (this runs for every numeric operand and value).
	bad := func() error { return errorf("XX000", "pgdialect: %q is not a stored numeric", s) }
	if key == "2" {
		return Numeric{Scale: scale}, nil
	}
	if len(key) < 8 || (key[0] != '1' && key[0] != '3') {
		return Numeric{}, bad()
	}
	e, err := strconv.ParseInt(key[1:7], 10, 64)
	digits := key[7:]
	if err != nil {
		return Numeric{}, bad()
	}
	neg := key[0] == '1'
	var buf [32]byte
	if neg {
		e = numericExpBias - e
		digits = strings.TrimSuffix(digits, "~")
		comp := buf[:0]
		if len(digits) > len(buf) {
			comp = make([]byte, 0, len(digits))
		}
		for i := 0; i < len(digits); i++ {
			comp = append(comp, '9'-digits[i]+'0')
		}
		digits = string(comp)
	} else {
		e -= numericExpBias
	}
	// The complement maps digits to digits and nothing else to a digit:
	// checking the complemented text checks the stored one.
	if digits == "" || !allDigits(digits) {
		return Numeric{}, bad()
	}
	var n Numeric
	if len(digits) <= 19 { // below 10^19 < 2^64: no big-integer parse
		u, err := strconv.ParseUint(digits, 10, 64)
		if err != nil {
			return Numeric{}, bad()
		}
		n.D.Coeff.SetUint64(u)
	} else if _, ok := n.D.Coeff.SetString(digits, 10); !ok {
		return Numeric{}, bad()
	}
	n.D.Exponent = int32(e - int64(len(digits)))
	n.D.Negative = neg
	n.Scale = scale
	return n, nil
}

// NumericFn is the numeric function name (neg, abs, round, trunc, ceil,
// floor) of n; places is round's and trunc's second argument.
func NumericFn(name string, n Numeric, places int64) (Numeric, error) {
	switch name {
	case "neg":
		return NumericNeg(n), nil
	case "abs":
		return NumericAbs(n), nil
	case "round", "trunc":
		return NumericRound(n, places, name == "trunc")
	case "ceil", "floor":
		return NumericCeilFloor(n, name == "ceil")
	}
	return Numeric{}, Unsupported("the numeric function " + name)
}
