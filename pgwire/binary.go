package pgwire

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgtype"
)

// Binary format from PostgreSQL's text form, byte for byte what the server's *_send functions
// write: a Session gives values of these types as the text PostgreSQL prints (a PostgreSQL
// database's own output, passed through), and a client that asks for binary gets what
// PostgreSQL would have sent. pgtype's encoders differ from the server's in places (numeric's
// weight and scale, empty and multi-dimensional arrays, infinite timestamps) and know no timetz.

// arrayElem maps the array types the gateway announces to their element types.
var arrayElem = map[uint32]uint32{
	1000: 16, 1001: 17, 1005: 21, 1007: 23, 1009: 25, 1014: 1042, 1015: 1043, 1016: 20, 1021: 700,
	1022: 701, 1115: 1114, 1182: 1082, 1183: 1083, 1185: 1184, 1187: 1186, 1231: 1700, 1270: 1266,
	2951: 2950, 199: 114, 3807: 3802, 1003: 19,
}

// binaryFromText encodes s, the text form of a value of type oid, in binary format; ok is
// false for a type it does not know.
func binaryFromText(oid uint32, s string) (out []byte, ok bool, err error) {
	if elem, isArray := arrayElem[oid]; isArray {
		out, err = arrayBinary(elem, s)
		return out, true, err
	}
	if out, ok, err := numberBinary(oid, s); ok {
		return out, true, err
	}
	switch oid {
	case 17:
		if !strings.HasPrefix(s, `\x`) {
			return nil, true, fmt.Errorf("bytea not in hex format")
		}
		out, err := hex.DecodeString(s[2:])
		return out, true, err
	case 25, 1042, 1043, 114, 19:
		return []byte(s), true, nil
	case 3802:
		return append([]byte{1}, s...), true, nil
	case 1700:
		out, err := numericBinary(s)
		return out, true, err
	case 2950:
		out, err := hex.DecodeString(strings.ReplaceAll(s, "-", ""))
		if err == nil && len(out) != 16 {
			err = fmt.Errorf("invalid uuid %q", s)
		}
		return out, true, err
	case 1082:
		out, err := dateBinary(s)
		return out, true, err
	case 1114, 1184:
		out, err := timestampBinary(s, oid == 1184)
		return out, true, err
	case 1083:
		us, rest, err := clockMicros(s)
		if err == nil && rest != "" {
			err = fmt.Errorf("invalid time %q", s)
		}
		return binary.BigEndian.AppendUint64(nil, uint64(us)), true, err
	case oidTimetz:
		us, rest, err := clockMicros(s)
		if err != nil {
			return nil, true, err
		}
		off, err := zoneSeconds(rest)
		if err != nil {
			return nil, true, err
		}
		out := binary.BigEndian.AppendUint64(nil, uint64(us))
		return binary.BigEndian.AppendUint32(out, uint32(int32(-off))), true, nil
	case 1186:
		out, err := intervalBinary(s)
		return out, true, err
	}
	return nil, false, nil
}

// numberBinary encodes the booleans, integers and floats; ok is false for other types.
func numberBinary(oid uint32, s string) (out []byte, ok bool, err error) {
	switch oid {
	case 16:
		switch s {
		case "t":
			return []byte{1}, true, nil
		case "f":
			return []byte{0}, true, nil
		}
		return nil, true, fmt.Errorf("invalid boolean %q", s)
	case 21, 23, 20:
		bits := map[uint32]int{21: 16, 23: 32, 20: 64}[oid]
		n, err := strconv.ParseInt(s, 10, bits)
		if err != nil {
			return nil, true, err
		}
		return binary.BigEndian.AppendUint64(nil, uint64(n))[8-bits/8:], true, nil
	case 700:
		f, err := strconv.ParseFloat(s, 32)
		if err != nil {
			return nil, true, err
		}
		b := math.Float32bits(float32(f))
		if math.IsNaN(f) {
			b = 0x7fc00000 // the server's NaN
		}
		return binary.BigEndian.AppendUint32(nil, b), true, nil
	case 701:
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, true, err
		}
		b := math.Float64bits(f)
		if math.IsNaN(f) {
			b = 0x7ff8000000000000
		}
		return binary.BigEndian.AppendUint64(nil, b), true, nil
	}
	return nil, false, nil
}

