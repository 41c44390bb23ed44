package gateway

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/relchain/relchain/pgwire"
	"github.com/relchain/relchain/txn"
)

// PostgreSQL's text output, as a PostgreSQL 15 server sends it under the
// settings the gateway reports (DateStyle ISO, MDY; IntervalStyle postgres;
// TimeZone UTC; bytea_output hex; extra_float_digits 1). Values from a
// PostgreSQL network already are that text (the node's sessions pin the same
// output settings) and pass unchanged; the other databases' values are
// rendered into it.

// formatFloat renders f as float8out (bits 64) or float4out (bits 32) do
// with extra_float_digits > 0: the shortest digits that read back exactly,
// in fixed notation for decimal exponents from -4 up to 14 (float4: 5),
// else as d.ddde±XX; NaN, Infinity, -Infinity; -0 keeps its sign.
func formatFloat(f float64, bits int) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	if bits == 32 {
		f = float64(float32(f))
	}
	e := strconv.FormatFloat(f, 'e', -1, bits) // [-]d[.ddd]e±XX
	neg := strings.HasPrefix(e, "-")
	e = strings.TrimPrefix(e, "-")
	mant, expText, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(expText)
	digits := strings.Replace(mant, ".", "", 1)
	limit := 15
	if bits == 32 {
		limit = 6
	}
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	switch {
	case f == 0:
		b.WriteByte('0')
	case exp < -4 || exp >= limit:
		b.WriteString(mant)
		b.WriteByte('e')
		if exp < 0 {
			b.WriteByte('-')
			exp = -exp
		} else {
			b.WriteByte('+')
		}
		if exp < 10 {
			b.WriteByte('0')
		}
		b.WriteString(strconv.Itoa(exp))
	case exp < 0:
		b.WriteString("0.")
		b.WriteString(strings.Repeat("0", -exp-1))
		b.WriteString(digits)
	case len(digits) <= exp+1:
		b.WriteString(digits)
		b.WriteString(strings.Repeat("0", exp+1-len(digits)))
	default:
		b.WriteString(digits[:exp+1])
		b.WriteByte('.')
		b.WriteString(digits[exp+1:])
	}
	return b.String()
}

// PostgreSQL's output forms of date, timestamp and timestamptz (ISO style;
// a year may have more than four digits).
var (
	pgDateOut        = regexp.MustCompile(`^[0-9]{4,}-[0-9]{2}-[0-9]{2}( BC)?$`)
	pgTimestampOut   = regexp.MustCompile(`^[0-9]{4,}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,6})?( BC)?$`)
	pgTimestamptzOut = regexp.MustCompile(`^[0-9]{4,}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,6})?[+-][0-9]{2}(:[0-9]{2}){0,2}( BC)?$`)
)

// dateTimeText is a date, timestamp or timestamptz value (oid) in
// PostgreSQL's output form: the value itself when it already is (what a
// PostgreSQL network sends), else the value read in one of the forms the
// other databases hold dates in and rendered (timestamptz in UTC, "+00").
func dateTimeText(oid uint32, s string) (string, error) {
	if s == "infinity" || s == "-infinity" {
		return s, nil
	}
	var out *regexp.Regexp
	switch oid {
	case oidDate:
		out = pgDateOut
	case oidTimestamp:
		out = pgTimestampOut
	default:
		out = pgTimestamptzOut
	}
	if out.MatchString(s) {
		return s, nil
	}
	for _, l := range timeLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return formatDateTime(oid, t), nil
		}
	}
	return "", fmt.Errorf("%q is not a date or time the gateway understands", s)
}

// Type OIDs the value conversions name.
const (
	oidBool        = 16
	oidBytea       = 17
	oidInt8        = 20
	oidInt2        = 21
	oidInt4        = 23
	oidText        = 25
	oidFloat4      = 700
	oidFloat8      = 701
	oidDate        = 1082
	oidTime        = 1083
	oidTimestamp   = 1114
	oidTimestamptz = 1184
	oidInterval    = 1186
	oidTimetz      = 1266
	oidNumeric     = 1700
	oidUUID        = 2950
)

