package pgconv

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Error is a conversion's failure with PostgreSQL's SQLSTATE.
type Error struct {
	Code    string
	Message string
}

func (e *Error) Error() string { return e.Message }

func errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Unsupported is the refusal of a value the dialect cannot represent
// exactly (NaN, BC dates ...).
func Unsupported(what string) *Error {
	return errorf("0A000", "the postgres dialect on SQLite does not support %s", what)
}

// typeLabel is how PostgreSQL's messages name a type.
var typeLabel = map[string]string{
	"int2": "smallint", "int4": "integer", "int8": "bigint", "float4": "real",
	"float8": "double precision", "bool": "boolean", "text": "text", "varchar": "character varying",
	"bytea": "bytea", "date": "date", "timestamp": "timestamp without time zone",
	"timestamptz": "timestamp with time zone", "json": "json", "numeric": "numeric", "bpchar": "character",
	"jsonb": "jsonb", "uuid": "uuid",
}

// Label is the name PostgreSQL's messages give type name.
func Label(name string) string {
	if IsArray(name) {
		return Label(Elem(name)) + "[]"
	}
	if l, ok := typeLabel[name]; ok {
		return l
	}
	return name
}

func invalidInput(typ, s string) *Error {
	label := Label(typ)
	if typ == "int2" || typ == "int4" || typ == "int8" {
		label = map[string]string{"int2": "smallint", "int4": "integer", "int8": "bigint"}[typ]
	}
	return errorf("22P02", "invalid input syntax for type %s: %q", label, s)
}

// intBits is the width of an integer type, 0 for others.
func intBits(typ string) int {
	switch typ {
	case "int2":
		return 16
	case "int4":
		return 32
	case "int8":
		return 64
	}
	return 0
}

// OutOfRange is PostgreSQL's error for an integer result outside typ.
func OutOfRange(typ string) *Error {
	return errorf("22003", "%s out of range", Label(typ))
}

// CheckInt checks that v fits the integer type typ.
func CheckInt(typ string, v int64) error {
	bits := intBits(typ)
	if bits == 64 {
		return nil
	}
	lim := int64(1) << (bits - 1)
	if v < -lim || v >= lim {
		return OutOfRange(typ)
	}
	return nil
}

func isSpace(r byte) bool {
	return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\v' || r == '\f'
}

func trimSpace(s string) string {
	i, j := 0, len(s)
	for i < j && isSpace(s[i]) {
		i++
	}
	for j > i && isSpace(s[j-1]) {
		j--
	}
	return s[i:j]
}

// ParseInt is PostgreSQL 15's integer input: optional spaces, a sign and
// decimal digits.
func ParseInt(typ, s string) (int64, error) {
	t := trimSpace(s)
	digits := strings.TrimLeft(t, "+-")
	if len(t)-len(digits) > 1 || digits == "" || strings.IndexFunc(digits, func(r rune) bool { return r < '0' || r > '9' }) >= 0 {
		return 0, invalidInput(typ, s)
	}
	v, err := strconv.ParseInt(t, 10, 64)
	if err != nil {
		return 0, errorf("22003", "value %q is out of range for type %s", s, Label(typ))
	}
	if CheckInt(typ, v) != nil {
		return 0, errorf("22003", "value %q is out of range for type %s", s, Label(typ))
	}
	return v, nil
}

