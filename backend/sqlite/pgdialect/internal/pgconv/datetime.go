package pgconv

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// dateTimeForm is the input the dialect accepts for date, timestamp and
// timestamptz: ISO 8601 with a space or T, optional seconds and up to six
// fractional digits, and an optional zone (Z, UTC, +HH, +HH:MM, +HHMM).
// PostgreSQL accepts many more forms; the others are refused, never read
// differently.
var dateTimeForm = regexp.MustCompile(`^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?)?\s*(Z|UTC|[+-]\d{2}(?::?\d{2})?)?$`)

// ParseDateTime reads s as a value of typ (date, timestamp, timestamptz)
// and returns its canonical text: PostgreSQL's output with DateStyle ISO
// and TimeZone UTC, so that text order is time order.
func ParseDateTime(typ, s string) (string, error) {
	t := trimSpace(s)
	m := dateTimeForm.FindStringSubmatch(strings.ToUpper(t))
	if m == nil {
		return "", parseDateTimeRefusal(typ, s, t)
	}
	num := func(i int) int { v, _ := strconv.Atoi(m[i]); return v }
	year, month, day := num(1), num(2), num(3)
	hour, minute, sec := num(4), num(5), num(6)
	if month < 1 || month > 12 || day < 1 || day > daysIn(year, month) || hour > 23 || minute > 59 || sec > 59 {
		return "", errorf("22008", "date/time field value out of range: %q", s)
	}
	if year == 0 {
		return "", errorf("22008", "date/time field value out of range: %q", s)
	}
	frac := m[7]
	nanos := 0
	if frac != "" {
		nanos, _ = strconv.Atoi((frac + "000000")[:6])
		nanos *= 1000
	}
	tm := time.Date(year, time.Month(month), day, hour, minute, sec, nanos, time.UTC)
	if typ == "timestamptz" && m[8] != "" {
		tm = tm.Add(-zoneOffset(m[8]))
	}
	return FormatTime(typ, tm)
}

// parseDateTimeRefusal tells a form the dialect does not read (a refusal)
// from text that is no date at all (PostgreSQL's 22007).
func parseDateTimeRefusal(typ, s, t string) error {
	lower := strings.ToLower(t)
	for _, clock := range []string{"now", "today", "tomorrow", "yesterday"} {
		if lower == clock {
			return errorf("22007", "%q reads the node's clock: relchain refuses it (invalid input syntax for type %s)", s, Label(typ))
		}
	}
	for _, special := range []string{"epoch", "infinity", "-infinity", "allballs"} {
		if lower == special {
			return Unsupported(fmt.Sprintf("the special %s value %q", Label(typ), special))
		}
	}
	if strings.ContainsAny(t, "0123456789") {
		return Unsupported(fmt.Sprintf("this %s input format (%q); use YYYY-MM-DD[ HH:MM:SS[.ffffff]][+HH:MM]", Label(typ), s))
	}
	return errorf("22007", "invalid input syntax for type %s: %q", Label(typ), s)
}

