package rowcanon

import (
	"encoding/binary"
	"math"
	"strings"

	"github.com/google/orderedcode"
)

// decodeValue reads one value from the front of b and returns the rest.
// It accepts exactly the bytes appendValue writes: any other input, and
// a value outside the model, is an error wrapping ErrInvalid.
func decodeValue(b []byte, inKey bool) (Value, []byte, error) {
	if len(b) == 0 {
		return Value{}, nil, invalid("missing value")
	}
	tag, rest := b[0], b[1:]
	switch tag {
	case tagNull:
		return Value{}, rest, nil
	case tagBool:
		if len(rest) < 1 || rest[0] > 1 {
			return Value{}, nil, invalid("bad bool")
		}
		return Bool(rest[0] == 1), rest[1:], nil
	case tagInt:
		x, rest, err := decodeInt64(rest)
		return Int(x), rest, err
	case tagNumeric:
		return decodeNumeric(rest)
	case tagFloat:
		return decodeFloat(rest, inKey)
	case tagText, tagJSON:
		return decodeText(tag, rest)
	case tagBytes:
		s, rest, err := decodeString(rest)
		return Bytes([]byte(s)), rest, err
	case tagDate, tagTimestamp:
		return decodeTime(tag, rest)
	case tagUUID:
		if len(rest) < 16 {
			return Value{}, nil, invalid("short uuid")
		}
		return UUID([16]byte(rest[:16])), rest[16:], nil
	}
	return Value{}, nil, invalid("unknown tag 0x%02x", tag)
}

func decodeInt64(b []byte) (int64, []byte, error) {
	if len(b) < 8 {
		return 0, nil, invalid("short integer")
	}
	return int64(binary.BigEndian.Uint64(b) ^ (1 << 63)), b[8:], nil
}

func decodeFloat(b []byte, inKey bool) (Value, []byte, error) {
	if len(b) < 8 {
		return Value{}, nil, invalid("short float")
	}
	bits := binary.BigEndian.Uint64(b)
	if bits&(1<<63) != 0 {
		bits &^= 1 << 63
	} else {
		bits = ^bits
	}
	f := math.Float64frombits(bits)
	if math.IsNaN(f) && bits != canonicalNaN {
		return Value{}, nil, invalid("non-canonical NaN %016x", bits)
	}
	if inKey && bits == 1<<63 {
		return Value{}, nil, invalid("float -0 in a key (a key holds 0)")
	}
	return Float(f), b[8:], nil
}

func decodeString(b []byte) (string, []byte, error) {
	var s string
	rest, err := orderedcode.Parse(string(b), &s)
	if err != nil {
		return "", nil, invalid("bad string: %v", err)
	}
	return s, b[len(b)-len(rest):], nil
}

func decodeText(tag byte, b []byte) (Value, []byte, error) {
	s, rest, err := decodeString(b)
	if err != nil {
		return Value{}, nil, err
	}
	var v Value
	if tag == tagText {
		v, err = Text(s)
	} else {
		v, err = JSON(s)
	}
	return v, rest, err
}

func decodeTime(tag byte, b []byte) (Value, []byte, error) {
	x, rest, err := decodeInt64(b)
	if err != nil {
		return Value{}, nil, err
	}
	var v Value
	if tag == tagDate {
		v, err = Date(x)
	} else {
		v, err = Timestamp(x)
	}
	return v, rest, err
}

// decodeNumeric reads a numeric's class and, for a non-zero value, its
// exponent and digits, which must be canonical (no leading or trailing
// zero digit).
func decodeNumeric(b []byte) (Value, []byte, error) {
	if len(b) < 1 {
		return Value{}, nil, invalid("short numeric")
	}
	class, rest := b[0], b[1:]
	switch class {
	case numZero:
		return Value{kind: KindNumeric, s: "0"}, rest, nil
	case numPositive, numNegative:
	default:
		return Value{}, nil, invalid("bad numeric class 0x%02x", class)
	}
	var flip byte
	if class == numNegative {
		flip = 0xFF
	}
	if len(rest) < 4 {
		return Value{}, nil, invalid("short numeric exponent")
	}
	exp := int64(int32(binary.BigEndian.Uint32(rest) ^ uint32(flip)*0x01010101 ^ (1 << 31)))
	rest = rest[4:]
	var digits strings.Builder
	for i := 0; i < len(rest); i++ {
		c := rest[i] ^ flip
		if c == numTerm {
			d := digits.String()
			if d == "" || d[0] == '0' || d[len(d)-1] == '0' {
				return Value{}, nil, invalid("non-canonical numeric digits %q", d)
			}
			v, err := numericOf(class == numNegative, d, exp)
			return v, rest[i+1:], err
		}
		if c < '0' || c > '9' {
			return Value{}, nil, invalid("bad numeric digit 0x%02x", c)
		}
		digits.WriteByte(c)
	}
	return Value{}, nil, invalid("unterminated numeric")
}