// formatDateTime renders t as PostgreSQL prints a date (the day of t),
// timestamp (t's wall clock) or timestamptz (t in UTC, as "+00"):
// microseconds (rounded, trailing zeros dropped), years before 1 as BC.
func formatDateTime(oid uint32, t time.Time) string {
	if oid == oidTimestamptz {
		t = t.UTC()
	}
	t = t.Round(time.Microsecond)
	year, bc := t.Year(), false
	if year <= 0 {
		year, bc = 1-year, true
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%04d-%02d-%02d", year, int(t.Month()), t.Day())
	if oid != oidDate {
		fmt.Fprintf(&b, " %02d:%02d:%02d", t.Hour(), t.Minute(), t.Second())
		if us := t.Nanosecond() / 1000; us != 0 {
			b.WriteString(strings.TrimRight(fmt.Sprintf(".%06d", us), "0"))
		}
		if oid == oidTimestamptz {
			b.WriteString("+00")
		}
	}
	if bc {
		b.WriteString(" BC")
	}
	return b.String()
}

// paramArg is the envelope argument of one decoded Bind parameter whose
// statement declares type oid. A parameter the client sent as text for a
// non-text type (pgwire.TextParam) goes to a PostgreSQL network as that
// text (native): PostgreSQL's own input function reads it there, in every
// form PostgreSQL accepts. Two forms are rewritten first: a numeric date
// whose field order depends on DateStyle (the client's session says MDY,
// the node's sessions read YMD) is sent in ISO order, and a date/time
// word PostgreSQL resolves with the server's clock ('now', 'today', …) is
// refused: it would make validators store different values. Elsewhere the
// text is decoded as pgwire decodes binary parameters.
func paramArg(p any, oid uint32, native bool) (txn.Arg, error) {
	tp, ok := p.(pgwire.TextParam)
	if !ok {
		if oid == oidDate {
			return dateArg(p)
		}
		return argOf(p)
	}
	if isDateTime(tp.OID) {
		if w := clockWord(tp.Text); w != "" {
			e := refused("the date/time input '%s' is not allowed in a parameter: PostgreSQL resolves it with each node's clock", w)
			e.Hint = "Send the time itself, or use now() or current_date in the statement: they are rewritten to the block's time."
			return txn.Arg{}, e
		}
	}
	if native {
		if isDateTime(tp.OID) {
			return txn.Text(isoDateOrder(tp.Text)), nil
		}
		return txn.Text(tp.Text), nil
	}
	v, err := tp.Decode()
	if err != nil {
		return txn.Arg{}, &pgwire.Error{Code: stateBadText, Message: fmt.Sprintf("invalid input syntax for type OID %d: %q: %v", tp.OID, tp.Text, err)}
	}
	if tp.OID == oidDate {
		return dateArg(v)
	}
	return argOf(v)
}

// stateBadText is invalid_text_representation.
const stateBadText = "22P02"

func isDateTime(oid uint32) bool {
	switch oid {
	case oidDate, oidTime, oidTimetz, oidTimestamp, oidTimestamptz:
		return true
	}
	return false
}

// clockWords are the date/time inputs PostgreSQL resolves with the clock.
var clockWords = map[string]bool{"now": true, "today": true, "tomorrow": true, "yesterday": true}

// clockWord is the first clock word of a date/time input text, or "".
func clockWord(s string) string {
	for _, f := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !(r >= 'a' && r <= 'z')
	}) {
		if clockWords[f] {
			return f
		}
	}
	return ""
}

// mdyDate is a leading numeric date in month-day-year order (DateStyle
// MDY): 12/01/2026, 12-01-26, 1.2.2026.
var mdyDate = regexp.MustCompile(`^(\s*)([0-9]{1,2})([/.-])([0-9]{1,2})([/.-])([0-9]{1,5})([^0-9].*)?$`)

// isoDateOrder rewrites a leading MDY numeric date to ISO order (a year of
// one or two digits as PostgreSQL reads it: below 70 is 20xx, else 19xx);
// anything else is returned unchanged.
func isoDateOrder(s string) string {
	m := mdyDate.FindStringSubmatch(s)
	if m == nil || m[3] != m[5] {
		return s
	}
	month, _ := strconv.Atoi(m[2])
	day, _ := strconv.Atoi(m[4])
	year, _ := strconv.Atoi(m[6])
	if len(m[6]) <= 2 {
		if year < 70 {
			year += 2000
		} else {
			year += 1900
		}
	}
	return fmt.Sprintf("%s%04d-%02d-%02d%s", m[1], year, month, day, m[7])
}
