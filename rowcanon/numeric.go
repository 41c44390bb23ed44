package rowcanon

import (
	"fmt"
	"strconv"
	"strings"
)

// Limits of PostgreSQL's numeric: digits before and after the point.
const (
	maxIntDigits  = 131072
	maxFracDigits = 16383
)

// Numeric is an exact decimal from its text: an optional sign, digits
// with an optional point, an optional exponent (e or E, a sign, digits).
// The value is normalised (no leading zeros, no trailing fractional
// zeros, -0 is 0): display scale is not part of the value, so 1.5, 1.50
// and 15e-1 are one value. NaN and the infinities are refused.
func Numeric(s string) (Value, error) {
	neg, digits, exp, err := parseDecimal(s)
	if err != nil {
		return Value{}, fmt.Errorf("numeric %q: %w", truncate(s), err)
	}
	return numericOf(neg, digits, exp)
}

// numericOf is the value 0.digits × 10^exp (negated when neg), digits
// having no leading or trailing zero ("" is zero).
func numericOf(neg bool, digits string, exp int64) (Value, error) {
	if digits == "" {
		return Value{kind: KindNumeric, s: "0"}, nil
	}
	if exp > maxIntDigits || int64(len(digits))-exp > maxFracDigits {
		return Value{}, fmt.Errorf("numeric: %w", invalid("0.%s×10^%d is outside numeric's range", truncate(digits), exp))
	}
	return Value{kind: KindNumeric, s: decimalText(neg, digits, exp), i: exp}, nil
}

// parseDecimal reads s as 0.digits × 10^exp with digits trimmed of
// leading and trailing zeros.
func parseDecimal(s string) (neg bool, digits string, exp int64, err error) {
	m := s
	if m != "" && (m[0] == '+' || m[0] == '-') {
		neg, m = m[0] == '-', m[1:]
	}
	var e int64
	if i := strings.IndexAny(m, "eE"); i >= 0 {
		if e, err = parseExponent(m[i+1:]); err != nil {
			return false, "", 0, err
		}
		m = m[:i]
	}
	intPart, frac, _ := strings.Cut(m, ".")
	if intPart+frac == "" || !allDigits(intPart) || !allDigits(frac) {
		return false, "", 0, invalid("not a decimal number")
	}
	all := intPart + frac
	exp = int64(len(intPart)) + e
	trimmed := strings.TrimLeft(all, "0")
	exp -= int64(len(all) - len(trimmed))
	digits = strings.TrimRight(trimmed, "0")
	return neg && digits != "", digits, exp, nil
}

// parseExponent reads an exponent, bounded so that the arithmetic on it
// cannot overflow (a larger one is out of numeric's range anyway).
func parseExponent(s string) (int64, error) {
	e, err := strconv.ParseInt(s, 10, 32)
	if err != nil {
		return 0, invalid("bad exponent %q", truncate(s))
	}
	if e > 1<<20 || e < -(1<<20) {
		return 0, invalid("exponent %d is outside numeric's range", e)
	}
	return e, nil
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// decimalText is the normalised text of 0.digits × 10^exp: plain
// notation, "0." before a fraction below one, no point for an integer.
func decimalText(neg bool, digits string, exp int64) string {
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	n := int64(len(digits))
	switch {
	case exp <= 0:
		b.WriteString("0.")
		b.WriteString(strings.Repeat("0", int(-exp)))
		b.WriteString(digits)
	case exp >= n:
		b.WriteString(digits)
		b.WriteString(strings.Repeat("0", int(exp-n)))
	default:
		b.WriteString(digits[:exp])
		b.WriteByte('.')
		b.WriteString(digits[exp:])
	}
	return b.String()
}

// numericParts is v's sign, significant digits and exponent.
func (v Value) numericParts() (neg bool, digits string, exp int64) {
	if v.s == "0" {
		return false, "", 0
	}
	neg = v.s[0] == '-'
	all := strings.Replace(strings.TrimPrefix(v.s, "-"), ".", "", 1)
	return neg, strings.TrimRight(strings.TrimLeft(all, "0"), "0"), v.i
}
