package gateway

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
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
