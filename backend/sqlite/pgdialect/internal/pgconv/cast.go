package pgconv

import (
	"math"
	"strconv"
	"strings"
)

// Context is where PostgreSQL applies a cast: implicitly (in an
// expression), on assignment (INSERT, UPDATE) or explicitly (CAST, ::).
type Context int

const (
	Implicit Context = iota
	Assignment
	Explicit
)

// category groups the supported types as PostgreSQL's casts treat them.
func category(t string) string {
	switch t {
	case "int2", "int4", "int8":
		return "int"
	case "float4", "float8":
		return "float"
	case "text", "varchar":
		return "string"
	case "date", "timestamp", "timestamptz":
		return "datetime"
	case "bpchar":
		return "string"
	}
	return t
}

// CastContext is the least context in which PostgreSQL casts src to dst
// among the supported types, and false when the dialect supports no such
// cast (PostgreSQL may have one the dialect refuses, float to text).
func CastContext(src, dst string) (Context, bool) {
	if IsArray(src) || IsArray(dst) {
		if src == "unknown" {
			return Implicit, true
		}
		return arrayCastContext(src, dst)
	}
	cs, cd := category(src), category(dst)
	switch {
	case src == dst || src == "unknown":
		return Implicit, true
	case cs == "int" && cd == "int":
		return widening(intBits(src) < intBits(dst)), true
	case cs == "int" && cd == "float", cs == "int" && cd == "numeric", cs == "numeric" && cd == "float":
		return Implicit, true
	case cs == "numeric" && cd == "int", cs == "float" && cd == "numeric":
		return Assignment, true
	case cs == "float" && cd == "float":
		return widening(src == "float4"), true
	case cs == "float" && cd == "int":
		return Assignment, true
	case cs == "string" && cd == "string":
		return Implicit, true
	case cs == "datetime" && cd == "datetime":
		return widening(src == "date" || (src == "timestamp" && dst == "timestamptz")), true
	case cd == "string" && src != "float4" && src != "float8":
		return Assignment, true
	case cs == "string":
		return Explicit, true
	case (src == "int4" && dst == "bool") || (src == "bool" && dst == "int4"):
		return Explicit, true
	case (src == "json" && dst == "jsonb") || (src == "jsonb" && dst == "json"):
		return Assignment, true
	}
	return Explicit, false
}

func widening(up bool) Context {
	if up {
		return Implicit
	}
	return Assignment
}

// Convert casts v, a value SQLite stores for type src, to dst (typmod
// as PostgreSQL's, -1 when none). v is nil, int64, float64, string or
// []byte; the result likewise. The caller has checked CastContext.
func Convert(v any, src, dst string, typmod int32, ctx Context) (any, error) {
	if v == nil {
		return nil, nil
	}
	if IsArray(src) || IsArray(dst) {
		return convertArray(v, src, dst, typmod, ctx)
	}
	if src == "numeric" || dst == "numeric" {
		return convertNumeric(v, src, dst, typmod, ctx)
	}
	if s, ok := v.(string); ok && category(dst) != "string" {
		return FromText(s, dst)
	}
	switch category(dst) {
	case "int":
		return toInt(v, dst)
	case "float":
		return toFloat(v, dst)
	case "string":
		s, err := ToText(v, src)
		if err != nil {
			return s, err
		}
		if src == "bpchar" && dst != "bpchar" {
			s = strings.TrimRight(s, " ") // bpchar to text drops trailing blanks
		}
		return CheckString(s, dst, typmod, ctx == Explicit)
	case "datetime":
		return ConvertDateTime(v.(string), src, dst)
	case "bool":
		return boolValue(v.(int64) != 0), nil
	}
	return v, nil
}