// numericBinary is numeric_send of numeric_out's text: base-10000 digits without leading or
// trailing zero groups, the weight of the first, the sign and the display scale.
func numericBinary(s string) ([]byte, error) {
	// The special values: no digits, and the display scale PostgreSQL reads from their
	// header's short-format scale bits (32 for the infinities).
	switch s {
	case "NaN":
		return []byte{0, 0, 0, 0, 0xC0, 0, 0, 0}, nil
	case "Infinity":
		return []byte{0, 0, 0, 0, 0xD0, 0, 0, 0x20}, nil
	case "-Infinity":
		return []byte{0, 0, 0, 0, 0xF0, 0, 0, 0x20}, nil
	}
	var sign uint16
	if strings.HasPrefix(s, "-") {
		sign, s = 0x4000, s[1:]
	}
	intPart, frac, _ := strings.Cut(s, ".")
	if intPart == "" || strings.Trim(intPart+frac, "0123456789") != "" {
		return nil, fmt.Errorf("invalid numeric %q", s)
	}
	dscale := len(frac)
	intPart = strings.Repeat("0", (4-len(intPart)%4)%4) + intPart
	frac += strings.Repeat("0", (4-len(frac)%4)%4)
	all := intPart + frac
	groups := make([]uint16, len(all)/4)
	for i := range groups {
		n, _ := strconv.Atoi(all[4*i : 4*i+4])
		groups[i] = uint16(n)
	}
	weight := len(intPart)/4 - 1
	for len(groups) > 0 && groups[0] == 0 {
		groups, weight = groups[1:], weight-1
	}
	for len(groups) > 0 && groups[len(groups)-1] == 0 {
		groups = groups[:len(groups)-1]
	}
	if len(groups) == 0 {
		weight, sign = 0, 0
	}
	out := binary.BigEndian.AppendUint16(nil, uint16(len(groups)))
	out = binary.BigEndian.AppendUint16(out, uint16(int16(weight)))
	out = binary.BigEndian.AppendUint16(out, sign)
	out = binary.BigEndian.AppendUint16(out, uint16(dscale))
	for _, g := range groups {
		out = binary.BigEndian.AppendUint16(out, g)
	}
	return out, nil
}

// pgEpoch is PostgreSQL's epoch, 2000-01-01 00:00 UTC, in Unix seconds.
var pgEpoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC).Unix()

// civilDate reads "Y…Y-MM-DD" at the start of s (year of four or more digits) and returns
// the rest; bc is applied by the caller.
func civilDate(s string) (y, m, d int, rest string, err error) {
	i := strings.IndexByte(s, '-')
	if i < 4 || len(s) < i+6 || s[i+3] != '-' {
		return 0, 0, 0, "", fmt.Errorf("invalid date %q", s)
	}
	if y, err = strconv.Atoi(s[:i]); err == nil {
		if m, err = strconv.Atoi(s[i+1 : i+3]); err == nil {
			d, err = strconv.Atoi(s[i+4 : i+6])
		}
	}
	return y, m, d, s[i+6:], err
}

// cutBC removes a trailing " BC" and reports it.
func cutBC(s string) (string, bool) {
	if strings.HasSuffix(s, " BC") {
		return s[:len(s)-3], true
	}
	return s, false
}

func dateBinary(s string) ([]byte, error) {
	switch s {
	case "infinity":
		return binary.BigEndian.AppendUint32(nil, math.MaxInt32), nil
	case "-infinity":
		return binary.BigEndian.AppendUint32(nil, 1<<31), nil
	}
	s, bc := cutBC(s)
	y, m, d, rest, err := civilDate(s)
	if err != nil || rest != "" {
		return nil, fmt.Errorf("invalid date %q", s)
	}
	if bc {
		y = 1 - y
	}
	days := (time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC).Unix() - pgEpoch) / 86400
	return binary.BigEndian.AppendUint32(nil, uint32(int32(days))), nil
}

func timestampBinary(s string, tz bool) ([]byte, error) {
	switch s {
	case "infinity":
		return binary.BigEndian.AppendUint64(nil, math.MaxInt64), nil
	case "-infinity":
		return binary.BigEndian.AppendUint64(nil, 1<<63), nil
	}
	s, bc := cutBC(s)
	y, m, d, rest, err := civilDate(s)
	if err != nil || !strings.HasPrefix(rest, " ") {
		return nil, fmt.Errorf("invalid timestamp %q", s)
	}
	us, rest, err := clockMicros(rest[1:])
	if err != nil {
		return nil, err
	}
	off := 0
	if tz {
		if off, err = zoneSeconds(rest); err != nil {
			return nil, err
		}
	} else if rest != "" {
		return nil, fmt.Errorf("invalid timestamp %q", s)
	}
	if bc {
		y = 1 - y
	}
	secs := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC).Unix() - pgEpoch - int64(off)
	return binary.BigEndian.AppendUint64(nil, uint64(secs*1_000_000+us)), nil
}

