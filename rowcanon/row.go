package rowcanon

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// Version is the version of the row image format, its first byte.
const Version = 1

// Column is one column of a row: its name and value.
type Column struct {
	Name  string
	Value Value
}

// EncodeRow is the canonical image of one row of table: the version
// byte, the table's name, then every column sorted by name, each a name
// and a value. Names and values are length-prefixed (u32, big-endian),
// so no two different rows share an image. The caller's column order
// does not matter; names must be valid UTF-8 and unique.
func EncodeRow(table string, cols []Column) ([]byte, error) {
	if err := checkName(table); err != nil {
		return nil, fmt.Errorf("encode row: table: %w", err)
	}
	sorted := slices.Clone(cols)
	slices.SortFunc(sorted, func(a, b Column) int { return strings.Compare(a.Name, b.Name) })
	size := 1 + 4 + len(table) + 4
	for i, c := range sorted {
		if err := checkName(c.Name); err != nil {
			return nil, fmt.Errorf("encode row %s: column %d: %w", table, i+1, err)
		}
		if i > 0 && sorted[i-1].Name == c.Name {
			return nil, fmt.Errorf("encode row %s: %w", table, invalid("column %q twice", c.Name))
		}
		size += 4 + len(c.Name) + 4 + 16
	}
	b := make([]byte, 0, size)
	b = append(b, Version)
	b = appendBlock(b, []byte(table))
	b = binary.BigEndian.AppendUint32(b, uint32(len(sorted)))
	for _, c := range sorted {
		b = appendBlock(b, []byte(c.Name))
		at := len(b) // the value's length, patched once it is written
		b = appendValue(append(b, 0, 0, 0, 0), c.Value, false)
		binary.BigEndian.PutUint32(b[at:], uint32(len(b)-at-4))
	}
	return b, nil
}

func checkName(s string) error {
	if s == "" || !utf8.ValidString(s) {
		return invalid("name %q is empty or not valid UTF-8", s)
	}
	return nil
}

// appendBlock is len(p) as u32 big-endian, then p.
func appendBlock(b, p []byte) []byte {
	return append(binary.BigEndian.AppendUint32(b, uint32(len(p))), p...)
}

// LeafHash is SHA-256 of a row image: the value of the row's leaf in the
// authenticated state.
func LeafHash(image []byte) [32]byte { return sha256.Sum256(image) }

// DecodeRow reads a row image back. It accepts only what EncodeRow
// writes: EncodeRow of its result is image.
func DecodeRow(image []byte) (table string, cols []Column, err error) {
	r := reader{b: image}
	if v := r.u8(); v != Version {
		return "", nil, fmt.Errorf("decode row: %w", invalid("version %d, want %d", v, Version))
	}
	table = string(r.block())
	n := r.u32()
	if r.err == nil && uint64(n) > uint64(len(image))/9 { // a column takes 9 bytes or more
		return "", nil, fmt.Errorf("decode row: %w", invalid("%d columns in %d bytes", n, len(image)))
	}
	for i := uint32(0); i < n && r.err == nil; i++ {
		name := string(r.block())
		v, rest, err := decodeValue(r.block(), false)
		if r.err == nil && (err != nil || len(rest) != 0) {
			r.err = fmt.Errorf("column %d: value: %w", i+1, orTrailing(err))
		}
		cols = append(cols, Column{Name: name, Value: v})
	}
	if r.err == nil && len(r.b) != 0 {
		r.err = invalid("%d bytes after the last column", len(r.b))
	}
	if r.err != nil {
		return "", nil, fmt.Errorf("decode row: %w", r.err)
	}
	return table, cols, checkRowCanonical(image, table, cols)
}

func orTrailing(err error) error {
	if err != nil {
		return err
	}
	return invalid("bytes after the value")
}

// checkRowCanonical re-encodes a decoded row: names out of order, twice,
// or not UTF-8 make the image one EncodeRow never writes.
func checkRowCanonical(image []byte, table string, cols []Column) error {
	again, err := EncodeRow(table, cols)
	if err != nil {
		return fmt.Errorf("decode row: %w", err)
	}
	if string(again) != string(image) {
		return fmt.Errorf("decode row: %w", invalid("columns not in canonical order"))
	}
	return nil
}

// reader reads an image; its first error sticks and later reads give
// zero values.
type reader struct {
	b   []byte
	err error
}

func (r *reader) take(n int) []byte {
	if r.err != nil {
		return nil
	}
	if len(r.b) < n {
		r.err = invalid("image ends early")
		return nil
	}
	p := r.b[:n]
	r.b = r.b[n:]
	return p
}

func (r *reader) u8() byte {
	if p := r.take(1); p != nil {
		return p[0]
	}
	return 0
}

func (r *reader) u32() uint32 {
	if p := r.take(4); p != nil {
		return binary.BigEndian.Uint32(p)
	}
	return 0
}

func (r *reader) block() []byte {
	n := r.u32()
	if r.err == nil && uint64(n) > uint64(len(r.b)) {
		r.err = invalid("block of %d bytes in %d", n, len(r.b))
		return nil
	}
	return r.take(int(n))
}
