package rowcanon

import (
	"bytes"
	"math"
	"testing"
)

// FuzzDecodeKey: any bytes decode without a panic, and bytes that decode
// are the key of what they decode to (one key per tuple).
func FuzzDecodeKey(f *testing.F) {
	for _, s := range [][]byte{{}, {keyEnd}, {tagInt, 0x80, 0, 0, 0, 0, 0, 0, 1, keyEnd}, {tagNumeric, numNegative, 0x7f, 0xff, 0xff, 0xfe, 0xce, 0xff, keyEnd}, {tagText, 'a', 0, 0xff, 0, 1, keyEnd}} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		vals, err := DecodeKey(b)
		if err != nil {
			return
		}
		again, err := EncodeKey(vals)
		if err != nil || !bytes.Equal(again, b) {
			t.Fatalf("DecodeKey(%x) = %v, which encodes to %x, %v", b, vals, again, err)
		}
	})
}

// FuzzDecodeRow: the same for row images.
func FuzzDecodeRow(f *testing.F) {
	img, _ := EncodeRow("t", []Column{{"a", Int(1)}, {"b", Null()}, {"c", Float(math.Copysign(0, -1))}})
	f.Add(img)
	f.Fuzz(func(t *testing.T, b []byte) {
		table, cols, err := DecodeRow(b)
		if err != nil {
			return
		}
		again, err := EncodeRow(table, cols)
		if err != nil || !bytes.Equal(again, b) {
			t.Fatalf("DecodeRow(%x) = %s %v, which encodes to %x, %v", b, table, cols, again, err)
		}
	})
}

// FuzzKeyRoundTrip: decode(encode(x)) is x for tuples built from
// arbitrary inputs that the constructors accept.
func FuzzKeyRoundTrip(f *testing.F) {
	f.Add(int64(-1), 1.5, "1.50", "é", []byte{0, 0xff}, int64(0))
	f.Fuzz(func(t *testing.T, i int64, fl float64, num, txt string, raw []byte, when int64) {
		vals := []Value{Int(i), Float(fl), Bytes(raw)}
		if fl == 0 {
			vals[1] = Float(0)
		}
		if v, err := Numeric(num); err == nil {
			vals = append(vals, v)
		}
		if v, err := Text(txt); err == nil {
			vals = append(vals, v)
		}
		if v, err := Timestamp(when); err == nil {
			vals = append(vals, v)
		}
		if v, err := Date(when); err == nil {
			vals = append(vals, v)
		}
		key, err := EncodeKey(vals)
		if err != nil {
			t.Fatal(err)
		}
		got, err := DecodeKey(key)
		if err != nil || !sameValues(got, vals) {
			t.Fatalf("DecodeKey(EncodeKey(%v)) = %v, %v", vals, got, err)
		}
	})
}