func boolValue(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func toInt(v any, dst string) (any, error) {
	switch x := v.(type) {
	case int64:
		return x, CheckInt(dst, x)
	case float64:
		r := math.RoundToEven(x)
		if math.IsNaN(r) || r < -9223372036854775808 || r >= 9223372036854775808 {
			return nil, OutOfRange(dst)
		}
		return int64(r), CheckInt(dst, int64(r))
	}
	return nil, Unsupported("this value's storage class")
}

func toFloat(v any, dst string) (any, error) {
	var f float64
	switch x := v.(type) {
	case int64:
		f = float64(x)
	case float64:
		f = x
	default:
		return nil, Unsupported("this value's storage class")
	}
	if dst == "float4" {
		return Float4(f)
	}
	return f, nil
}

// Float4 rounds f to single precision with PostgreSQL's overflow and
// underflow errors.
func Float4(f float64) (float64, error) {
	r := float64(float32(f))
	if math.IsInf(r, 0) && !math.IsInf(f, 0) {
		return 0, errorf("22003", "value out of range: overflow")
	}
	if r == 0 && f != 0 {
		return 0, errorf("22003", "value out of range: underflow")
	}
	return r, nil
}

// FromText is the input function of dst applied to s.
func FromText(s, dst string) (any, error) {
	switch category(dst) {
	case "int":
		return ParseInt(dst, s)
	case "float":
		return ParseFloat(dst, s)
	case "bool":
		b, err := ParseBool(s)
		return boolValue(b), err
	case "bytea":
		return ParseBytea(s)
	case "datetime":
		return ParseDateTime(dst, s)
	case "json":
		if _, err := ParseJSON(s, false); err != nil {
			return nil, err
		}
		return s, nil
	case "jsonb":
		j, err := ParseJSON(s, true)
		if err != nil {
			return nil, err
		}
		return j.JSONBText(), nil
	case "uuid":
		return ParseUUID(s)
	}
	return s, nil
}

// ToText is the output function of src applied to v.
func ToText(v any, src string) (string, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case []byte:
		return ByteaText(x), nil
	case int64:
		if src == "bool" {
			return map[bool]string{true: "true", false: "false"}[x != 0], nil
		}
		return strconv.FormatInt(x, 10), nil
	}
	return "", Unsupported("the text form of a floating-point value")
}

// CheckString applies a string type's length rule to s: varchar(n) and
// char(n) (bpchar with a typmod, blank-padded to n), text as it is.
func CheckString(s, dst string, typmod int32, explicit bool) (string, error) {
	switch dst {
	case "varchar":
		return CheckVarchar(s, int(typmod)-4, explicit)
	case "bpchar":
		return CheckBpchar(s, int(typmod)-4, explicit)
	}
	return s, nil
}

// convertNumeric is Convert where src or dst is numeric; a numeric is
// held in its stored form (EncodeNumeric).
func convertNumeric(v any, src, dst string, typmod int32, ctx Context) (any, error) {
	var n Numeric
	var err error
	switch x := v.(type) {
	case int64:
		n = NumericFromInt(x)
	case float64:
		n, err = NumericFromFloat(x, src == "float4")
	case string:
		if src == "numeric" {
			n, err = DecodeNumeric(x)
			if err == nil && category(dst) == "numeric" && keepsStoredForm(x, n, typmod) {
				return x, nil
			}
		} else {
			n, err = ParseNumeric(x)
		}
	default:
		return nil, Unsupported("this value's storage class")
	}
	if err != nil {
		return nil, err
	}
	switch category(dst) {
	case "numeric":
		n, err = n.ApplyTypmod(typmod)
		if err != nil {
			return nil, err
		}
		return EncodeNumeric(n), nil
	case "int":
		return n.Int(dst)
	case "float":
		return n.Float(dst == "float4")
	case "string":
		return CheckString(n.Text(), dst, typmod, ctx == Explicit)
	}
	return nil, Unsupported("the cast from numeric to " + Label(dst))
}

// keepsStoredForm reports whether a numeric stored as x (decoded n) is
// its own result under typmod: ApplyTypmod leaves its value, display
// scale and range alone and EncodeNumeric would give x back, so the cast
// or assignment can return x without rounding and re-encoding it (every
// numeric column's assignment does this; TestKeepsStoredFormMatchesConversion
// holds it to the full path).
func keepsStoredForm(x string, n Numeric, typmod int32) bool {
	if !canonicalStoredNumeric(x) {
		return false
	}
	if typmod < 4 {
		return true
	}
	p, s := NumericPrecisionScale(typmod)
	if n.Scale != s || s > numericMaxScale || int64(n.D.Exponent) < -int64(s) {
		return false
	}
	d := intDigits(n.D)
	return d <= int64(p-s) && d <= numericMaxWeight
}

// canonicalStoredNumeric reports whether x, a text DecodeNumeric reads,
// is the text EncodeNumeric writes for the value: six plain exponent
// digits and significant digits with no leading or trailing zero (nine in
// the complement of a negative's).
func canonicalStoredNumeric(x string) bool {
	key := strings.TrimRight(x, " ")
	if key == "2" {
		return true
	}
	if len(key) < 8 || !allDigits(key[1:7]) {
		return false
	}
	digits, zero := key[7:], byte('0')
	if key[0] == '1' {
		if key[len(key)-1] != '~' {
			return false
		}
		digits, zero = digits[:len(digits)-1], '9'
	}
	return digits != "" && digits[0] != zero && digits[len(digits)-1] != zero
}
