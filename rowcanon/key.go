package rowcanon

import "fmt"

// keyEnd ends every key. No value's encoding starts with it, so no key is
// a proper prefix of another, whatever their lengths, and a tuple sorts
// before the tuples that extend it.
const keyEnd = 0x00

// EncodeKey is the key of a primary-key tuple: its values' encodings one
// after another, then keyEnd. bytes.Compare of two keys of one table is
// the SQL order of their tuples (PostgreSQL's, text in the C collation),
// and no key is a proper prefix of another. NULL and JSON (which has no
// order) are refused.
func EncodeKey(vals []Value) ([]byte, error) {
	if len(vals) == 0 {
		return nil, fmt.Errorf("encode key: %w", invalid("empty key"))
	}
	b := make([]byte, 0, 16*len(vals))
	for i, v := range vals {
		if err := keyKindAllowed(v.kind); err != nil {
			return nil, fmt.Errorf("encode key: column %d: %w", i+1, err)
		}
		b = appendValue(b, v, true)
	}
	return append(b, keyEnd), nil
}

func keyKindAllowed(k Kind) error {
	switch k {
	case KindNull:
		return invalid("NULL in a key")
	case KindJSON:
		return invalid("json has no order and cannot be in a key")
	}
	return nil
}

// DecodeKey is the tuple EncodeKey encoded into b. It accepts only what
// EncodeKey writes: EncodeKey(DecodeKey(b)) is b.
func DecodeKey(b []byte) ([]Value, error) {
	var vals []Value
	for len(b) > 0 && b[0] != keyEnd {
		v, rest, err := decodeValue(b, true)
		if err == nil {
			err = keyKindAllowed(v.kind)
		}
		if err != nil {
			return nil, fmt.Errorf("decode key: column %d: %w", len(vals)+1, err)
		}
		vals, b = append(vals, v), rest
	}
	switch {
	case len(b) == 0:
		return nil, fmt.Errorf("decode key: %w", invalid("no end byte"))
	case len(b) > 1:
		return nil, fmt.Errorf("decode key: %w", invalid("%d bytes after the end byte", len(b)-1))
	case len(vals) == 0:
		return nil, fmt.Errorf("decode key: %w", invalid("empty key"))
	}
	return vals, nil
}
