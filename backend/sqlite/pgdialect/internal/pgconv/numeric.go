package pgconv

import (
	"strconv"
	"strings"

	"github.com/cockroachdb/apd/v3"
)

// Numeric is a value of PostgreSQL's numeric: a finite decimal and its
// display scale (the number of digits numeric_out prints after the
// point: 1.50 has scale 2). NaN and the infinities are refused.
type Numeric struct {
	D     apd.Decimal
	Scale int32
}

// Limits of PostgreSQL's numeric (numeric.h) the dialect enforces.
const (
	numericMaxPrecision = 1000  // NUMERIC_MAX_PRECISION: typmod precision, input exponent
	numericMaxScale     = 16383 // NUMERIC_DSCALE_MAX
	numericMaxWeight    = 131072
	numericMinSig       = 16 // NUMERIC_MIN_SIG_DIGITS
)

// numCtx does exact arithmetic (its precision is beyond any numeric
// value) and rounds half away from zero where rounding is asked for, as
// PostgreSQL's round_var does.
var numCtx = apd.Context{Precision: 1 << 20, MaxExponent: 1 << 21, MinExponent: -(1 << 21), Rounding: apd.RoundHalfUp, Traps: apd.DefaultTraps}

func numericOverflow() *Error { return errorf("22003", "value overflows numeric format") }

// ParseNumeric is PostgreSQL 15's numeric_in: optional spaces, a sign,
// digits with an optional point, an optional exponent. NaN and Infinity
// are refused; anything else is 22P02.
func ParseNumeric(s string) (Numeric, error) {
	t := trimSpace(s)
	switch strings.ToLower(strings.TrimLeft(t, "+-")) {
	case "nan", "infinity", "inf":
		return Numeric{}, Unsupported("numeric NaN and Infinity")
	}
	body := t
	if body != "" && (body[0] == '+' || body[0] == '-') {
		body = body[1:]
	}
	mant, exp, hasExp := body, "", false
	if i := strings.IndexAny(body, "eE"); i >= 0 {
		mant, exp, hasExp = body[:i], body[i+1:], true
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	if !allDigits(intPart) || !allDigits(frac) || intPart+frac == "" || strings.Count(mant, ".") > 1 {
		return Numeric{}, errorf("22P02", "invalid input syntax for type numeric: %q", s)
	}
	e := int64(0)
	if hasExp {
		digits := strings.TrimLeft(exp, "+-")
		if len(exp)-len(digits) > 1 || digits == "" || !allDigits(digits) {
			return Numeric{}, errorf("22P02", "invalid input syntax for type numeric: %q", s)
		}
		v, err := strconv.ParseInt(exp, 10, 64)
		if err != nil || v > numericMaxPrecision || v < -numericMaxPrecision {
			return Numeric{}, errorf("22P02", "invalid input syntax for type numeric: %q", s)
		}
		e = v
	}
	sign := strings.TrimPrefix(t[:len(t)-len(body)], "+")
	var n Numeric
	if _, _, err := n.D.SetString(sign + intPart + frac + "E" + strconv.FormatInt(e-int64(len(frac)), 10)); err != nil {
		return Numeric{}, errorf("22P02", "invalid input syntax for type numeric: %q", s)
	}
	n.Scale = int32(max(int64(len(frac))-e, 0))
	return n.checked()
}

func allDigits(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return r < '0' || r > '9' }) < 0
}

// checked rounds n to its display scale and checks PostgreSQL's range.
func (n Numeric) checked() (Numeric, error) {
	if n.Scale > numericMaxScale {
		return Numeric{}, numericOverflow()
	}
	var out Numeric
	if _, err := numCtx.Quantize(&out.D, &n.D, -n.Scale); err != nil {
		return Numeric{}, numericOverflow()
	}
	if out.D.IsZero() {
		out.D.Negative = false
	}
	if intDigits(out.D) > numericMaxWeight {
		return Numeric{}, numericOverflow()
	}
	out.Scale = n.Scale
	return out, nil
}

// intDigits is the number of digits before the point (0 for |d| < 1).
func intDigits(d apd.Decimal) int64 {
	if d.IsZero() {
		return 0
	}
	return max(d.NumDigits()+int64(d.Exponent), 0)
}

// Text is numeric_out: plain notation with exactly Scale digits after the
// point.
func (n Numeric) Text() string {
	var q apd.Decimal
	if _, err := numCtx.Quantize(&q, &n.D, -n.Scale); err != nil {
		return n.D.Text('f')
	}
	if q.IsZero() {
		q.Negative = false
	}
	return q.Text('f')
}

// NumericFromInt is an integer as numeric (scale 0).
func NumericFromInt(i int64) Numeric {
	var n Numeric
	n.D.SetInt64(i)
	return n
}

// NumericFromFloat is float8_numeric (float4_numeric when single): the
// float's text with 15 (6) significant digits read as numeric.
func NumericFromFloat(f float64, single bool) (Numeric, error) {
	digits, bits := 15, 64
	if single {
		digits, bits = 6, 32
	}
	s := strconv.FormatFloat(f, 'g', digits, bits)
	if strings.ContainsAny(s, "NI") { // NaN, ±Inf
		return Numeric{}, Unsupported("numeric NaN and Infinity")
	}
	return ParseNumeric(s)
}

// Int is numeric to an integer type: rounded half away from zero, 22003
// outside the type.
func (n Numeric) Int(typ string) (int64, error) {
	var r apd.Decimal
	if _, err := numCtx.Quantize(&r, &n.D, 0); err != nil {
		return 0, OutOfRange(typ)
	}
	i, err := r.Int64()
	if err != nil {
		return 0, OutOfRange(typ)
	}
	return i, CheckInt(typ, i)
}

// Float is numeric to float8 (float4 when single): its text read by the
// float's input function, as PostgreSQL does.
func (n Numeric) Float(single bool) (float64, error) {
	bits, typ := 64, "float8"
	if single {
		bits, typ = 32, "float4"
	}
	f, err := strconv.ParseFloat(n.Text(), bits)
	if err != nil || f == 0 && !n.D.IsZero() { // float8in: overflow and underflow to zero are 22003
		return 0, errorf("22003", "%q is out of range for type %s", n.Text(), Label(typ))
	}
	return f, nil
}

// NumericTypmod is the typmod of numeric(precision, scale).
func NumericTypmod(precision, scale int32) int32 { return precision<<16 | scale + 4 }

// NumericPrecisionScale reads a numeric typmod back.
func NumericPrecisionScale(typmod int32) (precision, scale int32) {
	t := typmod - 4
	return t >> 16, t & 0xffff
}

// ApplyTypmod is PostgreSQL's apply_typmod: n rounded to the typmod's
// scale, 22003 when more digits than precision - scale remain before the
// point. A typmod below 4 leaves n as it is.
func (n Numeric) ApplyTypmod(typmod int32) (Numeric, error) {
	if typmod < 4 {
		return n, nil
	}
	p, s := NumericPrecisionScale(typmod)
	r, err := Numeric{D: n.D, Scale: s}.checked()
	if err != nil {
		return Numeric{}, err
	}
	if intDigits(r.D) > int64(p-s) {
		return Numeric{}, errorf("22003", "numeric field overflow")
	}
	return r, nil
}
