package statedigest

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"golang.org/x/crypto/blake2b"
)

// Size is the byte length of a Sum: 1024 lanes of 16 bits.
const Size = 2048

// Sum is an LtHash16 checksum, lanes little endian. The zero value is the
// sum of the empty multiset.
type Sum [Size]byte

// expand is the element's 2048-byte BLAKE2b XOF output.
func expand(elem []byte) *[Size]byte {
	x, err := blake2b.NewXOF(Size, nil)
	if err != nil {
		panic(fmt.Sprintf("statedigest: blake2b XOF: %v", err)) // Size is a valid constant length
	}
	_, _ = x.Write(elem)
	var out [Size]byte
	if _, err := x.Read(out[:]); err != nil {
		panic(fmt.Sprintf("statedigest: blake2b XOF read: %v", err))
	}
	return &out
}

// Add adds one element.
func (s *Sum) Add(elem []byte) { s.addLanes(expand(elem), false) }

// Remove removes one element (that was added before).
func (s *Sum) Remove(elem []byte) { s.addLanes(expand(elem), true) }

// Combine adds every element of o.
func (s *Sum) Combine(o *Sum) { s.addLanes((*[Size]byte)(o), false) }

// Subtract removes every element of o.
func (s *Sum) Subtract(o *Sum) { s.addLanes((*[Size]byte)(o), true) }

func (s *Sum) addLanes(x *[Size]byte, negate bool) {
	for i := 0; i < Size; i += 2 {
		a := binary.LittleEndian.Uint16(s[i:])
		b := binary.LittleEndian.Uint16(x[i:])
		if negate {
			a -= b
		} else {
			a += b
		}
		binary.LittleEndian.PutUint16(s[i:], a)
	}
}

// IsZero reports whether s is the sum of the empty multiset.
func (s *Sum) IsZero() bool { return *s == Sum{} }

// Load reads a Sum from its stored bytes.
func Load(b []byte) (Sum, error) {
	var s Sum
	if len(b) != Size {
		return s, fmt.Errorf("statedigest: a stored sum has %d bytes, want %d", len(b), Size)
	}
	copy(s[:], b)
	return s, nil
}

// Row is the element of one row: its table's name and the backend's
// canonical image of the row, each length-prefixed.
func Row(table, image []byte) []byte {
	b := make([]byte, 0, len("relchain/row/v1")+len(table)+len(image)+2*binary.MaxVarintLen64)
	b = append(b, "relchain/row/v1"...)
	b = binary.AppendUvarint(b, uint64(len(table)))
	b = append(b, table...)
	b = binary.AppendUvarint(b, uint64(len(image)))
	return append(b, image...)
}

// Tables are the sums of a database's replicated tables by name.
type Tables map[string]*Sum

// Table returns t's sum for name, creating a zero one.
func (t Tables) Table(name string) *Sum {
	s, ok := t[name]
	if !ok {
		s = new(Sum)
		t[name] = s
	}
	return s
}

// Digest is the state digest: SHA-256 over "relchain/state/v1" and, in
// byte order of the names, every table's length-prefixed name and sum. A
// table with no rows still counts: its existence is state.
func (t Tables) Digest() []byte {
	names := make([]string, 0, len(t))
	for n := range t {
		names = append(names, n)
	}
	slices.Sort(names)
	h := sha256.New()
	h.Write([]byte("relchain/state/v1"))
	var n [binary.MaxVarintLen64]byte
	for _, name := range names {
		h.Write(n[:binary.PutUvarint(n[:], uint64(len(name)))])
		h.Write([]byte(name))
		h.Write(t[name][:])
	}
	return h.Sum(nil)
}

// Diff names the tables whose sums differ between want and got (present
// in one only, or with different sums), in byte order.
func Diff(want, got Tables) []string {
	var out []string
	for name, w := range want {
		if g, ok := got[name]; !ok || *g != *w {
			out = append(out, name)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// ErrMismatch is wrapped by verification failures.
var ErrMismatch = errors.New("state digest mismatch")