// clockMicros reads "HH:MM:SS[.ffffff]" (hours may pass 24) at the start of s as
// microseconds, and returns the rest.
func clockMicros(s string) (int64, string, error) {
	end := strings.IndexAny(s, "+-")
	if end < 0 {
		end = len(s)
	}
	clock, rest := s[:end], s[end:]
	parts := strings.Split(clock, ":")
	if len(parts) != 3 {
		return 0, "", fmt.Errorf("invalid time %q", s)
	}
	h, err1 := strconv.ParseInt(parts[0], 10, 64)
	m, err2 := strconv.ParseInt(parts[1], 10, 64)
	sec, fr, _ := strings.Cut(parts[2], ".")
	sv, err3 := strconv.ParseInt(sec, 10, 64)
	if err := errors.Join(err1, err2, err3); err != nil || len(fr) > 6 {
		return 0, "", fmt.Errorf("invalid time %q", s)
	}
	us := int64(0)
	if fr != "" {
		n, err := strconv.ParseInt(fr+strings.Repeat("0", 6-len(fr)), 10, 64)
		if err != nil {
			return 0, "", fmt.Errorf("invalid time %q", s)
		}
		us = n
	}
	return ((h*60+m)*60+sv)*1_000_000 + us, rest, nil
}

// zoneSeconds reads a zone offset "+HH[:MM[:SS]]" (east of UTC positive).
func zoneSeconds(s string) (int, error) {
	if len(s) < 3 || (s[0] != '+' && s[0] != '-') {
		return 0, fmt.Errorf("invalid zone %q", s)
	}
	total := 0
	for i, p := range strings.Split(s[1:], ":") {
		n, err := strconv.Atoi(p)
		if err != nil || i > 2 || len(p) != 2 {
			return 0, fmt.Errorf("invalid zone %q", s)
		}
		total += n * []int{3600, 60, 1}[i]
	}
	if s[0] == '-' {
		total = -total
	}
	return total, nil
}

// intervalBinary is interval_send of interval_out's "postgres" style: "1 year 2 mons -3 days
// +04:05:06.789", every field signed on its own.
func intervalBinary(s string) ([]byte, error) {
	var months, days int64
	var us int64
	fields := strings.Fields(s)
	for i := 0; i < len(fields); i++ {
		f := fields[i]
		if strings.Contains(f, ":") {
			neg := strings.HasPrefix(f, "-")
			t, rest, err := clockMicros(strings.TrimLeft(f, "+-"))
			if err != nil || rest != "" {
				return nil, fmt.Errorf("invalid interval %q", s)
			}
			if neg {
				t = -t
			}
			us += t
			continue
		}
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil || i+1 >= len(fields) {
			return nil, fmt.Errorf("invalid interval %q", s)
		}
		i++
		switch fields[i] {
		case "year", "years":
			months += 12 * n
		case "mon", "mons":
			months += n
		case "day", "days":
			days += n
		default:
			return nil, fmt.Errorf("invalid interval %q", s)
		}
	}
	out := binary.BigEndian.AppendUint64(nil, uint64(us))
	out = binary.BigEndian.AppendUint32(out, uint32(int32(days)))
	return binary.BigEndian.AppendUint32(out, uint32(int32(months))), nil
}