func daysIn(year, month int) int {
	return time.Date(year, time.Month(month)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

func zoneOffset(z string) time.Duration {
	if z == "Z" || z == "UTC" {
		return 0
	}
	digits := strings.ReplaceAll(z[1:], ":", "")
	h, _ := strconv.Atoi(digits[:2])
	mins := 0
	if len(digits) == 4 {
		mins, _ = strconv.Atoi(digits[2:])
	}
	d := time.Duration(h)*time.Hour + time.Duration(mins)*time.Minute
	if z[0] == '-' {
		return -d
	}
	return d
}

// FormatTime is PostgreSQL's ISO output of tm (UTC) as typ; years outside
// 1..9999 are refused.
func FormatTime(typ string, tm time.Time) (string, error) {
	if tm.Year() < 1 || tm.Year() > 9999 {
		return "", Unsupported("dates outside the years 1 to 9999")
	}
	if typ == "date" {
		return tm.Format("2006-01-02"), nil
	}
	out := tm.Format("2006-01-02 15:04:05")
	if us := tm.Nanosecond() / 1000; us != 0 {
		out += strings.TrimRight(fmt.Sprintf(".%06d", us), "0")
	}
	if typ == "timestamptz" {
		out += "+00"
	}
	return out, nil
}

// ConvertDateTime casts canonical text of type src to dst among date,
// timestamp and timestamptz (the session time zone being UTC).
func ConvertDateTime(s, src, dst string) (string, error) {
	base := strings.TrimSuffix(s, "+00")
	switch {
	case src == dst:
		return s, nil
	case dst == "date":
		return base[:10], nil
	case src == "date":
		base += " 00:00:00"
	}
	if dst == "timestamptz" {
		return base + "+00", nil
	}
	return base, nil
}

// DateAdd is date + integer days (22008 outside the supported years).
func DateAdd(d string, days int64) (string, error) {
	tm, err := time.Parse("2006-01-02", d)
	if err != nil {
		return "", Unsupported("this date value " + strconv.Quote(d))
	}
	if days > 2147483647 || days < -2147483648 {
		return "", errorf("22008", "date out of range") // beyond PostgreSQL's own range
	}
	if days > 3660000 || days < -3660000 {
		return "", Unsupported("dates outside the years 1 to 9999")
	}
	out := tm.AddDate(0, 0, int(days))
	if out.Year() < 1 || out.Year() > 9999 {
		return "", Unsupported("dates outside the years 1 to 9999")
	}
	return out.Format("2006-01-02"), nil
}

// DateDiff is date - date: the days between them.
func DateDiff(a, b string) (int64, error) {
	ta, err1 := time.Parse("2006-01-02", a)
	tb, err2 := time.Parse("2006-01-02", b)
	if err1 != nil || err2 != nil {
		return 0, Unsupported("these date values")
	}
	return int64(ta.Sub(tb).Hours() / 24), nil
}

// TruncUnits are the units date_trunc takes (lower case).
var TruncUnits = map[string]bool{"microseconds": true, "milliseconds": true, "second": true, "minute": true, "hour": true,
	"day": true, "week": true, "month": true, "quarter": true, "year": true, "decade": true, "century": true, "millennium": true}

// DateTrunc is date_trunc(unit, v) on the canonical text of a timestamp
// or timestamptz (typ), in UTC.
func DateTrunc(unit, v, typ string) (string, error) {
	layout := "2006-01-02 15:04:05.999999"
	tm, err := time.Parse(layout, strings.TrimSuffix(v, "+00"))
	if err != nil {
		return "", Unsupported("this " + Label(typ) + " value " + strconv.Quote(v))
	}
	y, mo, d := tm.Date()
	h, mi, s, ns := tm.Hour(), tm.Minute(), tm.Second(), tm.Nanosecond()
	switch unit {
	case "microseconds":
	case "milliseconds":
		ns = ns / 1e6 * 1e6
	case "second":
		ns = 0
	case "minute":
		s, ns = 0, 0
	case "hour":
		mi, s, ns = 0, 0, 0
	case "day":
		h, mi, s, ns = 0, 0, 0, 0
	case "week":
		d -= (int(tm.Weekday()) + 6) % 7
		h, mi, s, ns = 0, 0, 0, 0
	default:
		return truncYears(unit, y, int(mo), typ)
	}
	return FormatTime(typ, time.Date(y, mo, d, h, mi, s, ns, time.UTC))
}

// truncYears truncates to a month, quarter, year, decade, century or
// millennium (centuries and millennia start at years ...01).
func truncYears(unit string, y, mo int, typ string) (string, error) {
	switch unit {
	case "month":
	case "quarter":
		mo = (mo-1)/3*3 + 1
	case "year":
		mo = 1
	case "decade":
		y, mo = y/10*10, 1
	case "century":
		y, mo = (y-1)/100*100+1, 1
	case "millennium":
		y, mo = (y-1)/1000*1000+1, 1
	default:
		return "", errorf("22023", "unit %q not recognized for type %s", unit, Label(typ))
	}
	return FormatTime(typ, time.Date(y, time.Month(mo), 1, 0, 0, 0, 0, time.UTC))
}