// ParseFloat is float4/float8 input for decimal text and infinities; NaN
// (which SQLite cannot store) and hexadecimal forms are refused.
func ParseFloat(typ, s string) (float64, error) {
	t := strings.ToLower(trimSpace(s))
	switch strings.TrimLeft(t, "+-") {
	case "inf", "infinity":
		if strings.HasPrefix(t, "-") {
			return math.Inf(-1), nil
		}
		return math.Inf(1), nil
	case "nan":
		return 0, Unsupported("NaN")
	}
	if t == "" || strings.ContainsAny(t, "xp_") || strings.ContainsAny(t[len(t)-1:], "+-e") {
		return 0, invalidInput(typ, s)
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil && !strings.Contains(err.Error(), "range") {
		return 0, invalidInput(typ, s)
	}
	if err != nil || (typ == "float4" && math.Abs(v) > math.MaxFloat32) {
		return 0, errorf("22003", "%q is out of range for type %s", s, Label(typ))
	}
	if typ == "float4" {
		v = float64(float32(v))
	}
	return v, nil
}

// boolWords are boolin's words; a unique prefix of one is accepted
// ("o" alone is ambiguous).
var boolWords = []struct {
	word string
	val  bool
	min  int
}{{"true", true, 1}, {"false", false, 1}, {"yes", true, 1}, {"no", false, 1}, {"on", true, 2}, {"off", false, 2}, {"1", true, 1}, {"0", false, 1}}

// ParseBool is boolin.
func ParseBool(s string) (bool, error) {
	t := strings.ToLower(trimSpace(s))
	for _, w := range boolWords {
		if len(t) >= w.min && len(t) <= len(w.word) && strings.HasPrefix(w.word, t) {
			return w.val, nil
		}
	}
	return false, errorf("22P02", "invalid input syntax for type boolean: %q", s)
}

// ParseBytea is byteain: hex format (\x...) or escape format.
func ParseBytea(s string) ([]byte, error) {
	if strings.HasPrefix(s, `\x`) {
		return parseHexBytea(s[2:])
	}
	var out []byte
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] != '\\':
			out = append(out, s[i])
		case i+1 < len(s) && s[i+1] == '\\':
			out = append(out, '\\')
			i++
		case i+3 < len(s) && isOctal(s[i+1]) && s[i+1] <= '3' && isOctal(s[i+2]) && isOctal(s[i+3]):
			out = append(out, (s[i+1]-'0')<<6|(s[i+2]-'0')<<3|(s[i+3]-'0'))
			i += 3
		default:
			return nil, errorf("22P02", "invalid input syntax for type bytea")
		}
	}
	return out, nil
}

func isOctal(c byte) bool { return c >= '0' && c <= '7' }

func parseHexBytea(s string) ([]byte, error) {
	out := []byte{}
	for i := 0; i < len(s); {
		if isSpace(s[i]) {
			i++
			continue
		}
		hi, ok1 := hexVal(s[i])
		if !ok1 {
			return nil, errorf("22023", "invalid hexadecimal digit: %q", s[i:i+1])
		}
		if i+1 >= len(s) {
			return nil, errorf("22023", "invalid hexadecimal data: odd number of digits")
		}
		lo, ok2 := hexVal(s[i+1])
		if !ok2 {
			return nil, errorf("22023", "invalid hexadecimal digit: %q", s[i+1:i+2])
		}
		out = append(out, hi<<4|lo)
		i += 2
	}
	return out, nil
}

func hexVal(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// ByteaText is byteaout in hex format.
func ByteaText(b []byte) string {
	return `\x` + fmt.Sprintf("%x", b)
}

// CheckVarchar applies varchar(n)'s length rule: an assignment errs
// (22001) when the value is longer unless only spaces are cut; an explicit
// cast truncates.
func CheckVarchar(s string, n int, explicit bool) (string, error) {
	if n < 0 || utf8.RuneCountInString(s) <= n {
		return s, nil
	}
	cut := 0
	for i := range s {
		if cut == n {
			if explicit || strings.Trim(s[i:], " ") == "" {
				return s[:i], nil
			}
			break
		}
		cut++
	}
	return "", errorf("22001", "value too long for type character varying(%d)", n)
}

// CheckBpchar applies char(n)'s length rule: a shorter value is padded
// with spaces to n characters; a longer one errs on assignment (22001)
// unless only spaces are cut, and is truncated by an explicit cast.
func CheckBpchar(s string, n int, explicit bool) (string, error) {
	if n < 0 {
		return s, nil
	}
	count := utf8.RuneCountInString(s)
	if count <= n {
		return s + strings.Repeat(" ", n-count), nil
	}
	cut := 0
	for i := range s {
		if cut == n {
			if explicit || strings.Trim(s[i:], " ") == "" {
				return s[:i], nil
			}
			break
		}
		cut++
	}
	return "", errorf("22001", "value too long for type character(%d)", n)
}

// typeNames are the type names typeLabel knows, and "unknown", each
// mapped to itself (TypeName's interned copies).
var typeNames = func() map[string]string {
	m := map[string]string{"unknown": "unknown"}
	for name := range typeLabel {
		m[name] = name
	}
	return m
}()

// TypeName is the type name raw spells, as a string: a known name without
// a copy (the runtime functions read their type-name arguments on every
// row; indexing a map by string(raw) does not allocate), any other by one.
func TypeName(raw []byte) string {
	if name, ok := typeNames[string(raw)]; ok {
		return name
	}
	return string(raw)
}