// arrayBinary is array_send of array_out's text: dimensions (with lower bounds from a
// "[lo:hi]=" prefix, else 1), a null flag, the element type and each element.
func arrayBinary(elem uint32, s string) ([]byte, error) {
	var lbounds []int
	if strings.HasPrefix(s, "[") {
		eq := strings.Index(s, "=")
		if eq < 0 {
			return nil, fmt.Errorf("invalid array %q", s)
		}
		for _, d := range strings.Split(strings.Trim(s[:eq], "[]"), "][") {
			lo, _, _ := strings.Cut(d, ":")
			n, err := strconv.Atoi(lo)
			if err != nil {
				return nil, fmt.Errorf("invalid array %q", s)
			}
			lbounds = append(lbounds, n)
		}
		s = s[eq+1:]
	}
	p := &arrayParser{s: s}
	dims, err := p.parse(0)
	if err != nil || p.i != len(s) {
		return nil, fmt.Errorf("invalid array %q", s)
	}
	if len(p.elems) == 0 {
		out := binary.BigEndian.AppendUint32(nil, 0)
		out = binary.BigEndian.AppendUint32(out, 0)
		return binary.BigEndian.AppendUint32(out, elem), nil
	}
	out := binary.BigEndian.AppendUint32(nil, uint32(len(p.dims)))
	hasNull := uint32(0)
	for _, e := range p.elems {
		if e == nil {
			hasNull = 1
		}
	}
	out = binary.BigEndian.AppendUint32(out, hasNull)
	out = binary.BigEndian.AppendUint32(out, elem)
	_ = dims
	for i, n := range p.dims {
		lo := 1
		if i < len(lbounds) {
			lo = lbounds[i]
		}
		out = binary.BigEndian.AppendUint32(out, uint32(n))
		out = binary.BigEndian.AppendUint32(out, uint32(int32(lo)))
	}
	for _, e := range p.elems {
		if e == nil {
			out = binary.BigEndian.AppendUint32(out, math.MaxUint32)
			continue
		}
		b, ok, err := binaryFromText(elem, *e)
		if err != nil || !ok {
			return nil, fmt.Errorf("array element %q: %w", *e, err)
		}
		out = binary.BigEndian.AppendUint32(out, uint32(len(b)))
		out = append(out, b...)
	}
	return out, nil
}

// arrayParser reads array_out's text: nested braces, elements quoted (with backslash escapes)
// or bare, NULL unquoted.
type arrayParser struct {
	s     string
	i     int
	dims  []int // length of each dimension, from the first sub-array at each depth
	elems []*string
}

func (p *arrayParser) parse(depth int) (int, error) {
	if p.i >= len(p.s) || p.s[p.i] != '{' {
		return 0, errors.New("expected {")
	}
	p.i++
	if depth >= len(p.dims) {
		p.dims = append(p.dims, 0)
	}
	n := 0
	if p.i < len(p.s) && p.s[p.i] == '}' {
		p.i++
		p.dims = p.dims[:depth]
		return 0, nil
	}
	for {
		if p.i >= len(p.s) {
			return 0, errors.New("unterminated array")
		}
		switch c := p.s[p.i]; {
		case c == '{':
			if _, err := p.parse(depth + 1); err != nil {
				return 0, err
			}
		case c == '"':
			var b strings.Builder
			p.i++
			for p.i < len(p.s) && p.s[p.i] != '"' {
				if p.s[p.i] == '\\' && p.i+1 < len(p.s) {
					p.i++
				}
				b.WriteByte(p.s[p.i])
				p.i++
			}
			if p.i >= len(p.s) {
				return 0, errors.New("unterminated quote")
			}
			p.i++
			v := b.String()
			p.elems = append(p.elems, &v)
		default:
			j := p.i
			for j < len(p.s) && p.s[j] != ',' && p.s[j] != '}' {
				j++
			}
			v := p.s[p.i:j]
			p.i = j
			if strings.EqualFold(v, "NULL") {
				p.elems = append(p.elems, nil)
			} else {
				p.elems = append(p.elems, &v)
			}
		}
		n++
		if p.i >= len(p.s) {
			return 0, errors.New("unterminated array")
		}
		if p.s[p.i] == ',' {
			p.i++
			continue
		}
		if p.s[p.i] == '}' {
			p.i++
			p.dims[depth] = n
			return n, nil
		}
		return 0, errors.New("unexpected character")
	}
}

// arrayTextFromBinary turns a binary array parameter into PostgreSQL's array literal, which
// the database reads as the parameter's text: every element quoted, NULL bare, one brace
// level per dimension (lower bounds other than 1 are written as a [lo:hi] prefix).
func arrayTextFromBinary(m *pgtype.Map, src []byte) (string, error) {
	if len(src) < 12 {
		return "", errors.New("array header too short")
	}
	ndim := int(int32(binary.BigEndian.Uint32(src)))
	elem := binary.BigEndian.Uint32(src[8:])
	src = src[12:]
	if ndim < 0 || ndim > 6 || len(src) < 8*ndim {
		return "", fmt.Errorf("invalid number of dimensions %d", ndim)
	}
	if ndim == 0 {
		return "{}", nil
	}
	dims, prefix, total, src, err := arrayDims(ndim, src)
	if err != nil {
		return "", err
	}
	elems, err := arrayElements(m, elem, total, src)
	if err != nil {
		return "", err
	}
	return arrayLiteral(dims, prefix, elems), nil
}

// arrayDims reads the dimensions (sizes and lower bounds) of a binary array. The element
// count is bounded by the bytes left: each element takes at least its 4-byte length.
func arrayDims(ndim int, src []byte) (dims []int, prefix string, total int, rest []byte, err error) {
	dims = make([]int, ndim)
	var b strings.Builder
	total = 1
	for i := range dims {
		dims[i] = int(int32(binary.BigEndian.Uint32(src)))
		lo := int(int32(binary.BigEndian.Uint32(src[4:])))
		src = src[8:]
		if dims[i] < 0 || dims[i] > len(src)/4+1 {
			return nil, "", 0, nil, fmt.Errorf("invalid array dimension %d", dims[i])
		}
		total *= dims[i]
		if total > len(src)/4 && total > 0 {
			return nil, "", 0, nil, errors.New("array has more elements than bytes")
		}
		if lo != 1 {
			fmt.Fprintf(&b, "[%d:%d]", lo, lo+dims[i]-1)
		}
	}
	return dims, b.String(), total, src, nil
}

// arrayElements reads total elements of type elem, nil for NULL.
func arrayElements(m *pgtype.Map, elem uint32, total int, src []byte) ([]*string, error) {
	elems := make([]*string, 0, total)
	for range total {
		if len(src) < 4 {
			return nil, errors.New("array element missing")
		}
		n := int(int32(binary.BigEndian.Uint32(src)))
		src = src[4:]
		if n < 0 {
			elems = append(elems, nil)
			continue
		}
		if n > len(src) {
			return nil, errors.New("array element too long")
		}
		text, err := elementText(m, elem, src[:n])
		if err != nil {
			return nil, err
		}
		elems = append(elems, &text)
		src = src[n:]
	}
	if len(src) != 0 {
		return nil, errors.New("trailing bytes after the array")
	}
	return elems, nil
}

// arrayLiteral writes the elements as an array literal of the given dimensions.
func arrayLiteral(dims []int, prefix string, elems []*string) string {
	var b strings.Builder
	if prefix != "" {
		b.WriteString(prefix)
		b.WriteByte('=')
	}
	quote := strings.NewReplacer(`\`, `\\`, `"`, `\"`)
	k := 0
	var write func(d int)
	write = func(d int) {
		b.WriteByte('{')
		for i := range dims[d] {
			if i > 0 {
				b.WriteByte(',')
			}
			if d+1 < len(dims) {
				write(d + 1)
				continue
			}
			if e := elems[k]; e == nil {
				b.WriteString("NULL")
			} else {
				b.WriteByte('"')
				b.WriteString(quote.Replace(*e))
				b.WriteByte('"')
			}
			k++
		}
		b.WriteByte('}')
	}
	write(0)
	return b.String()
}

// elementText is a binary array element's text, as the database's input function reads it.
func elementText(m *pgtype.Map, oid uint32, src []byte) (string, error) {
	switch oid {
	case pgtype.Float4OID, pgtype.Float8OID:
		f, err := scanAs[float64](m, oid, formatBinary, src)
		if err != nil {
			return "", err
		}
		switch {
		case math.IsNaN(f):
			return "NaN", nil
		case math.IsInf(f, 1):
			return "Infinity", nil
		case math.IsInf(f, -1):
			return "-Infinity", nil
		}
		bits := 64
		if oid == pgtype.Float4OID {
			bits = 32
		}
		return strconv.FormatFloat(f, 'g', -1, bits), nil
	case pgtype.BoolOID:
		b, err := scanAs[bool](m, oid, formatBinary, src)
		if b {
			return "t", err
		}
		return "f", err
	case pgtype.ByteaOID:
		return `\x` + hex.EncodeToString(src), nil
	}
	v, err := decodeValue(m, oid, formatBinary, src)
	if err != nil {
		return "", err
	}
	switch x := v.(type) {
	case string:
		return x, nil
	case int64:
		return strconv.FormatInt(x, 10), nil
	case time.Time:
		switch oid {
		case pgtype.DateOID:
			return x.Format("2006-01-02"), nil
		case pgtype.TimestampOID:
			return x.Format("2006-01-02 15:04:05.999999"), nil
		}
		return x.Format("2006-01-02 15:04:05.999999Z07:00"), nil
	}
	return "", fmt.Errorf("binary array elements of type OID %d are not supported; send the array as text", oid)
}
